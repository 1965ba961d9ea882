"""Property tests of the layout ops on random shapes and arguments: values equal numpy's,
and, the ops being linear, the gradient is their adjoint: <op(x), w> == <x, grad>, where
grad is the tape's gradient of sum(op(x) * w)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph.tf as tf

SETTINGS = settings(max_examples=40, deadline=None, database=None)

_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def _layout_case(draw):
    """(tf function, numpy reference, shape) of one random layout op."""
    shape = draw(_shapes)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    kind = draw(st.sampled_from(["pad", "roll", "reverse", "repeat", "split", "slice"]))
    if kind == "pad":
        mode = draw(st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]))
        limit = {"CONSTANT": 3, "REFLECT": None, "SYMMETRIC": None}[mode]
        pads = []
        for d in shape:
            most = limit if limit is not None else (d - 1 if mode == "REFLECT" else d)
            pads.append([draw(st.integers(0, most)), draw(st.integers(0, most))])
        return (lambda x: tf.pad(x, pads, mode),
                lambda x: np.pad(x, pads, mode.lower()), shape)
    if kind == "roll":
        shift = draw(st.integers(-5, 5))
        return (lambda x: tf.roll(x, shift, axis),
                lambda x: np.roll(x, shift, axis), shape)
    if kind == "reverse":
        return lambda x: tf.reverse(x, [axis]), lambda x: np.flip(x, axis), shape
    if kind == "repeat":
        counts = draw(st.one_of(st.integers(0, 3),
                                st.lists(st.integers(0, 3), min_size=shape[axis],
                                         max_size=shape[axis])))
        return (lambda x: tf.repeat(x, counts, axis=axis),
                lambda x: np.repeat(x, counts, axis=axis), shape)
    if kind == "split":
        cut = draw(st.integers(0, shape[axis]))
        part = draw(st.integers(0, 1))
        return (lambda x: tf.split(x, [cut, -1], axis=axis)[part],
                lambda x: np.split(x, [cut], axis=axis)[part], shape)
    begin = [draw(st.integers(0, d - 1)) for d in shape]
    size = [draw(st.integers(-1, d - b)) for d, b in zip(shape, begin)]
    size = [s if s != 0 else -1 for s in size]
    return (lambda x: tf.slice(x, begin, size),
            lambda x: x[tuple(np.s_[b:] if s == -1 else np.s_[b:b + s]
                              for b, s in zip(begin, size))], shape)


@pytest.mark.property
@SETTINGS
@given(_layout_case(), st.integers(0, 2**31))
def test_layout_ops_match_numpy_and_their_gradient_is_the_adjoint(case, seed):
    fn, reference, shape = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    out = fn(tf.constant(x))
    want = reference(x)
    np.testing.assert_array_equal(out.numpy(), want)
    w = rng.standard_normal(want.shape)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_sum(fn(xt) * w)
    grad = tape.gradient(y, xt)
    grad = np.zeros_like(x) if grad is None else grad.numpy()
    np.testing.assert_allclose(np.sum(want * w), np.sum(x * grad), rtol=1e-9, atol=1e-9)

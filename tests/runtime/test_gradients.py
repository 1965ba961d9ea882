"""GradientTape: every gradient rule against central finite differences (float64), the tape's
semantics, gradients through Function calls, cond and while ops, and a tape used inside a
tf.function training step.

Each rule is checked three ways (`MODES`): with an eager tape, through an eagerly called
Function (the call is one tape record whose gradient runs a gradient function), and with
the tape inside a tf.function (the gradient is built as graph nodes and compiled).
"""

import numpy as np
import pytest

import autograph.tf as tf
from runtime import context
from runtime.gradients import GradientTape, UnconnectedGradients

MODES = ("eager", "function_call", "tape_in_function")


def _numeric_grads(f, arrays, eps=1e-6):
    """Central finite differences of the scalar f(*arrays) with respect to each array."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (f(*plus) - f(*minus)) / (2 * eps)
        grads.append(g)
    return grads


def _weighted(fn, weights):
    """The scalar sum(fn(*xs) * w) for a fixed random w: its gradient is a vector-Jacobian
    product, which exercises every output element."""
    def scalar(*xs):
        out = fn(*xs)
        return tf.reduce_sum(out * tf.constant(weights))
    return scalar


def tape_grads(scalar_fn, arrays, mode):
    """The tape's gradients of scalar_fn(*tensors) in `mode`."""
    if mode == "eager":
        xs = [tf.constant(a) for a in arrays]
        with GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = scalar_fn(*xs)
        return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]
    if mode == "function_call":
        f = tf.function(scalar_fn, autograph=False)
        xs = [tf.constant(a) for a in arrays]
        with GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]

    @tf.function(autograph=False)
    def step(*xs):
        with GradientTape() as tape:
            tape.watch(list(xs))
            y = scalar_fn(*xs)
        grads = tape.gradient(y, list(xs))
        return [g if g is not None else tf.constant(np.nan) for g in grads]
    xs = [tf.constant(a) for a in arrays]
    return [g.numpy() for g in step(*xs)]


def check_rule(fn, *arrays, mode="eager", rtol=1e-5, atol=1e-7, seed=0):
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, size=out.shape)
    scalar = _weighted(fn, weights)
    got = tape_grads(scalar, arrays, mode)
    want = _numeric_grads(lambda *a: float(scalar(*[tf.constant(b) for b in a])), arrays)
    for g, w in zip(got, want):
        assert g is not None
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


_rng = np.random.default_rng(42)


def _u(*shape, lo=-1.0, hi=1.0):
    return _rng.uniform(lo, hi, size=shape)


def _pos(*shape):
    return _rng.uniform(0.5, 2.0, size=shape)


CASES = {
    # binary, with broadcasting
    "add": (lambda x, y: x + y, _u(3, 1), _u(4)),
    "sub": (lambda x, y: x - y, _u(2, 3), _u(3)),
    "mul": (lambda x, y: x * y, _u(3, 4), _u(1, 4)),
    "div": (lambda x, y: x / y, _u(2, 3), _pos(2, 1)),
    "pow": (lambda x, y: tf.pow(x, y), _pos(3), _u(3)),
    "maximum": (tf.maximum, np.array([0.1, 0.9, -0.5]), np.array([0.5, 0.2, -0.1])),
    "minimum": (tf.minimum, np.array([0.1, 0.9, -0.5]), np.array([0.5, 0.2, -0.1])),
    "squared_difference": (tf.math.squared_difference, _u(2, 2), _u(2)),
    "floormod": (tf.math.floormod, np.array([2.3, -1.7, 5.2]), np.array([1.1, 0.9, 2.0])),
    "scalar_times": (lambda x: 3.0 * x - x / 2.0, _u(4)),
    # unary
    "neg": (lambda x: -x, _u(3)),
    "abs": (tf.abs, np.array([0.5, -0.3, 1.2])),
    "square": (tf.square, _u(3)),
    "sqrt": (tf.sqrt, _pos(3)),
    "rsqrt": (tf.math.rsqrt, _pos(3)),
    "reciprocal": (tf.math.reciprocal, _pos(3)),
    "exp": (tf.exp, _u(3)),
    "expm1": (tf.math.expm1, _u(3)),
    "log": (tf.math.log, _pos(3)),
    "log1p": (tf.math.log1p, _pos(3)),
    "tanh": (tf.tanh, _u(3)),
    "sigmoid": (tf.sigmoid, _u(3)),
    "softplus": (tf.math.softplus, _u(3)),
    "relu": (tf.nn.relu, np.array([0.5, -0.3, 1.2, -2.0])),
    "sin": (tf.math.sin, _u(3)),
    "cos": (tf.math.cos, _u(3)),
    "tan": (tf.math.tan, _u(3)),
    "sinh": (tf.math.sinh, _u(3)),
    "cosh": (tf.math.cosh, _u(3)),
    # reductions
    "sum_all": (tf.reduce_sum, _u(2, 3)),
    "sum_axis": (lambda x: tf.reduce_sum(x, axis=1), _u(2, 3)),
    "sum_keepdims": (lambda x: tf.reduce_sum(x, axis=[0, 2], keepdims=True), _u(2, 3, 2)),
    "mean_all": (tf.reduce_mean, _u(2, 3)),
    "mean_axis": (lambda x: tf.reduce_mean(x, axis=-1), _u(2, 3)),
    "max_axis": (lambda x: tf.reduce_max(x, axis=0), _u(3, 4)),
    "min_all": (tf.reduce_min, _u(3, 4)),
    "prod_axis": (lambda x: tf.reduce_prod(x, axis=1), _u(2, 3)),
    "prod_with_zero": (tf.reduce_prod, np.array([0.0, 2.0, 3.0])),
    "cumsum": (lambda x: tf.math.cumsum(x, axis=1), _u(2, 3)),
    "cumsum_exclusive_reverse": (lambda x: tf.math.cumsum(x, exclusive=True, reverse=True),
                                 _u(4)),
    # matmul
    "matmul": (tf.matmul, _u(2, 3), _u(3, 4)),
    "matmul_transpose_a": (lambda a, b: tf.matmul(a, b, transpose_a=True), _u(3, 2), _u(3, 4)),
    "matmul_transpose_b": (lambda a, b: tf.matmul(a, b, transpose_b=True), _u(2, 3), _u(4, 3)),
    "matmul_transpose_both": (lambda a, b: tf.matmul(a, b, transpose_a=True,
                                                     transpose_b=True), _u(3, 2), _u(4, 3)),
    "matmul_batch_broadcast": (tf.matmul, _u(2, 2, 3), _u(3, 2)),
    "matmul_operator": (lambda a, b: a @ b, _u(2, 2), _u(2, 3)),
    # n-ary and misc
    "add_n": (lambda x, y: tf.add_n([x, y, x]), _u(2, 2), _u(2, 2)),
    "clip_by_value": (lambda x, lo, hi: tf.clip_by_value(x, lo, hi),
                      np.array([-2.0, 0.3, 2.0, 0.7]), np.array(-1.0), np.array(1.0)),
    "softmax": (tf.nn.softmax, _u(2, 4)),
    "log_softmax": (tf.nn.log_softmax, _u(2, 4)),
    # array ops
    "identity": (tf.identity, _u(3)),
    "reshape": (lambda x: tf.reshape(x, [3, 2]), _u(2, 3)),
    "reshape_wildcard": (lambda x: tf.reshape(x, [-1]), _u(2, 3)),
    "transpose": (lambda x: tf.transpose(x, [1, 2, 0]), _u(2, 3, 4)),
    "transpose_default": (tf.transpose, _u(2, 3)),
    "expand_dims": (lambda x: tf.expand_dims(x, 1), _u(2, 3)),
    "squeeze": (lambda x: tf.squeeze(x, [1]), _u(2, 1, 3)),
    "concat": (lambda x, y: tf.concat([x, y, x], axis=1), _u(2, 2), _u(2, 3)),
    "concat_axis0": (lambda x, y: tf.concat([x, y], axis=0), _u(1, 3), _u(2, 3)),
    "stack": (lambda x, y: tf.stack([x, y], axis=1), _u(2, 3), _u(2, 3)),
    "stack_one": (lambda x: tf.stack([x], axis=1) * 2.0, _u(2, 3)),
    "unstack": (lambda x: tf.unstack(x)[0] * 2.0 + tf.unstack(x)[2], _u(3, 2)),
    "tile": (lambda x: tf.tile(x, [2, 3]), _u(2, 2)),
    "broadcast_to": (lambda x: tf.broadcast_to(x, [3, 2, 4]), _u(2, 1)),
    "gather": (lambda x: tf.gather(x, [2, 0, 2]), _u(4, 2)),
    "gather_axis1": (lambda x: tf.gather(x, [[1, 1], [0, 2]], axis=1), _u(2, 3)),
    "where": (lambda x, y: tf.where(x > 0, x * 2.0, y), _u(4), _u(1)),
    "slice": (lambda x: x[1:, ::2], _u(3, 5)),
    "index": (lambda x: x[1] * x[-1], _u(3, 2)),
    "newaxis_ellipsis": (lambda x: x[..., None, 1], _u(2, 3)),
    "fill": (lambda v: tf.fill([2, 3], v), np.array(1.5)),
    "ones_like_times": (lambda x: tf.ones_like(x) * x, _u(3)),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_matches_finite_differences(name, mode):
    fn, *arrays = CASES[name]
    check_rule(fn, *arrays, mode=mode)


def test_every_core_op_declares_a_gradient_or_none():
    """Every op of the core op modules has a rule or is declared non-differentiable."""
    from runtime import subgraphs, variables
    from runtime.function import CALL_OP
    from runtime.ops import (
        array_ops,
        io_ops,
        linalg_ops,
        manipulation_ops,
        math_ops,
        nn_random_ops,
        reduction_ops,
        selection_ops,
        slicing,
    )
    ops = dict(math_ops.OPS, **array_ops.OPS)
    ops.update(manipulation_ops.OPS)
    ops.update(reduction_ops.OPS)
    ops.update(linalg_ops.OPS)
    ops.update(selection_ops.OPS)
    ops.update(slicing.OPS)
    ops.update(nn_random_ops.OPS)
    ops.update(variables.OPS)
    ops.update(io_ops.OPS)
    ops.update({op.name: op for op in list(subgraphs.IF_OPS.values()) +
                list(subgraphs.WHILE_OPS.values()) + [CALL_OP]})
    missing = sorted(name for name, op in ops.items()
                     if op.grad is None and name not in ("Placeholder", "Const"))
    assert missing == []


# -- tape semantics ------------------------------------------------------------------------------


def test_watch_a_constant():
    x = tf.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_constant_gets_none():
    x = tf.constant(3.0)
    with GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_trainable_variables_are_watched_when_read():
    v = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with GradientTape() as tape:
        y = v * v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 20.0
    assert gf is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_off():
    v = tf.Variable(2.0)
    w = tf.Variable(3.0)
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None
    assert float(gw) == 2.0
    assert tape.watched_variables() == (w,)


def test_variable_gradient_sums_over_reads():
    v = tf.Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = tf.reduce_sum(v * 3.0) + tf.reduce_sum(tf.square(v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [5.0, 7.0])


def test_non_persistent_second_call_raises():
    x = tf.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_computes_several_gradients():
    x = tf.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 4.0
    assert float(tape.gradient(z, x)) == 12.0
    assert float(tape.gradient(z, y)) == 2.0  # with respect to an intermediate


def test_stop_recording():
    x = tf.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * x * x
        total = y + z
    assert float(tape.gradient(total, x)) == 4.0


def test_stop_recording_outside_the_block_raises():
    tape = GradientTape()
    with pytest.raises(ValueError):
        with tape.stop_recording():
            pass


def test_stop_gradient():
    x = tf.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x)
    assert float(tape.gradient(y, x)) == 2.0


def test_unconnected_sources_get_none_or_zero():
    x = tf.constant(2.0)
    u = tf.constant([1.0, 2.0])
    v = tf.Variable([1.0, 1.0])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 3.0
    assert tape.gradient(y, [u, v]) == [None, None]
    zeros = tape.gradient(y, [u, v], unconnected_gradients=UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros[0].numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(zeros[1].numpy(), [0.0, 0.0])


def test_nested_lists_of_sources_keep_their_structure():
    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.Variable(3.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        y = a * b * c
    grads = tape.gradient(y, {"ab": [a, (b,)], "c": c})
    assert float(grads["ab"][0]) == 6.0
    assert float(grads["ab"][1][0]) == 3.0
    assert float(grads["c"]) == 2.0


def test_output_gradients_weight_the_target():
    x = tf.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 1.0]))
    np.testing.assert_allclose(g.numpy(), [20.0, 4.0])


def test_several_targets_are_summed():
    x = tf.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        a = x * x
        b = x * 3.0
    assert float(tape.gradient([a, b], x)) == 7.0


def test_integer_sources_and_targets_get_none():
    i = tf.constant(3)
    x = tf.constant(2.0)
    with GradientTape() as tape:
        tape.watch([i, x])
        y = tf.cast(i, tf.float32) * x
    gi, gx = tape.gradient(y, [i, x])
    assert gi is None
    assert float(gx) == 3.0
    with GradientTape() as tape2:
        tape2.watch(i)
        k = i * 2
    assert tape2.gradient(k, i) is None


def test_cast_between_floats_passes_the_gradient_and_to_int_stops_it():
    x = tf.constant([1.5, 2.5], tf.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.cast(x, tf.float32) * 2.0
        z = tf.cast(tf.cast(x, tf.int32), tf.float64)
    g = tape.gradient(y, x)
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    assert tape.gradient(z, x) is None


def test_non_differentiable_ops_give_none():
    x = tf.constant([1.3, 2.7])
    with GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.floor(x)) + tf.cast(tf.argmax(x), tf.float32)
    assert tape.gradient(y, x) is None


def _py_function_gradient_under(outer, x):
    """The gradient of a py_function, computed while `outer` records: an EagerPyFuncGrad
    op, which has no gradient rule itself."""
    with GradientTape() as inner:
        inner.watch(x)
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
    return inner.gradient(y, x)


def test_missing_rule_raises_lookup_error_naming_the_op():
    x = tf.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        dy = _py_function_gradient_under(tape, x)
    with pytest.raises(LookupError, match="EagerPyFuncGrad"):
        tape.gradient(dy, x)


def test_missing_rule_off_the_path_is_not_an_error():
    x = tf.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        _py_function_gradient_under(tape, x)
        y = x * 2.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_second_order_with_nested_tapes():
    x = tf.constant(3.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0
    assert float(outer.gradient(dy, x)) == 18.0


def test_no_tape_left_recording():
    x = tf.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        x * 2.0
    assert context.tapes == []


def test_tape_gradient_in_the_with_block():
    x = tf.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        z = y * 2.0
    assert float(g) == 4.0
    assert float(tape.gradient(z, x)) == 8.0


# -- Functions ---------------------------------------------------------------------------------


def test_gradient_through_an_eager_function_call():
    @tf.function
    def add(a, b):
        return a + b
    v = tf.Variable(1.0)
    with GradientTape() as tape:
        result = add(v, 1.0)
    assert float(tape.gradient(result, v)) == 1.0


def test_gradient_through_a_function_reading_a_captured_variable():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def layer(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)))
    x = tf.constant([[0.1, 0.2]])
    with GradientTape() as tape:
        y = layer(x)
    g = tape.gradient(y, w)
    h = np.array([[0.1, 0.2]]) @ w.numpy()
    want = np.array([[0.1], [0.2]]) @ (1 - np.tanh(h) ** 2)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)
    assert tape.watched_variables() == (w,)


def test_gradient_through_nested_functions():
    w = tf.Variable(2.0)

    @tf.function
    def inner(x):
        return x * w

    @tf.function
    def outer(x):
        return inner(x) * inner(x) + x

    x = tf.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    gx, gw = tape.gradient(y, [x, w])
    # y = x^2 w^2 + x
    assert float(gx) == 2 * 3.0 * 4.0 + 1.0
    assert float(gw) == 2 * 9.0 * 2.0


def test_function_with_several_outputs_and_unused_output():
    @tf.function
    def f(x):
        return {"a": x * 2.0, "b": x * x, "n": 3}

    x = tf.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        out = f(x)
    assert float(tape.gradient(out["b"], x)) == 4.0


def test_function_called_with_an_unwatched_tensor_is_not_recorded():
    @tf.function
    def f(x):
        return x * 2.0
    x = tf.constant(1.0)
    with GradientTape() as tape:
        y = f(x)
    assert tape.gradient(y, x) is None


def test_concrete_function_call_is_recorded():
    @tf.function
    def f(x):
        return x * x
    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    x = tf.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = cf(x)
    assert float(tape.gradient(y, x)) == 6.0


def test_function_with_input_signature_is_recorded():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.reduce_sum(x * x)
    x = tf.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_second_order_through_a_function():
    @tf.function
    def cube(x):
        return x * x * x
    x = tf.constant(2.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_gradient_function_is_built_once_per_trace():
    @tf.function
    def f(x):
        return x * x
    x = tf.constant(3.0)
    for _ in range(3):
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        tape.gradient(y, x)
    cf = f.get_concrete_function(x)
    assert len(cf._gradient_functions) == 1


# -- control flow ------------------------------------------------------------------------------


def _np_grad(f, x, eps=1e-6):
    return _numeric_grads(lambda a: float(f(a)), [np.asarray(x, np.float64)], eps)[0]


@pytest.mark.parametrize("xs", [[1.0, 2.0], [-1.0, -2.0]])
def test_cond_gradient_takes_the_branch_that_ran(xs):
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x * x
        else:
            y = -x * 3.0
        return tf.reduce_sum(y)
    x = tf.constant(xs, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    want = 2 * np.array(xs) if sum(xs) > 0 else np.array([-3.0, -3.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def test_cond_gradient_for_a_value_only_one_branch_reads():
    w = tf.Variable(2.0, dtype=tf.float64)

    @tf.function
    def f(x, flag):
        if flag:
            y = x * w
        else:
            y = x + 1.0
        return y

    x = tf.constant(3.0, tf.float64)
    for flag, want_x, want_w in ((True, 2.0, 3.0), (False, 1.0, 0.0)):
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x, tf.constant(flag))
        gx, gw = tape.gradient(y, [x, w])
        assert float(gx) == want_x
        assert float(gw) == want_w


def test_nested_cond_gradient():
    @tf.function
    def f(x):
        y = x
        if x > 0:
            if x > 2:
                y = x * x * x
            else:
                y = x * x
        return y
    for value, want in ((3.0, 27.0), (1.0, 2.0), (-1.0, 1.0)):
        x = tf.constant(value, tf.float64)
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == want


def test_tf_cond_gradient():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: tf.math.sin(x), lambda: tf.math.cos(x))
    x = tf.constant(0.5, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert abs(float(tape.gradient(y, x)) - np.cos(0.5)) < 1e-12


def _loop_np(x, n, w):
    s = np.zeros_like(x)
    for _ in range(n):
        x = np.tanh(x * w) + 0.1
        s = s + x
    return np.sum(s)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_gradient_with_a_tensor_trip_count(n):
    @tf.function
    def f(x, w, n):
        s = tf.zeros_like(x)
        for _ in tf.range(n):
            x = tf.tanh(x * w) + 0.1
            s += x
        return tf.reduce_sum(s)
    x0, w0 = np.array([0.3, -0.2, 0.5]), np.array(1.5)
    x, w = tf.constant(x0), tf.constant(w0)
    with GradientTape() as tape:
        tape.watch([x, w])
        y = f(x, w, tf.constant(n))
    gx, gw = tape.gradient(y, [x, w])
    want_x = _np_grad(lambda a: _loop_np(a, n, w0), x0)
    want_w = _np_grad(lambda b: _loop_np(x0, n, b), w0)
    if n == 0:
        assert gw is None or float(gw) == 0.0
        np.testing.assert_allclose(gx.numpy(), want_x, atol=1e-8)
        return
    np.testing.assert_allclose(gx.numpy(), want_x, rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), want_w, rtol=1e-6)


def test_while_gradient_with_variables_read_in_the_body():
    w = tf.Variable(np.array([[0.5, -0.3], [0.2, 0.8]]))
    b = tf.Variable(np.array([0.1, -0.1]))

    @tf.function
    def f(x, n):
        h = x
        i = 0
        while i < n:
            h = tf.tanh(tf.matmul(h, w) + b)
            i += 1
        return tf.reduce_sum(h * h)

    x0 = np.array([[1.0, 2.0], [0.5, -1.0]])

    def ref(wv, bv):
        h = x0
        for _ in range(3):
            h = np.tanh(h @ wv + bv)
        return np.sum(h * h)

    with GradientTape() as tape:
        y = f(tf.constant(x0), tf.constant(3))
    gw, gb = tape.gradient(y, [w, b])
    np.testing.assert_allclose(gw.numpy(), _np_grad(lambda a: ref(a, b.numpy()), w.numpy()),
                               rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), _np_grad(lambda a: ref(w.numpy(), a), b.numpy()),
                               rtol=1e-6)


def test_while_over_a_tensor_gradient_reaches_the_iterated_tensor():
    @tf.function
    def f(xs):
        total = tf.constant(0.0, tf.float64)
        for row in xs:
            total = total * 0.5 + tf.reduce_sum(row * row)
        return total
    x0 = np.arange(6.0).reshape(3, 2) / 4
    x = tf.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)

    def ref(a):
        total = 0.0
        for row in a:
            total = total * 0.5 + np.sum(row * row)
        return total
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _np_grad(ref, x0), rtol=1e-6)


def test_while_loop_with_a_print_does_not_print_again_for_the_gradient(capfd):
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            tf.print("step", i)
            x = x * 2.0
        return x
    x = tf.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    assert float(tape.gradient(y, x)) == 8.0
    err = capfd.readouterr().err
    assert err.count("step") == 3


def test_nested_while_gradient():
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            for j in tf.range(i + 1):
                x = tf.math.sin(x) + 0.5
        return x
    x0 = 0.3
    x = tf.constant(x0, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))

    def ref(a):
        for i in range(3):
            for _ in range(i + 1):
                a = np.sin(a) + 0.5
        return a
    np.testing.assert_allclose(float(tape.gradient(y, x)), _np_grad(ref, x0), rtol=1e-6)


def test_cond_inside_while_gradient():
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            if x > 1.0:
                x = x * 0.5
            else:
                x = x * x + 1.0
        return x
    x0 = 0.7
    x = tf.constant(x0, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(5))

    def ref(a):
        for _ in range(5):
            a = a * 0.5 if a > 1.0 else a * a + 1.0
        return a
    np.testing.assert_allclose(float(tape.gradient(y, x)), _np_grad(ref, x0), rtol=1e-6)


def test_tf_while_loop_gradient():
    @tf.function
    def f(x):
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * v), (0, x))[1]
    x = tf.constant(1.1, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    # y = x^8
    np.testing.assert_allclose(float(tape.gradient(y, x)), 8 * 1.1 ** 7, rtol=1e-12)


# -- the tape inside a tf.function ---------------------------------------------------------------


def _mlp_variables(seed=0):
    rng = np.random.default_rng(seed)
    return [tf.Variable(rng.normal(size=(4, 5)) * 0.5), tf.Variable(np.zeros(5)),
            tf.Variable(rng.normal(size=(5, 1)) * 0.5), tf.Variable(np.zeros(1))]


def _mlp_loss(x, y, w1, b1, w2, b2):
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    out = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.square(out - y))


def test_training_step_inside_a_function_matches_eager():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(8, 4)))
    y = tf.constant(rng.normal(size=(8, 1)))
    variables = _mlp_variables()
    eager_variables = _mlp_variables()

    @tf.function
    def train_step(x, y, lr):
        with tf.GradientTape() as tape:
            loss = _mlp_loss(x, y, *variables)
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(lr * g)
        return loss

    for _ in range(5):
        with tf.GradientTape() as tape:
            eager_loss = _mlp_loss(x, y, *eager_variables)
        grads = tape.gradient(eager_loss, eager_variables)
        for v, g in zip(eager_variables, grads):
            v.assign_sub(0.1 * g)
        loss = train_step(x, y, 0.1)
        np.testing.assert_allclose(float(loss), float(eager_loss), rtol=1e-12)
    for v, e in zip(variables, eager_variables):
        np.testing.assert_allclose(v.numpy(), e.numpy(), rtol=1e-10)
    assert train_step.experimental_get_tracing_count() == 1


def test_training_step_with_variables_as_arguments():
    @tf.function
    def train_step(w, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - y))
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(0.1 * g)
        return g

    w = tf.Variable(2.0)
    g = train_step(w, tf.constant([-1.0]), tf.constant([2.0]))
    assert float(g) == 8.0
    assert abs(float(w.numpy()) - 1.2) < 1e-6


def test_training_step_with_a_loop_with_a_tensor_trip_count():
    w = tf.Variable(np.array([[0.5, -0.3], [0.2, 0.8]]))
    b = tf.Variable(np.array([0.1, -0.1]))

    @tf.function
    def step(x, n):
        with tf.GradientTape() as tape:
            h = x
            for _ in tf.range(n):
                h = tf.tanh(tf.matmul(h, w) + b)
            if tf.reduce_sum(h) > 0:
                loss = tf.reduce_sum(h * h)
            else:
                loss = tf.reduce_sum(h)
        gw, gb = tape.gradient(loss, [w, b])
        return loss, gw, gb

    x0 = np.array([[1.0, 2.0], [0.5, -1.0]])

    def ref(wv, bv, n):
        h = x0
        for _ in range(n):
            h = np.tanh(h @ wv + bv)
        return np.sum(h * h) if np.sum(h) > 0 else np.sum(h)

    for n in (3, 1):
        _, gw, gb = step(tf.constant(x0), tf.constant(n))
        np.testing.assert_allclose(
            gw.numpy(), _np_grad(lambda a: ref(a, b.numpy(), n), w.numpy()), rtol=1e-6)
        np.testing.assert_allclose(
            gb.numpy(), _np_grad(lambda a: ref(w.numpy(), a, n), b.numpy()), rtol=1e-6)
    assert step.experimental_get_tracing_count() == 1


def test_tape_in_function_calling_another_function():
    w = tf.Variable(3.0)

    @tf.function
    def model(x):
        return x * w * w

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = model(x)
        return tape.gradient(y, w)

    assert float(step(tf.constant(2.0))) == 12.0


def test_persistent_tape_and_stop_recording_in_a_function():
    @tf.function
    def f(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            with tape.stop_recording():
                z = y * x
            u = y + z
        return tape.gradient(y, x), tape.gradient(u, x)
    gy, gu = f(tf.constant(3.0))
    assert float(gy) == 6.0
    assert float(gu) == 6.0


def test_second_order_inside_a_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)
    dy, d2y = f(tf.constant(2.0))
    assert float(dy) == 12.0
    assert float(d2y) == 12.0


def test_watched_variables_inside_a_function():
    v = tf.Variable(1.0)
    frozen = tf.Variable(1.0, trainable=False)
    seen = []

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            y = x * v * frozen
        seen.append(tape.watched_variables())
        return tape.gradient(y, [v, frozen])

    gv, gf = f(tf.constant(2.0))
    assert float(gv) == 2.0
    assert gf is None or float(gf) == 0.0
    assert seen[0] == (v,)


def test_gradient_called_eagerly_for_a_tape_recorded_in_a_function_raises():
    tapes = []

    @tf.function
    def f(x):
        tape = tf.GradientTape()
        with tape:
            tape.watch(x)
            y = x * x
        tapes.append((tape, y))
        return y

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        f(tf.constant(1.0))
    tape, y = tapes[0]
    with pytest.raises(RuntimeError, match="inside that function"):
        tape.gradient(y, y)


def test_variable_argument_read_in_a_loop_and_a_branch_inside_a_function():
    @tf.function
    def f(w, x, n):
        with tf.GradientTape() as tape:
            h = x
            for _ in tf.range(n):
                h = h * w
            if tf.reduce_sum(h) > 0:
                y = h * w
            else:
                y = h
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, w)

    w = tf.Variable(1.5, dtype=tf.float64)
    # loss = 3 w^4 (positive branch) or -3 w^3
    assert float(f(w, tf.constant([1.0, 2.0], tf.float64), tf.constant(3))) == 12 * 1.5 ** 3
    assert float(f(w, tf.constant([-1.0, -2.0], tf.float64), tf.constant(3))) == -9 * 1.5 ** 2
    assert f.experimental_get_tracing_count() == 1


def test_variable_argument_read_in_a_loop_of_an_eagerly_called_function():
    @tf.function
    def g(w, x, n):
        h = x
        for _ in tf.range(n):
            h = h * w
        return tf.reduce_sum(h)

    w = tf.Variable(1.5, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = g(w, tf.constant([1.0, 2.0], tf.float64), tf.constant(3))
    assert float(tape.gradient(y, w)) == 9 * 1.5 ** 2


def test_gradient_through_a_function_call_uses_the_random_numbers_it_drew():
    @tf.function
    def f(x):
        return x * tf.random.uniform([3], dtype=tf.float64)

    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), y.numpy() / x.numpy())


def test_random_numbers_with_the_tape_inside_the_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            mask = tf.random.uniform([3], dtype=tf.float64)
            y = tf.reduce_sum(x * mask)
        return tape.gradient(y, x), mask

    g, mask = f(tf.constant([1.0, 2.0, 3.0], tf.float64))
    np.testing.assert_array_equal(g.numpy(), mask.numpy())


# -- TensorArray ---------------------------------------------------------------------------------


def _fd(f, x0):
    return _np_grad(f, np.asarray(x0, np.float64))


def test_tensor_array_write_stack_eagerly():
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        ta = tf.TensorArray(tf.float64, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * x[i])
        y = tf.reduce_sum(ta.stack() * tf.constant([1.0, 10.0, 100.0], tf.float64))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 40.0, 600.0])


@pytest.mark.parametrize("mode", ["function_call", "tape_in_function"])
def test_tensor_array_ops(mode):
    def fn(x):
        ta = tf.TensorArray(tf.float64, size=4)
        ta = ta.unstack(x * 2.0)                       # rows of x
        ta = ta.write(1, ta.read(0) * ta.read(2))      # overwrite element 1
        gathered = ta.gather([3, 3, 0])
        ta2 = tf.TensorArray(tf.float64, size=3).scatter([2, 0, 1], tf.tanh(gathered))
        return tf.reduce_sum(ta.stack()) + tf.reduce_sum(ta2.stack() * x[:3])
    check_rule(fn, _u(4, 2), mode=mode)


@pytest.mark.parametrize("mode", ["function_call", "tape_in_function"])
def test_tensor_array_concat_of_rows_of_different_lengths(mode):
    def fn(x):
        ta = tf.TensorArray(tf.float64, size=2, infer_shape=False)
        ta = ta.write(0, x[0] * x[1]).write(1, tf.tanh(x[1:3, 0]))
        return tf.reduce_sum(ta.concat() * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
    check_rule(fn, _u(4, 2), mode=mode)


def test_tensor_array_in_a_loop_with_a_tensor_trip_count():
    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float64, size=n)
        h = x
        for i in tf.range(n):
            h = tf.tanh(h * 1.3)
            ta = ta.write(i, h)
        return tf.reduce_sum(ta.stack() * tf.reshape(tf.cast(tf.range(1, n + 1), tf.float64),
                                                      [-1, 1]))

    def ref(a):
        total, h = 0.0, a
        for i in range(3):
            h = np.tanh(h * 1.3)
            total += (i + 1) * h.sum()
        return total
    x0 = np.array([0.1, -0.4, 0.7])
    x = tf.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _fd(ref, x0), rtol=1e-6)


def test_list_appended_in_a_tensor_loop_inside_a_training_step():
    w = tf.Variable(np.array([0.5, -0.2, 0.9]))

    @tf.function
    def step(x, n):
        with tf.GradientTape() as tape:
            outs = []
            h = x
            for _ in tf.range(n):
                h = tf.math.sin(h * w) + 0.5
                outs.append(h)
            loss = tf.reduce_sum(tf.square(tf.stack(outs)))
        return tape.gradient(loss, w)

    x0 = np.array([0.3, 0.2, -0.1])

    def ref(wv):
        total, h = 0.0, x0
        for _ in range(4):
            h = np.sin(h * wv) + 0.5
            total += np.sum(h * h)
        return total
    np.testing.assert_allclose(step(tf.constant(x0), tf.constant(4)).numpy(),
                               _fd(ref, w.numpy()), rtol=1e-6)


def test_tensor_array_read_in_a_loop():
    @tf.function
    def f(xs, n):
        ta = tf.TensorArray(tf.float64, size=n).unstack(xs)
        h = tf.zeros([2], tf.float64)
        for i in tf.range(n):
            h = tf.tanh(h + ta.read(i))
        return tf.reduce_sum(h)

    def ref(a):
        h = np.zeros(2)
        for row in a:
            h = np.tanh(h + row)
        return h.sum()
    x0 = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    x = tf.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _fd(ref, x0), rtol=1e-6)


def test_gradients_with_shapes_known_only_at_run_time():
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.normal(size=(4, 5)))
    b1 = tf.Variable(np.zeros(5))
    w2 = tf.Variable(rng.normal(size=(5, 1)))
    variables = [w1, b1, w2]

    def loss_fn(x, y):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.reshape(tf.reshape(h, [-1]), tf.shape(h))
        out = tf.matmul(h, w2)
        top = tf.reduce_max(out, axis=0, keepdims=True)
        return (tf.reduce_mean(tf.square(out - y)) + tf.reduce_sum(top) +
                tf.reduce_sum(tf.concat([h, out], 1) * 0.1))

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float64),
                                  tf.TensorSpec([None, 1], tf.float64)])
    def grads(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        return tape.gradient(loss, variables)

    for n in (3, 7):
        x = tf.constant(rng.normal(size=(n, 4)))
        y = tf.constant(rng.normal(size=(n, 1)))
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        for got, want in zip(grads(x, y), tape.gradient(loss, variables)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    assert grads.experimental_get_tracing_count() == 1


def test_gradient_through_a_function_call_uses_the_value_read_before_an_assignment():
    w = tf.Variable(2.0)

    @tf.function
    def read_then_assign(x):
        y = w * x
        w.assign_add(1.0)
        return y

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = read_then_assign(x)
    assert float(tape.gradient(y, x)) == 2.0


# -- py_function: the Python function's own tape ----------------------------------------------


def test_py_function_gradient_eagerly_is_that_of_its_tf_ops():
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda t: t * t, [x], tf.float64)
        z = tf.reduce_sum(3.0 * y)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 6.0 * x.numpy())


def test_py_function_gradient_with_the_tape_inside_a_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.py_function(lambda t: tf.sin(t) * t, [x], tf.float64)
        return tape.gradient(y, x)

    x = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.cos(x) * x + np.sin(x))


def test_py_function_gradient_through_a_function_and_a_staged_loop():
    @tf.function
    def f(x):
        total = tf.constant(0.0, tf.float64)
        for i in tf.range(3):
            scale = tf.cast(i + 1, tf.float64)
            total += tf.reduce_sum(tf.py_function(lambda t, s: t * t * s, [x, scale],
                                                  tf.float64))
        return total

    x = tf.constant([1.0, -2.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(float(y), 6.0 * 5.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 12.0 * x.numpy())


def test_py_function_gradient_of_several_outputs_and_inputs():
    a = tf.constant(2.0, tf.float64)
    b = tf.constant(5.0, tf.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        p, q = tf.py_function(lambda u, v: (u * v, u + v * v), [a, b],
                              [tf.float64, tf.float64])
        y = p + 10.0 * q
    ga, gb = tape.gradient(y, [a, b])
    assert (float(ga), float(gb)) == (5.0 + 10.0, 2.0 + 100.0)
    assert float(tape.gradient(p, b)) == 2.0


def test_py_function_runs_are_forgotten_with_their_outputs():
    import gc

    from runtime.gradients import py_function_grads
    x = tf.constant([1.0, 2.0])
    for _ in range(3):
        with GradientTape() as tape:
            tape.watch(x)
            y = tf.py_function(lambda t: t * t, [x], tf.float32)
        g = tape.gradient(y, x)
        del y, tape
    gc.collect()
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert not py_function_grads._RUNS


def test_py_function_returning_an_unconnected_value_raises_when_a_gradient_needs_it():
    x = tf.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda t: t.numpy() * 2, [x], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="output 0 of tf.py_function.*not a tensor") as info:
        tape.gradient(y, x)
    assert "test_gradients.py" in str(info.value)


# -- residuals: what the forward pass keeps for the gradient -------------------------------------


def _gradient_of_call(f, x):
    x = tf.constant(x)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x)


def test_gradient_through_a_function_whose_loop_iterates_a_dataset():
    xs = np.arange(6.0).reshape(3, 2)
    ds = tf.data.Dataset.from_tensor_slices(xs).shuffle(3)
    u = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def f():
        total = tf.constant(0.0, tf.float64)
        weight = tf.constant(1.0, tf.float64)
        for x in ds:
            total += tf.reduce_sum(x * u * u) * weight
            weight = weight * 2.0
        return total

    for _ in range(2):
        with GradientTape() as tape:
            y = f()
        g = tape.gradient(y, u).numpy()
        # the shuffled order the forward pass used: y = sum_k 2**k (x_k . u*u)
        orders = [p for p in __import__("itertools").permutations(range(3))
                  if np.isclose(sum(2 ** k * xs[i] @ (u.numpy() ** 2)
                                    for k, i in enumerate(p)), float(y))]
        assert any(np.allclose(g, sum(2 ** k * xs[i] for k, i in enumerate(p)) * 2 *
                               u.numpy()) for p in orders)


def test_tape_around_a_dataset_loop_inside_a_function():
    xs = np.arange(6.0).reshape(3, 2)
    ds = tf.data.Dataset.from_tensor_slices(xs)
    u = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            total = tf.constant(0.0, tf.float64)
            for x in ds:
                total = total * 0.5 + tf.reduce_sum(x * u * u)
        return tape.gradient(total, u)

    want = sum(0.5 ** (2 - k) * xs[k] for k in range(3)) * 2 * u.numpy()
    np.testing.assert_allclose(f().numpy(), want)


def test_gradient_through_a_function_whose_loop_draws_random_numbers():
    @tf.function
    def f(x):
        for _ in tf.range(3):
            x = x * tf.random.uniform([3], 1.0, 2.0, dtype=tf.float64)
        return x

    x0 = np.array([1.0, 2.0, 3.0])
    y, g = _gradient_of_call(f, x0)
    np.testing.assert_allclose(g.numpy(), y.numpy() / x0)


def test_gradient_through_a_function_whose_if_draws_random_numbers():
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x * tf.random.uniform([3], dtype=tf.float64)
        else:
            y = x * 2.0
        return y

    x0 = np.array([1.0, 2.0, 3.0])
    y, g = _gradient_of_call(f, x0)
    np.testing.assert_allclose(g.numpy(), y.numpy() / x0)
    _, g = _gradient_of_call(f, -x0)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0, 2.0])


def test_gradient_through_nested_calls_and_loops_uses_the_forward_draws():
    @tf.function
    def scale(x):
        return x * tf.random.uniform([3], 1.0, 2.0, dtype=tf.float64)

    @tf.function
    def f(x, n):
        if n > 0:
            for _ in tf.range(n):
                x = scale(x)
        return x

    x0 = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x0)
        y = f(x0, tf.constant(2))
    np.testing.assert_allclose(tape.gradient(y, x0).numpy(), y.numpy() / x0.numpy())


def test_gradient_through_a_function_call_ignores_a_later_assignment():
    w = tf.Variable(2.0, dtype=tf.float64)

    @tf.function
    def f(x):
        return w * x * x

    x = tf.constant(3.0, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    w.assign(100.0)
    assert float(tape.gradient(y, x)) == 2 * 2.0 * 3.0


def test_gradient_through_a_loop_that_assigns_the_variable_it_reads():
    v = tf.Variable(1.0, dtype=tf.float64)

    @tf.function
    def f(x):
        total = tf.constant(0.0, tf.float64)
        for _ in tf.range(3):
            total += tf.reduce_sum(v * x)
            v.assign_add(1.0)
        return total

    x = tf.constant([1.0, 2.0], tf.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.0, 6.0])  # reads 1, 2, 3
    assert float(tape.gradient(y, v)) == 3 * 3.0


def test_gradient_through_the_first_call_of_a_function_that_creates_its_variable():
    class Model(tf.Module):
        def __init__(self):
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(3.0)
            return self.w * x * x

    model = Model()
    x = tf.constant(2.0)
    for _ in range(2):
        with GradientTape() as tape:
            tape.watch(x)
            y = model(x)
        assert (float(y), float(tape.gradient(y, x))) == (12.0, 12.0)


@pytest.mark.parametrize("mode", MODES)
def test_assign_then_read_gives_tensorflows_gradient(mode):
    """TensorFlow: the read after `assign` is a new value; no gradient flows through the
    assignment, so d(v * x)/dx is the value read, 3x."""
    v = tf.Variable(1.0)

    def f(x):
        v.assign(x * 3.0)
        return v * x

    x = tf.constant(2.0)
    if mode == "tape_in_function":
        @tf.function
        def run(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return y, tape.gradient(y, x)
        y, g = run(x)
    else:
        call = f if mode == "eager" else tf.function(f)
        with GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        g = tape.gradient(y, x)
    assert (float(y), float(g)) == (12.0, 6.0)


# -- second order through staged loops ---------------------------------------------------------


def _second_derivative(f, x):
    x = tf.constant(x, tf.float64)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def _numeric_second(f, x, eps=1e-5):
    def first(v):
        return _second_derivative(f, v)[0].numpy()
    return (first(x + eps) - first(x - eps)) / (2 * eps)


def test_second_order_through_a_for_over_tf_range():
    @tf.function
    def f(x):
        y = x
        for _ in tf.range(3):
            y = y * x
        return y

    dy, d2y = _second_derivative(f, 1.5)
    assert (float(dy), float(d2y)) == (4 * 1.5 ** 3, 12 * 1.5 ** 2)


def test_second_order_through_a_while_with_several_states_and_captures():
    @tf.function
    def f(x):
        y = tf.constant(1.0, tf.float64)
        z = x
        i = 0
        while i < 3:
            y = y * tf.sin(z) + x
            z = z * 1.1
            i += 1
        return y

    np.testing.assert_allclose(float(_second_derivative(f, 0.7)[1]), _numeric_second(f, 0.7),
                               rtol=1e-6)


def test_second_order_through_tf_while_loop_with_nested_tapes_in_a_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * x + 1.0),
                                     (0, x))
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    # from y = x, four times y = y x + 1: y = x^5 + x^3 + x^2 + x + 1
    x = 1.3
    want = 20 * x ** 3 + 6 * x + 2
    np.testing.assert_allclose(float(f(tf.constant(x, tf.float64))), want, rtol=1e-12)


def test_second_order_through_a_loop_with_respect_to_a_variable_it_reads():
    w = tf.Variable(0.8, dtype=tf.float64)

    @tf.function
    def f(x):
        y = x
        for _ in tf.range(3):
            y = tf.sin(y * w) * x
        return y

    def first(value):
        w.assign(value)
        with GradientTape() as tape:
            y = f(tf.constant(0.6, tf.float64))
        return tape.gradient(y, w).numpy()

    want = (first(0.8 + 1e-5) - first(0.8 - 1e-5)) / 2e-5
    w.assign(0.8)
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = f(tf.constant(0.6, tf.float64))
        dw = inner.gradient(y, w)
    np.testing.assert_allclose(float(outer.gradient(dw, w)), want, rtol=1e-6)
    np.testing.assert_allclose(float(_second_derivative(f, 0.6)[1]), _numeric_second(f, 0.6),
                               rtol=1e-6)


def test_second_order_cross_derivative_through_a_loop():
    @tf.function
    def f(x, a):
        y = x
        for _ in tf.range(2):
            y = y * a + x * x
        return y

    x, a = tf.constant(0.5, tf.float64), tf.constant(2.0, tf.float64)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(a)
            y = f(x, a)
        da = inner.gradient(y, a)
    # y = x a^2 + x^2 a + x^2: dy/da = 2 x a + x^2, d/dx = 2 a + 2 x
    assert float(outer.gradient(da, x)) == 2 * 2.0 + 2 * 0.5


@pytest.mark.parametrize("x, want", [(2.0, (12.0, 8.0, 4.5, 12.0)), (-2.0, (-2.0, 0.0, 0.0, 1.0))])
def test_second_order_through_an_if_of_an_eagerly_called_function(x, want):
    v = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def f(x):
        if x > 0:
            y = v * v * x * x
        else:
            y = x * v
        return y

    x = tf.constant(x, tf.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dv, dx = inner.gradient(y, v), inner.gradient(y, x)
    got = (dv, outer.gradient(dv, v), outer.gradient(dx, x), outer.gradient(dv, x))
    assert tuple(float(g) for g in got) == want


def test_second_order_through_a_loop_appending_to_a_list():
    @tf.function
    def f(x):
        outs = [x]
        y = x
        for _ in tf.range(2):
            y = y * x
            outs.append(y)
        return tf.reduce_sum(tf.stack(outs))  # x + x^2 + x^3

    dy, d2y = _second_derivative(f, 1.5)
    np.testing.assert_allclose((float(dy), float(d2y)), (1 + 3.0 + 3 * 2.25, 2 + 6 * 1.5))


def test_second_order_through_a_loop_calling_a_function_that_reads_a_variable():
    w = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def scale(y, x):
        return y * x * w

    @tf.function
    def f(x):
        y = x
        for _ in tf.range(2):
            y = scale(y, x)
        return y  # x^3 w^2

    x = tf.constant(0.7, tf.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dx, dw = inner.gradient(y, x), inner.gradient(y, w)
    np.testing.assert_allclose(float(dx), 3 * 0.7 ** 2 * 1.5 ** 2)
    np.testing.assert_allclose(float(outer.gradient(dx, x)), 6 * 0.7 * 1.5 ** 2)
    np.testing.assert_allclose(float(outer.gradient(dw, w)), 2 * 0.7 ** 3)
    np.testing.assert_allclose(float(outer.gradient(dw, x)), 6 * 0.7 ** 2 * 1.5)


def test_second_order_through_a_loop_whose_branch_reads_a_variable():
    w = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def f(x):
        y = x
        for i in tf.range(3):
            if i % 2 == 0:
                y = y * x * w
            else:
                y = y + tf.sin(x)
        return y

    def reference(x, w):
        return ((x * x * w + np.sin(x)) * x * w)

    def numeric(fn, at, eps=1e-5):
        return (fn(at + eps) - fn(at - eps)) / (2 * eps)

    x = tf.constant(0.7, tf.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dx, dw = inner.gradient(y, x), inner.gradient(y, w)

    def d_dx(a, b):
        return numeric(lambda v: reference(v, b), a)

    def d_dw(a, b):
        return numeric(lambda v: reference(a, v), b)

    np.testing.assert_allclose(float(y), reference(0.7, 1.5))
    np.testing.assert_allclose(float(outer.gradient(dx, x)),
                               numeric(lambda v: d_dx(v, 1.5), 0.7, 1e-4), rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(dw, w)),
                               numeric(lambda v: d_dw(0.7, v), 1.5, 1e-4), rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(dw, x)),
                               numeric(lambda v: d_dw(v, 1.5), 0.7, 1e-4), rtol=1e-6)

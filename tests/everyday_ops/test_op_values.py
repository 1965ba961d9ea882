"""The new ops' values against numpy references (TensorFlow's documented semantics),
eagerly and traced in a tf.function: same values, dtypes, and a static shape equal to the
actual one."""

from math import erf, exp, sqrt

import numpy as np
import pytest

import autograph.tf as tf

_rng = np.random.default_rng(3)
F = _rng.standard_normal((3, 4)).astype(np.float32)
D = _rng.standard_normal((2, 3)).astype(np.float64)
INTS = np.array([[3, 1, 3], [0, -2, 5]], np.int32)
SQUARE = (_rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
IMAGE = _rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
FILTERS = _rng.standard_normal((3, 2, 3, 4)).astype(np.float32)


def _reference_conv(x, f, stride, padding):
    kh, kw = f.shape[:2]
    if padding == "SAME":
        oh, ow = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        th = max((oh - 1) * stride + kh - x.shape[1], 0)
        tw = max((ow - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (th // 2, th - th // 2), (tw // 2, tw - tw // 2), (0, 0)])
    else:
        oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, f)
    return out


def _reference_pool(x, k, stride, reduce):
    oh, ow = (x.shape[1] - k) // stride + 1, (x.shape[2] - k) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = reduce(x[:, i * stride:i * stride + k, j * stride:j * stride + k],
                                  axis=(1, 2))
    return out


def _unique_in_order(x):
    seen = list(dict.fromkeys(x.tolist()))
    return np.array(seen, x.dtype), np.array([seen.index(v) for v in x.tolist()], np.int32)


def _gelu(x):
    return np.array([0.5 * v * (1 + erf(v / sqrt(2))) for v in x.ravel()]).reshape(x.shape)


def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


CASES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "eye": (lambda: tf.eye(2, 3, batch_shape=[2], dtype=tf.int32), [],
            lambda: np.broadcast_to(np.eye(2, 3, dtype=np.int32), (2, 2, 3))),
    "linspace": (lambda a, b: tf.linspace(a, b, 4), [np.float32(1), np.float32(2.5)],
                 lambda a, b: np.linspace(a, b, 4, dtype=np.float32)),
    "linspace_python_numbers": (lambda: tf.linspace(0, 1, 3), [],
                                lambda: np.array([0, 0.5, 1], np.float32)),
    "linspace_vectors": (lambda a, b: tf.linspace(a, b, 3, axis=-1), [D[0], D[1]],
                         lambda a, b: np.linspace(a, b, 3, axis=-1)),
    "meshgrid_xy": (lambda a, b: tf.stack(tf.meshgrid(a, b)), [F[0, :3], F[1, :3]],
                    lambda a, b: np.stack(np.meshgrid(a, b))),
    "meshgrid_ij": (lambda a, b: tf.meshgrid(a, b, indexing="ij")[1], [F[0], F[1, :2]],
                    lambda a, b: np.meshgrid(a, b, indexing="ij")[1]),
    "sequence_mask": (lambda n: tf.sequence_mask(n, 4), [np.array([0, 2, 4], np.int32)],
                      lambda n: np.arange(4) < n[:, None]),
    "sequence_mask_float": (lambda n: tf.sequence_mask(n, dtype=tf.float32),
                            [np.array([[1, 3]], np.int32)],
                            lambda n: (np.arange(3) < n[..., None]).astype(np.float32)),
    "split": (lambda x: tf.split(x, 2, axis=1)[1], [F], lambda x: np.split(x, 2, axis=1)[1]),
    "split_sizes": (lambda x: tf.split(x, [1, -1])[1], [F], lambda x: x[1:]),
    "pad_constant": (lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=7), [INTS],
                     lambda x: np.pad(x, [[1, 2], [0, 1]], constant_values=7)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 2], [3, 1]], "REFLECT"), [F],
                    lambda x: np.pad(x, [[2, 2], [3, 1]], "reflect")),
    "pad_symmetric": (lambda x: tf.pad(x, [[3, 0], [4, 4]], "symmetric"), [F],
                      lambda x: np.pad(x, [[3, 0], [4, 4]], "symmetric")),
    "slice": (lambda x: tf.slice(x, [1, 1], [2, -1]), [F], lambda x: x[1:3, 1:]),
    "strided_slice_masks": (
        lambda x: tf.strided_slice(x, [0, 1, 0], [0, 3, 0], [1, 1, 1], begin_mask=1,
                                   end_mask=1, new_axis_mask=4), [F],
        lambda x: x[:, 1:3, None]),
    "strided_slice_ellipsis": (
        lambda x: tf.strided_slice(x, [0, 1], [0, 3], ellipsis_mask=1), [SQUARE],
        lambda x: x[..., 1:3]),
    "strided_slice_shrink": (lambda x: tf.strided_slice(x, [2, 0], [3, 4], [1, 2],
                                                        shrink_axis_mask=1), [F],
                             lambda x: x[2, 0:4:2]),
    "reverse": (lambda x: tf.reverse(x, [-1]), [INTS], lambda x: x[:, ::-1]),
    "roll": (lambda x: tf.roll(x, [1, -1], [0, 1]), [F], lambda x: np.roll(x, (1, -1), (0, 1))),
    "repeat_axis": (lambda x: tf.repeat(x, [1, 0, 2], axis=1), [INTS],
                    lambda x: np.repeat(x, [1, 0, 2], axis=1)),
    "repeat_scalar": (lambda x: tf.repeat(x, 3, axis=0), [INTS], lambda x: np.repeat(x, 3, 0)),
    "repeat_one_count_broadcasts": (lambda x: tf.repeat(x, [2], axis=1), [INTS],
                                    lambda x: np.repeat(x, 2, axis=1)),
    "repeat_zero": (lambda x: tf.repeat(x, 0, axis=0), [INTS], lambda x: x[:0]),
    "repeat_flat": (lambda x: tf.repeat(x, 2), [INTS], lambda x: np.repeat(x, 2)),
    "gather_nd": (lambda x: tf.gather_nd(x, [[1], [0]]), [F], lambda x: x[[1, 0]]),
    "gather_nd_elements": (lambda x: tf.gather_nd(x, [[[0, 1]], [[2, 3]]]), [F],
                           lambda x: np.array([[x[0, 1]], [x[2, 3]]])),
    "scatter_nd_duplicates_sum": (
        lambda u: tf.scatter_nd([[0, 1], [0, 1], [2, 0]], u, [3, 2]),
        [np.array([1, 2, 5], np.int32)], lambda u: np.array([[0, 3], [0, 0], [5, 0]])),
    "tensor_scatter_nd_update": (
        lambda x: tf.tensor_scatter_nd_update(x, [[1, 2]], [9]), [INTS],
        lambda x: np.where((np.arange(2)[:, None] == 1) & (np.arange(3) == 2), 9, x)),
    "tensor_scatter_nd_add": (lambda x: tf.tensor_scatter_nd_add(x, [[0], [0]], D), [D],
                              lambda x: x + np.array([[1.0], [0.0]]) * (x[0] + x[1])),
    # indices of depth 0: each index row names the whole tensor
    "gather_nd_depth_0": (lambda x: tf.gather_nd(x, tf.zeros([2, 0], tf.int32)), [F],
                          lambda x: np.stack([x, x])),
    "scatter_nd_depth_0_adds_rows": (
        lambda u: tf.scatter_nd(tf.zeros([2, 0], tf.int32), u, [3, 4]),
        [np.stack([F, 2 * F])], lambda u: u[0] + u[1]),
    "tensor_scatter_nd_update_depth_0": (
        lambda x: tf.tensor_scatter_nd_update(x, tf.zeros([2, 0], tf.int32),
                                              tf.stack([x * 2.0, x * 3.0])),
        [F], lambda x: x * 3),
    "tensor_scatter_nd_add_depth_0": (
        lambda x: tf.tensor_scatter_nd_add(x, tf.zeros([2, 0], tf.int32),
                                           tf.stack([x * 2.0, x * 3.0])),
        [F], lambda x: x + x * 2 + x * 3),
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0), [F], lambda x: x[x > 0]),
    "boolean_mask_axis": (lambda x: tf.boolean_mask(x, [True, False, True, True], axis=1),
                          [F], lambda x: x[:, [0, 2, 3]]),
    "sort": (lambda x: tf.sort(x, axis=0), [F], lambda x: np.sort(x, axis=0)),
    "sort_int_descending": (lambda x: tf.sort(x, direction="DESCENDING"), [INTS],
                            lambda x: -np.sort(-x)),
    "sort_int_extremes": (lambda x: tf.sort(x), [np.array([2**31 - 1, -2**31, 0], np.int32)],
                          lambda x: np.sort(x)),
    "argsort": (lambda x: tf.argsort(x), [INTS], lambda x: np.argsort(x, kind="stable")),
    "argsort_descending_stable": (
        lambda x: tf.argsort(x, direction="DESCENDING", axis=0), [INTS],
        lambda x: np.argsort(-x, axis=0, kind="stable")),
    "top_k_values": (lambda x: tf.math.top_k(x, 2).values, [INTS],
                     lambda x: -np.sort(-x)[:, :2]),
    "top_k_ties_lower_index_first": (lambda x: tf.math.top_k(x, 3).indices, [INTS],
                                     lambda x: np.array([[0, 2, 1], [2, 0, 1]])),
    "unique": (lambda x: tf.unique(x).y, [np.array([4, 1, 4, 0, 1], np.int32)],
               lambda x: _unique_in_order(x)[0]),
    "unique_strings": (lambda x: tf.unique(x).y, [np.array(["b", "a", "b"], object)],
                       lambda x: np.array([b"b", b"a"], object)),
    "unique_idx": (lambda x: tf.unique(x).idx, [np.array([4, 1, 4, 0, 1], np.int32)],
                   lambda x: _unique_in_order(x)[1]),
    "einsum_trace_batch": (lambda x: tf.einsum("bii->b", x), [SQUARE],
                           lambda x: np.einsum("bii->b", x)),
    "einsum_implicit": (lambda a, b: tf.einsum("ij,kj", a, b), [F, F],
                        lambda a, b: np.einsum("ij,kj", a, b)),
    "einsum_three": (lambda a, b, c: tf.einsum("ij,jk,kl->il", a, b, c), [F, F.T, F],
                     lambda a, b, c: a @ b @ c),
    "cumprod": (lambda x: tf.math.cumprod(x, axis=1), [INTS],
                lambda x: np.cumprod(x, axis=1, dtype=np.int32)),
    "cumprod_exclusive_reverse": (
        lambda x: tf.math.cumprod(x, exclusive=True, reverse=True), [D],
        lambda x: np.stack([x[1], np.ones(3)])),
    "norm": (lambda x: tf.norm(x), [F], lambda x: np.linalg.norm(x)),
    "norm_axis_inf": (lambda x: tf.norm(x, np.inf, axis=1, keepdims=True), [F],
                      lambda x: np.abs(x).max(1, keepdims=True)),
    "norm_matrix_1": (lambda x: tf.norm(x, 1, axis=[-2, -1]), [SQUARE],
                      lambda x: np.linalg.norm(x, 1, axis=(-2, -1))),
    "clip_by_norm": (lambda x: tf.clip_by_norm(x, 1.0), [F],
                     lambda x: x / np.linalg.norm(x)),
    "clip_by_norm_unchanged": (lambda x: tf.clip_by_norm(x, 100.0), [F], lambda x: x),
    "clip_by_norm_zero": (lambda x: tf.clip_by_norm(x * 0, 1.0), [F], lambda x: x * 0),
    "clip_by_global_norm": (
        lambda a, b: tf.concat([tf.reshape(t, [-1]) for t in tf.clip_by_global_norm(
            [a, b], 2.0)[0]], 0), [F, F[0]],
        lambda a, b: np.concatenate([a.ravel(), b]) * 2.0 / np.sqrt(
            (a ** 2).sum() + (b ** 2).sum())),
    "global_norm_value": (lambda a: tf.clip_by_global_norm([a, None], 1.0)[1], [D],
                          lambda a: np.linalg.norm(a)),
    "reduce_logsumexp": (lambda x: tf.reduce_logsumexp(x * 100, axis=0), [D],
                         lambda x: np.log(np.exp(x * 100 - (x * 100).max(0)).sum(0)) +
                         (x * 100).max(0)),
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 3]), [F],
                    lambda x: np.stack([x[0] + x[1], 0 * x[0], 0 * x[0], x[2]])),
    "unsorted_segment_sum": (
        lambda x: tf.math.unsorted_segment_sum(x, [[1, -1, 0], [1, 1, 2]], 3), [INTS],
        lambda x: np.array([3, 3 + 0 - 2, 5], np.int32)),
    "inv": (lambda x: tf.linalg.inv(x), [SQUARE], lambda x: np.linalg.inv(x)),
    "det": (lambda x: tf.linalg.det(x), [SQUARE], lambda x: np.linalg.det(x)),
    "solve": (lambda a, b: tf.linalg.solve(a, b), [SQUARE, SQUARE[:, :, :2]],
              lambda a, b: np.linalg.solve(a, b)),
    "diag": (lambda d: tf.linalg.diag(d), [INTS], lambda d: np.stack([np.diag(r) for r in d])),
    "diag_part": (lambda x: tf.linalg.diag_part(x), [F], lambda x: np.diagonal(x)),
    "band_part_lower": (lambda x: tf.linalg.band_part(x, -1, 0), [SQUARE],
                        lambda x: np.tril(x)),
    "band_part_band": (lambda x: tf.linalg.band_part(x, 1, 2), [F],
                       lambda x: np.triu(np.tril(x, 2), -1)),
    "matrix_transpose": (lambda x: tf.linalg.matrix_transpose(x), [SQUARE],
                         lambda x: np.swapaxes(x, -1, -2)),
    "relu6": (lambda x: tf.nn.relu6(x * 5), [F], lambda x: np.clip(x * 5, 0, 6)),
    "relu6_int": (lambda x: tf.nn.relu6(x * 2), [INTS], lambda x: np.clip(x * 2, 0, 6)),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x), [F], lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda x: tf.nn.elu(x), [D], lambda x: np.where(x > 0, x, np.expm1(x))),
    "gelu": (lambda x: tf.nn.gelu(x), [D], _gelu),
    "silu": (lambda x: tf.nn.silu(x), [D], lambda x: x / (1 + np.exp(-x))),
    "l2_loss": (lambda x: tf.nn.l2_loss(x), [D], lambda x: (x ** 2).sum() / 2),
    "moments": (lambda x: tf.stack(tf.nn.moments(x, [0])), [D],
                lambda x: np.stack([x.mean(0), x.var(0)])),
    "moments_keepdims": (lambda x: tf.nn.moments(x, [1], keepdims=True)[1], [D],
                         lambda x: x.var(1, keepdims=True)),
    "softmax_cross_entropy": (
        lambda x: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(x * 0.5), x), [D],
        lambda x: -(np.exp(_log_softmax(x * 0.5)) * _log_softmax(x)).sum(-1)),
    "sparse_softmax_cross_entropy": (
        lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0, 3], x), [F],
        lambda x: -_log_softmax(x)[[0, 1, 2], [2, 0, 3]]),
    "sigmoid_cross_entropy": (
        lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=x * 0 + 0.25, logits=x * 50),
        [D], lambda x: np.maximum(x * 50, 0) - x * 50 * 0.25 + np.log1p(np.exp(-np.abs(x * 50)))),
    "conv2d_same": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME"), [IMAGE, FILTERS],
                    lambda x, f: _reference_conv(x, f, 2, "SAME")),
    "conv2d_valid": (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID"),
                     [IMAGE, FILTERS], lambda x, f: _reference_conv(x, f, 1, "VALID")),
    "conv1d": (lambda x, f: tf.nn.conv1d(x, f, 1, "VALID"), [IMAGE[:, 0], FILTERS[0]],
               lambda x, f: _reference_conv(x[:, None], f[None], 1, "VALID")[:, 0]),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), [IMAGE],
                   lambda x: _reference_pool(x, 2, 2, np.max)),
    "max_pool2d_same": (lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), [IMAGE],
                        lambda x: _reference_pool(np.pad(x, [(0, 0), (1, 1), (0, 1), (0, 0)],
                                                         constant_values=-np.inf), 3, 2,
                                                  np.max)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, [3, 3], 1, "VALID"), [IMAGE],
                   lambda x: _reference_pool(x, 3, 1, np.mean)),
    "avg_pool2d_same_excludes_padding": (
        lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME")[:, -1, -1], [IMAGE[:, :5, :5]],
        lambda x: x[:, 4, 4]),
    "strings_join": (lambda a: tf.strings.join([a, "!"], separator=" "),
                     [np.array(["héllo", "x"], object)],
                     lambda a: np.array(["héllo !".encode(), b"x !"], object)),
    "strings_length": (lambda a: tf.strings.length(a), [np.array(["héllo", ""], object)],
                       lambda a: np.array([6, 0], np.int32)),
    "strings_length_chars": (lambda a: tf.strings.length(a, unit="UTF8_CHAR"),
                             [np.array(["héllo", ""], object)],
                             lambda a: np.array([5, 0], np.int32)),
    "strings_format": (lambda x: tf.strings.format("x: {}!", x),
                       [np.arange(10, dtype=np.int32)],
                       lambda x: np.array(b"x: [0 1 2 ... 7 8 9]!", object)),
}


def _as_numpy(value):
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([v.encode() if isinstance(v, str) else v for v in value.ravel()],
                        object).reshape(value.shape)
    return value


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_numpy(name, traced):
    fn, inputs, reference = CASES[name]
    tensors = [tf.constant(_as_numpy(x)) if np.asarray(x).dtype == object else tf.constant(x)
               for x in inputs]
    run = tf.function(fn, autograph=False) if traced else fn
    got = run(*tensors)
    want = np.asarray(reference(*[_as_numpy(x) for x in inputs]))
    if want.dtype == object:
        assert np.asarray(got.numpy(), object).tolist() == want.tolist()
        return
    value = got.numpy()
    assert value.shape == want.shape
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(value, want)
    else:
        tolerance = 1e-5 if value.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(value, want, rtol=tolerance, atol=tolerance)
    if inputs:
        assert value.dtype == np.result_type(*[np.asarray(x) for x in inputs]) or \
            want.dtype.kind in "iub" or name.startswith(("strings", "sequence", "argsort"))


@pytest.mark.parametrize("name", ["split", "pad_reflect", "roll", "gather_nd", "sort",
                                  "top_k_values", "einsum_three", "inv", "conv2d_same",
                                  "max_pool2d", "cumprod", "diag", "relu6", "repeat_axis"])
def test_static_shapes_are_inferred(name):
    fn, inputs, reference = CASES[name]
    seen = []

    @tf.function(autograph=False)
    def traced(*xs):
        out = fn(*xs)
        seen.append(tuple(out.shape.as_list()))
        return out
    traced(*[tf.constant(x) for x in inputs])
    assert seen == [np.asarray(reference(*inputs)).shape]


def test_scalar_operands_in_a_graph():
    """Rank-0 values reach kernels as numpy scalars in compiled graphs: each op still gives
    an array of its dtype."""
    @tf.function(autograph=False)
    def f(x):
        return (tf.math.erf(x), tf.nn.relu6(x * 20), tf.nn.elu(-x), tf.nn.leaky_relu(-x),
                tf.linalg.det(tf.reshape(tf.stack([x, 1.0, 2.0, x]), [2, 2])),
                tf.strings.format("{}", x), tf.reduce_logsumexp(x))
    values = [t.numpy() for t in f(tf.constant(0.5))]
    np.testing.assert_allclose(values[0], erf(0.5), rtol=1e-6)
    assert values[1] == 6 and values[4] == np.float32(-1.75)
    np.testing.assert_allclose(values[2:4], [exp(-0.5) - 1, -0.1], rtol=1e-6)
    assert values[5] == b"0.5" and values[6] == np.float32(0.5)
    assert all(np.asarray(v).dtype == np.float32 for i, v in enumerate(values) if i != 5)


def test_reverse_is_written_as_a_slice_where_the_rank_is_known():
    @tf.function(autograph=False)
    def f(x):
        return tf.reverse(x, [-1, 0])
    x = tf.constant(F)
    np.testing.assert_array_equal(f(x).numpy(), F[::-1, ::-1])
    source = f.get_concrete_function(x).executor_source
    assert "[::-1, ::-1]" in source and "k_ReverseV2_" not in source

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)
    def unknown_rank(x):
        return tf.reverse(x, [0])
    np.testing.assert_array_equal(unknown_rank(x).numpy(), F[::-1])
    assert "k_ReverseV2_" in unknown_rank.get_concrete_function().executor_source


@pytest.mark.parametrize("alpha", [0.2, 0.0, 1.0, 1.5, -0.5])
def test_leaky_relu_for_any_alpha(alpha):
    x = np.array([-2.0, -0.5, 0.0, 0.5, np.nan], np.float32)
    got = tf.nn.leaky_relu(x, alpha).numpy()
    want = np.where(x > 0, x, alpha * x).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32

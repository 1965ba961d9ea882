"""The complex-number cases that tests/autograph/test_complex_numbers.py checks against real
TensorFlow: each case is a function of a TensorFlow-like module (`autograph.tf` in the tests,
`tensorflow` in data/make_complex_fixture.py) and its numpy inputs, with the indices of the
inputs to differentiate. One table serves both, so the fixture and the test cannot drift."""

import numpy as np

Z = np.array([3 + 4j, -1.5 + 0.5j, 0.25 - 2j, -0.75 - 0.125j])
W = np.array([0.5 - 1j, 2 + 0.25j, -1 + 1.5j, 0.75 + 0.5j])
ZN = np.array([3 + 4j, 0j, -1j])
M = np.array([[1 + 2j, -0.5 + 1j], [0.25 - 1j, 2 - 0.5j]])
N = np.array([[0.5 - 1j, 1.5 + 0.5j], [-1 + 0.25j, 0.75 + 2j]])
SEGMENTS = np.array([0, 0, 1, 1])


def _c64(x):
    return np.asarray(x, np.complex64)


# name: (function(tf, *inputs), inputs, indices of the inputs to differentiate)
CASES = {
    "add": (lambda tf, a, b: tf.add(a, b), (Z, W), (0, 1)),
    "subtract": (lambda tf, a, b: tf.subtract(a, b), (Z, W), (0, 1)),
    "multiply": (lambda tf, a, b: tf.multiply(a, b), (Z, W), (0, 1)),
    "divide": (lambda tf, a, b: tf.divide(a, b), (Z, W), (0, 1)),
    "pow": (lambda tf, a, b: tf.pow(a, b), (Z, W), (0, 1)),
    "negative": (lambda tf, a: tf.negative(a), (Z,), (0,)),
    "square": (lambda tf, a: tf.square(a), (Z,), (0,)),
    "reciprocal": (lambda tf, a: tf.math.reciprocal(a), (Z,), (0,)),
    "exp": (lambda tf, a: tf.exp(a), (Z,), (0,)),
    "expm1": (lambda tf, a: tf.math.expm1(a), (Z,), (0,)),
    "log": (lambda tf, a: tf.math.log(a), (Z,), (0,)),
    "log1p": (lambda tf, a: tf.math.log1p(a), (Z,), (0,)),
    "sqrt": (lambda tf, a: tf.sqrt(a), (Z,), (0,)),
    "rsqrt": (lambda tf, a: tf.math.rsqrt(a), (Z,), (0,)),
    "tanh": (lambda tf, a: tf.tanh(a), (Z,), (0,)),
    "sigmoid": (lambda tf, a: tf.sigmoid(a), (Z,), (0,)),
    "sin": (lambda tf, a: tf.sin(a), (Z,), (0,)),
    "cos": (lambda tf, a: tf.cos(a), (Z,), (0,)),
    "tan": (lambda tf, a: tf.tan(a), (Z,), (0,)),
    "sinh": (lambda tf, a: tf.sinh(a), (Z,), (0,)),
    "cosh": (lambda tf, a: tf.cosh(a), (Z,), (0,)),
    "abs": (lambda tf, a: tf.abs(a), (Z,), (0,)),
    "sign": (lambda tf, a: tf.sign(a), (ZN,), (0,)),
    "math.sign": (lambda tf, a: tf.math.sign(a), (Z,), (0,)),
    "angle": (lambda tf, a: tf.math.angle(a), (Z,), (0,)),
    "real": (lambda tf, a: tf.math.real(a), (Z,), (0,)),
    "imag": (lambda tf, a: tf.math.imag(a), (Z,), (0,)),
    "conj": (lambda tf, a: tf.math.conj(a), (Z,), (0,)),
    "squared_difference": (lambda tf, a, b: tf.math.squared_difference(a, b), (Z, W), (0, 1)),
    "reduce_sum": (lambda tf, a: tf.reduce_sum(a), (Z,), (0,)),
    "reduce_mean": (lambda tf, a: tf.reduce_mean(a), (Z,), (0,)),
    "reduce_prod": (lambda tf, a: tf.reduce_prod(a), (Z,), (0,)),
    "reduce_euclidean_norm": (lambda tf, a: tf.math.reduce_euclidean_norm(a), (ZN,), (0,)),
    "reduce_euclidean_norm_axis": (
        lambda tf, a: tf.math.reduce_euclidean_norm(a, axis=1, keepdims=True), (M,), (0,)),
    "norm": (lambda tf, a: tf.norm(a), (ZN,), (0,)),
    "norm_complex64": (lambda tf, a: tf.norm(a), (_c64(ZN),), (0,)),
    "norm_ord1": (lambda tf, a: tf.norm(a, ord=1), (Z,), (0,)),
    "norm_matrix_fro": (lambda tf, a: tf.norm(a, ord="fro", axis=[0, 1]), (M,), (0,)),
    "cumsum": (lambda tf, a: tf.cumsum(a), (Z,), (0,)),
    "cumsum_reverse_exclusive": (
        lambda tf, a: tf.cumsum(a, exclusive=True, reverse=True), (Z,), (0,)),
    "cumprod": (lambda tf, a: tf.math.cumprod(a), (Z,), (0,)),
    "segment_sum": (lambda tf, a: tf.math.segment_sum(a, SEGMENTS), (Z,), (0,)),
    "unsorted_segment_sum": (
        lambda tf, a: tf.math.unsorted_segment_sum(a, SEGMENTS, 2), (Z,), (0,)),
    "matmul": (lambda tf, a, b: tf.matmul(a, b), (M, N), (0, 1)),
    "matmul_adjoint": (lambda tf, a, b: tf.matmul(a, b, adjoint_a=True), (M, N), (0, 1)),
    "einsum": (lambda tf, a, b: tf.einsum("ij,jk->ik", a, b), (M, N), (0, 1)),
    "transpose_conjugate": (
        lambda tf, a: tf.transpose(a, conjugate=True), (M,), (0,)),
    "linalg.adjoint": (lambda tf, a: tf.linalg.adjoint(a), (M,), (0,)),
    "linalg.det": (lambda tf, a: tf.linalg.det(a), (M,), (0,)),
    "linalg.inv": (lambda tf, a: tf.linalg.inv(a), (M,), (0,)),
    "linalg.trace": (lambda tf, a: tf.linalg.trace(a), (M,), (0,)),
    "linalg.solve": (lambda tf, a, b: tf.linalg.solve(a, b), (M, N), (0, 1)),
    "linalg.solve_adjoint": (
        lambda tf, a, b: tf.linalg.solve(a, b, adjoint=True), (M, N), (0, 1)),
    "linalg.inv_adjoint": (lambda tf, a: tf.linalg.inv(a, adjoint=True), (M,), (0,)),
    "matmul_adjoint_b": (lambda tf, a, b: tf.matmul(a, b, adjoint_b=True), (M, N), (0, 1)),
    "fft": (lambda tf, a: tf.signal.fft(a), (Z,), (0,)),
    "ifft": (lambda tf, a: tf.signal.ifft(a), (Z,), (0,)),
    "fft2d": (lambda tf, a: tf.signal.fft2d(a), (M,), (0,)),
    "complex": (lambda tf, a, b: tf.complex(a, b), (Z.real, W.real), (0, 1)),
    "cast_to_real": (lambda tf, a: tf.cast(a, tf.float64), (Z,), (0,)),
    "maximum": (lambda tf, a, b: tf.maximum(a, b), (Z, W), (0, 1)),
    "reduce_max": (lambda tf, a: tf.reduce_max(a), (Z,), (0,)),
    "reduce_min": (lambda tf, a: tf.reduce_min(a), (Z,), (0,)),
    "argmax": (lambda tf, a: tf.argmax(a), (Z,), ()),
    "less": (lambda tf, a, b: tf.less(a, b), (Z, W), ()),
    "floor": (lambda tf, a: tf.floor(a), (Z,), (0,)),
    "relu": (lambda tf, a: tf.nn.relu(a), (Z,), (0,)),
    "softplus": (lambda tf, a: tf.math.softplus(a), (Z,), (0,)),
    "conv1d": (lambda tf, a, b: tf.nn.conv1d(tf.reshape(a, [1, 4, 1]), tf.reshape(b, [2, 1, 1]),
                                             1, "VALID"), (Z, Z[:2]), (0, 1)),
    "clip_by_norm": (lambda tf, a: tf.clip_by_norm(a, 1.0), (Z,), (0,)),
    "softmax": (lambda tf, a: tf.nn.softmax(a), (Z,), (0,)),
}


def upstream(value):
    """The fixed output gradient each case's gradient is taken with: complex weights for a
    complex result (so that the test sees where the rule conjugates), real ones else."""
    value = np.asarray(value)
    weights = np.linspace(0.5, 1.5, value.size)
    if value.dtype.kind == "c":
        weights = weights - 0.25j * weights[::-1]
    return weights.reshape(value.shape).astype(value.dtype)

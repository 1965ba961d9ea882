"""Neural-network ops: softmax and log_softmax, activations (relu6, leaky_relu, elu, gelu,
silu), erf, l2_loss, moments, dropout and the cross-entropy losses.

Softmax, LogSoftmax, Relu6, LeakyRelu, Elu, Erf and SparseSoftmaxCrossEntropyWithLogits are
ops with their gradients; the others are composites of existing ops, as TensorFlow writes them.
"""

import math

import numpy as np

from runtime import context, dtypes, errors, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    batching,
    common,
    float32_kernels,
    math_ops,
    random_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import FLOAT, REAL, SpecError, convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_loops,
    axis_of,
    close_axis_loops,
    dims,
    finish,
    product,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


# -- softmax ---------------------------------------------------------------------------------


_softmax_infer = common.axis_op_infer(FLOAT)


_softmax_kernel = float32_kernels.softmax  # (numpy's or TensorFlow's digits: see there)


def _log_softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_jax(lw, node, ins):
    """Softmax, shifted by the maximum as the kernel is."""
    jnp, axis = lw.jnp, node.attrs["axis"]
    e = jnp.exp(ins[0] - jnp.max(ins[0], axis=axis, keepdims=True))
    return [e / jnp.sum(e, axis=axis, keepdims=True)]


def _softmax_grad(ctx, grads):
    g, y = grads[0], ctx.output(0)
    axis = ctx.attrs["axis"]
    inner = reduction_ops.reduce_sum(math_ops.multiply(g, y), axis=axis, keepdims=True)
    return [math_ops.multiply(y, math_ops.subtract(g, inner))]


def _softmax_numba(log):
    """Softmax / LogSoftmax along the axis: the maximum subtracted, exp in float64 rounded
    to the dtype (numpy's float32 exp is correctly rounded nearly everywhere), the sum in
    the dtype."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        if x.rank0:
            raise lowering_api.Unsupported("a softmax of a scalar")
        parts = dims(x)
        axis = axis_of(node, len(parts))
        array, before, size, after = as_3d(lowerer, x, axis)
        lowerer.check("%s == 0" % size, ValueError, "zero-size array to reduction operation "
                      "maximum which has no identity")
        kind = type_name(x.dtype)
        result, top, total, k = (lowerer.fresh(p) for p in ("r", "m", "s", "k"))
        lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple([before, size, after]),
                                                kind))
        a, b = axis_loops(lowerer, before, after)
        # (loops, not np.max of a strided row and a slice assignment: numba compiles each
        # anew at every site, 0.2 s, and 2.5 s for the first in a process)
        lowerer.line("%s = %s[%s, 0, %s]" % (top, array, a, b))
        lowerer.line("for %s in range(1, %s):" % (k, size))
        with lowerer.block():  # (np.max's order: the first of equal values, NaN if any)
            lowerer.line("if %s[%s, %s, %s] > %s or %s[%s, %s, %s] != %s[%s, %s, %s]:" % (
                array, a, k, b, top, array, a, k, b, array, a, k, b))
            with lowerer.block():
                lowerer.line("%s = %s[%s, %s, %s]" % (top, array, a, k, b))
        lowerer.line("%s = %s(0)" % (total, kind))
        lowerer.line("for %s in range(%s):" % (k, size))
        with lowerer.block():
            shifted = "%s(%s[%s, %s, %s] - %s)" % (kind, array, a, k, b, top)
            exp = "%s(np.exp(np.float64(%s)))" % (kind, shifted)
            if log:
                lowerer.line("%s[%s, %s, %s] = %s" % (result, a, k, b, shifted))
            else:
                lowerer.line("%s[%s, %s, %s] = %s" % (result, a, k, b, exp))
                exp = "%s[%s, %s, %s]" % (result, a, k, b)
            lowerer.line("%s = %s(%s + %s)" % (total, kind, total, exp))
        if log:
            lowerer.line("%s = %s(np.log(np.float64(%s)))" % (total, kind, total))
        lowerer.line("for %s in range(%s):" % (k, size))
        with lowerer.block():
            lowerer.line("%s[%s, %s, %s] = %s[%s, %s, %s] %s %s" % (
                result, a, k, b, result, a, k, b, "-" if log else "/", total))
        close_axis_loops(lowerer)
        finish(lowerer, outs[0], result, parts)
    return rule


OPS["Softmax"] = register("Softmax", _softmax_kernel, _softmax_infer,
                          grad=_softmax_grad, emit=KERNEL_CALL,
                          lowerings=dict(_NOT_LOWERED, jax=_softmax_jax,
                                         numba=_softmax_numba(log=False)))


def _log_softmax_jax(lw, node, ins):
    """LogSoftmax, shifted by the maximum as the kernel is."""
    jnp, axis = lw.jnp, node.attrs["axis"]
    shifted = ins[0] - jnp.max(ins[0], axis=axis, keepdims=True)
    return [shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))]


def _log_softmax_grad(ctx, grads):
    g, y = grads[0], ctx.output(0)
    total = reduction_ops.reduce_sum(g, axis=ctx.attrs["axis"], keepdims=True)
    return [math_ops.subtract(g, math_ops.multiply(math_ops.exp(y), total))]


OPS["LogSoftmax"] = register("LogSoftmax", _log_softmax_kernel, _softmax_infer,
                             grad=_log_softmax_grad, emit=KERNEL_CALL,
                             lowerings=dict(_NOT_LOWERED, jax=_log_softmax_jax,
                                            numba=_softmax_numba(log=True)))


def softmax(logits, axis=-1, name=None):
    """exp(logits) normalised to sum to 1 along `axis`."""
    return execute1(OPS["Softmax"], [common.convert_to_tensor(logits)], {"axis": int(axis)},
                    name=name)


def log_softmax(logits, axis=-1, name=None):
    """log(softmax(logits)), computed stably."""
    return execute1(OPS["LogSoftmax"], [common.convert_to_tensor(logits)], {"axis": int(axis)},
                    name=name)


def _float_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, FLOAT)
    return [(dtype, shape)]


def _where_positive(ctx, g, otherwise):
    x = ctx.input(0)
    return selection_ops.where(math_ops.greater(x, 0), g, otherwise)


def _relu6_grad(ctx, grads):
    x = ctx.input(0)
    inside = math_ops.logical_and(math_ops.greater(x, 0), math_ops.less(x, 6))
    return [selection_ops.where(inside, grads[0], array_ops.zeros_like(grads[0]))]


def _leaky_grad(ctx, grads):
    g = grads[0]
    return [_where_positive(ctx, g, math_ops.multiply(g, ctx.attrs["alpha"]))]


def _elu_grad(ctx, grads):
    g = grads[0]
    return [_where_positive(ctx, g, math_ops.multiply(g, math_ops.add(ctx.output(0), 1.0)))]


def _leaky_kernel(x, alpha):
    if 0 <= alpha <= 1:  # max(x, alpha * x) is the same, about twice as fast as np.where
        return np.maximum(x, x * np.asarray(alpha, x.dtype))
    return np.where(x > 0, x, x * np.asarray(alpha, x.dtype))


def _elu_kernel(x):
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _erf_grad(ctx, grads):
    x = ctx.input(0)
    slope = math_ops.multiply(math_ops.exp(math_ops.negative(math_ops.square(x))),
                              2.0 / math.sqrt(math.pi))
    return [math_ops.multiply(grads[0], slope)]


def _erfc_grad(ctx, grads):
    x = ctx.input(0)
    slope = math_ops.multiply(math_ops.exp(math_ops.negative(math_ops.square(x))),
                              -2.0 / math.sqrt(math.pi))
    return [math_ops.multiply(grads[0], slope)]


def _numeric_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, REAL)
    return [(dtype, shape)]


def _leaky_lowering(lowerer, node, ins, outs):
    x, alpha = ins[0], node.attrs["alpha"]
    scaled = "%s * %s(%r)" % (x, lowerer.literal(x.dtype), alpha)  # in x's dtype, as the kernel
    if 0 <= alpha <= 1:
        lowerer.assign(outs[0], "xp.maximum(%s, %s)" % (x, scaled))
    else:
        lowerer.assign(outs[0], "xp.where(%s > 0, %s, %s)" % (x, x, scaled))


_ELU = "xp.where({0} > 0, {0}, xp.expm1(xp.minimum({0}, 0)))"


def _elu_numba_lowering(lowerer, node, ins, outs):
    # numba's float32 expm1 is a few ulp off numpy's: computed in float64, rounded back
    x = ins[0]
    wide = x
    if x.dtype.np_dtype.itemsize < 8:
        wide = "xp.float64(%s)" % x if x.rank0 else "%s.astype(xp.float64)" % x
    lowerer.assign(outs[0], "xp.where(%s > 0, %s, xp.expm1(xp.minimum(%s, 0)))" % (x, x, wide))


# np.minimum(np.maximum(...)) is about twice as fast as np.clip and keeps the dtype
OPS["Relu6"] = register("Relu6", lambda x: np.minimum(np.maximum(x, 0), 6), _numeric_infer,
                        grad=_relu6_grad, emit=KERNEL_CALL,
                        lowerings={"array": "xp.minimum(xp.maximum({0}, 0), 6)"})
OPS["LeakyRelu"] = register("LeakyRelu", _leaky_kernel, _float_infer, grad=_leaky_grad,
                            emit=KERNEL_CALL, lowerings={"array": _leaky_lowering})
OPS["Elu"] = register("Elu", _elu_kernel, _float_infer, grad=_elu_grad, emit=KERNEL_CALL,
                      lowerings={"array": _ELU, "numba": _elu_numba_lowering})
def _c_library_kernel(function):
    """The kernel of a function of Python's math module (the C library's, taken in
    float64), applied to each element and rounded to the input's dtype."""
    each = np.frompyfunc(function, 1, 1)

    def kernel(x):
        return np.asarray(each(x), dtype=x.dtype)
    return kernel


def _erf_jax(lowerer, node, ins):
    # JAX's protocol (runtime/backends/jax_lowering.py): `lowerer.lax` is jax.lax, imported
    # by the JAX backend, so this module imports no jax
    return [lowerer.lax.erf(lowerer.jnp.asarray(ins[0]))]


def _c_library_numba(name):
    """numba: `math.<name>` of each element taken as a float64, rounded to the output's
    dtype, as the kernel computes it (Python's math module and numba's are the C
    library's)."""
    def rule(lowerer, node, ins, outs):
        x, out = ins[0], outs[0]
        if out.dtype.np_dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise lowering_api.Unsupported("%s of %s" % (name, out.dtype.name))
        lowerer.modules.add("math")
        if x.rank0:
            lowerer.assign(out, "math.%s(np.float64(%s))" % (name, x))
            return
        parts = dims(x)
        count = product(parts)
        flat, result, k = lowerer.fresh("c"), lowerer.fresh("r"), lowerer.fresh("k")
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, x, count))
        lowerer.line("%s = np.empty(%s, %s)" % (result, count, type_name(out.dtype)))
        lowerer.line("for %s in range(%s):" % (k, count))
        with lowerer.block():
            lowerer.line("%s[%s] = math.%s(np.float64(%s[%s]))" % (result, k, name, flat, k))
        finish(lowerer, out, result, parts)
    return rule


OPS["Erf"] = register("Erf", _c_library_kernel(math.erf), _float_infer, grad=_erf_grad,
                      emit=KERNEL_CALL,
                      lowerings={"numba": _c_library_numba("erf"), "jax": _erf_jax},
                      traits=("elementwise",))
OPS["Erfc"] = register("Erfc", _c_library_kernel(math.erfc), _float_infer, grad=_erfc_grad,
                       emit=KERNEL_CALL,
                       lowerings={"numba": _c_library_numba("erfc"),
                                  "jax": lowering_api.unsupported(
                                      "XLA's erfc is not accurate enough (55 ulp in float64 "
                                      "near 8.7; float32's tail beyond 9 is lost)")},
                       traits=("elementwise",))


def _float(x, what):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError("%s: expected a float tensor, got %s %s"
                        % (what, x.dtype.name, shape_lib.to_string(x._shape_tuple())))
    return x


@dispatchable
def relu6(features, name=None):
    """min(max(features, 0), 6) elementwise (numbers of any type)."""
    return execute1(OPS["Relu6"], [convert_to_tensor(features)], name=name)


@dispatchable
def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else alpha * features."""
    # (alpha is a float attribute, 32 bits, as TensorFlow's: float64 features are scaled by
    # 0.2 rounded to float32)
    return execute1(OPS["LeakyRelu"], [convert_to_tensor(features)],
                    {"alpha": float(np.float32(alpha))}, name=name)


@dispatchable
def elu(features, name=None):
    """features where positive, else exp(features) - 1."""
    return execute1(OPS["Elu"], [convert_to_tensor(features)], name=name)


def erf(x, name=None):
    """The Gauss error function elementwise."""
    return execute1(OPS["Erf"], [convert_to_tensor(x)], name=name)


def erfc(x, name=None):
    """The complementary error function, 1 - erf(x), elementwise (without erf's loss of
    digits where erf(x) is near 1)."""
    return execute1(OPS["Erfc"], [convert_to_tensor(x)], name=name)


@dispatchable
def gelu(features, approximate=False, name=None):
    """x * P(X <= x) for a standard normal X: exact (with erf), or with TensorFlow's tanh
    approximation when `approximate`."""
    x = _float(features, "gelu")
    if approximate:
        cube = math_ops.multiply(math_ops.multiply(x, x), x)
        inner = math_ops.multiply(math_ops.add(x, math_ops.multiply(cube, 0.044715)),
                                  math.sqrt(2.0 / math.pi))
        return math_ops.multiply(math_ops.multiply(x, 0.5),
                                 math_ops.add(math_ops.tanh(inner), 1.0), name=name)
    # TensorFlow's form: erfc keeps every digit where 1 + erf(x / sqrt(2)) would cancel
    # (float32 gelu(-6) was 0, and 5% off at -5)
    cdf = erfc(math_ops.multiply(math_ops.negative(x), 0.7071067811865476))
    return math_ops.multiply(math_ops.multiply(x, 0.5), cdf, name=name)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features, name=None):
    """scale * x where positive, else scale * alpha * (exp(x) - 1), with the constants of
    Klambauer et al. (2017), as TensorFlow's kernel computes it."""
    x = _float(features, "selu")
    negative = math_ops.multiply(math_ops.subtract(math_ops.exp(math_ops.minimum(x, 0.0)), 1.0),
                                 _SELU_SCALE * _SELU_ALPHA)
    return selection_ops.where(math_ops.less(x, 0.0), negative,
                               math_ops.multiply(x, _SELU_SCALE), name=name)


def softsign(features, name=None):
    """x / (1 + |x|) elementwise."""
    x = _float(features, "softsign")
    return math_ops.divide(x, math_ops.add(math_ops.abs(x), 1.0), name=name)


def bias_add(value, bias, data_format=None, name=None):
    """value + bias along the channel axis: the last one, or axis 1 when `data_format`
    starts with "NC". `bias` is 1-D, one number per channel. What the static shapes show is
    checked (a traced input of unknown rank takes the bias along its last axis)."""
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype)
    channels_first = data_format is not None and data_format.startswith("NC")
    shape, bias_shape = value._shape_tuple(), bias._shape_tuple()
    if bias_shape is not None and len(bias_shape) != 1:
        _bias_add_failed("Biases must be 1D: %s" % shape_lib.kernel_string(bias_shape))
    if shape is None:
        if channels_first:
            raise ValueError(errors.with_user_location(
                "bias_add: data_format %r needs the input's rank, which is unknown"
                % data_format))
        return math_ops.add(value, bias, name=name)
    least = 3 if channels_first else 2
    if len(shape) < least:
        _bias_add_failed("Input tensor must be at least %dD: %s"
                         % (least, shape_lib.kernel_string(shape)))
    channels = shape[1 if channels_first else -1]
    if channels is not None and bias_shape is not None and bias_shape[0] is not None \
            and channels != bias_shape[0]:
        _bias_add_failed("Must provide as many biases as the %s dimension of the input "
                         "tensor: %s vs. %s" % ("channel" if channels_first else "last",
                                               shape_lib.kernel_string(bias_shape),
                                               shape_lib.kernel_string(shape)))
    if channels_first:
        bias = reshape_ops.reshape(bias, [-1] + [1] * (len(shape) - 2))
    return math_ops.add(value, bias, name=name)


def _bias_add_failed(message):
    """TensorFlow's error for a bad bias_add: its kernel's InvalidArgumentError when run
    eagerly, its shape function's ValueError while tracing."""
    if context.executing_eagerly():
        raise errors.InvalidArgumentError(errors.with_user_location(message), "BiasAdd")
    raise ValueError(errors.with_user_location(message))


@dispatchable
def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (swish)."""
    x = _float(features, "silu")
    return math_ops.multiply(x, math_ops.sigmoid(math_ops.multiply(x, beta)), name=name)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    t = _float(t, "l2_loss")
    return math_ops.multiply(reduction_ops.reduce_sum(math_ops.square(t)), 0.5, name=name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes`."""
    x = _float(x, "moments")
    mean = reduction_ops.reduce_mean(x, axes, keepdims=True)
    centred = math_ops.squared_difference(x, array_ops.stop_gradient(mean))
    variance = reduction_ops.reduce_mean(centred, axes, keepdims=True)
    if not keepdims:
        mean = reshape_ops.squeeze(mean, axes)
        variance = reshape_ops.squeeze(variance, axes)
    return mean, variance


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """`x` with each element zeroed with probability `rate` and the others scaled by
    1 / (1 - rate); `noise_shape` (broadcast against x's shape) shares the mask along its
    size-1 dimensions; shapes may be unknown until the graph runs; `seed` follows
    tf.random's seeding rules."""
    x = _float(x, "dropout")
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError("dropout: rate must be in [0, 1), got %r" % (rate,))
    rate_t = convert_to_tensor(rate, dtype_hint=x.dtype)
    if noise_shape is None:
        shape = x._shape_tuple()
        shape = array_ops.shape(x) if shape is None or None in shape else shape
    else:
        shape = array_ops.dims_tensor(noise_shape)
    draw = random_ops.uniform_of_shape(shape, dtype=x.dtype, seed=seed)
    keep = math_ops.greater_equal(draw, rate_t)
    scaled = math_ops.truediv(x, math_ops.subtract(1.0, rate_t))
    return selection_ops.where(keep, scaled, array_ops.zeros_like(scaled), name=name)


# -- cross-entropy losses ---------------------------------------------------------------------


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along `axis` (differentiable in both)."""
    logits = _float(logits, "softmax_cross_entropy_with_logits")
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    _same_shape(labels, logits, "softmax_cross_entropy_with_logits")
    log_probs = log_softmax(logits, axis)
    return math_ops.negative(reduction_ops.reduce_sum(math_ops.multiply(labels, log_probs),
                                                      axis), name=name)


def _same_shape(labels, logits, what):
    if labels.dtype is not logits.dtype:
        raise TypeError("%s: labels and logits must have the same dtype, got %s and %s"
                        % (what, labels.dtype.name, logits.dtype.name))
    a, b = labels._shape_tuple(), logits._shape_tuple()
    if a is not None and b is not None and (len(a) != len(b) or any(
            x is not None and y is not None and x != y for x, y in zip(a, b))):
        raise ValueError("%s: labels %s and logits %s must have the same shape"
                         % (what, shape_lib.to_string(a), shape_lib.to_string(b)))


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """The elementwise logistic loss max(x, 0) - x * z + log(1 + exp(-|x|)) (x: logits, z:
    labels), stable for large |x|."""
    logits = _float(logits, "sigmoid_cross_entropy_with_logits")
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    _same_shape(labels, logits, "sigmoid_cross_entropy_with_logits")
    return math_ops.add(math_ops.subtract(math_ops.relu(logits),
                                          math_ops.multiply(logits, labels)),
                        math_ops.log1p(math_ops.exp(math_ops.negative(math_ops.abs(logits)))),
                        name=name)


def _sparse_infer(specs, attrs):
    (label_dtype, labels), (dtype, logits) = specs
    require_kind(label_dtype, {"int"}, "labels")
    require_kind(dtype, FLOAT, "logits")
    if labels is not None and logits is not None:
        if len(logits) != len(labels) + 1 or any(
                a is not None and b is not None and a != b for a, b in zip(labels, logits)):
            raise SpecError("shape", "labels of shape %s need logits of shape [*labels.shape, "
                            "classes], got %s" % (shape_lib.to_string(labels),
                                                  shape_lib.to_string(logits)))
    return [(dtype, labels if labels is not None else (
        None if logits is None else logits[:-1]))]


def _sparse_kernel(labels, logits):
    classes = logits.shape[-1]
    bad = (labels < 0) | (labels >= classes)
    if np.any(bad):
        raise ValueError("labels %s are outside the valid range [0, %d)"
                         % (labels[bad].tolist(), classes))
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.take_along_axis(log_probs, labels[..., None].astype(np.intp), -1)[..., 0]


def _sparse_grad(ctx, grads):
    labels, logits = ctx.input(0), ctx.input(1)
    classes = ctx.input_shape(1)[-1] if ctx.input_shape(1) is not None else None
    if classes is None:
        classes = array_ops.shape(logits)[-1]
    picked = selection_ops.one_hot(labels, classes, dtype=ctx.input_dtype(1))
    delta = math_ops.subtract(softmax(logits), picked)
    return [None, math_ops.multiply(reshape_ops.expand_dims(grads[0], -1), delta)]


OPS["SparseSoftmaxCrossEntropyWithLogits"] = register(
    "SparseSoftmaxCrossEntropyWithLogits", _sparse_kernel, _sparse_infer, grad=_sparse_grad,
    emit=KERNEL_CALL,
    lowerings=_NOT_LOWERED)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """-log_softmax(logits)[..., labels]: `labels` (ints in [0, classes)) index the last
    dimension of `logits`; a label out of range is an error."""
    logits = _float(logits, "sparse_softmax_cross_entropy_with_logits")
    labels = convert_to_tensor(labels, dtype_hint=dtypes.int32)
    return execute1(OPS["SparseSoftmaxCrossEntropyWithLogits"], [labels, logits], name=name)


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


batching.declare(OPS["Softmax"], batching.along_an_axis)
batching.declare(OPS["LogSoftmax"], batching.along_an_axis)

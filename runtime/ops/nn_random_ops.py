"""Neural-network helpers (softmax, log_softmax) and random number ops.

Random ops are stateful: each node owns a numpy Generator, so a traced graph draws new
numbers on every call, like TensorFlow's stateful random ops. `set_seed` makes the
sequence of generators (and so every draw) reproducible.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    common,
    math_ops,
    reduction_ops,
)
from runtime.ops.common import FLOAT, require_kind
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_loops,
    axis_of,
    close_axis_loops,
    dims,
    finish,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

# numba and JAX call the op's kernel on the host: the same draws, in the executor's order
_ON_HOST = lowering_api.lazy_rule("runtime.backends.numba_host:kernel_on_host")
_HOST_RANDOM = {"array": lowering_api.unsupported("random draws use the host's generator"),
                "numba": _ON_HOST,
                "jax": lowering_api.lazy_rule("runtime.backends.jax_host:call_kernel")}

OPS = {}


def _softmax_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, FLOAT)
    if shape is not None:
        common.normalize_axis(attrs["axis"], len(shape))
    return [(dtype, shape)]


def _softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


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
        lowerer.line("%s = np.max(%s[%s, :, %s])" % (top, array, a, b))
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
            lowerer.line("%s[%s, :, %s] = %s[%s, :, %s] - %s" % (result, a, b, result, a, b,
                                                                 total))
        else:
            lowerer.line("%s[%s, :, %s] = %s[%s, :, %s] / %s" % (result, a, b, result, a, b,
                                                                 total))
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


# -- random -----------------------------------------------------------------------------------

_global_seed = {"seed": None, "counter": 0, "streams": {}}
_default_rng = [np.random.default_rng()]
# TensorFlow's global seed where only an op seed is given
DEFAULT_GLOBAL_SEED = 87654321


def set_seed(seed):
    """Makes random ops created afterwards reproducible (TF's `tf.random.set_seed`): the same
    global seed gives the same sequence of random ops, each with the same sequence of draws."""
    _global_seed["seed"] = None if seed is None else int(seed)
    _global_seed["counter"] = 0
    _global_seed["streams"] = {}
    _default_rng[0] = np.random.default_rng(None if seed is None else _unsigned(seed))


def _unsigned(value):
    return int(value) & 0xFFFFFFFFFFFFFFFF


def op_generator(seed):
    """The numpy Generator of a new random op with op seed `seed` (None: unset), following
    TensorFlow's rules: with neither seed, fresh draws; with the global seed only, the op
    seed comes from a counter that `set_seed` resets; with an op seed, each (global seed, op
    seed) pair is a stream of its own (a second op with the same seeds continues it, so two
    eager calls differ), which `set_seed` restarts."""
    global_seed = _global_seed["seed"]
    if seed is None and global_seed is None:
        return _default_rng[0]
    base = _unsigned(DEFAULT_GLOBAL_SEED if global_seed is None else global_seed)
    if seed is None:
        _global_seed["counter"] += 1
        return np.random.default_rng([base, 0, _global_seed["counter"]])
    streams = _global_seed["streams"]
    position = streams.get(int(seed), 0)
    streams[int(seed)] = position + 1
    return np.random.default_rng([base, 1, _unsigned(seed), position])


def _random_infer(specs, attrs):
    for d, s in specs:
        require_kind(d, FLOAT, "bound")
    return [(attrs["dtype"], attrs["shape"])]


def _uniform_kernel(minval, maxval, shape, dtype, rng):
    draw = rng.random(shape, dtype=np.float64)
    return (minval + draw * (maxval - minval)).astype(dtype.np_dtype)


def _normal_kernel(mean, stddev, shape, dtype, rng):
    return (mean + stddev * rng.standard_normal(shape)).astype(dtype.np_dtype)


def _truncated_normal_kernel(mean, stddev, shape, dtype, rng):
    """Standard normal draws beyond two standard deviations drawn again, as TensorFlow's."""
    draw = rng.standard_normal(shape)
    outside = np.abs(draw) > 2.0
    while outside.any():
        draw[outside] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(draw) > 2.0
    return (mean + stddev * draw).astype(dtype.np_dtype)


def _uniform_int_kernel(minval, maxval, shape, dtype, rng):
    return rng.integers(minval, maxval, size=shape).astype(dtype.np_dtype)


def _int_random_infer(specs, attrs):
    return [(attrs["dtype"], attrs["shape"])]


for _name, _kernel, _infer in [("RandomUniform", _uniform_kernel, _random_infer),
                               ("RandomUniformInt", _uniform_int_kernel, _int_random_infer),
                               ("RandomStandardNormal", _normal_kernel, _random_infer),
                               ("TruncatedNormal", _truncated_normal_kernel, _random_infer)]:
    OPS[_name] = register(_name, _kernel, _infer, grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                          traits=("stateful", "unrepeatable"), lowerings=_HOST_RANDOM)


def _static_shape(shape):
    dims = common.static_int_list(shape, "shape")
    return () if dims is None else dims


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform random values in [minval, maxval) (maxval defaults to 1 for floats)."""
    dtype = dtypes.as_dtype(dtype)
    attrs = {"shape": _static_shape(shape), "dtype": dtype, "rng": op_generator(seed)}
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("integer uniform needs maxval")
        lo = common.convert_to_tensor(minval, dtype=dtype)
        hi = common.convert_to_tensor(maxval, dtype=dtype)
        return execute1(OPS["RandomUniformInt"], [lo, hi], attrs, name=name)
    lo = common.convert_to_tensor(minval, dtype_hint=dtype)
    hi = common.convert_to_tensor(1.0 if maxval is None else maxval, dtype_hint=dtype)
    return execute1(OPS["RandomUniform"], [lo, hi], attrs, name=name)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normally distributed random values."""
    return _normal("RandomStandardNormal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name=None):
    """Normally distributed random values within two standard deviations of the mean."""
    return _normal("TruncatedNormal", shape, mean, stddev, dtype, seed, name)


def _normal(op_name, shape, mean, stddev, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    attrs = {"shape": _static_shape(shape), "dtype": dtype, "rng": op_generator(seed)}
    return execute1(OPS[op_name], [common.convert_to_tensor(mean, dtype_hint=dtype),
                                   common.convert_to_tensor(stddev, dtype_hint=dtype)],
                    attrs, name=name)

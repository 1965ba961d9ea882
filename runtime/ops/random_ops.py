"""More random ops: categorical, shuffle (stateful, seeded as `nn_random_ops.op_generator`
says, TensorFlow's global + op seed rules) and the stateless uniform and normal draws, whose
values depend only on their `seed` argument (a pair of integers)."""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import common, nn_random_ops
from runtime.ops.common import FLOAT, SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

# numba and JAX call the op's kernel on the host: the same draws, in the executor's order
_ON_HOST = lowering_api.KERNEL_ON_HOST
_HOST_RANDOM = {"array": lowering_api.unsupported("random draws use the host's generator"),
                "numba": _ON_HOST, "jax": _ON_HOST}
_NUMPY_STATELESS = {"array": lowering_api.unsupported(
    "stateless draws are numpy generator streams (the executor's numbers)"), "numba": _ON_HOST}

OPS = {}
_DRAW = ("stateful", "unrepeatable")


def _categorical_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, FLOAT, "logits")
    if shape is not None and len(shape) != 2:
        raise SpecError("shape", "logits must be [batch_size, num_classes]")
    batch = None if shape is None else shape[0]
    return [(attrs["dtype"], (batch, attrs["num_samples"]))]


def _categorical_kernel(logits, num_samples, dtype, rng):
    batch, classes = logits.shape
    if classes == 0:
        raise ValueError("logits need at least one class")
    # Gumbel-max: argmax(logits + Gumbel noise) is a draw from softmax(logits)
    noise = rng.gumbel(size=(batch, num_samples, classes))
    with np.errstate(invalid="ignore"):
        scores = logits[:, None, :].astype(np.float64) + noise
    return np.argmax(scores, axis=-1).astype(dtype.np_dtype)


OPS["Multinomial"] = register("Multinomial", _categorical_kernel, _categorical_infer,
                              node_name="categorical", grad=NOT_DIFFERENTIABLE,
                              emit=KERNEL_CALL, traits=_DRAW,
                              lowerings=_HOST_RANDOM)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`num_samples` class indices per row of `logits` [batch, classes], drawn with
    probabilities softmax(logits row)."""
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if not dtype.is_integer:
        raise TypeError("categorical: dtype must be an integer type, got %s" % dtype.name)
    count = common.static_int_list(num_samples, "num_samples")
    if len(count) != 1 or count[0] < 0:
        raise ValueError("categorical: num_samples must be a non-negative integer")
    attrs = {"num_samples": count[0], "dtype": dtype,
             "rng": nn_random_ops.op_generator(seed)}
    return execute1(OPS["Multinomial"], [convert_to_tensor(logits)], attrs, name=name)


def _shuffle_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is not None and not shape:
        raise SpecError("shape", "shuffle needs a tensor of rank >= 1")
    return [(dtype, shape)]


OPS["RandomShuffle"] = register(
    "RandomShuffle", lambda x, rng: x[rng.permutation(x.shape[0])], _shuffle_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=_DRAW,
    lowerings=_HOST_RANDOM)


def shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    return execute1(OPS["RandomShuffle"], [convert_to_tensor(value)],
                    {"rng": nn_random_ops.op_generator(seed)}, name=name)


def _uniform_shaped_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"int"}, "shape")
    if shape is not None and len(shape) != 1:
        raise SpecError("shape", "shape must be a vector")
    return [(attrs["dtype"], attrs["static_shape"])]


def _uniform_shaped_kernel(shape, dtype, static_shape, rng):
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError("shape %s has a negative dimension" % (list(dims),))
    return rng.random(dims, dtype=np.float64).astype(dtype.np_dtype)


OPS["RandomUniformShaped"] = register(
    "RandomUniformShaped", _uniform_shaped_kernel, _uniform_shaped_infer,
    node_name="random_uniform", grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=_DRAW,
    lowerings=_HOST_RANDOM)


def uniform_of_shape(shape, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [0, 1) of a shape given as a 1-D int tensor, known or not when the
    graph is built (the static shape is what is known of it)."""
    shape = convert_to_tensor(shape, dtype_hint=dtypes.int32)
    attrs = {"dtype": dtypes.as_dtype(dtype), "static_shape": common.partial_shape_value(shape),
             "rng": nn_random_ops.op_generator(seed)}
    return execute1(OPS["RandomUniformShaped"], [shape], attrs, name=name)


# -- stateless ----------------------------------------------------------------------------------


def _stateless_infer(specs, attrs):
    (seed_dtype, seed_shape) = specs[0]
    require_kind(seed_dtype, {"int"}, "seed")
    if seed_shape is not None and seed_shape != (2,):
        raise SpecError("shape", "seed must have shape [2], got %s" % (list(seed_shape),))
    for dtype, shape in specs[1:]:
        if dtype is not attrs["dtype"]:
            raise SpecError("dtype", "bounds must have dtype %s, got %s"
                            % (attrs["dtype"].name, dtype.name))
        if shape not in ((), None):
            raise SpecError("shape", "bounds must be scalars")
    return [(attrs["dtype"], attrs["shape"])]


def _seeded(seed, kind):
    """A Generator determined by the seed pair and the kind of draw."""
    return np.random.default_rng([int(s) & 0xFFFFFFFFFFFFFFFF for s in np.reshape(seed, [-1])]
                                 + [kind])


def _stateless_uniform_kernel(seed, low, high, shape, dtype):
    rng = _seeded(seed, 1)
    if dtype.is_integer:
        if low >= high:
            raise ValueError("minval %d must be below maxval %d" % (low, high))
        return rng.integers(low, high, size=shape).astype(dtype.np_dtype)
    draw = rng.random(shape, dtype=np.float64)
    return (low + draw * (high - low)).astype(dtype.np_dtype)


def _stateless_normal_kernel(seed, mean, stddev, shape, dtype):
    rng = _seeded(seed, 2)
    return (mean + stddev * rng.standard_normal(shape)).astype(dtype.np_dtype)


OPS["StatelessRandomUniform"] = register("StatelessRandomUniform", _stateless_uniform_kernel,
                                         _stateless_infer, grad=NOT_DIFFERENTIABLE,
                                         emit=KERNEL_CALL,
                                         lowerings=_NUMPY_STATELESS)
OPS["StatelessRandomNormal"] = register("StatelessRandomNormal", _stateless_normal_kernel,
                                        _stateless_infer, grad=NOT_DIFFERENTIABLE,
                                        emit=KERNEL_CALL,
                                        lowerings=_NUMPY_STATELESS)


def _stateless(op_name, shape, seed, first, second, dtype, name):
    dims = common.static_int_list(shape, "shape")
    seed = convert_to_tensor(seed, dtype_hint=dtypes.int64)
    attrs = {"shape": () if dims is None else dims, "dtype": dtype}
    bounds = [convert_to_tensor(v, dtype_hint=dtype) for v in (first, second)]
    return execute1(OPS[op_name], [seed] + bounds, attrs, name=name)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None):
    """Uniform values in [minval, maxval) determined by `seed` (two integers): the same seed
    gives the same values. Integer dtypes need maxval."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("stateless_uniform: an integer dtype needs maxval")
        maxval = 1.0
    return _stateless("StatelessRandomUniform", shape, seed, minval, maxval, dtype, name)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normal values determined by `seed` (two integers)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("stateless_normal: dtype must be a float type, got %s" % dtype.name)
    return _stateless("StatelessRandomNormal", shape, seed, mean, stddev, dtype, name)

"""Random number ops and their seeds: `set_seed`, each node's generator (`op_generator`),
the stateful draws (uniform, normal, truncated normal, categorical, shuffle) and the
stateless uniform and normal draws, whose values depend only on their `seed` argument (a
pair of integers).

Stateful random ops own a numpy Generator each, so a traced graph draws new numbers on every
call, like TensorFlow's stateful random ops; `set_seed` makes the sequence of generators (and
so every draw) reproducible, with TensorFlow's global + op seed rules.
"""

from typing import Any

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import common
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

_global_seed: dict[str, Any] = {"seed": None, "counter": 0, "streams": {}}
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


# -- categorical, shuffle -------------------------------------------------------------------


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
             "rng": op_generator(seed)}
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
                    {"rng": op_generator(seed)}, name=name)


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
             "rng": op_generator(seed)}
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

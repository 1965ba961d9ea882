"""Random number ops and their seeds: `set_seed`, each node's generator (`op_generator`) and
the stateful uniform and normal draws.

Random ops are stateful: each node owns a numpy Generator, so a traced graph draws new
numbers on every call, like TensorFlow's stateful random ops. `set_seed` makes the
sequence of generators (and so every draw) reproducible.
"""

from typing import Any

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import common
from runtime.ops.common import FLOAT, require_kind
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

# numba and JAX call the op's kernel on the host: the same draws, in the executor's order
_ON_HOST = lowering_api.KERNEL_ON_HOST
_HOST_RANDOM = {"array": lowering_api.unsupported("random draws use the host's generator"),
                "numba": _ON_HOST, "jax": _ON_HOST}

OPS = {}

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

"""Conversions of a tensor to another dtype: cast (the values converted, as C casts them)
and bitcast (the bits read as another type).

`saturate_cast`, which clamps before casting and takes complex values apart, is with the
complex-number ops (`complex_numbers`), which it is written with.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import attr_types, common
from runtime.ops.common import SpecError, convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import TYPES, unary
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

OPS = {}


def _cast_infer(specs, attrs):
    source, shape = specs[0]
    target = attrs["dtype"]
    if (source is dtypes.string) != (target is dtypes.string):
        raise SpecError("dtype", "cannot cast %s to %s" % (source.name, target.name))
    return [(target, shape)]


def _cast_kernel(x, dtype):
    x = np.asarray(x)
    if x.dtype.kind == "c" and dtype.kind != "complex":
        x = x.real  # TensorFlow drops the imaginary part
    with np.errstate(invalid="ignore", over="ignore"):  # out-of-range floats: as the C cast
        return x.astype(dtype.np_dtype)


def _cast_grad(ctx, grads):
    """The gradient passes (cast back) between floating and complex types, as in TF."""
    source = ctx.input_dtype(0)
    inexact = ("float", "complex")
    if source.kind not in inexact or ctx.attrs["dtype"].kind not in inexact:
        return [None]
    return [cast(grads[0], source)]


OPS["Cast"] = register("Cast", _cast_kernel, _cast_infer,
                       grad=_cast_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Cast"), traits=("elementwise",))


def cast(x, dtype, name=None):
    """`x` converted to `dtype`: floats to ints truncate toward zero, complex to real drops
    the imaginary part, integers wrap (use `saturate_cast` to clamp)."""
    dtype = dtypes.as_dtype(dtype)
    if type(x) in TYPES:
        return unary(cast, x, dtype, name=name)
    x = convert_to_tensor(x, dtype_hint=dtype)
    if x.dtype is dtype:
        return x
    return execute1(OPS["Cast"], [x], {"dtype": dtype}, name=name)


_BITCASTABLE = frozenset(["int", "float", "complex"])


def _bitcast_infer(specs, attrs):
    source, shape = specs[0]
    target = attrs["type"]
    for dtype in (source, target):
        require_kind(dtype, _BITCASTABLE, "bitcast type")
    small, large = source.size, target.size
    if shape is None or small == large:
        return [(target, shape)]
    if small > large:
        return [(target, shape + (small // large,))]
    if not shape or shape[-1] not in (None, large // small):
        raise SpecError("shape", "Cannot bitcast from %s to %s: the last dimension must be "
                        "%d, got shape %s" % (source.name, target.name, large // small,
                                              common.shape_lib.to_string(shape)))
    return [(target, shape[:-1])]


def _bitcast_kernel(x, type):  # noqa: A002 - the op's attribute name
    x = np.ascontiguousarray(x)
    source = x.dtype.itemsize
    if source > type.size:
        return x.reshape(x.shape + (1,)).view(type.np_dtype)
    result = x.view(type.np_dtype)
    return result.reshape(result.shape[:-1]) if source < type.size else result


def _bitcast_jax(lw, node, ins):
    """XLA's bitcast_convert_type, whose shape rule is TensorFlow's."""
    return [lw.lax.bitcast_convert_type(lw.jnp.asarray(ins[0]), node.attrs["type"].np_dtype)]


OPS["Bitcast"] = register("Bitcast", _bitcast_kernel, _bitcast_infer, grad=NOT_DIFFERENTIABLE,
                          emit=KERNEL_CALL,
                          lowerings={"numba": lowering_api.unsupported(
                              "bitcast reinterprets memory, which the numba lowering does not "
                              "express"), "jax": _bitcast_jax},
                          attr_types={"type": attr_types.DTYPE})


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's argument names
    """The bits of `input` read as `type`, without copying values: a wider `type` takes the
    last dimension's elements (which must be the size ratio), a narrower one adds a dimension
    of the ratio."""
    return execute1(OPS["Bitcast"], [convert_to_tensor(input)],
                    {"type": dtypes.as_dtype(type)}, name=name)

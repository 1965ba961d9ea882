"""Complex numbers, elementwise: their real and imaginary parts, angle and magnitude, a
complex tensor made of two real ones, and `abs` and `sign` of any tensor (a complex one's
magnitude, and its unit phase); with `saturate_cast`, which clamps each part.

The conjugate is with the arithmetic (`arithmetic.conj`), whose gradients use it.
"""

import numpy as np

from runtime import dtypes
from runtime.ops import common
from runtime.ops.common import (
    SpecError,
    binary_operands,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.composite_dispatch import TYPES, unary
from runtime.ops.gradient_ops import sum_to
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.math_ops import arithmetic
from runtime.ops.math_ops.arithmetic import add, multiply, negative, subtract, truediv
from runtime.ops.math_ops.casting import cast
from runtime.ops.math_ops.comparison import SELECT_V2, clip_by_value, equal, less, select
from runtime.ops.math_ops.elementwise import ones_like, require_numeric, zeros_like
from runtime.ops.registry import KERNEL_CALL, execute1, register

OPS = {}


def _part_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"complex"})
    return [(dtype.real_dtype, shape)]


def _complex_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise SpecError("dtype", "operand of dtype %s is not supported (expected float32 or "
                        "float64)" % dtype.name)
    result = dtypes.complex64 if dtype is dtypes.float32 else dtypes.complex128
    return [(result, common.broadcast_specs(specs))]


def _real_grad(ctx, grads):
    return [complex(grads[0], zeros_like_real(grads[0]))]


def _imag_grad(ctx, grads):
    return [complex(zeros_like_real(grads[0]), grads[0])]




def _complex_grad(ctx, grads):
    g = grads[0]
    return [sum_to(real(g), ctx, 0) if ctx.needed[0] else None,
            sum_to(imag(g), ctx, 1) if ctx.needed[1] else None]


def _angle_grad(ctx, grads):
    """-grad / (imag(x) + i real(x)), TensorFlow's rule."""
    x = ctx.input(0)
    as_complex = complex(grads[0], zeros_like_real(grads[0]))
    return [negative(truediv(as_complex, complex(imag(x), real(x))))]


def _complex_abs_grad(ctx, grads):
    """grad * x / |x|, 0 where x is 0."""
    x = ctx.input(0)
    magnitude = ctx.output(0)
    safe = add(magnitude, cast(equal(magnitude, 0.0), magnitude.dtype))  # 1 where x is 0
    direction = truediv(x, complex(safe, zeros_like_real(safe)))
    return [multiply(complex(grads[0], zeros_like_real(grads[0])), direction)]


def zeros_like_real(x):
    """Zeros of a real tensor's dtype and shape (the imaginary part of a real value)."""
    return subtract(x, x)


OPS["Real"] = register("Real", np.real, _part_infer, grad=_real_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Real"), traits=("elementwise",))
OPS["Imag"] = register("Imag", np.imag, _part_infer, grad=_imag_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Imag"), traits=("elementwise",))
OPS["Angle"] = register("Angle", np.angle, _part_infer, grad=_angle_grad, emit=KERNEL_CALL,
                        lowerings=_lowering("Angle"), traits=("elementwise",))
OPS["ComplexAbs"] = register("ComplexAbs", np.abs, _part_infer, grad=_complex_abs_grad,
                             emit=KERNEL_CALL, lowerings=_lowering("ComplexAbs"),
                             traits=("elementwise",))
OPS["Complex"] = register("Complex", lambda x, y: x + 1j * y, _complex_infer,
                          grad=_complex_grad, emit=KERNEL_CALL, lowerings=_lowering("Complex"),
                          traits=("elementwise",))


def real(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The real part of a complex tensor; a real tensor unchanged."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        require_numeric(x, "real")
        return x
    return execute1(OPS["Real"], [x], name=name)


def imag(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        require_numeric(x, "imag")
        return zeros_like_real(x)
    return execute1(OPS["Imag"], [x], name=name)


def angle(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The argument of each complex element, in (-pi, pi]; for a real tensor pi where it is
    negative, else 0."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        require_numeric(x, "angle")
        pi = convert_to_tensor(np.pi, dtype=x.dtype) if x.dtype.is_floating else None
        if pi is None:
            raise TypeError("angle: expected a floating or complex tensor, got %s"
                            % x.dtype.name)
        return multiply(pi, cast(less(x, 0), x.dtype), name=name)
    return execute1(OPS["Angle"], [x], name=name)


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """real + i * imag: complex64 from float32 parts, complex128 from float64."""
    real, imag = binary_operands(real, imag)
    return execute1(OPS["Complex"], [real, imag], name=name)


def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """|x| elementwise; for a complex tensor its magnitude, of the real type."""
    if type(x) in TYPES:  # a composite tensor: on its values (see composite_dispatch)
        return unary(abs, x, name=name)
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return execute1(OPS["ComplexAbs"], [x], name=name)
    return execute1(arithmetic.OPS["Abs"], [x], name=name)


def sign(x, name=None):
    """The sign of x (-1, 0 or 1) elementwise; for a complex x, x / |x| (0 where x is 0),
    computed as TensorFlow does (so its gradient is that of the division, not zero)."""
    if type(x) in TYPES:
        return unary(sign, x, name=name)
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        return execute1(arithmetic.OPS["Sign"], [x], name=name)
    magnitude = execute1(OPS["ComplexAbs"], [x])
    zero = equal(magnitude, 0.0)
    safe = select(zero, ones_like(magnitude), magnitude)
    unit = truediv(x, complex(safe, zeros_like_real(safe)))
    return execute1(SELECT_V2, [zero, zeros_like(unit), unit], name=name)


def _saturation_limits(source, target):
    """The clamp bounds, in `source`'s type, that keep every value of `source` inside
    `target`'s range once cast (a bound that rounds outward steps one value inward)."""
    low, high = source.min, source.max
    store = source.np_dtype.type
    if target.min > low:
        low = store(target.min)
        if source.is_floating and float(low) < target.min:
            low = np.nextafter(low, store(np.inf))
    if target.max < high:
        high = store(target.max)
        if source.is_floating and float(high) > target.max:
            high = np.nextafter(high, store(-np.inf))
    return low, high


def saturate_cast(value, dtype, name=None):
    """`value` cast to `dtype`, values beyond `dtype`'s range clamped to its limits first
    (complex to real keeps the real part; complex to complex clamps both parts)."""
    dtype = dtypes.as_dtype(dtype)
    value = convert_to_tensor(value)
    source = value.dtype
    if source.is_complex and not dtype.is_complex:
        value, source = real(value), source.real_dtype
    if source.is_complex:
        parts = [real(value), imag(value)]
        bounds = _saturation_limits(source.real_dtype, dtype.real_dtype)
        parts = [clip_by_value(p, *bounds) for p in parts]
        return cast(complex(*parts), dtype, name=name)
    if not source.is_numeric or not (dtype.is_numeric or dtype.is_bool):
        raise TypeError("saturate_cast: cannot cast %s to %s" % (source.name, dtype.name))
    real_target = dtype.real_dtype
    if real_target.is_numeric and (real_target.min > source.min
                                   or real_target.max < source.max):
        value = clip_by_value(value, *_saturation_limits(source, real_target))
    return cast(value, dtype, name=name)

"""The elementwise math ops (TensorFlow's `tf.math`), one family in modules by concept; this
package's names are their API (`math_ops.add`, `math_ops.exp`, ...), and `OPS` all their ops.

  elementwise      how they are declared and called: shape/dtype rules, quiet kernels, emit
                   rules writing Python operators, the calls behind the API (declares no op)
  comparison       comparisons, logic, NaN and infinity tests, SelectV2, maximum, minimum,
                   relu and clip_by_value
  bitwise          bitwise and/or/xor, shifts and invert, on integers
  casting          cast and bitcast
  arithmetic       add, subtract, multiply, divide, floor division and modulo, add_n,
                   negative, square, reciprocal, the conjugate
  complex_numbers  real and imaginary parts, angle, magnitude, complex; abs, sign and
                   saturate_cast of any tensor
  functions        exponentials, logarithms, powers and roots, trigonometric and hyperbolic
                   functions, sigmoid, softplus, rounding

Each module imports only those listed above it. Reductions and argmax/argmin are in
`reduction_ops`, cumsum and cumprod in `cumulative_ops`, matmul in `linalg_ops`; the compiled
backends' lowerings of these ops are in `math_lowerings`.
"""

from runtime.ops.math_ops import (
    arithmetic,
    bitwise,
    casting,
    comparison,
    complex_numbers,
    functions,
)
from runtime.ops.math_ops.arithmetic import (
    add,
    add_n,
    conj,
    divide,
    floordiv,
    floormod,
    mod,
    multiply,
    negative,
    reciprocal,
    square,
    squared_difference,
    subtract,
    truediv,
)
from runtime.ops.math_ops.bitwise import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)
from runtime.ops.math_ops.casting import bitcast, cast
from runtime.ops.math_ops.comparison import (
    clip_by_value,
    equal,
    greater,
    greater_equal,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    not_equal,
    relu,
)
from runtime.ops.math_ops.complex_numbers import (
    abs,  # noqa: A004 - TensorFlow's names, as tf.math.abs
    angle,
    complex,  # noqa: A004
    imag,
    real,
    saturate_cast,
    sign,
    zeros_like_real,
)
from runtime.ops.math_ops.functions import (
    ceil,
    cos,
    cosh,
    exp,
    expm1,
    floor,
    log,
    log1p,
    pow,  # noqa: A004
    round,  # noqa: A004
    rsqrt,
    sigmoid,
    sin,
    sinh,
    softplus,
    sqrt,
    tan,
    tanh,
)

OPS = {**comparison.OPS, **bitwise.OPS, **casting.OPS, **arithmetic.OPS,
       **complex_numbers.OPS, **functions.OPS}

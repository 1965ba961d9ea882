"""`tf.dtypes`: element types (also exported at the top level: `tf.float32`, ...)."""

from runtime import dtypes as _dtypes
from runtime.ops import math_ops as _math

DType = _dtypes.DType
float16 = _dtypes.float16
half = _dtypes.float16
bfloat16 = _dtypes.bfloat16
float32 = _dtypes.float32
float64 = _dtypes.float64
double = _dtypes.float64
int8 = _dtypes.int8
int16 = _dtypes.int16
int32 = _dtypes.int32
int64 = _dtypes.int64
uint8 = _dtypes.uint8
uint16 = _dtypes.uint16
uint32 = _dtypes.uint32
uint64 = _dtypes.uint64
complex64 = _dtypes.complex64
complex128 = _dtypes.complex128
bool = _dtypes.bool_  # noqa: A001 - TensorFlow's name
string = _dtypes.string
resource = _dtypes.resource
variant = _dtypes.variant
as_dtype = _dtypes.as_dtype
cast = _math.cast
saturate_cast = _math.saturate_cast
complex = _math.complex  # noqa: A001 - TensorFlow's name

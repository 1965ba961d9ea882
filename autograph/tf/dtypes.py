"""`tf.dtypes`: element types (also exported at the top level: `tf.float32`, ...)."""

from runtime import dtypes as _dtypes

DType = _dtypes.DType
float32 = _dtypes.float32
float64 = _dtypes.float64
double = _dtypes.float64
int32 = _dtypes.int32
int64 = _dtypes.int64
bool = _dtypes.bool_  # noqa: A001 - TensorFlow's name
string = _dtypes.string
resource = _dtypes.resource
as_dtype = _dtypes.as_dtype

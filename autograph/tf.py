"""A TensorFlow-compatible facade: `import autograph.tf as tf`.

The subset of TensorFlow's API that the "Better performance with tf.function" guide and
everyday AutoGraph code use, backed by the numpy runtime. Names follow TensorFlow's.
"""

import types as _types

import autograph as _autograph
from runtime import context as _context
from runtime import dtypes as _dtypes
from runtime import errors as _errors
from runtime.function import ConcreteFunction
from runtime.gradients import GradientTape, UnconnectedGradients
from runtime.operators import functional as _functional
from runtime.ops import array_ops as _array
from runtime.ops import io_ops as _io
from runtime.ops import linalg_ops as _linalg
from runtime.ops import manipulation_ops as _manip
from runtime.ops import math_ops as _math
from runtime.ops import nn_random_ops as _nnr
from runtime.ops import reduction_ops as _reduce
from runtime.ops import selection_ops as _select
from runtime.ops.common import convert_to_tensor
from runtime.shape import TensorShape
from runtime.signature import TensorSpec
from runtime.tensor import Tensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable


def _namespace(name, doc, **members):
    module = _types.ModuleType("autograph.tf." + name, doc)
    module.__dict__.update(members)
    return module


function = _autograph.function

# -- dtypes ---------------------------------------------------------------------------------------
DType = _dtypes.DType
float32 = _dtypes.float32
float64 = _dtypes.float64
double = _dtypes.float64
int32 = _dtypes.int32
int64 = _dtypes.int64
bool = _dtypes.bool_  # noqa: A001 - TensorFlow's name
string = _dtypes.string
as_dtype = _dtypes.as_dtype
dtypes = _namespace("dtypes", "Element types.", DType=DType, float32=float32, float64=float64,
                    double=double, int32=int32, int64=int64, bool=bool, string=string,
                    as_dtype=as_dtype, resource=_dtypes.resource)

# -- array ops ------------------------------------------------------------------------------------
constant = _array.constant
identity = _array.identity
stop_gradient = _array.stop_gradient
ones = _array.ones
zeros = _array.zeros
ones_like = _array.ones_like
zeros_like = _array.zeros_like
fill = _array.fill
range = _array.range  # noqa: A001
shape = _array.shape
size = _array.size
rank = _array.rank
reshape = _manip.reshape
transpose = _manip.transpose
expand_dims = _manip.expand_dims
squeeze = _manip.squeeze
concat = _manip.concat
stack = _manip.stack
unstack = _manip.unstack
tile = _manip.tile
broadcast_to = _manip.broadcast_to
gather = _select.gather
where = _select.where
one_hot = _select.one_hot

# -- math ops -------------------------------------------------------------------------------------
cast = _math.cast
add = _math.add
subtract = _math.subtract
multiply = _math.multiply
divide = _math.divide
truediv = _math.truediv
floordiv = _math.floordiv
pow = _math.pow  # noqa: A001
negative = _math.negative
abs = _math.abs  # noqa: A001
square = _math.square
sqrt = _math.sqrt
exp = _math.exp
log = _math.log
sin = _math.sin
cos = _math.cos
tanh = _math.tanh
sigmoid = _math.sigmoid
maximum = _math.maximum
minimum = _math.minimum
matmul = _linalg.matmul
add_n = _math.add_n
clip_by_value = _math.clip_by_value
reduce_sum = _reduce.reduce_sum
reduce_mean = _reduce.reduce_mean
reduce_max = _reduce.reduce_max
reduce_min = _reduce.reduce_min
reduce_prod = _reduce.reduce_prod
reduce_any = _reduce.reduce_any
reduce_all = _reduce.reduce_all
equal = _math.equal
not_equal = _math.not_equal
less = _math.less
less_equal = _math.less_equal
greater = _math.greater
greater_equal = _math.greater_equal
logical_and = _math.logical_and
logical_or = _math.logical_or
logical_not = _math.logical_not
argmax = _reduce.argmax
argmin = _reduce.argmin

math = _namespace(
    "math", "Elementwise and reduction math.",
    add=_math.add, subtract=_math.subtract, multiply=_math.multiply, divide=_math.divide,
    truediv=_math.truediv, floordiv=_math.floordiv, floormod=_math.floormod, mod=_math.mod,
    pow=_math.pow, negative=_math.negative, abs=_math.abs, sign=_math.sign,
    square=_math.square, sqrt=_math.sqrt, rsqrt=_math.rsqrt, exp=_math.exp, expm1=_math.expm1,
    log=_math.log, log1p=_math.log1p, tanh=_math.tanh, sigmoid=_math.sigmoid,
    softplus=_math.softplus, sin=_math.sin, cos=_math.cos, tan=_math.tan, sinh=_math.sinh,
    cosh=_math.cosh, floor=_math.floor, ceil=_math.ceil, round=_math.round,
    reciprocal=_math.reciprocal, maximum=_math.maximum,
    minimum=_math.minimum, squared_difference=_math.squared_difference,
    is_nan=_math.is_nan, is_inf=_math.is_inf, is_finite=_math.is_finite,
    reduce_sum=_reduce.reduce_sum, reduce_mean=_reduce.reduce_mean, reduce_max=_reduce.reduce_max,
    reduce_min=_reduce.reduce_min, reduce_prod=_reduce.reduce_prod, reduce_any=_reduce.reduce_any,
    reduce_all=_reduce.reduce_all, equal=_math.equal, not_equal=_math.not_equal,
    less=_math.less, less_equal=_math.less_equal, greater=_math.greater,
    greater_equal=_math.greater_equal, logical_and=_math.logical_and,
    logical_or=_math.logical_or, logical_not=_math.logical_not, logical_xor=_math.logical_xor,
    argmax=_reduce.argmax, argmin=_reduce.argmin, add_n=_math.add_n, cumsum=_reduce.cumsum,
    softmax=_nnr.softmax, log_softmax=_nnr.log_softmax)

linalg = _namespace("linalg", "Linear algebra.", matmul=_linalg.matmul)

# -- nn / random ----------------------------------------------------------------------------------
nn = _namespace("nn", "Neural-network ops.", relu=_math.relu, softmax=_nnr.softmax,
                log_softmax=_nnr.log_softmax, sigmoid=_math.sigmoid, tanh=_math.tanh,
                softplus=_math.softplus)
random = _namespace("random", "Random numbers.", uniform=_nnr.uniform, normal=_nnr.normal,
                    set_seed=_nnr.set_seed)

# -- functional control flow ----------------------------------------------------------------------
cond = _functional.cond
while_loop = _functional.while_loop
newaxis = None

# -- printing, py_function, debugging -------------------------------------------------------------
print = _io.print_  # noqa: A001
py_function = _io.py_function


def _enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Makes ops created from now on raise InvalidArgumentError when they produce NaN or Inf."""
    _context._settings["check_numerics"] = True


def _disable_check_numerics():
    """Stops checking new ops for NaN and Inf."""
    _context._settings["check_numerics"] = False


def _assert_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError (when it runs) unless x == y everywhere."""
    x, y = _array.convert_to_tensor(x), _array.convert_to_tensor(y, dtype_hint=None)
    text = message or "Condition x == y did not hold"
    _io.assert_that(_reduce.reduce_all(_math.equal(x, y)), [x, y], text, name=name)


debugging = _namespace("debugging", "Run-time checks.",
                       enable_check_numerics=_enable_check_numerics,
                       disable_check_numerics=_disable_check_numerics,
                       assert_equal=_assert_equal, check_numerics=_io.check_numerics)

# -- composite tensors: SparseTensor, RaggedTensor (autograph/tf_composite.py) ------------------
from autograph.tf_composite import (  # noqa: E402
    RaggedTensor,
    RaggedTensorSpec,
    SparseTensor,
    SparseTensorSpec,
    ragged,
    sparse,
)

# -- errors, config, autograph --------------------------------------------------------------------
errors = _namespace(
    "errors", "Exception classes.", OpError=_errors.OpError,
    InvalidArgumentError=_errors.InvalidArgumentError,
    FailedPreconditionError=_errors.FailedPreconditionError,
    OperatorNotAllowedInGraphError=_errors.OperatorNotAllowedInGraphError,
    InaccessibleTensorError=_errors.InaccessibleTensorError,
    UndefinedValueError=_errors.UndefinedValueError)
errors.OutOfRangeError = _errors.OutOfRangeError

# -- tf.data: map/filter/reduce functions get the converter of the Function being traced --------
from runtime import data as _data  # noqa: E402

_data_constants = dict(AUTOTUNE=_data.AUTOTUNE, INFINITE_CARDINALITY=_data.INFINITE_CARDINALITY,
                       UNKNOWN_CARDINALITY=_data.UNKNOWN_CARDINALITY)
data = _namespace("data", "Input pipelines.", Dataset=_data.Dataset, Iterator=_data.Iterator,
                  experimental=_namespace("data.experimental", "tf.data constants.",
                                          **_data_constants), **_data_constants)

config = _namespace("config", "Global switches.",
                    run_functions_eagerly=_autograph.run_functions_eagerly,
                    functions_run_eagerly=_autograph.functions_run_eagerly)

autograph = _namespace(
    "autograph", "The compiler's entry points.", to_code=_autograph.to_code,
    to_graph=_autograph.to_graph, do_not_convert=_autograph.do_not_convert,
    experimental=_namespace("autograph.experimental", "Experimental autograph options.",
                            do_not_convert=_autograph.do_not_convert))

# -- staging report (autograph.explain) -----------------------------------------------------------
autograph.explain = _autograph.explain


def executing_eagerly():
    """True outside any trace."""
    return _context.executing_eagerly()


def is_tensor(value):
    """True for tensors (eager or symbolic)."""
    return isinstance(value, Tensor)


class Module:
    """A plain base class for objects holding variables (TensorFlow's `tf.Module`)."""

    def __init__(self, name=None):
        self._module_name = name or type(self).__name__

    @property
    def name(self):
        """The module's name (its class name by default)."""
        return self._module_name

    @property
    def variables(self):
        """The Variables held in attributes (directly, in lists/tuples/dicts, or sub-modules)."""
        return _collect_variables(self, set(), trainable_only=False)

    @property
    def trainable_variables(self):
        """The trainable Variables held in attributes."""
        return _collect_variables(self, set(), trainable_only=True)


def _collect_variables(obj, seen, trainable_only):
    found = []
    if id(obj) in seen:
        return found
    seen.add(id(obj))
    values = obj.values() if isinstance(obj, dict) else obj if isinstance(
        obj, (list, tuple)) else vars(obj).values() if isinstance(obj, Module) else ()
    for value in values:
        if isinstance(value, Variable):
            if (not trainable_only or value.trainable) and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        elif isinstance(value, (Module, list, tuple, dict)):
            found.extend(_collect_variables(value, seen, trainable_only))
    return tuple(found)

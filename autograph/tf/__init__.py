"""A TensorFlow-compatible facade: `import autograph.tf as tf`.

The subset of TensorFlow's API that the "Better performance with tf.function" guide and
everyday AutoGraph code use, backed by the numpy runtime. Names follow TensorFlow's; each
TensorFlow namespace (`tf.math`, `tf.nn`, `tf.linalg`, ...) is a module of this package.
"""

import autograph as _autograph
from autograph.tf import (
    autodiff,
    autograph,
    bitwise,
    config,
    data,
    debugging,
    distribute,
    dtypes,
    errors,
    experimental,
    image,
    io,
    keras,
    linalg,
    math,
    nest,
    nn,
    ragged,
    random,
    saved_model,
    signal,
    sparse,
    strings,
    summary,
    train,
    types,
)
from autograph.tf.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from autograph.tf.math import (  # the top-level names that are tf.math's too
    abs,
    add,
    add_n,
    argmax,
    argmin,
    cos,
    cosh,
    cumsum,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    truediv,
)
from runtime import context as _context
from runtime import devices as _devices
from runtime import scopes as _scopes
from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.function import ConcreteFunction
from runtime.functional import branches as _branches
from runtime.functional import control_flow as _functional
from runtime.functional import maps as _maps
from runtime.gradients import GradientTape, UnconnectedGradients
from runtime.gradients.custom_gradient import custom_gradient
from runtime.module import Module
from runtime.ops import array_ops as _array
from runtime.ops import concat_split_ops as _concat_split
from runtime.ops import construction_ops as _construction
from runtime.ops import dependency_ops as _dependency
from runtime.ops import einsum_ops as _einsum
from runtime.ops import io_ops as _io
from runtime.ops import layout_ops as _layout
from runtime.ops import linalg_ops as _linalg
from runtime.ops import math_ops as _math
from runtime.ops import norm_ops as _norm
from runtime.ops import py_function_ops as _py_function
from runtime.ops import reduction_ops as _reduce
from runtime.ops import reshape_ops as _reshape
from runtime.ops import scatter_ops as _scatter
from runtime.ops import selection_ops as _select
from runtime.ops import slicing as _slicing
from runtime.ops import sort_ops as _sort
from runtime.ops.common import convert_to_tensor
from runtime.shape import TensorShape
from runtime.signature import TensorSpec
from runtime.tensor import Tensor, is_tensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable, VariableAggregation, VariableSynchronization

function = _autograph.function

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
reshape = _reshape.reshape
transpose = _reshape.transpose
expand_dims = _reshape.expand_dims
squeeze = _reshape.squeeze
concat = _concat_split.concat
stack = _concat_split.stack
unstack = _concat_split.unstack
tile = _concat_split.tile
broadcast_to = _reshape.broadcast_to
gather = _select.gather
where = _select.where
one_hot = _select.one_hot

# -- math ops -------------------------------------------------------------------------------------

cast = _math.cast
saturate_cast = _math.saturate_cast
bitcast = _math.bitcast
complex = _math.complex  # noqa: A001 - TensorFlow's name
matmul = _linalg.matmul
clip_by_value = _math.clip_by_value

# -- ops real code calls (issue 14) --------------------------------------------------------------
eye = _construction.eye
linspace = _construction.linspace
meshgrid = _construction.meshgrid
sequence_mask = _construction.sequence_mask
split = _concat_split.split
pad = _layout.pad
slice = _slicing.slice  # noqa: A001
strided_slice = _slicing.strided_slice
reverse = _layout.reverse
roll = _layout.roll
repeat = _concat_split.repeat
gather_nd = _scatter.gather_nd
scatter_nd = _scatter.scatter_nd
tensor_scatter_nd_update = _scatter.tensor_scatter_nd_update
tensor_scatter_nd_add = _scatter.tensor_scatter_nd_add
tensor_scatter_nd_sub = _scatter.tensor_scatter_nd_sub
tensor_scatter_nd_min = _scatter.tensor_scatter_nd_min
tensor_scatter_nd_max = _scatter.tensor_scatter_nd_max
boolean_mask = _scatter.boolean_mask
sort = _sort.sort
argsort = _sort.argsort
unique = _sort.unique
einsum = _einsum.einsum
tensordot = _linalg.tensordot
norm = _norm.norm
clip_by_norm = _norm.clip_by_norm
clip_by_global_norm = _norm.clip_by_global_norm
reduce_logsumexp = _norm.reduce_logsumexp
assert_equal = debugging.assert_equal
assert_less = debugging.assert_less
assert_greater = debugging.assert_greater
assert_rank = debugging.assert_rank

# -- functional control flow ----------------------------------------------------------------------
cond = _functional.cond
while_loop = _functional.while_loop
newaxis = None

# -- functional control flow ----------------------------------------------------------------------
map_fn = _maps.map_fn
scan = _maps.scan
foldl = _maps.foldl
foldr = _maps.foldr
vectorized_map = _maps.vectorized_map
switch_case = _branches.switch_case
case = _branches.case
numpy_function = _py_function.numpy_function

# -- printing, py_function, debugging -------------------------------------------------------------
print = _io.print_  # noqa: A001
py_function = _py_function.py_function


# -- scopes and dependencies ----------------------------------------------------------------------
name_scope = _scopes.name_scope
device = _devices.device
control_dependencies = _scopes.control_dependencies
init_scope = _scopes.init_scope
executing_eagerly = _context.executing_eagerly
no_op = _dependency.no_op
group = _dependency.group
identity_n = _dependency.identity_n
ensure_shape = _dependency.ensure_shape


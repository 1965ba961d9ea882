"""Array ops that make or describe a tensor: placeholders, constants, identity, shape queries,
filled tensors (fill, zeros, ones and their `_like` forms) and ranges.

Reshaping is in `reshape_ops`, joining in `concat_split_ops`, gathering and selection in
`selection_ops`, indexing in `slicing`.
"""

import numpy as np

from runtime import context, dtypes, errors, lowering_api
from runtime import graph as graph_lib
from runtime import shape as shape_lib
from runtime.ops import (
    attr_types,
    common,
    math_ops,
    numba_lowerings,
    reduction_ops,
)
from runtime.ops.common import (
    REAL,
    SpecError,
    constant_from_numpy,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
    stack,
)
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import dims, product, shape_tuple, type_name
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute1,
    register,
)
from runtime.tensor import EagerTensor, Tensor, to_numpy

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_DYNAMIC_SHAPE = {"array": lowering_api.unsupported("dynamic shapes")}
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


def _no_kernel(*args, **kwargs):
    raise RuntimeError("placeholders are fed, never computed")


OPS["Placeholder"] = register("Placeholder", _no_kernel,
                              lambda specs, attrs: [(attrs["dtype"], attrs["shape"])],
                              grad=NO_GRADIENT, emit=KERNEL_CALL, traits=("placeholder",),
                              attr_types={"dtype": attr_types.DTYPE,
                                          "shape": attr_types.SHAPE})
graph_lib.declare_placeholder_op(OPS["Placeholder"])  # the op of every graph's inputs
OPS["Const"] = register("Const", lambda value, dtype: value,
                        lambda specs, attrs: [(attrs["dtype"], attrs["value"].shape)],
                        grad=NO_GRADIENT, emit=KERNEL_CALL, traits=("constant",),
                        static_value=lambda node, value_of: node.attrs["value"])


def _identity_kernel(x):
    # eagerly (graphs forward the input instead), a tensor of its own: `tf.identity(v)` is
    # how a variable's value is snapshotted
    return x.copy() if isinstance(x, np.ndarray) else x


def identity_grad(ctx, grads):
    """The gradient rule of an op whose output is its input: the gradient passes through."""
    return [grads[0]]


# (the executor's simplification aliases a "forwards" op's output to its input)
_FORWARDED = {"array": lowering_api.removed_before_lowering("aliased to its input")}

OPS["Identity"] = register("Identity", _identity_kernel, lambda specs, attrs: [specs[0]],
                           grad=identity_grad,
                           emit=lambda outs, ins, attrs, bind: "%s = %s" % (outs[0], ins[0]),
                           traits=("forwards",),
                           static_value=lambda node, value_of: value_of(node.inputs[0]),
                           lowerings=_FORWARDED)
OPS["StopGradient"] = register("StopGradient", lambda x: x, lambda specs, attrs: [specs[0]],
                               emit=lambda outs, ins, attrs, bind: "%s = %s" % (outs[0], ins[0]),
                               grad=NOT_DIFFERENTIABLE, traits=("forwards",),
                               lowerings=_FORWARDED)


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value` (Python or numpy), broadcast to `shape` when given."""
    if isinstance(value, EagerTensor):
        value = value._value
    elif isinstance(value, Tensor):
        raise TypeError("tf.constant needs a value known now, got symbolic tensor %s; use "
                        "tf.identity or the tensor itself" % getattr(value, "name", value))
    array, dtype = to_numpy(value, dtype)
    if shape is not None:
        shape = shape_lib.normalize(shape)
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape).copy()
        elif array.size == shape_lib.num_elements(shape):
            array = array.reshape(shape)
        else:
            raise TypeError("cannot reshape a constant of %d elements to shape %s"
                            % (array.size, shape_lib.to_string(shape)))
    return constant_from_numpy(array, dtype, name)


@dispatchable
def identity(input, name=None):  # noqa: A002
    """A tensor with the same value: eagerly a copy (a new graph node when tracing)."""
    return execute1(OPS["Identity"], [convert_to_tensor(input)], name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """The same value, through which no gradient flows."""
    return execute1(OPS["StopGradient"], [convert_to_tensor(input)], name=name)


# -- shape queries ------------------------------------------------------------------------


def _rank_1(specs):
    shape = specs[0][1]
    return (None if shape is None else len(shape),)


def _shape_value(node, value_of):
    """A Shape's value is known when its input's static shape is."""
    shape = node.inputs[0]._shape
    if shape_lib.num_elements(shape) is None:
        return None
    return np.array(shape, dtype=node.outputs[0].dtype.np_dtype)


def _shape_numba(lowerer, node, ins, outs):
    """Shape: the input's dimensions as a 1-D array."""
    parts = dims(ins[0])
    if not parts:
        lowerer.assign(outs[0], "np.zeros(0, %s)" % type_name(outs[0].dtype))
        return
    lowerer.assign(outs[0], "np.array([%s])" % ", ".join("np.int64(%s)" % p for p in parts))


OPS["Shape"] = register("Shape", lambda x, out_type: np.array(np.shape(x), out_type.np_dtype),
                        lambda specs, attrs: [(attrs["out_type"], _rank_1(specs))],
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",),
                        static_value=_shape_value,
                        lowerings=dict(_DYNAMIC_SHAPE, numba=_shape_numba))


def _size_numba(lowerer, node, ins, outs):
    """Size: the product of the input's dimensions."""
    lowerer.assign(outs[0], product(dims(ins[0])))


OPS["Size"] = register("Size", lambda x, out_type: np.array(np.size(x), out_type.np_dtype),
                       lambda specs, attrs: [(attrs["out_type"], ())],
                       grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",),
                       lowerings=dict(_DYNAMIC_SHAPE, numba=_size_numba))


def _rank_numba(lowerer, node, ins, outs):
    """Rank: the input's static rank."""
    lowerer.assign(outs[0], "np.int32(%d)" % len(dims(ins[0])))


OPS["Rank"] = register("Rank", lambda x: np.array(np.ndim(x), np.int32),
                       lambda specs, attrs: [(dtypes.int32, ())],
                       grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",),
                       lowerings=dict(_DYNAMIC_SHAPE, numba=_rank_numba))


@dispatchable
def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The dynamic shape of `input` as a 1-D int tensor."""
    return execute1(OPS["Shape"], [convert_to_tensor(input)],
                    {"out_type": dtypes.as_dtype(out_type)}, name=name)


@dispatchable
def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The number of elements of `input`, as a scalar int tensor."""
    return execute1(OPS["Size"], [convert_to_tensor(input)],
                    {"out_type": dtypes.as_dtype(out_type)}, name=name)


@dispatchable
def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input`, as a scalar int32 tensor."""
    return execute1(OPS["Rank"], [convert_to_tensor(input)], name=name)


# -- fill / zeros / ones / range ---------------------------------------------------------------


def _fill_infer(specs, attrs):
    dims_dtype, dims_shape = specs[0]
    require_kind(dims_dtype, {"int"}, "dims")
    if specs[1][1] not in ((), None):
        raise SpecError("shape", "fill value must be a scalar")
    return [(specs[1][0], attrs["static_shape"])]


def _fill_kernel(dims, value, static_shape):
    return np.full(tuple(int(d) for d in np.reshape(dims, [-1])), value,
                   dtype=np.asarray(value).dtype)


def _fill_jax(lw, node, ins):
    """Fill a shape known at compile time."""
    shape = lowering_api.static_shape(node.attrs["static_shape"], "the shape")
    value = lw.jnp.asarray(ins[1])
    return [lw.jnp.full(shape, value, dtype=value.dtype)]


def _fill_grad(ctx, grads):
    return [None, reduction_ops.reduce_sum(grads[0]) if ctx.needed[1] else None]


def _fill_numba(lowerer, node, ins, outs):
    """Fill: an array of the dims' shape holding the value."""
    shape_in, value = ins
    out = outs[0]
    if out.shape is None or shape_in.shape is None or len(shape_in.shape) > 1:
        raise lowering_api.Unsupported("a fill of unknown rank")
    if out.rank0:
        lowerer.assign(out, value)
        return
    parts = []
    for i in range(len(out.shape)):
        part = lowerer.fresh("d")
        lowerer.line("%s = np.int64(%s[%d])" % (part, shape_in, i))
        lowerer.check("%s < 0" % part, ValueError, "negative dimensions are not allowed")
        parts.append(part)
    lowerer.assign(out, "np.full(%s, %s)" % (shape_tuple(parts), value))


OPS["Fill"] = register("Fill", _fill_kernel, _fill_infer,
                       grad=_fill_grad, emit=KERNEL_CALL,
                       lowerings=dict(_NOT_LOWERED, numba=_fill_numba,
                                                    jax=_fill_jax))


def dims_tensor(dims):
    """A 1-D int32 tensor for a shape given as a list (may hold scalar tensors) or tensor."""
    if isinstance(dims, shape_lib.TensorShape):
        dims = dims.as_list()
    if isinstance(dims, Tensor):
        return dims
    if isinstance(dims, (int, np.integer)):
        dims = [dims]
    dims = list(dims)
    if any(isinstance(d, Tensor) for d in dims):
        return stack([cast_to_int32(convert_to_tensor(d, dtype_hint=dtypes.int32))
                      for d in dims])
    return convert_to_tensor(dims, dtype=dtypes.int32)


def cast_to_int32(value):
    """`value` as an int32 scalar tensor or Python int (for shape entries)."""
    if isinstance(value, Tensor) and value.dtype is not dtypes.int32:
        return math_ops.cast(value, dtypes.int32)
    return value


@dispatchable
def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with `value`."""
    if not isinstance(value, Tensor):  # a Python value: a constant right away
        value = convert_to_tensor(value)
        return _filled(dims, value.dtype, common.constant_value(value), name)
    # A tensor goes through the Fill op, so that a gradient tape sees it (the executor
    # folds it when the value is a constant of the graph).
    dims_t = dims_tensor(dims)
    return execute1(OPS["Fill"], [dims_t, value],
                    {"static_shape": common.partial_shape_value(dims_t)}, name=name)


def _filled(shape, dtype, scalar, name):
    dtype = dtypes.as_dtype(dtype)
    dims_t = dims_tensor(shape)
    static = common.partial_shape_value(dims_t)
    if static is not None and None not in static:
        return constant_from_numpy(np.full(static, scalar, dtype=dtype.np_dtype), dtype, name)
    value = constant_from_numpy(np.asarray(scalar, dtype=dtype.np_dtype), dtype)
    return execute1(OPS["Fill"], [dims_t, value], {"static_shape": static}, name=name)


@dispatchable
def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    return _filled(shape, dtype, 0, name)


@dispatchable
def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    return _filled(shape, dtype, 1, name)


# ZerosLike and OnesLike are declared with the math ops, whose gradients are written with them
OPS["ZerosLike"] = common.ZEROS_LIKE
OPS["OnesLike"] = common.ONES_LIKE


@dispatchable
def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`."""
    out = execute1(OPS["ZerosLike"], [convert_to_tensor(input)], name=name)
    return out if dtype is None else _cast(out, dtype)


@dispatchable
def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`."""
    out = execute1(OPS["OnesLike"], [convert_to_tensor(input)], name=name)
    return out if dtype is None else _cast(out, dtype)


def _cast(x, dtype):
    return math_ops.cast(x, dtype)


def _range_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, REAL)
    for _, s in specs:
        if s not in ((), None):
            raise SpecError("shape", "range bounds must be scalars")
    return [(dtype, (attrs["static_length"],))]


# What every path of a range with step 0 raises (a ValueError, as Python's `range` does): the
# eager call, the Range kernel, a staged `for` over the range, the numba lowering.
RANGE_ZERO_DELTA = "range delta must not be zero"


def _range_kernel(start, limit, delta, static_length):
    if delta == 0:
        raise ValueError(RANGE_ZERO_DELTA)
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


OPS["Range"] = register("Range", _range_kernel, _range_infer,
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                        lowerings=dict(_NOT_LOWERED, numba=numba_lowerings.integer_range))


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """Integers (or floats) from `start` up to but excluding `limit`, stepping by `delta`."""
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    tensors = [v for v in values if isinstance(v, Tensor)]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif tensors:
        dtype = tensors[0].dtype
    elif any(isinstance(v, float) for v in values):
        dtype = dtypes.float32
    else:
        dtype = dtypes.int32
    if dtype.kind not in ("int", "float"):
        raise TypeError("range: dtype %s is not supported (expected an integer or floating "
                        "type)" % dtype.name)
    start, limit, delta = [_cast(convert_to_tensor(v, dtype_hint=dtype), dtype) for v in values]
    known = [common.constant_value(t) for t in (start, limit, delta)]
    if known[2] is not None and known[2] == 0:
        graph = context.current_graph()
        if graph is None or graph.outer is None:  # eagerly, or code that every call runs
            raise ValueError(errors.with_user_location(RANGE_ZERO_DELTA))
        # In a staged branch or loop body, the Range op (or the staged loop over it) raises
        # when it runs: a range in a branch that does not run is no error, as in Python.
        known[2] = None
    length = None
    if all(k is not None for k in known):
        length = len(np.arange(known[0], known[1], known[2]))
    return execute1(OPS["Range"], [start, limit, delta], {"static_length": length}, name=name)


# -- reshape / transpose / expand / squeeze ---------------------------------------------------

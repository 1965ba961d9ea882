"""Array ops: constants, placeholders, identity, shape queries, reshaping, joining, gathering,
selection, filling, ranges and indexing (strided slices).
"""

import builtins

import numpy as np

from runtime import dtypes
from runtime import shape as shape_lib
from runtime.ops import common, math_ops
from runtime.ops.common import (
    NUMERIC,
    SpecError,
    constant_from_numpy,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
    stack,
)
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    execute1,
    register,
)
from runtime.tensor import EagerTensor, Tensor, to_numpy

OPS = {}
_RULES = "runtime.gradients.array_grads:"  # gradient rules written with the ops API


def _no_kernel(*args, **kwargs):
    raise RuntimeError("placeholders are fed, never computed")


OPS["Placeholder"] = register("Placeholder", _no_kernel,
                              lambda specs, attrs: [(attrs["dtype"], attrs["shape"])],
                              grad=NO_GRADIENT, emit=KERNEL_CALL, traits=("placeholder",))
OPS["Const"] = register("Const", lambda value, dtype: value,
                        lambda specs, attrs: [(attrs["dtype"], attrs["value"].shape)],
                        grad=NO_GRADIENT, emit=KERNEL_CALL, traits=("constant",),
                        static_value=lambda node, value_of: node.attrs["value"])
OPS["Identity"] = register("Identity", lambda x: x, lambda specs, attrs: [specs[0]],
                           grad=_RULES + "identity_grad",
                           emit=lambda outs, ins, attrs, bind: "%s = %s" % (outs[0], ins[0]),
                           traits=("forwards",),
                           static_value=lambda node, value_of: value_of(node.inputs[0]))
OPS["StopGradient"] = register("StopGradient", lambda x: x, lambda specs, attrs: [specs[0]],
                               emit=lambda outs, ins, attrs, bind: "%s = %s" % (outs[0], ins[0]),
                               grad=NOT_DIFFERENTIABLE, traits=("forwards",))


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor holding `value` (Python or numpy), broadcast to `shape` when given."""
    if isinstance(value, EagerTensor):
        value = value._value
    elif isinstance(value, Tensor):
        raise TypeError("tf.constant needs a value known now, got symbolic tensor %s; use "
                        "tf.identity or the tensor itself" % value.name)
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


def identity(input, name=None):  # noqa: A002
    """A tensor with the same value (a new graph node when tracing)."""
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


OPS["Shape"] = register("Shape", lambda x, out_type: np.array(np.shape(x), out_type.np_dtype),
                        lambda specs, attrs: [(attrs["out_type"], _rank_1(specs))],
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",),
                        static_value=_shape_value)
OPS["Size"] = register("Size", lambda x, out_type: np.array(np.size(x), out_type.np_dtype),
                       lambda specs, attrs: [(attrs["out_type"], ())],
                       grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",))
OPS["Rank"] = register("Rank", lambda x: np.array(np.ndim(x), np.int32),
                       lambda specs, attrs: [(dtypes.int32, ())],
                       grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("shape_only",))


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The dynamic shape of `input` as a 1-D int tensor."""
    return execute1(OPS["Shape"], [convert_to_tensor(input)],
                    {"out_type": dtypes.as_dtype(out_type)}, name=name)


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The number of elements of `input`, as a scalar int tensor."""
    return execute1(OPS["Size"], [convert_to_tensor(input)],
                    {"out_type": dtypes.as_dtype(out_type)}, name=name)


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


OPS["Fill"] = register("Fill", _fill_kernel, _fill_infer,
                       grad=_RULES + "fill_grad", emit=KERNEL_CALL)


def _dims_tensor(dims):
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


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with `value`."""
    if not isinstance(value, Tensor):  # a Python value: a constant right away
        value = convert_to_tensor(value)
        return _filled(dims, value.dtype, common.constant_value(value), name)
    # A tensor goes through the Fill op, so that a gradient tape sees it (the executor
    # folds it when the value is a constant of the graph).
    dims_t = _dims_tensor(dims)
    return execute1(OPS["Fill"], [dims_t, value],
                    {"static_shape": common.partial_shape_value(dims_t)}, name=name)


def _filled(shape, dtype, scalar, name):
    dtype = dtypes.as_dtype(dtype)
    dims_t = _dims_tensor(shape)
    static = common.partial_shape_value(dims_t)
    if static is not None and None not in static:
        return constant_from_numpy(np.full(static, scalar, dtype=dtype.np_dtype), dtype, name)
    value = constant_from_numpy(np.asarray(scalar, dtype=dtype.np_dtype), dtype)
    return execute1(OPS["Fill"], [dims_t, value], {"static_shape": static}, name=name)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    return _filled(shape, dtype, 0, name)


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    return _filled(shape, dtype, 1, name)


OPS["ZerosLike"] = register("ZerosLike", lambda x: np.zeros_like(x),
                            lambda specs, attrs: [specs[0]],
                            grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL)
OPS["OnesLike"] = register("OnesLike", lambda x: np.ones_like(x),
                           lambda specs, attrs: [specs[0]],
                           grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`."""
    out = execute1(OPS["ZerosLike"], [convert_to_tensor(input)], name=name)
    return out if dtype is None else _cast(out, dtype)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`."""
    out = execute1(OPS["OnesLike"], [convert_to_tensor(input)], name=name)
    return out if dtype is None else _cast(out, dtype)


def _cast(x, dtype):
    return math_ops.cast(x, dtype)


def _range_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, NUMERIC)
    for _, s in specs:
        if s not in ((), None):
            raise SpecError("shape", "range bounds must be scalars")
    return [(dtype, (attrs["static_length"],))]


def _range_kernel(start, limit, delta, static_length):
    if delta == 0:
        raise ValueError("range delta must not be zero")
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


OPS["Range"] = register("Range", _range_kernel, _range_infer,
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL)


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
    start, limit, delta = [_cast(convert_to_tensor(v, dtype_hint=dtype), dtype) for v in values]
    known = [common.constant_value(t) for t in (start, limit, delta)]
    length = None
    if all(k is not None for k in known):
        if known[2] == 0:
            raise ValueError("range delta must not be zero")
        length = len(np.arange(known[0], known[1], known[2]))
    return execute1(OPS["Range"], [start, limit, delta], {"static_length": length}, name=name)


# -- reshape / transpose / expand / squeeze ---------------------------------------------------


def _reshape_infer(specs, attrs):
    dtype, shape = specs[0]
    target = attrs["static_shape"]
    if target is None:
        return [(dtype, None)]
    total = shape_lib.num_elements(shape)
    if target.count(None) == 1 and total is not None:
        known = 1
        for d in target:
            if d is not None:
                known *= d
        if known == 0 or total % known:
            raise SpecError("shape", "cannot reshape %d elements to %s"
                            % (total, shape_lib.to_string(target)))
        if attrs["has_wildcard"]:
            target = tuple(total // known if d is None else d for d in target)
    elif None not in target and total is not None and total != shape_lib.num_elements(target):
        raise SpecError("shape", "cannot reshape a tensor of %d elements to shape %s"
                        % (total, shape_lib.to_string(target)))
    return [(dtype, target)]


def _reshape_kernel(x, dims, static_shape, has_wildcard):
    return np.reshape(x, tuple(int(d) for d in np.reshape(dims, [-1])))


OPS["Reshape"] = register("Reshape", _reshape_kernel, _reshape_infer,
                          grad=_RULES + "reshape_back", emit=KERNEL_CALL)


def reshape(tensor, shape, name=None):
    """`tensor` with its elements rearranged to `shape` (one entry may be -1)."""
    tensor = convert_to_tensor(tensor)
    dims_t = _dims_tensor(shape)
    raw = common.constant_value(dims_t)
    static = common.partial_shape_value(dims_t)
    has_wildcard = raw is not None and bool(np.any(np.asarray(raw) == -1))
    return execute1(OPS["Reshape"], [tensor, dims_t],
                    {"static_shape": static, "has_wildcard": has_wildcard}, name=name)


def _transpose_infer(specs, attrs):
    dtype, shape = specs[0]
    perm = attrs["perm"]
    if shape is None:
        return [(dtype, None if perm is None else (None,) * len(perm))]
    if perm is None:
        return [(dtype, shape[::-1])]
    if sorted(perm) != list(builtins.range(len(shape))):
        raise SpecError("shape", "perm %r is not a permutation of the %d dimensions"
                        % (list(perm), len(shape)))
    return [(dtype, tuple(shape[p] for p in perm))]


OPS["Transpose"] = register("Transpose", lambda x, perm: np.transpose(x, perm),
                            _transpose_infer,
                            grad=_RULES + "transpose_grad", emit=KERNEL_CALL)


def transpose(a, perm=None, name="transpose"):
    """`a` with its dimensions permuted by `perm` (reversed when None)."""
    return execute1(OPS["Transpose"], [convert_to_tensor(a)],
                    {"perm": common.static_int_list(perm, "perm")}, name=name)


def _expand_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    axis = common.normalize_axis(attrs["axis"], len(shape) + 1)
    return [(dtype, shape[:axis] + (1,) + shape[axis:])]


OPS["ExpandDims"] = register("ExpandDims", lambda x, axis: np.expand_dims(x, axis),
                             _expand_infer,
                             grad=_RULES + "reshape_back", emit=KERNEL_CALL)


def expand_dims(input, axis, name=None):  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis`."""
    return execute1(OPS["ExpandDims"], [convert_to_tensor(input)], {"axis": int(axis)},
                    name=name)


def _squeeze_infer(specs, attrs):
    dtype, shape = specs[0]
    axis = attrs["axis"]
    if shape is None:
        return [(dtype, None)]
    if axis is None:
        if None in shape:
            return [(dtype, None)]
        return [(dtype, tuple(d for d in shape if d != 1))]
    axes = {common.normalize_axis(a, len(shape)) for a in axis}
    for a in axes:
        if shape[a] not in (1, None):
            raise SpecError("shape", "cannot squeeze dimension %d of size %d" % (a, shape[a]))
    return [(dtype, tuple(d for i, d in enumerate(shape) if i not in axes))]


OPS["Squeeze"] = register("Squeeze", lambda x, axis: np.squeeze(x, axis), _squeeze_infer,
                          grad=_RULES + "reshape_back", emit=KERNEL_CALL)


def squeeze(input, axis=None, name=None):  # noqa: A002
    """`input` without its size-1 dimensions (only those in `axis`, when given)."""
    return execute1(OPS["Squeeze"], [convert_to_tensor(input)],
                    {"axis": common.static_int_list(axis, "axis")}, name=name)


# -- concat / stack / unstack / tile ---------------------------------------------------------


def _concat_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    shapes = [s for _, s in specs]
    known = [s for s in shapes if s is not None]
    if not known:
        return [(dtype, None)]
    rank = len(known[0])
    if rank == 0:
        raise SpecError("shape", "cannot concatenate scalars; use stack")
    axis = common.normalize_axis(attrs["axis"], rank)
    out = list(known[0])
    total = 0
    for s in known:
        if len(s) != rank:
            raise SpecError("shape", "concat operands have different ranks")
        for i, (a, b) in enumerate(zip(out, s)):
            if i != axis and a is not None and b is not None and a != b:
                raise SpecError("shape", "concat operands differ in dimension %d" % i)
            if i != axis and a is None:
                out[i] = b
    for s in shapes:
        if s is None or s[axis] is None or total is None:
            total = None
        else:
            total += s[axis]
    out[axis] = total
    return [(dtype, tuple(out))]


OPS["ConcatV2"] = register("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis),
                           _concat_infer, node_name="concat",
                           grad=_RULES + "concat_grad", emit=KERNEL_CALL)


def concat(values, axis, name="concat"):
    """The tensors of `values` joined along existing dimension `axis`."""
    tensors = [convert_to_tensor(v) for v in values]
    if len(tensors) == 1:
        return identity(tensors[0])
    return execute1(OPS["ConcatV2"], tensors, {"axis": int(axis)}, name=name)


OPS["Pack"] = common.PACK  # declared with convert_to_tensor, which packs lists of tensors


def _unstack_infer(specs, attrs):
    dtype, shape = specs[0]
    num = attrs["num"]
    if shape is None:
        return [(dtype, None)] * num
    axis = common.normalize_axis(attrs["axis"], len(shape))
    if shape[axis] is not None and shape[axis] != num:
        raise SpecError("shape", "cannot unstack dimension of size %s into %d tensors"
                        % (shape[axis], num))
    return [(dtype, shape[:axis] + shape[axis + 1:])] * num


def _unstack_kernel(x, num, axis):
    x = np.asarray(x)
    parts = tuple(np.take(x, i, axis=axis) for i in builtins.range(num))
    return parts[0] if num == 1 else parts  # one output: a bare value, like every kernel


OPS["Unpack"] = register("Unpack", _unstack_kernel, _unstack_infer, node_name="unstack",
                         grad=_RULES + "unpack_grad", emit=KERNEL_CALL)


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of `value` along `axis`, as a list of tensors."""
    value = convert_to_tensor(value)
    dims = value._shape_tuple()
    if num is None:
        if dims is None or dims[axis] is None:
            raise ValueError("cannot unstack a dimension of unknown size without `num`")
        num = dims[axis]
    return execute(OPS["Unpack"], [value], {"num": int(num), "axis": int(axis)}, name=name)


def _tile_infer(specs, attrs):
    dtype, shape = specs[0]
    multiples = attrs["multiples"]
    if shape is None:
        return [(dtype, (None,) * len(multiples))]
    if len(multiples) != len(shape):
        raise SpecError("shape", "tile multiples must have one entry per dimension")
    return [(dtype, tuple(None if d is None else d * m for d, m in zip(shape, multiples)))]


OPS["Tile"] = register("Tile", lambda x, multiples: np.tile(x, multiples), _tile_infer,
                       grad=_RULES + "tile_grad", emit=KERNEL_CALL)


def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i."""
    return execute1(OPS["Tile"], [convert_to_tensor(input)],
                    {"multiples": common.static_int_list(multiples, "multiples")}, name=name)


def _broadcast_to_infer(specs, attrs):
    dtype, shape = specs[0]
    target = attrs["shape"]
    try:
        shape_lib.broadcast(shape, target)
    except ValueError:
        raise SpecError("shape", "cannot broadcast %s to %s"
                        % (shape_lib.to_string(shape), shape_lib.to_string(target))) from None
    return [(dtype, target)]


OPS["BroadcastTo"] = register("BroadcastTo", lambda x, shape: np.broadcast_to(x, shape),
                              _broadcast_to_infer,
                              grad=_RULES + "broadcast_to_grad", emit=KERNEL_CALL)


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` broadcast to `shape`."""
    return execute1(OPS["BroadcastTo"], [convert_to_tensor(input)],
                    {"shape": common.static_int_list(shape, "shape")}, name=name)


# -- gather / where / one_hot ----------------------------------------------------------------


def _gather_infer(specs, attrs):
    (dtype, params), (index_dtype, indices) = specs
    require_kind(index_dtype, {"int"}, "indices")
    if params is None or indices is None:
        return [(dtype, None)]
    axis = common.normalize_axis(attrs["axis"], len(params))
    return [(dtype, params[:axis] + indices + params[axis + 1:])]


def _gather_kernel(params, indices, axis):
    params = np.asarray(params)
    indices = np.asarray(indices)
    size = params.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = indices[(indices < 0) | (indices >= size)].reshape(-1)[0]
        raise IndexError("index %d is out of range for a dimension of size %d" % (bad, size))
    return np.take(params, indices, axis=axis)


OPS["GatherV2"] = register("GatherV2", _gather_kernel, _gather_infer,
                           grad=_RULES + "gather_grad", emit=KERNEL_CALL)


def gather(params, indices, axis=None, batch_dims=0, name=None):
    """The slices of `params` at `indices` along `axis` (0 when None)."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims is not supported")
    return execute1(OPS["GatherV2"], [convert_to_tensor(params), convert_to_tensor(indices)],
                    {"axis": 0 if axis is None else int(axis)}, name=name)


def _select_infer(specs, attrs):
    (cond_dtype, cond_shape), x, y = specs
    require_kind(cond_dtype, {"bool"}, "condition")
    dtype = require_same_dtype([x, y])
    return [(dtype, common.broadcast_specs([(cond_dtype, cond_shape), x, y]))]


OPS["SelectV2"] = register("SelectV2", lambda c, x, y: np.where(c, x, y), _select_infer,
                           grad=_RULES + "select_grad", emit=KERNEL_CALL)


def _where_infer(specs, attrs):
    dtype, shape = specs[0]
    return [(dtypes.int64, (None, None if shape is None else len(shape)))]


OPS["Where"] = register("Where", lambda c: np.argwhere(c).astype(np.int64), _where_infer,
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL)


def where(condition, x=None, y=None, name=None):
    """With x and y: elements of x where `condition` holds, else of y (broadcasting).
    Alone: the coordinates of the true elements, as an int64 [N, rank] tensor."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        return execute1(OPS["Where"], [condition], name=name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither")
    x, y = common.binary_operands(x, y)
    return execute1(OPS["SelectV2"], [condition, x, y], name=name)


def _one_hot_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"int"}, "indices")
    if shape is None:
        return [(attrs["dtype"], None)]
    axis = attrs["axis"]
    axis = len(shape) if axis == -1 else axis
    return [(attrs["dtype"], shape[:axis] + (attrs["depth"],) + shape[axis:])]


def _one_hot_kernel(indices, depth, on_value, off_value, axis, dtype):
    indices = np.asarray(indices)
    hot = np.arange(depth) == indices[..., None]
    out = np.where(hot, on_value, off_value).astype(dtype.np_dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


OPS["OneHot"] = register("OneHot", _one_hot_kernel, _one_hot_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1, dtype=dtypes.float32, name=None):
    """One-hot vectors of length `depth` for each index."""
    return execute1(OPS["OneHot"], [convert_to_tensor(indices)],
                    {"depth": int(depth), "on_value": on_value, "off_value": off_value,
                     "axis": int(axis), "dtype": dtypes.as_dtype(dtype)}, name=name)


# -- indexing (strided slice) --------------------------------------------------------------------
#
# An index expression is encoded as a static `spec`: a tuple of items, each one of
#   ("int", k)              a scalar index (k: int constant, or ("in", i) for dynamic input i)
#   ("slice", a, b, c)      a slice whose parts are int, None or ("in", i)
#   ("newaxis",), ("ellipsis",)
# Dynamic parts (symbolic scalars) become extra op inputs.


def _encode_part(value, dynamic):
    if value is None:
        return None
    if isinstance(value, Tensor):
        known = common.constant_value(value)
        if known is not None and np.ndim(known) == 0:
            value = known
        else:
            if not value.dtype.is_integer or value._shape_tuple() not in ((), None):
                raise TypeError("tensor indices must be integer scalars, got %s %s"
                                % (value.dtype.name, shape_lib.to_string(value._shape_tuple())))
            dynamic.append(value)
            return ("in", len(dynamic) - 1)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("only integers, slices, None, Ellipsis and integer scalar tensors "
                        "are valid indices, got %r" % (value,))
    return int(value)


def encode_index(index):
    """Turns a Python index expression into (spec, dynamic_tensors)."""
    if not isinstance(index, tuple):
        index = (index,)
    dynamic = []
    spec = []
    for item in index:
        if item is None:
            spec.append(("newaxis",))
        elif item is Ellipsis:
            spec.append(("ellipsis",))
        elif isinstance(item, slice):
            spec.append(("slice", _encode_part(item.start, dynamic),
                         _encode_part(item.stop, dynamic), _encode_part(item.step, dynamic)))
        else:
            spec.append(("int", _encode_part(item, dynamic)))
    return tuple(spec), dynamic


def _decode_part(part, values):
    if isinstance(part, tuple):
        return int(values[part[1]])
    return part


def _decode_index(spec, values):
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            out.append(_decode_part(item[1], values))
        elif kind == "slice":
            out.append(slice(_decode_part(item[1], values), _decode_part(item[2], values),
                             _decode_part(item[3], values)))
        elif kind == "newaxis":
            out.append(None)
        else:
            out.append(Ellipsis)
    return tuple(out)


def _slice_kernel(x, *dynamic, spec):
    index = _decode_index(spec, dynamic)
    x = np.asarray(x)
    for position, item in zip(_positions(spec, x.ndim), index):
        if isinstance(item, int):
            size = x.shape[position]
            if not -size <= item < size:
                raise IndexError("index %d is out of bounds for dimension %d of size %d"
                                 % (item, position, size))
    return x[index]


def _positions(spec, rank):
    """The input dimension each spec item applies to (None for newaxis)."""
    consumed = sum(1 for item in spec if item[0] in ("int", "slice"))
    positions = []
    dim = 0
    for item in spec:
        kind = item[0]
        if kind == "ellipsis":
            dim += rank - consumed
            positions.append(None)
        elif kind == "newaxis":
            positions.append(None)
        else:
            positions.append(dim)
            dim += 1
    return positions


def _slice_infer(specs, attrs):
    dtype, shape = specs[0]
    spec = attrs["spec"]
    for d, s in specs[1:]:
        require_kind(d, {"int"}, "index")
    if sum(1 for item in spec if item[0] == "ellipsis") > 1:
        raise SpecError("shape", "an index can only have a single ellipsis")
    if shape is None:
        return [(dtype, None)]
    consumed = sum(1 for item in spec if item[0] in ("int", "slice"))
    if consumed > len(shape):
        raise SpecError("shape", "too many indices (%d) for a tensor of rank %d"
                        % (consumed, len(shape)))
    has_ellipsis = any(item[0] == "ellipsis" for item in spec)
    if not has_ellipsis:
        spec = spec + (("ellipsis",),)
    out = []
    dim = 0
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            out.append(1)
        elif kind == "ellipsis":
            count = len(shape) - consumed
            out.extend(shape[dim:dim + count])
            dim += count
        elif kind == "int":
            size = shape[dim]
            if isinstance(item[1], int) and size is not None and not -size <= item[1] < size:
                raise SpecError("shape", "index %d is out of bounds for dimension %d of size %d"
                                % (item[1], dim, size))
            dim += 1
        else:
            size = shape[dim]
            parts = item[1:]
            if size is not None and all(not isinstance(p, tuple) for p in parts):
                out.append(len(builtins.range(*slice(*parts).indices(size))))
            else:
                out.append(None)
            dim += 1
    return [(dtype, tuple(out))]


def _slice_emit(outs, ins, attrs, emitter):
    """`x[i, j]` for integer indices that leave an array (numpy checks the bounds as the
    kernel does, with its own IndexError message); the kernel for anything else."""
    parts = []
    for item in attrs["spec"]:
        if item[0] != "int":
            return None
        ref = item[1]
        parts.append(ins[1 + ref[1]] if isinstance(ref, tuple) else repr(int(ref)))
    shape = ins[0].shape
    if shape is None or len(shape) <= len(parts):
        return None  # a scalar result: the kernel returns it as a 0-d array
    return "%s = %s[%s]" % (outs[0], ins[0], ", ".join(parts))


OPS["StridedSlice"] = register("StridedSlice", _slice_kernel, _slice_infer,
                               node_name="strided_slice", emit=_slice_emit,
                               grad=_RULES + "strided_slice_grad")


def strided_slice_from_index(tensor, index):
    """`tensor[index]` for Python index expressions (ints, slices, None, ..., int tensors)."""
    if isinstance(index, Tensor) and index._shape_tuple() not in ((), None):
        raise TypeError("indexing with a non-scalar tensor is not supported; use tf.gather")
    if isinstance(index, (list, np.ndarray)):
        raise TypeError("indexing with a list or array is not supported; use tf.gather")
    spec, dynamic = encode_index(index)
    return execute1(OPS["StridedSlice"], [tensor] + dynamic, {"spec": spec})

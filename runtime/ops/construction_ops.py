"""Ops that build tensors from a few values: eye, linspace, meshgrid and sequence_mask.

`eye` is a constant (or, for sizes known only at run time, a composite); `linspace` is the
LinSpace op with its gradient; `meshgrid` and `sequence_mask` are composites of existing ops
(as in TensorFlow), so their gradients come with those ops.
"""

from typing import Any

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import array_ops, common, concat_split_ops, math_ops, reduction_ops, reshape_ops
from runtime.ops.common import FLOAT, SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, execute1, register
from runtime.tensor import Tensor

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """A [*batch_shape, num_rows, num_columns] tensor with ones on the main diagonal.

    With sizes known when the graph is built it is a constant; a size known only at run time
    (`tf.eye(tf.shape(x)[0])` in a Function) gives a composite of range and equal."""
    dtype = dtypes.as_dtype(dtype)
    batch = () if batch_shape is None else common.static_int_list(batch_shape, "batch_shape")
    if _symbolic(num_rows) or _symbolic(num_columns):
        return _computed_eye(num_rows, num_columns, batch, dtype, name)
    rows = common.static_int_list(num_rows, "num_rows")
    columns = rows if num_columns is None else common.static_int_list(num_columns,
                                                                       "num_columns")
    if len(rows) != 1 or len(columns) != 1 or rows[0] < 0 or columns[0] < 0:
        raise ValueError("eye: num_rows and num_columns must be non-negative integers, got "
                         "%r and %r" % (num_rows, num_columns))
    matrix = np.eye(rows[0], columns[0], dtype=dtype.np_dtype)
    value = np.ascontiguousarray(np.broadcast_to(matrix, tuple(batch) + matrix.shape))
    return common.constant_from_numpy(value, dtype, name)


def _symbolic(size):
    return isinstance(size, Tensor) and common.constant_value(size) is None


def _computed_eye(num_rows, num_columns, batch, dtype, name):
    """eye for sizes known only at run time: row index == column index, cast to `dtype`."""
    sizes = [convert_to_tensor(s) for s in (num_rows, num_rows if num_columns is None
                                            else num_columns)]
    for what, size in zip(("num_rows", "num_columns"), sizes):
        if size.dtype.kind != "int" or size._shape_tuple() not in ((), None):
            raise TypeError("eye: %s must be a scalar integer, got a %s tensor of shape %s"
                            % (what, size.dtype.name, shape_lib.to_string(size._shape_tuple())))
    rows, columns = (array_ops.range(math_ops.cast(s, dtypes.int32)) for s in sizes)
    matrix = math_ops.cast(math_ops.equal(reshape_ops.expand_dims(rows, 1),
                                          reshape_ops.expand_dims(columns, 0)), dtype)
    if batch:
        for _ in batch:
            matrix = reshape_ops.expand_dims(matrix, 0)
        matrix = concat_split_ops.tile(matrix, list(batch) + [1, 1])
    return matrix if name is None else array_ops.identity(matrix, name=name)


# -- linspace -----------------------------------------------------------------------------


def _linspace_infer(specs, attrs):
    dtype = common.require_same_dtype(specs)
    require_kind(dtype, FLOAT)
    (_, start), (_, stop) = specs
    if start is not None and stop is not None and start != stop:
        raise SpecError("shape", "start and stop must have the same shape")
    shape = start if start is not None else stop
    if shape is None:
        return [(dtype, None)]
    axis = common.normalize_axis(attrs["axis"], len(shape) + 1)
    return [(dtype, shape[:axis] + (attrs["num"],) + shape[axis:])]


def _linspace_kernel(start, stop, num, axis):
    out = np.linspace(start, stop, num, axis=axis, dtype=np.asarray(start).dtype)
    if num > 1:  # the last value is `stop` exactly, as TensorFlow computes it
        index: list[Any] = [np.s_[:]] * out.ndim
        index[axis] = -1
        out[tuple(index)] = stop
    return out


def _fractions(ctx):
    """k / (num - 1) for each position along the new axis, shaped to broadcast against it."""
    num, axis = ctx.attrs["num"], ctx.attrs["axis"]
    rank = len(ctx.output_shape(0))
    axis = axis + rank if axis < 0 else axis
    steps = np.arange(num) / max(num - 1, 1)
    shape = [1] * rank
    shape[axis] = num
    dtype = ctx.input_dtype(0)
    return convert_to_tensor(steps.reshape(shape).astype(dtype.np_dtype), dtype), axis


def _linspace_grad(ctx, grads):
    fractions, axis = _fractions(ctx)
    g = grads[0]
    to_stop = math_ops.multiply(g, fractions)
    return [reduction_ops.reduce_sum(math_ops.subtract(g, to_stop), axis),
            reduction_ops.reduce_sum(to_stop, axis)]


OPS["LinSpace"] = register("LinSpace", _linspace_kernel, _linspace_infer,
                           node_name="linspace", grad=_linspace_grad, emit=KERNEL_CALL,
                           lowerings=_NOT_LOWERED)


def linspace(start, stop, num, axis=0, name=None):
    """`num` evenly spaced values from `start` to `stop` (both included) along a new `axis`;
    `start` and `stop` (floats) broadcast against each other."""
    start = convert_to_tensor(start, dtype_hint=dtypes.float32)
    stop = convert_to_tensor(stop, dtype_hint=start.dtype)
    count = common.static_int_list(num, "num")
    if len(count) != 1 or count[0] < 0:
        raise ValueError("linspace: num must be a non-negative integer, got %r" % (num,))
    a, b = start._shape_tuple(), stop._shape_tuple()
    if a is not None and b is not None and a != b and None not in a + b:
        try:
            target = shape_lib.broadcast(a, b)
        except ValueError:
            raise ValueError("linspace: start %s and stop %s do not broadcast"
                             % (shape_lib.to_string(a), shape_lib.to_string(b))) from None
        start = reshape_ops.broadcast_to(start, target)
        stop = reshape_ops.broadcast_to(stop, target)
    return execute1(OPS["LinSpace"], [start, stop], {"num": count[0], "axis": int(axis)},
                    name=name)


# -- meshgrid, sequence_mask --------------------------------------------------------------


def meshgrid(*args, indexing="xy", name=None):
    """N-D coordinate grids from 1-D coordinate vectors: with indexing 'xy' (Cartesian) the
    first two output dimensions are swapped, as numpy's and TensorFlow's meshgrid do."""
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: indexing must be 'xy' or 'ij', got %r" % (indexing,))
    tensors = [convert_to_tensor(a) for a in args]
    rank = len(tensors)
    if rank == 0:
        return []
    flat = [reshape_ops.reshape(t, [-1]) for t in tensors]
    sizes = [None if t._shape_tuple() is None else t._shape_tuple()[0] for t in flat]
    order = list(range(rank))
    if indexing == "xy" and rank > 1:
        order[0], order[1] = 1, 0
    out_sizes = [sizes[order[k]] for k in range(rank)]
    known = None not in out_sizes
    outputs = []
    for i, t in enumerate(flat):
        position = order.index(i)
        shape = [1] * rank
        shape[position] = -1
        column = reshape_ops.reshape(t, shape)
        if known:
            outputs.append(reshape_ops.broadcast_to(column, out_sizes))
        else:
            dims = [array_ops.size(flat[order[k]]) for k in range(rank)]
            outputs.append(math_ops.multiply(column, array_ops.ones(dims, dtype=t.dtype)))
    return outputs


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None):
    """mask[i..., j] = j < lengths[i...]: a [*lengths.shape, maxlen] mask (maxlen defaults to
    the largest length)."""
    lengths = convert_to_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise TypeError("sequence_mask: lengths must be integers, got %s"
                        % lengths.dtype.name)
    if maxlen is None:
        maxlen = reduction_ops.reduce_max(lengths)
    maxlen = math_ops.cast(convert_to_tensor(maxlen, dtype_hint=lengths.dtype), lengths.dtype)
    positions = array_ops.range(0, maxlen, 1, dtype=lengths.dtype)
    mask = math_ops.less(positions, reshape_ops.expand_dims(lengths, -1))
    dtype = dtypes.as_dtype(dtype)
    return mask if dtype is dtypes.bool_ else math_ops.cast(mask, dtype, name=name)

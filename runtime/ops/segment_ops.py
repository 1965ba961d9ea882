"""Segment sums: segment_sum and unsorted_segment_sum (TensorFlow's `tf.math.segment_sum`,
`tf.math.unsorted_segment_sum`), the sums of a tensor's rows grouped by segment ids."""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    common,
    math_ops,
    numba_lowerings,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import NUMERIC, SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


# -- segment sums ---------------------------------------------------------------------------


def _segment_infer(specs, attrs):
    (dtype, data), (id_dtype, ids) = specs[:2]
    require_kind(dtype, NUMERIC)
    require_kind(id_dtype, {"int"}, "segment_ids")
    count = attrs["num_segments"]
    if data is None or ids is None:
        return [(dtype, None)]
    if len(ids) > len(data) or any(a is not None and b is not None and a != b
                                   for a, b in zip(ids, data)):
        raise SpecError("shape", "segment_ids of shape %s must be a prefix of data's shape %s"
                        % (shape_lib.to_string(ids), shape_lib.to_string(data)))
    if attrs["sorted"] and len(ids) != 1:
        raise SpecError("shape", "segment_ids must be a vector, got shape %s"
                        % shape_lib.to_string(ids))
    return [(dtype, (count,) + data[len(ids):])]


def _segment_sum_kernel(data, ids, *num, num_segments, sorted):  # noqa: A002
    ids = np.asarray(ids)
    if sorted:
        if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
            raise ValueError("segment_ids must be sorted and non-negative, got %s"
                             % ids.tolist())
        count = int(ids[-1]) + 1 if ids.size else 0
    else:
        count = int(num[0])
        if np.any(ids >= count):
            raise ValueError("segment_ids %s hold values >= num_segments %d"
                             % (ids[ids >= count].tolist(), count))
    rows = data.reshape((-1,) + data.shape[ids.ndim:])
    flat = ids.reshape(-1)
    keep = flat >= 0  # negative ids are dropped, as TensorFlow's unsorted segment ops do
    out = np.zeros((count,) + data.shape[ids.ndim:], dtype=data.dtype)
    np.add.at(out, flat[keep], rows[keep])
    return out


def _segment_grad(ctx, grads):
    ids = ctx.input(1)
    safe = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = selection_ops.gather(grads[0], safe)
    if not ctx.attrs["sorted"]:
        data_shape, id_shape = ctx.input_shape(0), ctx.input_shape(1)
        kept = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
        if data_shape is not None and id_shape is not None:
            for _ in range(len(data_shape) - len(id_shape)):
                kept = reshape_ops.expand_dims(kept, -1)
        gathered = selection_ops.where(kept, gathered, array_ops.zeros_like(gathered))
    return [gathered] + [None] * (len(ctx.needed) - 1)


def _segment_sum_numba(lowerer, node, ins, outs):
    """numba: each row of the data added to its segment's row in order (np.add.at's order),
    rows of negative ids dropped. Where the kernel fails (ids unsorted or out of range, as
    many ids as rows of data only at run time) it runs on the host to raise its own error."""
    data, ids, out = ins[0], ins[1], outs[0]
    if data.shape is None or ids.shape is None or out.shape is None:
        raise lowering_api.Unsupported("a segment sum of unknown rank")
    product, dims = numba_lowerings.product, numba_lowerings.dims
    parts, id_parts = dims(data), dims(ids)
    rows, inner = product(parts[:len(id_parts)]), product(parts[len(id_parts):])
    flat, count, source, result, r = (lowerer.fresh(p) for p in ("q", "n", "c", "r", "j"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, ids, product(id_parts)))
    failed = ["%s != %s" % (rows, product(id_parts))]
    if node.attrs["sorted"]:
        lowerer.line("%s = np.int64(%s[-1]) + 1 if %s.size > 0 else np.int64(0)" % (
            count, flat, flat))
        failed.append("(%s.size > 0 and (%s[0] < 0 or np.any(%s[1:] < %s[:-1])))"
                      % (flat, flat, flat, flat))
    else:
        lowerer.line("%s = np.int64(%s)" % (count, ins[2]))
        failed.append("%s < 0 or np.any(%s >= %s)" % (count, flat, count))
    # a loop running once, not an `if`: numba miscompiles objmode blocks in an `if`
    lowerer.line("for %s in range(int(%s)):" % (lowerer.fresh("once"), " or ".join(failed)))
    with lowerer.block():
        lowerer.kernel_on_host(node, ins, [])
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (source, data, rows,
                                                                     inner))
    lowerer.line("%s = np.zeros((%s, %s), %s)" % (result, count, inner,
                                                   numba_lowerings.type_name(out.dtype)))
    lowerer.line("for %s in range(%s):" % (r, rows))
    with lowerer.block():
        lowerer.line("if %s[%s] >= 0:" % (flat, r))
        with lowerer.block():
            lowerer.line("%s[%s[%s], :] += %s[%s, :]" % (result, flat, r, source, r))
    numba_lowerings.finish(lowerer, out, result, [count] + parts[len(id_parts):])


for _name in ("SegmentSum", "UnsortedSegmentSum"):
    OPS[_name] = register(_name, _segment_sum_kernel, _segment_infer, grad=_segment_grad,
                          emit=KERNEL_CALL,
                          lowerings=dict(_NOT_LOWERED, numba=_segment_sum_numba))


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of `data` per segment: `segment_ids` (sorted, non-negative, one per
    row) gives each row's segment; the output has max(segment_ids) + 1 rows."""
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    return execute1(OPS["SegmentSum"], [data, ids], {"num_segments": None, "sorted": True},
                    name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the slices of `data` per segment: `segment_ids` (shape a prefix of data's, any
    order; negative ids are dropped) gives each slice's segment among `num_segments`."""
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    count = convert_to_tensor(num_segments, dtype_hint=ids.dtype)
    known = common.constant_value(count)
    return execute1(OPS["UnsortedSegmentSum"], [data, ids, count],
                    {"num_segments": None if known is None else int(known), "sorted": False},
                    name=name)

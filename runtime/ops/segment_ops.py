"""Segment reductions: the rows of a tensor grouped by segment ids and reduced per group by a
sum, product, minimum, maximum or mean (TensorFlow's `tf.math.segment_sum`, `segment_prod`,
`segment_min`, `segment_max`, `segment_mean` and the `unsorted_segment_*` forms).

A sorted op (`Segment*`) takes one id per row of the data, sorted and non-negative, and has
max(id) + 1 segments; an unsorted one (`UnsortedSegment*`) takes ids shaped like a prefix of
the data's shape, in any order, and `num_segments`; rows of a negative id are dropped. A
segment no row falls in holds the reduction's start: 0 for a sum or a mean, 1 for a
product, and for a minimum (maximum) the dtype's largest (lowest) value when unsorted, 0
when sorted, as TensorFlow gives. An integer mean rounds toward zero. `unsorted_segment_mean`
and `unsorted_segment_sqrt_n` are TensorFlow's compositions of those ops (sum / count, sum
/ sqrt(count)).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    common,
    math_lowerings,
    math_ops,
    numba_lowerings,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import NUMERIC, REAL, SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}

# reduction: (numpy ufunc combining a row into its segment's, the dtype kinds it takes)
_REDUCTIONS = {
    "Sum": (np.add, NUMERIC),
    "Prod": (np.multiply, NUMERIC),
    "Min": (np.minimum, REAL),
    "Max": (np.maximum, REAL),
    "Mean": (np.add, NUMERIC),  # a sum, then divided by the count (sorted ids only)
}


def _start(reduction, dtype):
    """The value of a segment before any row is combined into it (a numpy scalar)."""
    if reduction == "Min":
        return dtype.np_dtype.type(dtype.max)
    if reduction == "Max":
        return dtype.np_dtype.type(dtype.min)
    return dtype.np_dtype.type(1 if reduction == "Prod" else 0)


def _counted(reduction, sorted):  # noqa: A002
    """Whether the op needs each segment's row count: a mean divides by it, and a sorted
    minimum or maximum gives 0 for an empty segment."""
    return reduction == "Mean" or (sorted and reduction in ("Min", "Max"))


# -- shapes and values ------------------------------------------------------------------------


def _segment_infer(kinds):
    def infer(specs, attrs):
        (dtype, data), (id_dtype, ids) = specs[:2]
        require_kind(dtype, kinds)
        require_kind(id_dtype, {"int"}, "segment_ids")
        count = attrs["num_segments"]
        if data is None or ids is None:
            return [(dtype, None)]
        if len(ids) > len(data) or any(a is not None and b is not None and a != b
                                       for a, b in zip(ids, data)):
            raise SpecError("shape", "segment_ids of shape %s must be a prefix of data's "
                            "shape %s" % (shape_lib.to_string(ids), shape_lib.to_string(data)))
        if attrs["sorted"] and len(ids) != 1:
            raise SpecError("shape", "segment_ids must be a vector, got shape %s"
                            % shape_lib.to_string(ids))
        return [(dtype, (count,) + data[len(ids):])]
    return infer


def _segment_layout(data, ids, num, sorted):  # noqa: A002
    """(number of segments, rows of the data, one id per row), checking the ids; each
    error names the first offending dimension or id, as the numba rule finds it."""
    ids = np.asarray(ids)
    for i, (have, want) in enumerate(zip(ids.shape, data.shape)):
        if have != want:
            raise ValueError(_MISMATCH % (i, have, want))
    flat = ids.reshape(-1)
    if sorted:
        bad = np.flatnonzero((flat < 0) | (flat < np.concatenate([flat[:1], flat[:-1]])))
        if bad.size:
            raise ValueError(_UNSORTED % (bad[0], flat[bad[0]]))
        count = int(flat[-1]) + 1 if flat.size else 0
    else:
        count = int(num[0])
        if count < 0:
            raise ValueError(_NEGATIVE_COUNT % count)
        bad = np.flatnonzero(flat >= count)
        if bad.size:
            raise ValueError(_OUT_OF_RANGE % (bad[0], flat[bad[0]], count))
    return count, data.reshape((-1,) + data.shape[ids.ndim:]), flat


# The kernel's errors, each with as many numbers whatever the shapes (numba checks give them)
_MISMATCH = "dimension %d of segment_ids is %d, but of data %d (the ids' shape must be a prefix " \
    "of the data's)"
_UNSORTED = "segment_ids must be sorted and non-negative, but segment_ids[%d] = %d"
_NEGATIVE_COUNT = "num_segments must not be negative, got %d"
_OUT_OF_RANGE = "segment_ids[%d] = %d is out of range for num_segments %d"


def _divided(total, counts):
    """A segment's mean: its sum over its row count (at least 1); integers round toward
    zero, as TensorFlow's integer division does."""
    counts = np.maximum(counts, 1)
    if total.dtype.kind in "iu":
        quotient = np.abs(total) // counts.astype(total.dtype)
        return np.where(total < 0, -quotient, quotient).astype(total.dtype)
    if total.dtype.kind == "c":  # each part over the count (a complex division would round)
        out = np.empty_like(total)
        out.real = total.real / counts.astype(total.real.dtype)
        out.imag = total.imag / counts.astype(total.real.dtype)
        return out
    return total / counts.astype(total.dtype)


def _segment_kernel(reduction):
    combine = _REDUCTIONS[reduction][0]

    def kernel(data, ids, *num, num_segments, sorted):  # noqa: A002
        count, rows, flat = _segment_layout(data, ids, num, sorted)
        keep = flat >= 0  # negative ids are dropped, as TensorFlow's unsorted segment ops do
        start = _start(reduction, dtypes.from_numpy(data.dtype))
        out = np.full((count,) + rows.shape[1:], start, dtype=data.dtype)
        with np.errstate(all="ignore"):  # overflow to inf and integer wrapping, as in TF
            combine.at(out, flat[keep], rows[keep])
        if not _counted(reduction, sorted):
            return out
        counts = np.bincount(flat[keep], minlength=count).reshape(
            (count,) + (1,) * (rows.ndim - 1))
        if reduction == "Mean":
            return _divided(out, counts)
        return np.where(counts > 0, out, np.zeros((), data.dtype))
    return kernel


# -- gradients (TensorFlow's rules) -----------------------------------------------------------


def _family(ctx, reduction, data):
    """The op of `ctx`'s form (sorted or unsorted) for `reduction`, run on `data` with the
    same segment ids."""
    name = ("Segment" if ctx.attrs["sorted"] else "UnsortedSegment") + reduction
    return execute1(OPS[name], [data] + [ctx.input(i) for i in range(1, len(ctx.needed))],
                    ctx.attrs)


def _per_row(ctx, values):
    """`values` (one row per segment) gathered for each row of the data by its segment id;
    zero for a row whose id is negative (dropped by an unsorted op)."""
    ids = ctx.input(1)
    gathered = selection_ops.gather(values, math_ops.maximum(ids, array_ops.zeros_like(ids)))
    if ctx.attrs["sorted"]:
        return gathered
    return selection_ops.where(_kept(ctx), gathered, array_ops.zeros_like(gathered))


def _kept(ctx):
    """Per row of the data (broadcastable to it): whether its segment id is not negative."""
    ids = ctx.input(1)
    kept = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
    data_shape, id_shape = ctx.input_shape(0), ctx.input_shape(1)
    if data_shape is not None and id_shape is not None:
        for _ in range(len(data_shape) - len(id_shape)):
            kept = reshape_ops.expand_dims(kept, -1)
    return kept


def _none_for_ids(ctx, grad):
    return [grad] + [None] * (len(ctx.needed) - 1)


def _segment_sum_grad(ctx, grads):
    return _none_for_ids(ctx, _per_row(ctx, grads[0]))


def _counts(ctx, selected):
    """The number of `selected` rows per segment (at least 1), in the data's dtype."""
    real = ctx.input_dtype(0).real_dtype
    counts = _family(ctx, "Sum", math_ops.cast(selected, real))
    counts = math_ops.maximum(counts, array_ops.ones_like(counts))
    return math_ops.cast(counts, ctx.input_dtype(0))


def _segment_mean_grad(ctx, grads):
    data = ctx.input(0)
    counts = _counts(ctx, array_ops.ones_like(data, dtype=dtypes.bool_))
    return _none_for_ids(ctx, _per_row(ctx, math_ops.truediv(grads[0], counts)))


def _segment_extreme_grad(ctx, grads):
    """Min, Max: the gradient goes to the rows equal to their segment's result, shared
    evenly among ties."""
    data = ctx.input(0)
    selected = math_ops.equal(data, _per_row(ctx, ctx.output(0)))
    if not ctx.attrs["sorted"]:
        selected = math_ops.logical_and(selected, _kept(ctx))
    weighted = math_ops.truediv(grads[0], _counts(ctx, selected))
    gathered = _per_row(ctx, weighted)
    return _none_for_ids(ctx, selection_ops.where(selected, gathered,
                                                  array_ops.zeros_like(gathered)))


def _segment_prod_grad(ctx, grads):
    """The product of the other rows of a row's segment: the segment's product over the row
    where the row is not zero, else the product of the segment's other non-zero rows (zero
    when the segment has another zero)."""
    data = ctx.input(0)
    zero = math_ops.equal(data, array_ops.zeros_like(data))
    zeros_per_segment = _family(ctx, "Sum", math_ops.cast(zero, dtypes.int32))
    g = grads[0]
    g = selection_ops.where(math_ops.greater(zeros_per_segment, 1), array_ops.zeros_like(g), g)
    nonzero = selection_ops.where(zero, array_ops.ones_like(data), data)
    others = selection_ops.where(
        zero, _per_row(ctx, _family(ctx, "Prod", nonzero)),
        math_ops.truediv(_per_row(ctx, ctx.output(0)), nonzero))
    return _none_for_ids(ctx, math_ops.multiply(_per_row(ctx, g), others))


_GRADIENTS = {"Sum": _segment_sum_grad, "Prod": _segment_prod_grad,
              "Min": _segment_extreme_grad, "Max": _segment_extreme_grad,
              "Mean": _segment_mean_grad}


# -- numba ------------------------------------------------------------------------------------


def _start_literal(reduction, dtype):
    """The start of a segment as numba code of `dtype`'s type."""
    value = _start(reduction, dtype)
    kind = numba_lowerings.type_name(dtype)
    if dtype.kind == "int" and value < 0:  # the lowest int64 is no literal numba reads
        return "%s(%d) - %s(1)" % (kind, int(value) + 1, kind)
    return "%s(%r)" % (kind, value.item())


# (element by element: numba compiles a slice combined with a slice for 0.2 s at each site,
# and for 2.5 s the first time in a process)
_NUMBA_COMBINE = {
    "Sum": "{out} += {row}", "Mean": "{out} += {row}", "Prod": "{out} *= {row}",
    "Min": "{out} = np.minimum({out}, {row})", "Max": "{out} = np.maximum({out}, {row})",
}


def _segment_numba(reduction):
    def rule(lowerer, node, ins, outs):
        """numba: each row of the data combined into its segment's row in order (np.<ufunc>.at's
        order), rows of negative ids dropped; the ids checked as the kernel checks them, in
        the same order, failing with its errors."""
        data, ids, out = ins[0], ins[1], outs[0]
        if data.shape is None or ids.shape is None or out.shape is None:
            raise lowering_api.Unsupported("a segment reduction of unknown rank")
        counted = _counted(reduction, node.attrs["sorted"])
        product, dims = numba_lowerings.product, numba_lowerings.dims
        parts, id_parts = dims(data), dims(ids)
        rows, inner = product(parts[:len(id_parts)]), product(parts[len(id_parts):])
        flat, count, source, result, r = (lowerer.fresh(p) for p in ("q", "n", "c", "r", "j"))
        for i, (have, want) in enumerate(zip(id_parts, parts)):
            if have != want:
                lowerer.check_values("%s != %s" % (have, want), ValueError, _MISMATCH,
                                     (str(i), have, want))
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, ids,
                                                                    product(id_parts)))
        if node.attrs["sorted"]:
            lowerer.line("%s = np.int64(%s[-1]) + 1 if %s.size > 0 else np.int64(0)" % (
                count, flat, flat))
        else:
            lowerer.line("%s = np.int64(%s)" % (count, ins[2]))
            lowerer.check_values("%s < 0" % count, ValueError, _NEGATIVE_COUNT, (count,))
        lowerer.line("for %s in range(%s.size):" % (r, flat))
        with lowerer.block():
            if node.attrs["sorted"]:
                lowerer.check_values(
                    "%s[%s] < 0 or (%s > 0 and %s[%s] < %s[%s - 1])" % (flat, r, r, flat, r,
                                                                       flat, r),
                    ValueError, _UNSORTED, (r, "%s[%s]" % (flat, r)))
            else:
                lowerer.check_values("%s[%s] >= %s" % (flat, r, count), ValueError,
                                     _OUT_OF_RANGE, (r, "%s[%s]" % (flat, r), count))
        lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (source, data, rows,
                                                                         inner))
        lowerer.line("%s = np.full((%s, %s), %s)" % (result, count, inner,
                                                     _start_literal(reduction, out.dtype)))
        if counted:
            counts = lowerer.fresh("m")
            lowerer.line("%s = np.zeros(%s, np.int64)" % (counts, count))
        lowerer.line("for %s in range(%s):" % (r, rows))
        with lowerer.block():
            lowerer.line("if %s[%s] >= 0:" % (flat, r))
            with lowerer.block():
                column = lowerer.fresh("c")
                lowerer.line("for %s in range(%s):" % (column, inner))
                with lowerer.block():
                    lowerer.line(_NUMBA_COMBINE[reduction].format(
                        out="%s[%s[%s], %s]" % (result, flat, r, column),
                        row="%s[%s, %s]" % (source, r, column)))
                if counted:
                    lowerer.line("%s[%s[%s]] += 1" % (counts, flat, r))
        if counted:
            k = lowerer.fresh("k")
            lowerer.line("for %s in range(%s):" % (k, count))
            with lowerer.block():
                if reduction == "Mean" and out.dtype.kind == "int":  # toward zero
                    c, v = lowerer.fresh("c"), lowerer.fresh("v")
                    lowerer.line("for %s in range(%s):" % (c, inner))
                    with lowerer.block():
                        lowerer.line("%s = abs(%s[%s, %s]) // max(%s[%s], 1)" % (
                            v, result, k, c, counts, k))
                        lowerer.line("%s[%s, %s] = -%s if %s[%s, %s] < 0 else %s" % (
                            result, k, c, v, result, k, c, v))
                elif reduction == "Mean" and out.dtype.kind == "complex":  # part by part
                    c, v = lowerer.fresh("c"), lowerer.fresh("v")
                    lowerer.line("for %s in range(%s):" % (c, inner))
                    with lowerer.block():
                        lowerer.line("%s = %s[%s, %s]" % (v, result, k, c))
                        lowerer.line("%s[%s, %s] = complex(%s.real / max(%s[%s], 1), "
                                     "%s.imag / max(%s[%s], 1))" % (result, k, c, v, counts, k,
                                                                    v, counts, k))
                elif reduction == "Mean":
                    c = lowerer.fresh("c")
                    lowerer.line("for %s in range(%s):" % (c, inner))
                    with lowerer.block():
                        lowerer.line("%s[%s, %s] = %s[%s, %s] / %s(max(%s[%s], 1))" % (
                            result, k, c, result, k, c, numba_lowerings.type_name(out.dtype),
                            counts, k))
                else:
                    lowerer.line("if %s[%s] == 0:" % (counts, k))
                    with lowerer.block():
                        lowerer.line("%s[%s, :] = 0" % (result, k))
        numba_lowerings.finish(lowerer, out, result, [count] + parts[len(id_parts):])
    return rule


# -- JAX --------------------------------------------------------------------------------------


def _segment_count_jax(node, ids):
    """The number of segments a JAX rule can know at compile time: `num_segments`, or for
    sorted ids known then, max(id) + 1 (ids that the kernel refuses are declined, so that
    the numpy executor raises its error)."""
    if not node.attrs["sorted"]:
        count = node.attrs["num_segments"]
        if count is None or count < 0:
            raise lowering_api.Unsupported("a number of segments known only at run time"
                                           if count is None else "a negative number of segments")
        return int(count)
    if not lowering_api.is_concrete(ids):
        raise lowering_api.Unsupported("sorted segment ids known only at run time (they give "
                                       "the number of segments)")
    known = np.asarray(ids).reshape(-1)
    if known.size and (np.any(np.diff(known) < 0) or known[0] < 0):
        raise lowering_api.Unsupported("segment ids that are not sorted")
    return int(known[-1]) + 1 if known.size else 0


def _segment_jax(reduction):
    def rule(lw, node, ins):
        """A scatter of the rows into their segments (rows of negative ids dropped)."""
        jnp = lw.jnp
        data = jnp.asarray(ins[0])
        count = _segment_count_jax(node, ins[1])
        ids = jnp.asarray(ins[1])
        inner = data.shape[ids.ndim:]
        if data.shape[:ids.ndim] != ids.shape:
            raise lowering_api.Unsupported("segment ids not shaped like the data's leading "
                                           "dimensions")
        flat = ids.reshape(-1)
        if not node.attrs["sorted"]:
            lw.fail_if(flat >= count)
        target = jnp.where(flat < 0, count, flat)  # out of range: dropped by the scatter
        start = _start(reduction, dtypes.from_numpy(np.dtype(data.dtype)))
        into = jnp.full((count,) + inner, start, data.dtype).at[target]
        combine = {"Sum": into.add, "Mean": into.add, "Prod": into.multiply,
                   "Min": into.min, "Max": into.max}[reduction]
        out = combine(data.reshape((-1,) + inner), mode="drop")
        if not _counted(reduction, node.attrs["sorted"]):
            return [out]
        counts = jnp.zeros(count, "int32").at[target].add(1, mode="drop").reshape(
            (count,) + (1,) * len(inner))
        if reduction != "Mean":
            return [jnp.where(counts > 0, out, jnp.zeros((), data.dtype))]
        kind = np.dtype(data.dtype).kind
        if kind in "iu":  # toward zero
            divisor = jnp.broadcast_to(jnp.maximum(counts, 1).astype(data.dtype), out.shape)
            return [lw.lax.div(out, divisor)]
        divisor = jnp.maximum(counts, 1).astype(out.real.dtype)
        if kind == "c":  # each part over the count, as the kernel divides
            return [lw.lax.complex(math_lowerings.exact_divide_jax(lw, out.real, divisor),
                                   math_lowerings.exact_divide_jax(lw, out.imag, divisor))]
        return [math_lowerings.exact_divide_jax(lw, out, divisor)]
    return rule


for _reduction, (_, _kinds) in _REDUCTIONS.items():
    for _form in ("Segment", "UnsortedSegment"):
        if _form == "UnsortedSegment" and _reduction == "Mean":
            continue  # unsorted_segment_mean is TensorFlow's composition below
        _name = _form + _reduction
        OPS[_name] = register(_name, _segment_kernel(_reduction), _segment_infer(_kinds),
                              grad=_GRADIENTS[_reduction], emit=KERNEL_CALL,
                              lowerings=dict(_NOT_LOWERED, numba=_segment_numba(_reduction),
                                             jax=_segment_jax(_reduction)))


# -- the API ----------------------------------------------------------------------------------


def _sorted_segments(op_name, data, segment_ids, name):
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    return execute1(OPS[op_name], [data, ids], {"num_segments": None, "sorted": True},
                    name=name)


def _unsorted_segments(op_name, data, segment_ids, num_segments, name):
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    count = convert_to_tensor(num_segments, dtype_hint=ids.dtype)
    known = common.constant_value(count)
    return execute1(OPS[op_name], [data, ids, count],
                    {"num_segments": None if known is None else int(known), "sorted": False},
                    name=name)


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of `data` per segment: `segment_ids` (sorted, non-negative, one per
    row) gives each row's segment; the output has max(segment_ids) + 1 rows."""
    return _sorted_segments("SegmentSum", data, segment_ids, name)


def segment_prod(data, segment_ids, name=None):
    """Products of the rows of `data` per segment (sorted ids, one per row); 1 for a
    segment without rows."""
    return _sorted_segments("SegmentProd", data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    """Minimums of the rows of `data` per segment (sorted ids, one per row); 0 for a
    segment without rows."""
    return _sorted_segments("SegmentMin", data, segment_ids, name)


def segment_max(data, segment_ids, name=None):
    """Maximums of the rows of `data` per segment (sorted ids, one per row); 0 for a
    segment without rows."""
    return _sorted_segments("SegmentMax", data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    """Means of the rows of `data` per segment (sorted ids, one per row); 0 for a segment
    without rows; integers round toward zero."""
    return _sorted_segments("SegmentMean", data, segment_ids, name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the slices of `data` per segment: `segment_ids` (shape a prefix of data's, any
    order; negative ids are dropped) gives each slice's segment among `num_segments`."""
    return _unsorted_segments("UnsortedSegmentSum", data, segment_ids, num_segments, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products of the slices of `data` per segment among `num_segments` (ids in any order,
    negative ones dropped); 1 for an empty segment."""
    return _unsorted_segments("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Minimums of the slices of `data` per segment among `num_segments` (ids in any order,
    negative ones dropped); the dtype's largest value for an empty segment."""
    return _unsorted_segments("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Maximums of the slices of `data` per segment among `num_segments` (ids in any order,
    negative ones dropped); the dtype's lowest value for an empty segment."""
    return _unsorted_segments("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def _slice_counts(data, ids, num_segments):
    """The number of slices per segment (at least 1), shaped to divide a segment sum."""
    ones = array_ops.ones_like(ids, dtype=data.dtype)
    counts = unsorted_segment_sum(ones, ids, num_segments)
    data_shape, id_shape = data._shape_tuple(), ids._shape_tuple()
    if data_shape is None or id_shape is None:
        raise ValueError("unsorted segment means need data and segment_ids of known rank")
    for _ in range(len(data_shape) - len(id_shape)):
        counts = reshape_ops.expand_dims(counts, -1)
    return math_ops.maximum(counts, array_ops.ones_like(counts))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Means of the slices of `data` per segment among `num_segments` (ids in any order,
    negative ones dropped; 0 for an empty segment): the sum over the count, so integers
    give floats, as TensorFlow's `/` does."""
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    counts = _slice_counts(data, ids, num_segments)
    return math_ops.truediv(unsorted_segment_sum(data, ids, num_segments), counts, name=name)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sums of the slices of `data` per segment among `num_segments` over the square root
    of each segment's count (floats only, as TensorFlow)."""
    data = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    counts = _slice_counts(data, ids, num_segments)
    return math_ops.truediv(unsorted_segment_sum(data, ids, num_segments),
                            math_ops.sqrt(counts), name=name)

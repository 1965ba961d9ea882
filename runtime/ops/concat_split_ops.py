"""Ops that join tensors along an axis or take one apart, and repeat one: concat, stack,
unstack, split, tile and repeat (TensorFlow's `tf.concat`, `tf.split`, ...).

Axes, sizes and repeat counts must be known when the graph is built (an equal split of a
dimension known only at run time is the Split op). Stack and unstack are the Pack and Unpack
ops, declared in `common` (convert_to_tensor packs lists of tensors).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    array_ops,
    batching,
    common,
    reduction_ops,
    reshape_ops,
    slicing,
)
from runtime.ops.array_ops import identity
from runtime.ops.common import (
    SpecError,
    convert_to_tensor,
    normalize_axis,
    require_same_dtype,
)
from runtime.ops.common import stack as stack  # re-exported: tf.stack is the Pack op
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.gradient_ops import fully_known
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_of,
    contiguous_view,
    dims,
    finish,
    product,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute, execute1, register
from runtime.tensor import Tensor

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}



def _static_axis(axis, what="axis"):
    dims = common.static_int_list(axis, what)
    if dims is None or len(dims) != 1:
        raise ValueError("%s must be a single integer, got %r" % (what, axis))
    return dims[0]



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
    total: int | None = 0
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


def _concat_jax(lw, node, ins):
    """ConcatV2."""
    return [lw.jnp.concatenate(ins, axis=node.attrs["axis"])]


def _concat_grad(ctx, grads):
    g = grads[0]
    rank = len(ctx.output_shape(0)) if ctx.output_shape(0) is not None else None
    if rank is None:
        raise NotImplementedError("the gradient of concat needs operands of known rank")
    axis = ctx.attrs["axis"] % rank
    out = []
    start = 0
    for i, need in enumerate(ctx.needed):
        shape = ctx.input_shape(i)
        size = shape[axis] if shape is not None and shape[axis] is not None else \
            array_ops.shape(ctx.input(i))[axis]
        end = start + size
        if need:
            index = (slice(None),) * axis + (slice(start, end),)
            out.append(slicing.strided_slice_from_index(g, index))
        else:
            out.append(None)
        start = end
    return out


def _concat_numba(lowerer, node, ins, outs):
    """ConcatV2: numpy's concatenate, after checking at run time the dimensions only known
    then (numpy's error when they differ)."""
    if any(x.rank0 for x in ins):
        raise lowering_api.Unsupported("a concat of scalars")
    shapes = [dims(x) for x in ins]
    rank_ = len(shapes[0])
    axis = axis_of(node, rank_)
    for i, x in enumerate(ins[1:], 1):
        for d in range(rank_):
            if d == axis or (x.shape[d] is not None and ins[0].shape[d] is not None):
                continue
            lowerer.check_values(
                "%s != %s" % (shapes[0][d], shapes[i][d]), ValueError,
                "all the input array dimensions except for the concatenation axis must match "
                "exactly, but along dimension %d, the array at index 0 has size %%d and the "
                "array at index %d has size %%d" % (d, i), (shapes[0][d], shapes[i][d]))
    lowerer.assign(outs[0], "np.concatenate((%s), %d)" % ("".join(
        "np.ascontiguousarray(%s), " % x for x in ins), axis))


OPS["ConcatV2"] = register("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis),
                           _concat_infer, node_name="concat",
                           grad=_concat_grad, emit=KERNEL_CALL,
                           lowerings=dict(_NOT_LOWERED, jax=_concat_jax,
                                          numba=_concat_numba))


@dispatchable
def concat(values, axis, name="concat"):
    """The tensors of `values` joined along existing dimension `axis`. Values that are not
    tensors (Python lists, numbers, arrays) become tensors of the first tensor's dtype, as in
    TensorFlow (`tf.concat((v, [i]), 0)` with an int32 `v` and an int64 tensor `i`)."""
    first = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    tensors = [convert_to_tensor(v, None if isinstance(v, Tensor) else first) for v in values]
    if len(tensors) == 1:
        return identity(tensors[0])
    return execute1(OPS["ConcatV2"], tensors, {"axis": int(axis)}, name=name)


OPS["Pack"] = common.PACK  # declared with convert_to_tensor, which packs lists of tensors


OPS["Unpack"] = common.UNPACK  # declared beside Pack, whose gradient unstacks


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


def _tile_grad(ctx, grads):
    g = grads[0]
    multiples = ctx.attrs["multiples"]
    shape = ctx.input_shape(0)
    if fully_known(shape):
        split = [n for m, d in zip(multiples, shape) for n in (m, d)]
    else:
        dims = array_ops.shape(ctx.input(0))
        split = stack([n for k, m in enumerate(multiples)
                         for n in (array_ops.constant(m, dtype=dims.dtype), dims[k])])
    spread = reshape_ops.reshape(g, split)
    return [reduction_ops.reduce_sum(spread, axis=list(range(0, 2 * len(multiples), 2)))]


def _tile_jax(lw, node, ins):
    """Tile by the static multiples."""
    multiples = tuple(node.attrs["multiples"])
    if len(multiples) != np.ndim(ins[0]):
        raise lowering_api.Unsupported("has one multiple per dimension only at run time")
    return [lw.jnp.tile(ins[0], multiples)]


def _tile_numba(lowerer, node, ins, outs):
    """Tile: the input broadcast along a new axis before each of its own, then merged."""
    x = ins[0]
    if x.rank0:
        raise lowering_api.Unsupported("a tile of a scalar")
    parts = dims(x)
    multiples = [int(m) for m in node.attrs["multiples"]]
    spread = []
    for p in parts:
        spread += ["1", p]
    target = []
    for m, p in zip(multiples, parts):
        target += [str(m), p]
    array = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(np.broadcast_to(np.ascontiguousarray(%s).reshape("
                 "%s), %s))" % (array, x, shape_tuple(spread), shape_tuple(target)))
    finish(lowerer, outs[0], array, [product([str(m), p]) for m, p in zip(multiples, parts)])


OPS["Tile"] = register("Tile", lambda x, multiples: np.tile(x, multiples), _tile_infer,
                       grad=_tile_grad, emit=KERNEL_CALL,
                       lowerings=dict(_NOT_LOWERED, numba=_tile_numba,
                                                    jax=_tile_jax))


@dispatchable
def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i."""
    return execute1(OPS["Tile"], [convert_to_tensor(input)],
                    {"multiples": common.static_int_list(multiples, "multiples")}, name=name)


# -- split ------------------------------------------------------------------------------------


def _split_infer(specs, attrs):
    dtype, shape = specs[0]
    sizes = attrs["sizes"]
    if shape is None:
        return [(dtype, None)] * len(sizes)
    axis = normalize_axis(attrs["axis"], len(shape))
    total = shape[axis]
    known = [s for s in sizes if s != -1]
    if total is not None:
        if -1 in sizes:
            if sum(known) > total:
                raise SpecError("shape", "split sizes %s exceed dimension %d of size %d"
                                % (list(sizes), axis, total))
        elif sum(sizes) != total:
            raise SpecError("shape", "split sizes %s do not add up to dimension %d of size %d"
                            % (list(sizes), axis, total))
    out = []
    for s in sizes:
        size = s if s != -1 else (None if total is None else total - sum(known))
        out.append((dtype, shape[:axis] + (size,) + shape[axis + 1:]))
    return out


def _split_kernel(x, sizes, axis):
    total = x.shape[axis]
    known = sum(s for s in sizes if s != -1)
    sizes = [total - known if s == -1 else s for s in sizes]
    if sum(sizes) != total or min(sizes) < 0:
        raise ValueError("split sizes %s do not add up to dimension %d of size %d"
                         % (sizes, axis, total))
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _split_lowering(lowerer, node, ins, outs):
    x = ins[0]
    if x.shape is None or x.shape[normalize_axis(node.attrs["axis"], len(x.shape))] is None:
        raise lowering_api.Unsupported("a split of a dimension of unknown size")
    axis = normalize_axis(node.attrs["axis"], len(x.shape))
    start = 0
    for out in outs:  # the sizes the shape inference resolved (and checked)
        stop = start + out.shape[axis]
        part = "%s[%s%d:%d]" % (x, ":, " * axis, start, stop)
        lowerer.assign(out, contiguous_view(lowerer, part))
        start = stop


def _split_grad(ctx, grads):
    parts = [g if g is not None else array_ops.zeros_like(ctx.output(i))
             for i, g in enumerate(grads)]
    return [concat(parts, ctx.attrs["axis"])]


OPS["SplitV"] = register("SplitV", _split_kernel, _split_infer, node_name="split",
                         grad=_split_grad, emit=KERNEL_CALL, traits=("view",),
                         lowerings={"array": _split_lowering})


def _equal_split_infer(specs, attrs):
    dtype, shape = specs[0]
    count = attrs["num_split"]
    if shape is None:
        return [(dtype, None)] * count
    axis = normalize_axis(attrs["axis"], len(shape))
    total = shape[axis]
    if total is not None and total % count:
        raise SpecError("shape", "dimension %d of size %d is not divisible by %d"
                        % (axis, total, count))
    part = None if total is None else total // count
    return [(dtype, shape[:axis] + (part,) + shape[axis + 1:])] * count


def _equal_split_kernel(x, num_split, axis):
    if x.shape[axis] % num_split:
        raise ValueError("dimension %d of size %d is not divisible by %d"
                         % (axis, x.shape[axis], num_split))
    return np.split(x, num_split, axis=axis)


# TensorFlow's Split: `num_split` equal parts, for a dimension known only at run time
OPS["Split"] = register("Split", _equal_split_kernel, _equal_split_infer, node_name="split",
                        grad=_split_grad, emit=KERNEL_CALL, traits=("view",),
                        lowerings={"array": lowering_api.unsupported(
                            "equal parts of a dimension known only at run time")})


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """`value` cut along `axis` into `num_or_size_splits` equal parts (an int), or into parts
    of the given sizes (a list; one entry may be -1 for the rest). Returns a list."""
    value = convert_to_tensor(value)
    axis = _static_axis(axis)
    shape = value._shape_tuple()
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(
            num_or_size_splits, bool):
        count = int(num_or_size_splits)
        if count <= 0:
            raise ValueError("split: num_or_size_splits must be positive, got %d" % count)
        if shape is not None:
            dim = shape[normalize_axis_or_fail(axis, len(shape), "split")]
            if dim is None:  # known only at run time
                return list(execute(OPS["Split"], [value], {"num_split": count, "axis": axis},
                                    name=name))
            if dim % count:
                raise ValueError("split: dimension %d of size %d is not divisible by %d"
                                 % (axis, dim, count))
            sizes = (dim // count,) * count
        else:
            raise ValueError("split needs a tensor of known rank")
    else:
        sizes = common.static_int_list(num_or_size_splits, "split sizes")
        if sizes.count(-1) > 1:
            raise ValueError("split: at most one size may be -1, got %s" % list(sizes))
    return execute(OPS["SplitV"], [value], {"sizes": tuple(sizes), "axis": axis}, name=name)


def normalize_axis_or_fail(axis, rank, op):
    """`axis` in [0, rank), or ValueError naming `op`."""
    try:
        return normalize_axis(axis, rank)
    except SpecError as e:
        raise ValueError("%s: %s" % (op, e.message)) from None


def _repeat_positions_numba(lowerer, node, ins, outs, counts):
    """Repeat along a dimension of static size: the slices at the positions np.repeat would
    copy (`counts` per position, checked against the size when the rule runs)."""
    x = ins[0]
    parts = dims(x)
    axis = axis_of(node, len(parts))
    size = x.shape[axis]
    if len(counts) != size:
        raise lowering_api.Unsupported("repeats that do not fit the dimension")
    positions = np.repeat(np.arange(size, dtype=np.int64), counts)
    index = lowerer.constant(positions, dtypes.int64, positions.shape)
    array, before, _, after = as_3d(lowerer, x, axis)
    result, k = lowerer.fresh("r"), lowerer.fresh("k")
    lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple(
        [before, str(len(positions)), after]), type_name(x.dtype)))
    lowerer.line("for %s in range(%d):" % (k, len(positions)))
    with lowerer.block():
        lowerer.line("numba_math.copy_slab(%s, %s, %s, %s[%s])" % (result, k, array, index, k))
    finish(lowerer, outs[0], result, parts[:axis] + [str(len(positions))] + parts[axis + 1:])


# -- repeat -------------------------------------------------------------------------------------


def _repeat_infer(specs, attrs):
    dtype, shape = specs[0]
    repeats = attrs["repeats"]
    if shape is None:
        return [(dtype, None)]
    axis = normalize_axis(attrs["axis"], len(shape))
    dim = shape[axis]
    if not attrs["per_element"]:
        size = None if dim is None else dim * repeats[0]
    else:
        if dim is not None and dim != len(repeats):
            raise SpecError("shape", "%d repeats for dimension %d of size %d"
                            % (len(repeats), axis, dim))
        size = sum(repeats)
    return [(dtype, shape[:axis] + (size,) + shape[axis + 1:])]


def _counts(repeats, per_element, size):
    return repeats if per_element else repeats * size


def _repeat_kernel(x, repeats, axis, per_element):
    counts = _counts(repeats, per_element, x.shape[axis])
    if len(counts) != x.shape[axis]:
        raise ValueError("%d repeats for dimension %d of size %d"
                         % (len(counts), axis, x.shape[axis]))
    return np.repeat(x, counts, axis=axis)


def _repeat_grad_kernel(g, x, repeats, axis, per_element):
    """The sum of each element's copies: g summed back to x's shape."""
    size = x.shape[axis]
    source = np.repeat(np.arange(size), _counts(repeats, per_element, size))
    moved = np.moveaxis(g, axis, 0)
    total = np.zeros((size,) + moved.shape[1:], dtype=g.dtype)
    np.add.at(total, source, moved)
    return np.moveaxis(total, 0, axis)


def _repeat_lowering(lowerer, node, ins, outs):
    x, attrs = ins[0], node.attrs
    axis = None if x.shape is None else normalize_axis(attrs["axis"], len(x.shape))
    if axis is None or x.shape[axis] is None:
        raise lowering_api.Unsupported("repeats along a dimension of unknown size")
    counts = _counts(list(attrs["repeats"]), attrs["per_element"], x.shape[axis])
    # counts as a numpy array: JAX needs them concrete (its own arrays are traced)
    lowerer.assign(outs[0], "xp.repeat(%s, np.asarray(%s), axis=%d)"
                   % (x, lowerer.literal(counts), axis))


def _repeat_numba(lowerer, node, ins, outs):
    """numba (whose np.repeat takes no axis): numba_lowerings' gather of repeated slices."""
    x, attrs = ins[0], node.attrs
    axis = None if x.shape is None or x.rank0 else normalize_axis(attrs["axis"], len(x.shape))
    if axis is None or x.shape[axis] is None:
        raise lowering_api.Unsupported("repeats along a dimension of unknown size")
    counts = _counts(list(attrs["repeats"]), attrs["per_element"], x.shape[axis])
    _repeat_positions_numba(lowerer, node, ins, outs, counts)


OPS["Repeat"] = register(
    "Repeat", _repeat_kernel, _repeat_infer, emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["RepeatGrad"], [grads[0], ctx.input(0)],
                                      ctx.attrs)],
    lowerings={"array": _repeat_lowering,
               "numba": _repeat_numba})
OPS["RepeatGrad"] = register(
    "RepeatGrad", _repeat_grad_kernel, lambda specs, attrs: [(specs[0][0], specs[1][1])],
    emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["Repeat"], [grads[0]], ctx.attrs), None],
    lowerings=lowering_api.GRADIENTS_ON_HOST)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TensorFlow's name
    """Each element of `input` repeated `repeats` times along `axis` (an int, or one count
    per element); with no axis, `input` is flattened first."""
    tensor = convert_to_tensor(input)
    counts = common.static_int_list(repeats, "repeats")
    if any(c < 0 for c in counts):
        raise ValueError("repeat: repeats must be non-negative, got %r" % (repeats,))
    if axis is None:
        tensor = reshape_ops.reshape(tensor, [-1])
        axis = 0
    per_element = np.ndim(repeats) > 0 if not isinstance(repeats, Tensor) else (
        repeats._shape_tuple() != ())
    if len(counts) == 1:  # one count broadcasts to every element, as in TensorFlow
        per_element = False
    elif not per_element:
        raise ValueError("repeat: repeats must be an int or a list, got %r" % (repeats,))
    return execute1(OPS["Repeat"], [tensor], {"repeats": counts, "axis": _static_axis(axis),
                                              "per_element": per_element}, name=name)


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _tile_batched(batcher, node, args, batched):
    return [tile(args[0], [1] + [int(m) for m in node.attrs["multiples"]])]


def _joined_batched(batcher, node, args, batched):
    """ConcatV2, Pack: every operand batched, the axis shifted past the batch."""
    return batcher.rerun(node, batching.all_batched(batcher, args, batched),
                         dict(node.attrs, axis=batching.shifted_axis(node.attrs["axis"])))


batching.declare(OPS["Tile"], _tile_batched)
batching.declare(OPS["ConcatV2"], _joined_batched)
batching.declare(OPS["Pack"], _joined_batched)
batching.declare(OPS["Unpack"], batching.along_an_axis)

"""Ops that cut, pad or reorder the elements along a tensor's dimensions: split, pad, slice,
strided_slice, reverse, roll and repeat (TensorFlow's `tf.split`, `tf.pad`, ...).

Split, pad, reverse, roll and repeat are ops with their gradients; `slice` and
`strided_slice` are index expressions on the StridedSlice op (its gradient comes with it).
Axes, sizes and paddings must be known when the graph is built (an equal split of a
dimension known only at run time is the Split op).
"""

from typing import Any

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    array_ops,
    attr_types,
    batching,
    common,
    manipulation_ops,
    slicing,
)
from runtime.ops.common import ANY, SpecError, convert_to_tensor, normalize_axis, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_of,
    dims,
    finish,
    product,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute, execute1, register
from runtime.tensor import Tensor

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}
_GRADIENTS_ON_HOST = {"array": lowering_api.unsupported("gradient ops run on the numpy executor")}

OPS = {}


def _static_axis(axis, what="axis"):
    dims = common.static_int_list(axis, what)
    if dims is None or len(dims) != 1:
        raise ValueError("%s must be a single integer, got %r" % (what, axis))
    return dims[0]


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


def _sliced(lowerer, expr):
    """`expr`, a strided view, made contiguous for numba (whose fused loops reshape their
    operands, which it allows only for contiguous arrays)."""
    return "xp.ascontiguousarray(%s)" % expr if lowerer.name == "numba" else expr


def _split_lowering(lowerer, node, ins, outs):
    x = ins[0]
    if x.shape is None or x.shape[normalize_axis(node.attrs["axis"], len(x.shape))] is None:
        raise lowering_api.Unsupported("a split of a dimension of unknown size")
    axis = normalize_axis(node.attrs["axis"], len(x.shape))
    start = 0
    for out in outs:  # the sizes the shape inference resolved (and checked)
        stop = start + out.shape[axis]
        lowerer.assign(out, _sliced(lowerer, "%s[%s%d:%d]" % (x, ":, " * axis, start, stop)))
        start = stop


def _split_grad(ctx, grads):
    parts = [g if g is not None else array_ops.zeros_like(ctx.output(i))
             for i, g in enumerate(grads)]
    return [manipulation_ops.concat(parts, ctx.attrs["axis"])]


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


# -- pad ------------------------------------------------------------------------------------

_NUMPY_MODES: dict[str, Any] = {"CONSTANT": "constant", "REFLECT": "reflect",
                                "SYMMETRIC": "symmetric"}
_PAD_MODE = attr_types.choice(*_NUMPY_MODES)


def _pad_infer(specs, attrs):
    (dtype, shape), (value_dtype, _) = specs
    if value_dtype is not dtype:
        raise SpecError("dtype", "constant_values must have the tensor's dtype, got %s and %s"
                        % (dtype.name, value_dtype.name))
    paddings = attrs["paddings"]
    if shape is None:
        return [(dtype, None)]
    if len(paddings) != len(shape):
        raise SpecError("shape", "paddings has %d rows for a tensor of rank %d"
                        % (len(paddings), len(shape)))
    mode = attrs["mode"]
    out = []
    for dim, (before, after) in zip(shape, paddings):
        if dim is not None and mode != "CONSTANT":
            limit = dim - 1 if mode == "REFLECT" else dim
            if before > limit or after > limit:
                raise SpecError("shape", "%s paddings %s exceed what a dimension of size %d "
                                "allows" % (mode, [before, after], dim))
        out.append(None if dim is None else dim + before + after)
    return [(dtype, tuple(out))]


def _pad_kernel(x, constant, paddings, mode):
    if mode == "CONSTANT":
        return np.pad(x, paddings, mode="constant", constant_values=constant)
    for axis, (before, after) in enumerate(paddings):
        limit = x.shape[axis] - 1 if mode == "REFLECT" else x.shape[axis]
        if before > limit or after > limit:
            raise ValueError("%s paddings %s exceed what a dimension of size %d allows"
                             % (mode, [before, after], x.shape[axis]))
    return np.pad(x, paddings, mode=_NUMPY_MODES[mode])


def _source_positions(size, before, after, mode):
    """For each position of a padded dimension, the input position it copies (-1: padding)."""
    out = np.arange(-before, size + after)
    if mode == "CONSTANT":
        return np.where((out >= 0) & (out < size), out, -1)
    shift = 0 if mode == "REFLECT" else 1
    out = np.where(out < 0, -out - shift, out)
    return np.where(out >= size, 2 * size - 2 + shift - out, out)


def _pad_grad_kernel(g, paddings, mode):
    for axis, (before, after) in enumerate(paddings):
        size = g.shape[axis] - before - after
        source = _source_positions(size, before, after, mode)
        moved = np.moveaxis(g, axis, 0)
        total = np.zeros((size,) + moved.shape[1:], dtype=g.dtype)
        keep = source >= 0
        np.add.at(total, source[keep], moved[keep])
        g = np.moveaxis(total, 0, axis)
    return g


def _pad_grad_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    return [(dtype, tuple(None if d is None else d - a - b
                          for d, (a, b) in zip(shape, attrs["paddings"])))]


def _pad_rule(ctx, grads):
    attrs = ctx.attrs
    return [execute1(OPS["PadGrad"], [grads[0]], attrs), None]


def _pad_grad_rule(ctx, grads):
    zero = convert_to_tensor(np.zeros((), ctx.input_dtype(0).np_dtype), ctx.input_dtype(0))
    return [execute1(OPS["PadV2"], [grads[0], zero], ctx.attrs)]


def _pad_lowering(lowerer, node, ins, outs):
    # the static shapes (a compiled graph has them) were checked against the paddings
    paddings, mode = lowerer.literal(node.attrs["paddings"]), node.attrs["mode"]
    if mode == "CONSTANT":
        lowerer.assign(outs[0], "xp.pad(%s, %s, constant_values=%s)" % (ins[0], paddings,
                                                                         ins[1]))
    else:
        lowerer.assign(outs[0], "xp.pad(%s, %s, mode=%r)" % (ins[0], paddings,
                                                             _NUMPY_MODES[mode]))


def _mirrored_position_numba(k, size, before, mode):
    """The expression of the input position that position `k` of a dimension of `size`
    padded by `before` copies, mirrored without the edge (REFLECT) or with it (SYMMETRIC)."""
    shift = 0 if mode == "REFLECT" else 1
    p = "(%s - %d)" % (k, before)  # the position in the input's coordinates
    return "(-%s - %d if %s < 0 else (2 * %s - 2 + %d - %s if %s >= %s else %s))" % (
        p, shift, p, size, shift, p, p, size, p)


def _mirror_pad_numba(lowerer, x, out, parts, paddings, mode):
    """PadV2 in REFLECT or SYMMETRIC mode (see `pad`)."""
    for axis, (before, after) in enumerate(paddings):
        if x.shape[axis] is None:  # (a static size was checked when the graph was built)
            limit = "%s - 1" % parts[axis] if mode == "REFLECT" else parts[axis]
            lowerer.check_values(
                "%d > %s or %d > %s" % (before, limit, after, limit), ValueError,
                "%s paddings [%d, %d] exceed what a dimension of size %%d allows"
                % (mode, before, after), (parts[axis],))
    current, shape = x, list(x.shape)
    padded = list(parts)
    for axis, (before, after) in enumerate(paddings):
        if not (before or after):
            continue
        array, _, size, _ = as_3d(lowerer, current, axis)
        padded[axis] = "%s + %d" % (parts[axis], before + after)
        if shape[axis] is not None:
            shape[axis] += before + after
        result, k, name = lowerer.fresh("r"), lowerer.fresh("k"), lowerer.fresh("c")
        lowerer.line("%s = np.empty((%s.shape[0], %s, %s.shape[2]), %s)" % (
            result, array, padded[axis], array, type_name(x.dtype)))
        lowerer.line("for %s in range(%s):" % (k, padded[axis]))
        with lowerer.block():
            lowerer.line("%s[:, %s, :] = %s[:, %s, :]" % (
                result, k, array, _mirrored_position_numba(k, size, before, mode)))
        lowerer.line("%s = %s.reshape(%s)" % (name, result, shape_tuple(padded)))
        current = type(x)(name, x.dtype, shape)
    lowerer.assign(out, current)


def _pad_numba(lowerer, node, ins, outs):
    """PadV2: in CONSTANT mode the constant everywhere and the input copied into the middle;
    in REFLECT and SYMMETRIC modes each padded dimension gathered from the positions the
    kernel mirrors (`_mirrored_position`), after the kernel's check of the paddings against
    a dimension known only at run time."""
    x, constant = ins
    if x.rank0 or not constant.rank0:
        raise lowering_api.Unsupported("a pad of a scalar")
    mode = node.attrs["mode"]
    parts = dims(x)
    paddings = [(int(b), int(a)) for b, a in node.attrs["paddings"]]
    if mode != "CONSTANT":
        _mirror_pad_numba(lowerer, x, outs[0], parts, paddings, mode)
        return
    result = lowerer.fresh("r")
    lowerer.line("%s = np.full(%s, %s(%s))" % (
        result, shape_tuple([product([p]) if not (b or a) else "%s + %d" % (p, b + a)
                             for p, (b, a) in zip(parts, paddings)]),
        type_name(outs[0].dtype), constant))
    lowerer.line("%s[%s] = %s" % (result, ", ".join(
        "%d:%d + %s" % (b, b, p) for p, (b, _) in zip(parts, paddings)), x))
    lowerer.assign(outs[0], result)


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
        lowerer.line("%s[:, %s, :] = %s[:, %s[%s], :]" % (result, k, array, index, k))
    finish(lowerer, outs[0], result, parts[:axis] + [str(len(positions))] + parts[axis + 1:])


OPS["PadV2"] = register("PadV2", _pad_kernel, _pad_infer, node_name="Pad", grad=_pad_rule,
                        emit=KERNEL_CALL,
                        lowerings={"array": _pad_lowering,
                                   "numba": _pad_numba},
                        attr_types={"mode": _PAD_MODE})
OPS["PadGrad"] = register("PadGrad", _pad_grad_kernel, _pad_grad_infer, grad=_pad_grad_rule,
                          emit=KERNEL_CALL,
                          lowerings=_GRADIENTS_ON_HOST, attr_types={"mode": _PAD_MODE})


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tensor` padded by `paddings` ([[before, after]] per dimension) with `constant_values`
    (mode CONSTANT), or mirrored without the edge (REFLECT) or with it (SYMMETRIC)."""
    tensor = convert_to_tensor(tensor)
    mode = str(mode).upper()
    if mode not in _NUMPY_MODES:
        raise ValueError("pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got %r" % (mode,))
    flat = common.static_int_list(paddings, "paddings")
    if len(flat) % 2 or any(p < 0 for p in flat):
        raise ValueError("pad: paddings must be non-negative [before, after] pairs, got %r"
                         % (paddings,))
    pairs = tuple((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))
    value = convert_to_tensor(constant_values, dtype_hint=tensor.dtype)
    return execute1(OPS["PadV2"], [tensor, value], {"paddings": pairs, "mode": mode},
                    name=name)


# -- reverse, roll ------------------------------------------------------------------------------


def _same_infer(kinds):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, kinds)
        if shape is not None:
            for axis in attrs["axis"]:
                normalize_axis(axis, len(shape))
        return [(dtype, shape)]
    return infer


def _reverse_rule(ctx, grads):
    return [execute1(OPS["ReverseV2"], [grads[0]], ctx.attrs)]


def _roll_rule(ctx, grads):
    attrs = dict(ctx.attrs, shift=tuple(-s for s in ctx.attrs["shift"]))
    return [execute1(OPS["Roll"], [grads[0]], attrs)]


def _reverse_emit(outs, ins, attrs, emitter):
    """`x[:, ::-1]`: the view np.flip makes, without its call (~5 us), where the rank is
    known."""
    shape = ins[0].shape
    if shape is None or not shape:
        return None
    axes = {a + len(shape) if a < 0 else a for a in attrs["axis"]}
    index = ", ".join("::-1" if i in axes else ":" for i in range(len(shape)))
    return "%s = %s[%s]" % (outs[0], ins[0], index)


def _reverse_lowering(lowerer, node, ins, outs):
    rank = None if ins[0].shape is None else len(ins[0].shape)
    if not rank:
        raise lowering_api.Unsupported("a value of unknown rank" if rank is None else "a scalar")
    axes = {a + rank if a < 0 else a for a in node.attrs["axis"]}
    index = ", ".join("::-1" if i in axes else ":" for i in range(rank))
    lowerer.assign(outs[0], _sliced(lowerer, "%s[%s]" % (ins[0], index)))


OPS["ReverseV2"] = register("ReverseV2", lambda x, axis: np.flip(x, axis), _same_infer(ANY),
                            node_name="reverse", grad=_reverse_rule, emit=_reverse_emit,
                            traits=("view",),
                            lowerings={"array": _reverse_lowering})


def _roll_numba(lowerer, node, ins, outs):
    """Roll: along each axis, element k taken from (k - shift) modulo the dimension
    (shifts on one axis add up, as numpy's roll does)."""
    x = ins[0]
    if x.rank0:
        raise lowering_api.Unsupported("a roll of a scalar")
    parts = dims(x)
    shifts: dict[Any, Any] = {}
    for shift, axis in zip(node.attrs["shift"], node.attrs["axis"]):
        axis = int(axis) % len(parts)
        shifts[axis] = shifts.get(axis, 0) + int(shift)
    current = x
    for axis, shift in sorted(shifts.items()):
        array, before, size, after = as_3d(lowerer, current, axis)
        result, k = lowerer.fresh("r"), lowerer.fresh("k")
        lowerer.line("%s = np.empty_like(%s)" % (result, array))
        lowerer.line("for %s in range(%s):" % (k, size))
        with lowerer.block():
            lowerer.line("%s[:, %s, :] = %s[:, (%s - %d) %% %s, :]" % (
                result, k, array, k, shift, size))
        current = lowerer.fresh("c")
        lowerer.line("%s = %s.reshape(%s)" % (current, result, shape_tuple(parts)))
        current = type(x)(current, x.dtype, x.shape)
    lowerer.assign(outs[0], current)


OPS["Roll"] = register("Roll", lambda x, shift, axis: np.roll(x, shift, axis),
                       _same_infer(ANY), grad=_roll_rule, emit=KERNEL_CALL,
                       lowerings={"array": "xp.roll({0}, {shift}, {axis})",
                                  "numba": _roll_numba})


@dispatchable
def reverse(tensor, axis, name=None):
    """`tensor` with the order of elements reversed along each dimension in `axis`."""
    axes = common.static_int_list(axis, "axis")
    return execute1(OPS["ReverseV2"], [convert_to_tensor(tensor)], {"axis": axes}, name=name)


def roll(input, shift, axis, name=None):  # noqa: A002 - TensorFlow's name
    """`input` with elements shifted by `shift` along `axis` (wrapping around)."""
    shifts = common.static_int_list(shift, "shift")
    axes = common.static_int_list(axis, "axis")
    if len(shifts) != len(axes):
        raise ValueError("roll: shift %r and axis %r must have the same length" % (shift, axis))
    return execute1(OPS["Roll"], [convert_to_tensor(input)], {"shift": shifts, "axis": axes},
                    name=name)


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
    lowerings=_GRADIENTS_ON_HOST)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TensorFlow's name
    """Each element of `input` repeated `repeats` times along `axis` (an int, or one count
    per element); with no axis, `input` is flattened first."""
    tensor = convert_to_tensor(input)
    counts = common.static_int_list(repeats, "repeats")
    if any(c < 0 for c in counts):
        raise ValueError("repeat: repeats must be non-negative, got %r" % (repeats,))
    if axis is None:
        tensor = manipulation_ops.reshape(tensor, [-1])
        axis = 0
    per_element = np.ndim(repeats) > 0 if not isinstance(repeats, Tensor) else (
        repeats._shape_tuple() != ())
    if len(counts) == 1:  # one count broadcasts to every element, as in TensorFlow
        per_element = False
    elif not per_element:
        raise ValueError("repeat: repeats must be an int or a list, got %r" % (repeats,))
    return execute1(OPS["Repeat"], [tensor], {"repeats": counts, "axis": _static_axis(axis),
                                              "per_element": per_element}, name=name)


# -- slice, strided_slice -------------------------------------------------------------------


def _entries(value, what):
    """A list of Python ints or scalar tensors from a list, array or 1-D tensor."""
    if isinstance(value, Tensor):
        known = common.constant_value(value)
        if known is not None:
            return [int(v) for v in np.reshape(known, [-1])]
        shape = value._shape_tuple()
        if shape is None or len(shape) != 1 or shape[0] is None:
            raise ValueError("%s must have a known length, got %s" % (what, value))
        return [value[i] for i in range(shape[0])]
    return [v if isinstance(v, Tensor) else int(v) for v in value]


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """The block of `input_` starting at `begin` with extent `size` (-1: to the end)."""
    tensor = convert_to_tensor(input_)
    starts, sizes = _entries(begin, "begin"), _entries(size, "size")
    if len(starts) != len(sizes):
        raise ValueError("slice: begin %r and size %r must have the same length"
                         % (begin, size))
    index = []
    for start, extent in zip(starts, sizes):
        if isinstance(extent, int) and extent == -1:
            index.append(np.s_[start:])
        else:
            index.append(np.s_[start:start + extent])
    return slicing.strided_slice_from_index(tensor, tuple(index))


def _bits(mask):
    return [bool(int(mask) >> i & 1) for i in range(64)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None):
    """`input_[begin:end:strides]` per dimension, with TensorFlow's masks: a set bit i of
    begin_mask/end_mask ignores begin[i]/end[i], of ellipsis_mask makes entry i `...`, of
    new_axis_mask a new dimension, and of shrink_axis_mask takes the single index begin[i]."""
    tensor = convert_to_tensor(input_)
    starts, stops = _entries(begin, "begin"), _entries(end, "end")
    steps = [1] * len(starts) if strides is None else _entries(strides, "strides")
    if not len(starts) == len(stops) == len(steps):
        raise ValueError("strided_slice: begin, end and strides must have the same length")
    masks = [_bits(m) for m in (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                shrink_axis_mask)]
    index: list[Any] = []
    for i, (start, stop, step) in enumerate(zip(starts, stops, steps)):
        if masks[2][i]:
            index.append(Ellipsis)
        elif masks[3][i]:
            index.append(None)
        elif masks[4][i]:
            index.append(start)
        else:
            index.append(np.s_[None if masks[0][i] else start:
                               None if masks[1][i] else stop:step])
    return slicing.strided_slice_from_index(tensor, tuple(index))


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _padded_batched(batcher, node, args, batched):
    """PadV2, PadGrad: no padding along the batch (PadV2's constant must not be batched)."""
    if any(batched[1:]):
        batcher.unbatchable("a batched padding value")
    paddings = ((0, 0),) + tuple(tuple(p) for p in node.attrs["paddings"])
    return batcher.rerun(node, args, dict(node.attrs, paddings=paddings))


def _axes_batched(batcher, node, args, batched):
    """ReverseV2, Roll: their axes moved past the batch."""
    return batcher.rerun(node, args, dict(node.attrs, axis=tuple(
        batching.shifted_axis(int(a)) for a in node.attrs["axis"])))


batching.declare(OPS["PadV2"], _padded_batched)
batching.declare(OPS["PadGrad"], _padded_batched)
batching.declare(OPS["ReverseV2"], _axes_batched)
batching.declare(OPS["Roll"], _axes_batched)

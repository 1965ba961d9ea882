"""Ops that pad a tensor or reorder its elements along its dimensions: pad, reverse and roll
(TensorFlow's `tf.pad`, `tf.reverse`, `tf.roll`).

Axes, shifts and paddings must be known when the graph is built. Reshaping is in
`reshape_ops`, joining and splitting in `concat_split_ops`, slices in `slicing`.
"""

from typing import Any

import numpy as np

from runtime import lowering_api
from runtime.ops import (
    attr_types,
    batching,
    common,
)
from runtime.ops.common import (
    ANY,
    SpecError,
    convert_to_tensor,
    normalize_axis,
    require_kind,
)
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import (
    as_3d,
    contiguous_view,
    dims,
    product,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute1, register

OPS = {}


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
            lowerer.line("numba_math.copy_slab(%s, %s, %s, %s)" % (
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
    lowerer.line("numba_math.assign(%s[%s], %s)" % (result, ", ".join(
        "%d:%d + %s" % (b, b, p) for p, (b, _) in zip(parts, paddings)), x))
    lowerer.assign(outs[0], result)


OPS["PadV2"] = register("PadV2", _pad_kernel, _pad_infer, node_name="Pad", grad=_pad_rule,
                        emit=KERNEL_CALL,
                        lowerings={"array": _pad_lowering,
                                   "numba": _pad_numba},
                        attr_types={"mode": _PAD_MODE})
OPS["PadGrad"] = register("PadGrad", _pad_grad_kernel, _pad_grad_infer, grad=_pad_grad_rule,
                          emit=KERNEL_CALL,
                          lowerings=lowering_api.GRADIENTS_ON_HOST, attr_types={"mode": _PAD_MODE})


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
    lowerer.assign(outs[0], contiguous_view(lowerer, "%s[%s]" % (ins[0], index)))


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
            lowerer.line("numba_math.copy_slab(%s, %s, %s, (%s - %d) %% %s)" % (
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

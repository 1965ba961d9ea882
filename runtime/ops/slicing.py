"""Indexing: `tensor[index]` as a StridedSlice op, with the static encoding of index expressions,
and TensorFlow's `tf.slice` and `tf.strided_slice`, which write index expressions on it.
"""

import builtins
from typing import Any

import numpy as np

from runtime import lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    attr_types,
    batching,
    common,
    gradient_ops,
)
from runtime.ops.common import SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, attr_codecs, execute1, register
from runtime.tensor import Tensor

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}

# -- encoding of index expressions -----------------------------------------------------------
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
    dynamic: list[Any] = []
    spec: list[tuple[Any, ...]] = []
    for item in index:
        if item is None:
            spec.append(("newaxis",))
        elif item is Ellipsis:
            spec.append(("ellipsis",))
        elif isinstance(item, builtins.slice):
            spec.append(("slice", _encode_part(item.start, dynamic),
                         _encode_part(item.stop, dynamic), _encode_part(item.step, dynamic)))
        else:
            spec.append(("int", _encode_part(item, dynamic)))
    return tuple(spec), dynamic


def _is_part(part, may_be_none):
    if part is None:
        return may_be_none
    if isinstance(part, tuple):
        return len(part) == 2 and part[0] == "in" and attr_types.INT.accepts(part[1]) \
            and part[1] >= 0
    return attr_types.INT.accepts(part)


def _is_index_item(item):
    if not isinstance(item, tuple) or not item:
        return False
    kind, parts = item[0], item[1:]
    if kind in ("newaxis", "ellipsis"):
        return not parts
    if kind == "int":
        return len(parts) == 1 and _is_part(parts[0], False)
    return kind == "slice" and len(parts) == 3 and all(_is_part(p, True) for p in parts)


# The declared type of a `spec` attribute (see runtime/ops/attr_types.py).
INDEX_SPEC = attr_types.AttrType(
    "an index expression: a list of ['int', k], ['slice', a, b, c], ['newaxis'] or "
    "['ellipsis'] items (parts: integers, null or ['in', i])",
    lambda spec: isinstance(spec, tuple) and all(map(_is_index_item, spec)))


def _dynamic_parts_check(leading):
    """The saving check that a loaded node's `spec` refers only to dynamic inputs it has
    (those after its `leading` inputs)."""
    def check(specs, attrs):
        count = len(specs) - leading
        for item in attrs["spec"]:
            for part in item[1:]:
                if isinstance(part, tuple) and part[1] >= count:
                    raise ValueError("the index refers to dynamic input %d of %d"
                                     % (part[1], count))
    return check


def _decode_part(part, values):
    if isinstance(part, tuple):
        return int(values[part[1]])
    return part


def decode_index(spec, values):
    """The Python index expression `spec` encodes, with `values` for its dynamic parts."""
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            out.append(_decode_part(item[1], values))
        elif kind == "slice":
            out.append(builtins.slice(_decode_part(item[1], values),
                                      _decode_part(item[2], values),
                                      _decode_part(item[3], values)))
        elif kind == "newaxis":
            out.append(None)
        else:
            out.append(Ellipsis)
    return tuple(out)


def _slice_kernel(x, *dynamic, spec):
    index = decode_index(spec, dynamic)
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
    positions: list[int | None] = []
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
    out: list[int | None] = []
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
                out.append(len(builtins.range(*builtins.slice(*parts).indices(size))))
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


def index_parts(lowerer, node, x, values, by_numpy):
    """numba: the index expression of `node`'s spec on Value `x` (`values`: its dynamic
    parts), integer indices checked against their dimension first (numba does not check: it
    would read past the array) with the executor's message: numpy's (`by_numpy`) or the
    kernel's."""
    shape = x.shape
    spec = node.attrs["spec"]
    if shape is None or x.rank0 or not spec:
        raise lowering_api.Unsupported("an index of a scalar or of unknown rank")
    if sum(1 for item in spec if item[0] in ("int", "slice")) > len(shape):
        raise lowering_api.Unsupported("more indices than dimensions")
    if by_numpy:
        message = "index %%d is out of bounds for axis %d with size %%d"
    else:
        message = "index %%d is out of bounds for dimension %d of size %%d"

    def part(ref):
        if ref is None:
            return ""
        return values[ref[1]] if isinstance(ref, tuple) else repr(int(ref))

    parts = []
    for item, axis in zip(spec, _positions(spec, len(shape))):
        kind = item[0]
        if kind == "int":
            index = part(item[1])
            size = shape[axis] if shape[axis] is not None else "%s.shape[%d]" % (x, axis)
            lowerer.check_values("%s < -%s or %s >= %s" % (index, size, index, size),
                                 IndexError, message % axis, (index, size))
            parts.append(index)
        elif kind == "slice":
            if isinstance(item[3], tuple):
                lowerer.check("%s == 0" % part(item[3]), ValueError,
                              "slice step cannot be zero")
            elif item[3] == 0:
                raise lowering_api.Unsupported("a slice step of zero")
            parts.append("%s:%s:%s" % tuple(part(p) for p in item[1:]))
        else:
            parts.append("None" if kind == "newaxis" else "...")
    return ", ".join(parts)


def _slice_numba(lowerer, node, ins, outs):
    """numba: numpy's basic indexing (integers, slices, newaxis, ellipsis, each part a
    constant or a scalar input), with the executor's message where an integer is out of
    range: numpy's where it indexes directly (`_slice_emit`), else the kernel's."""
    shape, spec = ins[0].shape, node.attrs["spec"]
    by_numpy = shape is not None and all(item[0] == "int" for item in spec) and \
        len(shape) > len(spec)
    element = "%s[%s]" % (ins[0], index_parts(lowerer, node, ins[0], ins[1:], by_numpy))
    # a C-contiguous result, which fused loops want (a view may not be), unless only matrix
    # products use it: BLAS reads a strided view as it is (an RNN's step of its input)
    if outs[0].rank0 or lowerer.used_only_by(node.outputs[0], _READ_AS_VIEWS):
        lowerer.assign(outs[0], element)
    else:
        lowerer.assign(outs[0], "np.ascontiguousarray(%s)" % element)


_READ_AS_VIEWS = frozenset(["MatMul"])


def strided_slice_grad_numba(lowerer, node, ins, outs):
    """numba rule of StridedSliceGrad: zeros of the input's shape, `g` stored at the index
    (numpy's message for an integer out of range; no newaxis: numba does not store through
    one)."""
    g, x = ins[:2]
    if any(item[0] == "newaxis" for item in node.attrs["spec"]):
        raise lowering_api.Unsupported("a gradient through a newaxis index")
    if x.shape is None or None in x.shape:
        raise lowering_api.Unsupported("the gradient of a slice of a dynamic shape")
    index = index_parts(lowerer, node, x, ins[2:], True)
    result = lowerer.fresh("r")
    lowerer.line("%s = np.zeros(%s, np.%s)" % (result, lowerer.literal(tuple(x.shape)),
                                               "bool_" if g.dtype.kind == "bool"
                                               else g.dtype.np_dtype.name))
    if g.shape is not None and len(g.shape) > 0:  # (a slice assignment, as a loop nest)
        lowerer.line("numba_math.assign(%s[%s], %s)" % (result, index, g))
    else:
        lowerer.line("%s[%s] = %s" % (result, index, g))
    lowerer.assign(outs[0], result)


def static_index_jax(lw, spec, dynamic, shape):
    """The index a StridedSlice `spec` makes into a value of `shape`, its dynamic integer
    indices taken from `dynamic` and checked against their dimension (an index out of
    bounds fails, as on the numpy executor); dynamic slice bounds are not lowered."""
    consumed = sum(1 for item in spec if item[0] in ("int", "slice"))
    index: list[Any] = []
    dim = 0
    for item in spec:
        kind = item[0]
        if kind == "ellipsis":
            index.append(Ellipsis)
            dim += len(shape) - consumed
        elif kind == "newaxis":
            index.append(None)
        elif kind == "slice":
            if any(isinstance(part, tuple) for part in item[1:]):
                raise lowering_api.Unsupported("a slice with bounds known only at run time")
            index.append(builtins.slice(*item[1:]))
            dim += 1
        else:
            part = item[1]
            value = dynamic[part[1]] if isinstance(part, tuple) else part
            if dim >= len(shape):
                raise lowering_api.Unsupported("indexes more dimensions than the value has")
            known = lw.bounds(value)  # (a counted loop's counter: in range by construction)
            if known is None or known[0] < -shape[dim] or known[1] >= shape[dim]:
                lw.fail_if((value < -shape[dim]) | (value >= shape[dim]))
            index.append(value)
            dim += 1
    return tuple(index)


def _strided_slice_jax(lw, node, ins):
    """StridedSlice (`x[index]`): dynamic scalar indices select; an index out of bounds
    fails, as on the numpy executor. Dynamic slice bounds are not lowered."""
    x = ins[0]
    return [x[static_index_jax(lw, node.attrs["spec"], ins[1:], tuple(np.shape(x)))]]


def _strided_slice_rule(ctx, grads):
    dynamic = [ctx.input(i) for i in range(1, len(ctx.needed))]
    out = execute1(STRIDED_SLICE_GRAD, [grads[0], ctx.input(0)] + dynamic,
                   {"spec": ctx.attrs["spec"]})
    return [out] + [None] * len(dynamic)


OPS["StridedSlice"] = register("StridedSlice", _slice_kernel, _slice_infer,
                               node_name="strided_slice", emit=_slice_emit,
                               grad=_strided_slice_rule, traits=("view",),
                               lowerings=dict(_NOT_LOWERED, numba=_slice_numba,
                                              jax=_strided_slice_jax),
                               attr_types={"spec": INDEX_SPEC},
                               saving=attr_codecs(check=_dynamic_parts_check(1)))


def strided_slice_from_index(tensor, index):
    """`tensor[index]` for Python index expressions (ints, slices, None, ..., int tensors)."""
    if isinstance(index, Tensor) and index._shape_tuple() not in ((), None):
        raise TypeError("indexing with a non-scalar tensor is not supported; use tf.gather")
    if isinstance(index, (list, np.ndarray)):
        raise TypeError("indexing with a list or array is not supported; use tf.gather")
    spec, dynamic = encode_index(index)
    return execute1(OPS["StridedSlice"], [tensor] + dynamic, {"spec": spec})


# -- StridedSliceGrad: the gradient of a slice ------------------------------------------------
# zeros of `x`'s shape with `g` at `x[index]`


def _strided_slice_grad_kernel(g, x, *dynamic, spec):
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    out[decode_index(spec, dynamic)] = g
    return out


def _strided_slice_grad_jax(lw, node, ins):
    """StridedSliceGrad: zeros with g at `x[index]`; dynamic indices are scalars checked
    against their dimension, as the forward kernel does (dynamic slice bounds decline)."""
    g, x, dynamic = lw.jnp.asarray(ins[0]), ins[1], ins[2:]
    shape = tuple(np.shape(x))
    index = static_index_jax(lw, node.attrs["spec"], list(dynamic), shape)
    out = lw.jnp.zeros(shape, g.dtype)
    try:
        return [out.at[index].set(g)]
    except (ValueError, TypeError, IndexError) as e:
        raise lowering_api.Unsupported("cannot place the gradient: %s" % e) from None


def _strided_slice_grad_grad(ctx, grads):
    dynamic = [ctx.input(i) for i in range(2, len(ctx.needed))]
    out = execute1(OPS["StridedSlice"], [grads[0]] + dynamic,
                   {"spec": ctx.attrs["spec"]})
    return [out, None] + [None] * len(dynamic)


STRIDED_SLICE_GRAD = register("StridedSliceGrad", _strided_slice_grad_kernel,
                              gradient_ops.like_infer,
                              grad=_strided_slice_grad_grad,
                              emit=KERNEL_CALL,
                              lowerings=dict(gradient_ops.lowered_on_jax(_strided_slice_grad_jax),
                                             numba=strided_slice_grad_numba),
                              attr_types={"spec": INDEX_SPEC},
                              saving=attr_codecs(check=_dynamic_parts_check(2)))


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
    return strided_slice_from_index(tensor, tuple(index))


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
    return strided_slice_from_index(tensor, tuple(index))


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------

_WHOLE_BATCH = ("slice", None, None, None)  # `x[:, index]`: the index applied to each example


def _slice_batched(batcher, node, args, batched):
    """StridedSlice and StridedSliceGrad: the index behind a whole slice of the batch (the
    dynamic parts of the index must not be batched)."""
    leading = 1 if node.op is OPS["StridedSlice"] else 2
    if any(batched[leading:]):
        batcher.unbatchable("an index computed from the batched value")
    operands = batching.all_batched(batcher, args[:leading], batched[:leading])
    spec = (_WHOLE_BATCH,) + tuple(node.attrs["spec"])
    return batcher.rerun(node, operands + list(args[leading:]), dict(node.attrs, spec=spec))


batching.declare(OPS["StridedSlice"], _slice_batched)
batching.declare(STRIDED_SLICE_GRAD, _slice_batched)

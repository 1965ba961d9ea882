"""numba lowering rules of array ops numba's numpy lacks or restricts (no `axis` arguments,
reshapes of contiguous arrays only): explicit loops over runtime shapes.

Each rule is declared in its op's `register(..., lowerings={"numba": ...})` call; it writes
statements with the Lowerer API (runtime/backends/lowering.py). Shapes need not be static:
a dimension not known when the graph is lowered is read at run time (`x.shape[i]`), only
the rank must be known. Where the op's kernel raises (an index out of range, a shape that
does not fit), the rule checks the same and fails with the kernel's error class and
message; a case a rule cannot compute exactly as the kernel does is declined with the
reason (the graph then runs on the numpy executor).
"""

import numpy as np

from runtime import dtypes, lowering_api


def dims(x):
    """The dimensions of Value `x` as expressions: literals where static, else read at run
    time. Unsupported for a value of unknown rank."""
    if x.shape is None:
        raise lowering_api.Unsupported("a value of unknown rank")
    return [str(d) if d is not None else "%s.shape[%d]" % (x, i) for i, d in enumerate(x.shape)]


def product(parts):
    """The product of dimension expressions (a literal when all are)."""
    if all(p.isdigit() for p in parts):
        total = 1
        for p in parts:
            total *= int(p)
        return str(total)
    return " * ".join("(%s)" % p for p in parts)


def shape_tuple(parts):
    """A tuple expression of dimension expressions."""
    return "(%s)" % "".join("%s, " % p for p in parts)


def type_name(dtype):
    """The numpy scalar type of `dtype` in lowered code: `np.float32`, `np.bool_`."""
    return "np.%s" % ("bool_" if dtype is dtypes.bool_ else dtype.np_dtype.name)


def axis_of(node, rank, name="axis"):
    """The op's `axis` attribute in [0, rank)."""
    axis = node.attrs[name]
    return axis + rank if axis < 0 else axis


def as_3d(lowerer, x, axis):
    """A C-contiguous (before, size, after) view of array `x` around `axis`: its name and
    the three dimension expressions."""
    parts = dims(x)
    before, size, after = product(parts[:axis]), parts[axis], product(parts[axis + 1:])
    name = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (
        name, x, shape_tuple([before, size, after])))
    return name, before, size, after


def finish(lowerer, out, array, shape_parts):
    """Assigns `array` (a C-contiguous array) reshaped to `shape_parts` to `out`, or its one
    element when `out` is rank 0."""
    if out.rank0:
        lowerer.assign(out, "%s.reshape(1)[0]" % array)
    else:
        lowerer.assign(out, "%s.reshape(%s)" % (array, shape_tuple(shape_parts)))


# -- shape queries and constructors -----------------------------------------------------------


def shape(lowerer, node, ins, outs):
    """Shape: the input's dimensions as a 1-D array."""
    parts = dims(ins[0])
    if not parts:
        lowerer.assign(outs[0], "np.zeros(0, %s)" % type_name(outs[0].dtype))
        return
    lowerer.assign(outs[0], "np.array([%s])" % ", ".join("np.int64(%s)" % p for p in parts))


def size(lowerer, node, ins, outs):
    """Size: the product of the input's dimensions."""
    lowerer.assign(outs[0], product(dims(ins[0])))


def rank(lowerer, node, ins, outs):
    """Rank: the input's static rank."""
    lowerer.assign(outs[0], "np.int32(%d)" % len(dims(ins[0])))


def integer_range(lowerer, node, ins, outs):
    """Range of integers (numpy's arange of floats rounds its elements its own way: those
    are declined)."""
    start, limit, delta = ins
    if not start.dtype.is_integer:
        raise lowering_api.Unsupported("a range of floats")
    lowerer.check("%s == 0" % delta, ValueError, "range delta must not be zero")
    lowerer.assign(outs[0], "np.arange(np.int64(%s), np.int64(%s), np.int64(%s))"
                   % (start, limit, delta))


def fill(lowerer, node, ins, outs):
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


# -- math numba's numpy lacks -----------------------------------------------------------------


def erf(lowerer, node, ins, outs):
    """Erf: `math.erf` of each element taken as a float64, rounded to the output's dtype, as
    the kernel computes it (Python's math.erf and numba's are the C library's erf)."""
    x, out = ins[0], outs[0]
    if out.dtype.np_dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise lowering_api.Unsupported("erf of %s" % out.dtype.name)
    lowerer.modules.add("math")
    if x.rank0:
        lowerer.assign(out, "math.erf(np.float64(%s))" % x)
        return
    parts = dims(x)
    count = product(parts)
    flat, result, k = lowerer.fresh("c"), lowerer.fresh("r"), lowerer.fresh("k")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, x, count))
    lowerer.line("%s = np.empty(%s, %s)" % (result, count, type_name(out.dtype)))
    lowerer.line("for %s in range(%s):" % (k, count))
    with lowerer.block():
        lowerer.line("%s[%s] = math.erf(np.float64(%s[%s]))" % (result, k, flat, k))
    finish(lowerer, out, result, parts)


# -- gathering and joining --------------------------------------------------------------------


def gather(lowerer, node, ins, outs):
    """GatherV2: the slices of the params at each index along the axis, every index checked
    in order as the kernel does."""
    params, indices = ins
    if params.rank0:
        raise lowering_api.Unsupported("a gather from a scalar")
    rank_ = len(dims(params))
    axis = axis_of(node, rank_)
    array, before, size_, after = as_3d(lowerer, params, axis)
    flat = lowerer.fresh("c")
    if indices.rank0:
        count = "1"
        lowerer.line("%s = np.full(1, np.int64(%s))" % (flat, indices))
    else:
        count = product(dims(indices))
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, indices, count))
    result = lowerer.fresh("r")
    lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple([before, count, after]),
                                             type_name(outs[0].dtype)))
    k, j = lowerer.fresh("k"), lowerer.fresh("j")
    lowerer.line("for %s in range(%s):" % (k, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (j, flat, k))
        lowerer.check_values("%s < 0 or %s >= %s" % (j, j, size_), IndexError,
                             "index %d is out of range for a dimension of size %d",
                             (j, size_))
        lowerer.line("%s[:, %s, :] = %s[:, %s, :]" % (result, k, array, j))
    parts = dims(params)
    index_parts = [] if indices.rank0 else dims(indices)
    finish(lowerer, outs[0], result, parts[:axis] + index_parts + parts[axis + 1:])


def gather_grad(lowerer, node, ins, outs):
    """GatherGrad: zeros of the params' shape, each slice of `g` added at its index along
    the axis, in order (np.add.at's order: repeated indices add up, negative ones count
    from the end, one out of range fails with numpy's message)."""
    g, params, indices = ins
    out = outs[0]
    if params.rank0 or out.dtype.kind == "bool":
        raise lowering_api.Unsupported("a gather gradient of a scalar or of booleans")
    parts = dims(params)
    axis = axis_of(node, len(parts))
    before, size_, after = product(parts[:axis]), parts[axis], product(parts[axis + 1:])
    count = "1" if indices.rank0 else product(dims(indices))
    flat, grads, result, view = (lowerer.fresh(p) for p in ("c", "c", "r", "c"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (
        flat, "np.full(1, %s)" % indices if indices.rank0 else indices, count))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (
        grads, "np.full(1, %s)" % g if g.rank0 else g, shape_tuple([before, count, after])))
    lowerer.line("%s = np.zeros(%s, %s)" % (result, shape_tuple(parts), type_name(out.dtype)))
    lowerer.line("%s = %s.reshape(%s)" % (view, result, shape_tuple([before, size_, after])))
    k, j = lowerer.fresh("k"), lowerer.fresh("j")
    lowerer.line("for %s in range(%s):" % (k, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (j, flat, k))
        lowerer.check_values("%s < -(%s) or %s >= %s" % (j, size_, j, size_), IndexError,
                             "index %%d is out of bounds for axis %d with size %%d" % axis,
                             (j, size_))
        lowerer.line("if %s < 0:" % j)
        with lowerer.block():
            lowerer.line("%s += %s" % (j, size_))
        lowerer.line("%s[:, %s, :] += %s[:, %s, :]" % (view, j, grads, k))
    lowerer.assign(out, result)


def concat(lowerer, node, ins, outs):
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


def unpack(lowerer, node, ins, outs):
    """Unpack: the slices along the axis (numpy's take, which fails on a dimension shorter
    than `num`)."""
    x = ins[0]
    if x.rank0:
        raise lowering_api.Unsupported("an unstack of a scalar")
    parts = dims(x)
    axis = axis_of(node, len(parts))
    num = node.attrs["num"]
    array, _, size_, _ = as_3d(lowerer, x, axis)
    if x.shape[axis] is None:
        lowerer.check_values("%s < %d" % (size_, num), IndexError,
                             "index %%d is out of bounds for axis %d with size %%d" % axis,
                             (size_, size_))
    for i, out in enumerate(outs):
        slice_ = lowerer.fresh("s")
        lowerer.line("%s = %s[:, %d, :].copy()" % (slice_, array, i))
        finish(lowerer, out, slice_, parts[:axis] + parts[axis + 1:])


def squeeze(lowerer, node, ins, outs):
    """Squeeze: a reshape, each squeezed dimension known only at run time checked to be 1."""
    x, out = ins[0], outs[0]
    if x.rank0 or out.shape is None:
        raise lowering_api.Unsupported("a squeeze of unknown result rank")
    parts = dims(x)
    axis = node.attrs["axis"]
    if axis is None:
        if None in x.shape:
            raise lowering_api.Unsupported("a squeeze of every size-1 dimension of a dynamic shape")
        axes = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        axes = {a % len(parts) for a in axis}
    for a in sorted(axes):
        if x.shape[a] is None:
            lowerer.check("%s != 1" % parts[a], ValueError,
                          "cannot select an axis to squeeze out which has size not equal "
                          "to one")
    array = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s)" % (array, x))
    finish(lowerer, out, array, [p for i, p in enumerate(parts) if i not in axes])


def tile(lowerer, node, ins, outs):
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


def broadcast_to(lowerer, node, ins, outs):
    """BroadcastTo of an input of static shape (numpy's own broadcasting error is not
    repeated for dynamic shapes: those are declined)."""
    x, out = ins[0], outs[0]
    if x.shape is None or None in x.shape or out.shape is None or None in out.shape:
        raise lowering_api.Unsupported("a broadcast of a dynamic shape")
    if out.rank0:
        lowerer.assign(out, x)
        return
    source = "np.full(1, %s)" % x if x.rank0 else "np.ascontiguousarray(%s)" % x
    lowerer.assign(out, "np.ascontiguousarray(np.broadcast_to(%s, %s))" % (
        source, lowerer.literal(tuple(out.shape))))


def batched_matmul(lowerer, node, ins, outs):
    """MatMul of operands of rank > 2 with the same static batch dimensions: `np.dot` of
    each pair of matrices (numba's matmul takes no batch); float operands only (BLAS)."""
    a, b = ins
    if a.shape is None or b.shape is None or len(a.shape) < 3 or len(b.shape) < 3:
        raise lowering_api.Unsupported("matmul of operands other than matrices")
    if not a.dtype.is_floating:
        raise lowering_api.Unsupported("integer matmul")
    batch = a.shape[:-2]
    if batch != b.shape[:-2] or None in batch:
        raise lowering_api.Unsupported("a matmul broadcasting its batch dimensions")
    count = product([str(d) for d in batch])
    left, right, result, i = (lowerer.fresh(p) for p in ("c", "c", "r", "i"))
    a_rows, a_cols, b_rows, b_cols = dims(a)[-2:] + dims(b)[-2:]
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s, %s))" % (
        left, a, count, a_rows, a_cols))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s, %s))" % (
        right, b, count, b_rows, b_cols))
    rows = a_cols if node.attrs["transpose_a"] else a_rows
    cols = b_rows if node.attrs["transpose_b"] else b_cols
    lowerer.line("%s = np.empty((%s, %s, %s), %s)" % (result, count, rows, cols,
                                                      type_name(outs[0].dtype)))
    lowerer.line("for %s in range(%s):" % (i, count))
    with lowerer.block():
        x = "np.ascontiguousarray(%s[%s].T)" % (left, i) if node.attrs["transpose_a"] \
            else "%s[%s]" % (left, i)
        y = "np.ascontiguousarray(%s[%s].T)" % (right, i) if node.attrs["transpose_b"] \
            else "%s[%s]" % (right, i)
        lowerer.line("%s[%s] = np.dot(%s, %s)" % (result, i, x, y))
    finish(lowerer, outs[0], result, [str(d) for d in batch] + [rows, cols])


def stack(lowerer, node, ins, outs):
    """Pack of arrays whose shapes are known only at run time: each checked to have the
    first one's shape (numpy's error), then numpy's stack."""
    if any(x.rank0 for x in ins) or any(x.shape is None for x in ins):
        raise lowering_api.Unsupported("a stack of values of unknown rank")
    first = dims(ins[0])
    for x in ins[1:]:
        if len(x.shape) != len(first):
            raise lowering_api.Unsupported("a stack of values of different ranks")
        for d, (p, q) in enumerate(zip(first, dims(x))):
            if p != q:
                lowerer.check("%s != %s" % (p, q), ValueError,
                              "all input arrays must have the same shape")
    lowerer.assign(outs[0], "np.stack((%s), %d)" % ("".join(
        "np.ascontiguousarray(%s), " % x for x in ins), node.attrs["axis"]))


def pad(lowerer, node, ins, outs):
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
        _mirror_pad(lowerer, x, outs[0], parts, paddings, mode)
        return
    result = lowerer.fresh("r")
    lowerer.line("%s = np.full(%s, %s(%s))" % (
        result, shape_tuple([product([p]) if not (b or a) else "%s + %d" % (p, b + a)
                             for p, (b, a) in zip(parts, paddings)]),
        type_name(outs[0].dtype), constant))
    lowerer.line("%s[%s] = %s" % (result, ", ".join(
        "%d:%d + %s" % (b, b, p) for p, (b, _) in zip(parts, paddings)), x))
    lowerer.assign(outs[0], result)


def _mirrored_position(k, size, before, mode):
    """The expression of the input position that position `k` of a dimension of `size`
    padded by `before` copies, mirrored without the edge (REFLECT) or with it (SYMMETRIC)."""
    shift = 0 if mode == "REFLECT" else 1
    p = "(%s - %d)" % (k, before)  # the position in the input's coordinates
    return "(-%s - %d if %s < 0 else (2 * %s - 2 + %d - %s if %s >= %s else %s))" % (
        p, shift, p, size, shift, p, p, size, p)


def _mirror_pad(lowerer, x, out, parts, paddings, mode):
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
                result, k, array, _mirrored_position(k, size, before, mode)))
        lowerer.line("%s = %s.reshape(%s)" % (name, result, shape_tuple(padded)))
        current = type(x)(name, x.dtype, shape)
    lowerer.assign(out, current)


def roll(lowerer, node, ins, outs):
    """Roll: along each axis, element k taken from (k - shift) modulo the dimension
    (shifts on one axis add up, as numpy's roll does)."""
    x = ins[0]
    if x.rank0:
        raise lowering_api.Unsupported("a roll of a scalar")
    parts = dims(x)
    shifts = {}
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


def repeat_positions(lowerer, node, ins, outs, counts):
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


# -- scans along one axis -----------------------------------------------------------------------
# A rule that scans along an axis (argmax, cumulative sums and products, softmax, top_k...)
# works on a C-contiguous (before, size, after) view of its input around the axis (`as_3d`),
# looping over the rows in the order numpy's kernels compute them: accumulations run in the
# input's dtype, element after element, as `np.cumsum(x, dtype=x.dtype)` does. Where a
# result rounds differently from numpy's (softmax's sum, which numpy adds pairwise), it stays
# within the few ulp the backends are held to.


def axis_loops(lowerer, before, after):
    """Opens `for a in range(before): for b in range(after):` around the axis of an `as_3d`
    view (closed by `close_axis_loops`); returns the loop variables."""
    a, b = lowerer.fresh("a"), lowerer.fresh("b")
    lowerer.line("for %s in range(%s):" % (a, before))
    lowerer.indent += 1
    lowerer.line("for %s in range(%s):" % (b, after))
    lowerer.indent += 1
    return a, b


def close_axis_loops(lowerer):
    """Closes the loops `axis_loops` opened."""
    lowerer.indent -= 2

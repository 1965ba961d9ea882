"""numba lowering rules of ops that scan along one axis or spread values over new ones:
argmax/argmin, cumulative sums and products, softmax, one_hot, where, top_k and the ops
taking or putting along its last axis, and the gradient helpers SumToShape, BroadcastLike
and ReduceGrad.

Each works on a C-contiguous (before, size, after) view of its input around the axis
(`numba_lowerings.as_3d`), looping over the rows in the order numpy's kernels compute
them: accumulations run in the input's dtype, element after element, as `np.cumsum(x,
dtype=x.dtype)` does. Where a result rounds differently from numpy's (softmax's sum, which
numpy adds pairwise), it stays within the few ulp the backends are held to.
"""

import numpy as np

from runtime import lowering_api
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_of,
    dims,
    finish,
    product,
    shape_tuple,
    type_name,
)


def _loops(lowerer, before, after):
    """Opens `for a in range(before): for b in range(after):` (closed by `_close`);
    returns the loop variables."""
    a, b = lowerer.fresh("a"), lowerer.fresh("b")
    lowerer.line("for %s in range(%s):" % (a, before))
    lowerer.indent += 1
    lowerer.line("for %s in range(%s):" % (b, after))
    lowerer.indent += 1
    return a, b


def _close(lowerer):
    lowerer.indent -= 2


def arg_extreme(function):
    """ArgMax / ArgMin: numpy's np.argmax along the axis (the first extreme, the first NaN),
    failing on an empty axis as numpy does."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        if x.rank0:
            raise lowering_api.Unsupported("an %s of a scalar" % function)
        parts = dims(x)
        axis = axis_of(node, len(parts))
        array, before, size, after = as_3d(lowerer, x, axis)
        lowerer.check("%s == 0" % size, ValueError,
                      "attempt to get %s of an empty sequence" % function)
        result = lowerer.fresh("r")
        lowerer.line("%s = np.empty(%s, np.int64)" % (result, shape_tuple([before, after])))
        a, b = _loops(lowerer, before, after)
        lowerer.line("%s[%s, %s] = np.%s(%s[%s, :, %s])" % (result, a, b, function, array, a,
                                                          b))
        _close(lowerer)
        finish(lowerer, outs[0], result, parts[:axis] + parts[axis + 1:])
    return rule


def cumulative(operation, start):
    """Cumsum / Cumprod (`operation` "+" or "*", `start` its identity): a running total in
    the input's dtype (integers wrap), from the end when `reverse`, each element's own
    value left out when `exclusive`."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        if x.rank0:
            raise lowering_api.Unsupported("a cumulative %s of a scalar" % operation)
        parts = dims(x)
        axis = axis_of(node, len(parts))
        array, before, size, after = as_3d(lowerer, x, axis)
        kind = type_name(x.dtype)
        result, total, k, j = (lowerer.fresh(p) for p in ("r", "t", "k", "j"))
        lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple([before, size, after]),
                                                kind))
        a, b = _loops(lowerer, before, after)
        lowerer.line("%s = %s(%s)" % (total, kind, start))
        lowerer.line("for %s in range(%s):" % (k, size))
        with lowerer.block():
            index = "%s - 1 - %s" % (size, k) if node.attrs["reverse"] else k
            lowerer.line("%s = %s" % (j, index))
            step = "%s = fit(%s %s %s[%s, %s, %s], %s)" % (total, total, operation, array, a,
                                                            j, b, kind)
            store = "%s[%s, %s, %s] = %s" % (result, a, j, b, total)
            for line in (store, step) if node.attrs["exclusive"] else (step, store):
                lowerer.line(line)
        _close(lowerer)
        finish(lowerer, outs[0], result, parts)
    return rule


def softmax(log):
    """Softmax / LogSoftmax along the axis: the maximum subtracted, exp in float64 rounded
    to the dtype (numpy's float32 exp is correctly rounded nearly everywhere), the sum in
    the dtype."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        if x.rank0:
            raise lowering_api.Unsupported("a softmax of a scalar")
        parts = dims(x)
        axis = axis_of(node, len(parts))
        array, before, size, after = as_3d(lowerer, x, axis)
        lowerer.check("%s == 0" % size, ValueError, "zero-size array to reduction operation "
                      "maximum which has no identity")
        kind = type_name(x.dtype)
        result, top, total, k = (lowerer.fresh(p) for p in ("r", "m", "s", "k"))
        lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple([before, size, after]),
                                                kind))
        a, b = _loops(lowerer, before, after)
        lowerer.line("%s = np.max(%s[%s, :, %s])" % (top, array, a, b))
        lowerer.line("%s = %s(0)" % (total, kind))
        lowerer.line("for %s in range(%s):" % (k, size))
        with lowerer.block():
            shifted = "%s(%s[%s, %s, %s] - %s)" % (kind, array, a, k, b, top)
            exp = "%s(np.exp(np.float64(%s)))" % (kind, shifted)
            if log:
                lowerer.line("%s[%s, %s, %s] = %s" % (result, a, k, b, shifted))
            else:
                lowerer.line("%s[%s, %s, %s] = %s" % (result, a, k, b, exp))
                exp = "%s[%s, %s, %s]" % (result, a, k, b)
            lowerer.line("%s = %s(%s + %s)" % (total, kind, total, exp))
        if log:
            lowerer.line("%s = %s(np.log(np.float64(%s)))" % (total, kind, total))
            lowerer.line("%s[%s, :, %s] = %s[%s, :, %s] - %s" % (result, a, b, result, a, b,
                                                                 total))
        else:
            lowerer.line("%s[%s, :, %s] = %s[%s, :, %s] / %s" % (result, a, b, result, a, b,
                                                                 total))
        _close(lowerer)
        finish(lowerer, outs[0], result, parts)
    return rule


def one_hot(lowerer, node, ins, outs):
    """OneHot: `off_value` everywhere, `on_value` at each index in [0, depth) (both as the
    kernel converts them), the new axis moved into place."""
    indices, out = ins[0], outs[0]
    depth = int(node.attrs["depth"])
    dtype = node.attrs["dtype"]
    on, off = (np.asarray(node.attrs[k]).astype(dtype.np_dtype)[()]
               for k in ("on_value", "off_value"))
    parts = [] if indices.rank0 else dims(indices)
    count = product(parts)
    flat, result, n, i = (lowerer.fresh(p) for p in ("c", "r", "n", "i"))
    if indices.rank0:
        lowerer.line("%s = np.full(1, np.int64(%s))" % (flat, indices))
    else:
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, indices, count))
    lowerer.line("%s = np.full(%s, %s)" % (result, shape_tuple([count, str(depth)]),
                                           lowerer.scalar_literal(off, dtype)))
    lowerer.line("for %s in range(%s):" % (n, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (i, flat, n))
        lowerer.line("if 0 <= %s < %d:" % (i, depth))
        with lowerer.block():
            lowerer.line("%s[%s, %s] = %s" % (result, n, i, lowerer.scalar_literal(on, dtype)))
    axis = node.attrs["axis"]
    rank = len(parts) + 1
    axis = rank - 1 if axis == -1 else axis
    shaped = lowerer.fresh("c")
    lowerer.line("%s = %s.reshape(%s)" % (shaped, result, shape_tuple(parts + [str(depth)])))
    if axis != rank - 1:
        perm = list(range(rank - 1))
        perm.insert(axis, rank - 1)
        lowerer.line("%s = np.ascontiguousarray(%s.transpose(%s))" % (
            shaped, shaped, lowerer.literal(tuple(perm))))
    lowerer.assign(out, shaped)


def where(lowerer, node, ins, outs):
    """Where with one operand: the coordinates of the true elements (numpy's argwhere)."""
    if ins[0].rank0 or ins[0].shape is None:
        raise lowering_api.Unsupported("the coordinates of a scalar")
    lowerer.assign(outs[0], "np.argwhere(%s)" % ins[0])


def _target(lowerer, node, ins):
    """The target dimensions of a gradient helper: its `like` input's, else `shape`."""
    if len(ins) > 1:
        return dims(ins[1])
    shape = node.attrs["shape"]
    if shape is None or None in shape:
        raise lowering_api.Unsupported("a target shape known only at run time")
    return [str(int(d)) for d in shape]


def sum_to_shape(lowerer, node, ins, outs):
    """SumToShape to a target of static shape: the leading axes and those where the target
    has 1 summed (an axis of 1 sums to itself), then reshaped."""
    x, out = ins[0], outs[0]
    if out.shape is None or None in out.shape:
        raise lowering_api.Unsupported("a target shape known only at run time")
    target = out.shape
    if x.rank0:
        lowerer.assign(out, x if out.rank0 else "np.full(%s, %s)" % (
            lowerer.literal(target), x))
        return
    have = dims(x)
    lead = len(have) - len(target)
    if lead < 0:
        raise lowering_api.Unsupported("a sum to a shape of higher rank")
    axes = list(range(lead)) + [lead + i for i, d in enumerate(target) if d == 1]
    kept = [a for a in range(len(have)) if a not in axes]
    moved, result, row = (lowerer.fresh(p) for p in ("t", "r", "j"))
    rows, length = product([have[a] for a in kept]), product([have[a] for a in axes])
    lowerer.line("%s = np.ascontiguousarray(%s.transpose(%s)).reshape((%s, %s))" % (
        moved, x, lowerer.literal(tuple(kept + axes)), rows, length))
    lowerer.line("%s = np.empty(%s, %s)" % (result, rows, type_name(out.dtype)))
    lowerer.line("for %s in range(%s):" % (row, rows))
    with lowerer.block():
        lowerer.line("%s[%s] = np.sum(%s[%s])" % (result, row, moved, row))
    finish(lowerer, out, result, [str(d) for d in target])


def broadcast_like(lowerer, node, ins, outs):
    """BroadcastLike: `x` broadcast to the target shape, as a C-contiguous copy."""
    x, out = ins[0], outs[0]
    target = _target(lowerer, node, ins)
    if out.rank0:
        lowerer.assign(out, x if x.rank0 else "%s.reshape(1)[0]" % x)
        return
    source = "np.full(1, %s)" % x if x.rank0 else "np.ascontiguousarray(%s)" % x
    lowerer.assign(out, "np.ascontiguousarray(np.broadcast_to(%s, %s))" % (
        source, shape_tuple(target)))


def reduce_grad(lowerer, node, ins, outs):
    """ReduceGrad: the gradient `g` with its reduced axes restored, broadcast to the target
    shape (divided by the number of reduced elements for a Mean of floats)."""
    g, out = ins[0], outs[0]
    target = _target(lowerer, node, ins)
    rank = len(target)
    axis = node.attrs["axis"]
    axes = list(range(rank)) if axis is None else sorted({a % rank for a in axis}) if rank \
        else []
    if node.attrs["mean"] and not out.dtype.is_floating:
        raise lowering_api.Unsupported("the gradient of an integer mean")
    if out.rank0:
        lowerer.assign(out, g if g.rank0 else "%s.reshape(1)[0]" % g)
        return
    source = "np.full(1, %s)" % g if g.rank0 else "np.ascontiguousarray(%s)" % g
    if not node.attrs["keepdims"]:
        source = "%s.reshape(%s)" % (source, shape_tuple(
            ["1" if i in axes else d for i, d in enumerate(target)]))
    result = lowerer.fresh("r")
    lowerer.line("%s = np.ascontiguousarray(np.broadcast_to(%s, %s))" % (
        result, source, shape_tuple(target)))
    if node.attrs["mean"]:
        count = product([target[a] for a in axes])
        lowerer.line("%s = %s / %s(max(%s, 1))" % (result, result, type_name(out.dtype),
                                                    count))
    lowerer.assign(out, result)


def top_k(lowerer, node, ins, outs):
    """TopKV2: each row's positions in descending order, ties by ascending position (the
    kernel's stable order, which is its only order when no two values are equal). Where a
    row holds two NaNs or more, the kernel's order among them is numpy's sort's own: the
    kernel then runs on the host (numba_host) instead."""
    x = ins[0]
    if x.rank0 or x.shape is None:
        raise lowering_api.Unsupported("a top_k of a scalar")
    parts = dims(x)
    n = parts[-1]
    k = n if node.attrs["k"] is None else str(int(node.attrs["k"]))
    if node.attrs["k"] is not None and x.shape[-1] is None:
        lowerer.check_values("%s > %s" % (k, n), ValueError,
                             "k = %d is larger than the last dimension %d", (k, n))
    rows = product(parts[:-1])
    values, indices = outs
    flat, order, got, picked, r = (lowerer.fresh(p) for p in ("c", "o", "v", "p", "j"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (flat, x, rows, n))
    lowerer.line("%s = np.empty((%s, %s), %s)" % (got, rows, k, type_name(x.dtype)))
    lowerer.line("%s = np.empty((%s, %s), np.int32)" % (picked, rows, k))
    lowerer.line("for %s in range(%s):" % (r, rows))
    with lowerer.block():
        lowerer.line("%s = %s - 1 - np.argsort(%s[%s][::-1], kind=\"mergesort\")[::-1]" % (
            order, n, flat, r))
        lowerer.line("%s[%s] = %s[%s][%s[:%s]]" % (got, r, flat, r, order, k))
        lowerer.line("%s[%s] = %s[:%s]" % (picked, r, order, k))
    if x.dtype.is_floating:
        # a loop running once, not an `if`: numba miscompiles objmode outputs in an `if`
        lowerer.line("for %s in range(int((np.isnan(%s).sum(axis=1) >= 2).any())):" % (
            lowerer.fresh("once"), flat))
        with lowerer.block():
            on_host = [lowerer.local(out.dtype, out.shape, "h") for out in outs]
            lowerer.kernel_on_host(node, ins, on_host)
            for array, result in zip((got, picked), on_host):
                lowerer.line("%s[:, :] = %s.reshape((%s, %s))" % (array, result, rows, k))
    shape = parts[:-1] + [k]
    finish(lowerer, values, got, shape)
    finish(lowerer, indices, picked, shape)


def _along_last_axis(lowerer, x, indices, write):
    """The loop over each row's indices into the last axis of `x` (both viewed as rows of
    the same leading dimensions, known when the graph is built): an index out of range
    fails with numpy's error, a negative one counts from the end; `write(position, row,
    j)` writes the body for the wrapped position."""
    if x.rank0 or x.shape is None or indices.shape is None \
            or len(indices.shape) != len(x.shape) or None in x.shape[:-1] \
            or x.shape[:-1] != indices.shape[:-1]:
        raise lowering_api.Unsupported("indices whose leading dimensions may not be x's")
    parts = dims(x)
    rows, size, count = product(parts[:-1]), parts[-1], dims(indices)[-1]
    flat = lowerer.fresh("q")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (flat, indices, rows,
                                                                    count))
    row, j, position = lowerer.fresh("r"), lowerer.fresh("j"), lowerer.fresh("p")
    lowerer.line("for %s in range(%s):" % (row, rows))
    with lowerer.block():
        lowerer.line("for %s in range(%s):" % (j, count))
        with lowerer.block():
            lowerer.line("%s = np.int64(%s[%s, %s])" % (position, flat, row, j))
            lowerer.check_values(
                "%s < -(%s) or %s >= %s" % (position, size, position, size), IndexError,
                "index %%d is out of bounds for axis %d with size %%d" % (len(parts) - 1),
                (position, size))
            lowerer.line("if %s < 0:" % position)
            with lowerer.block():
                lowerer.line("%s += %s" % (position, size))
            write(position, row, j)
    return rows, size, count


def take_along_last_axis(lowerer, node, ins, outs):
    """TakeAlongLastAxis: each row's elements at its indices (np.take_along_axis)."""
    x, indices = ins
    source, result = lowerer.fresh("c"), lowerer.fresh("t")
    parts = dims(x)
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        source, x, product(parts[:-1]), parts[-1]))
    lowerer.line("%s = np.empty((%s, %s), %s)" % (result, product(parts[:-1]),
                                                   dims(indices)[-1], type_name(x.dtype)))
    _along_last_axis(lowerer, x, indices, lambda position, row, j: lowerer.line(
        "%s[%s, %s] = %s[%s, %s]" % (result, row, j, source, row, position)))
    finish(lowerer, outs[0], result, dims(indices))


def top_k_grad(lowerer, node, ins, outs):
    """TopKGrad: zeros of x's shape, each row's `g` put at its indices in order (the last
    of repeated indices wins, as np.put_along_axis's assignment)."""
    g, indices, x = ins
    if not g.shape or g.shape != indices.shape:
        raise lowering_api.Unsupported("a gradient not of the indices' shape")
    parts = dims(x)
    grads, result, view = lowerer.fresh("c"), lowerer.fresh("t"), lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        grads, g, product(parts[:-1]), dims(g)[-1]))
    lowerer.line("%s = np.zeros(%s, %s)" % (result, shape_tuple(parts), type_name(
        outs[0].dtype)))
    lowerer.line("%s = %s.reshape((%s, %s))" % (view, result, product(parts[:-1]), parts[-1]))
    _along_last_axis(lowerer, x, indices, lambda position, row, j: lowerer.line(
        "%s[%s, %s] = %s[%s, %s]" % (view, row, position, grads, row, j)))
    lowerer.assign(outs[0], result)

"""The helpers of the numba rules that several op families use: a value's dimensions as
expressions (`dims`), products and shape tuples of them, numba's type names, a C-contiguous
(before, axis, after) view of a value (`as_3d`) with loops over it, a transposed view
(`transposed`), and `finish`, which gives an output its shape. The rules themselves are
declared beside their ops (runtime/ops).

numba's numpy lacks or restricts much (no `axis` arguments, reshapes of contiguous arrays
only), so the rules write explicit loops over run-time shapes with the Lowerer API
(runtime/backends/lowering.py). Shapes need not be static: a dimension not known when the
graph is lowered is read at run time (`x.shape[i]`), only the rank must be known. Where the
op's kernel raises (an index out of range, a shape that does not fit), the rule checks the
same and fails with the kernel's error class and message; a case a rule cannot compute
exactly as the kernel does is declined with the reason (the graph then runs on the numpy
executor).
"""

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


def transposed(x, perm):
    """The numba expression of the view of array `x` (a name) with its axes in the order
    `perm` (a static permutation), as `x.transpose(perm)` but made from the permuted shape
    and strides: numba compiles `transpose` with axes for 0.3 s in each kernel (a fancy
    index assigned to a slice), and for 2.5 s the first time in a process. A 2-D swap is
    `.T`, and the identity `x` itself."""
    perm = [int(p) for p in perm]
    if perm == list(range(len(perm))):
        return x
    if perm == [1, 0]:
        return "%s.T" % x
    return "np.lib.stride_tricks.as_strided(%s, %s, %s)" % (
        x, shape_tuple(["%s.shape[%d]" % (x, a) for a in perm]),
        shape_tuple(["%s.strides[%d]" % (x, a) for a in perm]))


def contiguous_view(lowerer, expr):
    """`expr`, a strided view, made contiguous for numba (whose fused loops reshape their
    operands, which it allows only for contiguous arrays); as it is for other backends."""
    return "xp.ascontiguousarray(%s)" % expr if lowerer.name == "numba" else expr


def sum_leading_axes(lowerer, x, out, axes, length, rows):
    """The name of `x`'s sum over `axes` (`length` elements each) for each of the `rows`
    positions of the others, added as numpy adds them: from zeros, one slab after another in
    order, elementwise (a bias gradient's `reduce_sum(g, 0)`: 9 us where moving the summed
    axes last, a transposed copy of `x`, took 32 us for 256x128 float32). None, having
    written nothing, unless `axes` are the leading ones and the sum keeps `x`'s numeric
    dtype."""
    if list(axes) != list(range(len(axes))) or x.dtype != out.dtype \
            or x.dtype.kind not in ("int", "float", "complex"):
        return None
    flat, result, i = lowerer.fresh("t"), lowerer.fresh("r"), lowerer.fresh("i")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (flat, x, length, rows))
    lowerer.line("%s = np.zeros(%s, %s)" % (result, rows, type_name(out.dtype)))
    lowerer.line("for %s in range(%s.shape[0]):" % (i, flat))
    with lowerer.block():
        lowerer.line("numba_math.add_row(%s.reshape((1, %s)), 0, %s, %s)" % (
            result, rows, flat, i))
    return result


def finish(lowerer, out, array, shape_parts):
    """Assigns `array` (a C-contiguous array) reshaped to `shape_parts` to `out`, or its one
    element when `out` is rank 0."""
    if out.rank0:
        lowerer.assign(out, "%s.reshape(1)[0]" % array)
    else:
        lowerer.assign(out, "%s.reshape(%s)" % (array, shape_tuple(shape_parts)))


# -- Range (its rule waits here while the Range op is being reworked in array_ops) --------------


def integer_range(lowerer, node, ins, outs):
    """Range of integers (numpy's arange of floats rounds its elements its own way: those
    are declined)."""
    start, limit, delta = ins
    if not start.dtype.is_integer:
        raise lowering_api.Unsupported("a range of floats")
    lowerer.check("%s == 0" % delta, ValueError, "range delta must not be zero")
    lowerer.assign(outs[0], "np.arange(np.int64(%s), np.int64(%s), np.int64(%s))"
                   % (start, limit, delta))


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

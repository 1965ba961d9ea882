"""numba lowering rules of the N-d indexing ops of runtime/ops/scatter_ops.py.

numba indexes with one index array at most, so each row of an `indices` tensor [..., k]
becomes a flat offset into the first k dimensions of the tensor it addresses, viewed as
(rows, the rest). Every row is checked as the kernel's `_address` checks it: the first row
in order with a component out of range fails, with the kernel's IndexError and message (the
row's position, its components, the addressed shape). Scatters apply their rows in order,
as `np.add.at` and numpy's fancy assignment do (a duplicate sums, or the last one wins).
"""

from runtime import lowering_api
from runtime.ops.numba_lowerings import dims, finish, product, shape_tuple, type_name


def _depth(indices, target):
    """k, the static last dimension of `indices` (Unsupported when unknown or zero)."""
    if target.shape is None or indices.shape is None or not indices.shape \
            or indices.shape[-1] is None:
        raise lowering_api.Unsupported("indices of unknown depth")
    if indices.shape[-1] == 0:
        raise lowering_api.Unsupported("indices of depth 0")
    return indices.shape[-1]


def _rows(lowerer, indices, depth):
    """Writes `indices` viewed as (rows, depth); returns its name, the row count and the
    dimension expressions of the rows' positions."""
    batch = dims(indices)[:-1]
    rows = product(batch)
    name = lowerer.fresh("q")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %d))" % (name, indices, rows,
                                                                    depth))
    return name, rows, batch


def _offset(lowerer, rows, n, batch, depth, target_parts):
    """Writes the check of row `n` of `rows` against the addressed dimensions
    `target_parts[:depth]` and returns the name of its flat offset into them."""
    components = ["%s[%s, %d]" % (rows, n, j) for j in range(depth)]
    failed = " or ".join("%s < 0 or %s >= %s" % (c, c, d)
                         for c, d in zip(components, target_parts))
    position = ["(%s // (%s)) %% (%s)" % (n, product(batch[i + 1:]), batch[i])
                for i in range(len(batch))]
    message = "indices[%s] = [%s] does not index into shape [%s]" % tuple(
        ", ".join(["%d"] * len(part)) for part in (position, components, target_parts))
    lowerer.check_values(failed, IndexError, message,
                         tuple(position + components + target_parts))
    offset = lowerer.fresh("o")
    lowerer.line("%s = np.int64(%s)" % (offset, components[0]))
    for component, size in zip(components[1:], target_parts[1:depth]):
        lowerer.line("%s = %s * np.int64(%s) + np.int64(%s)" % (offset, offset, size, component))
    return offset


def _flat_target(lowerer, value, depth):
    """Writes `value` viewed as (its first `depth` dimensions, the rest), C-contiguous."""
    parts = dims(value)
    name = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        name, value, product(parts[:depth]), product(parts[depth:])))
    return name, parts


def gather_nd(lowerer, node, ins, outs):
    """GatherNd: for each row of the indices, the slice of the params it addresses."""
    params, indices = ins
    depth = _depth(indices, params)
    source, parts = _flat_target(lowerer, params, depth)
    rows, count, batch = _rows(lowerer, indices, depth)
    result, n = lowerer.fresh("r"), lowerer.fresh("n")
    lowerer.line("%s = np.empty((%s, %s), %s)" % (result, count, product(parts[depth:]),
                                                   type_name(outs[0].dtype)))
    lowerer.line("for %s in range(%s):" % (n, count))
    with lowerer.block():
        offset = _offset(lowerer, rows, n, batch, depth, parts)
        lowerer.line("numba_math.copy_row(%s, %s, %s, %s)" % (result, n, source, offset))
    finish(lowerer, outs[0], result, batch + parts[depth:])


def _static(*values):
    """Unsupported unless every value's shape is fully known (numpy would broadcast
    updates of other shapes, which the scatters do not repeat)."""
    if any(v.shape is None or None in v.shape for v in values):
        raise lowering_api.Unsupported("a scatter of shapes known only at run time")


def _scatter_rows(lowerer, target, parts, indices, updates, depth, add):
    """Writes the loop applying each row of `updates` (viewed as (rows, the rest)) at its
    row of `indices` into `target` (viewed as (addressed, the rest)): `+=` or `=`."""
    rows, count, batch = _rows(lowerer, indices, depth)
    flat_updates = lowerer.fresh("u")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        flat_updates, updates, count, product(parts[depth:])))
    n = lowerer.fresh("n")
    lowerer.line("for %s in range(%s):" % (n, count))
    with lowerer.block():
        offset = _offset(lowerer, rows, n, batch, depth, parts)
        lowerer.line("numba_math.%s(%s, %s, %s, %s)" % ("add_row" if add else "copy_row",
                                                        target, offset, flat_updates, n))


def _tensor_scatter(lowerer, node, ins, outs, add):
    """A copy of the tensor with each row's slice of the updates added or assigned."""
    tensor, indices, updates = ins
    if tensor.rank0:
        raise lowering_api.Unsupported("a scatter into a scalar")
    if add and tensor.dtype.kind == "bool":
        raise lowering_api.Unsupported("a scatter adding booleans")
    depth = _depth(indices, tensor)
    _static(indices, updates)
    parts = dims(tensor)
    result, view = lowerer.fresh("r"), lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s).copy()" % (result, tensor))
    lowerer.line("%s = %s.reshape((%s, %s))" % (view, result, product(parts[:depth]),
                                               product(parts[depth:])))
    _scatter_rows(lowerer, view, parts, indices, updates, depth, add)
    lowerer.assign(outs[0], result)


def tensor_scatter_update(lowerer, node, ins, outs):
    """TensorScatterUpdate: a copy of the tensor, each row's slice replaced in order."""
    _tensor_scatter(lowerer, node, ins, outs, add=False)


def tensor_scatter_add(lowerer, node, ins, outs):
    """TensorScatterAdd: a copy of the tensor, each row's slice added in order."""
    _tensor_scatter(lowerer, node, ins, outs, add=True)


def scatter_nd(lowerer, node, ins, outs):
    """ScatterNd of a shape known when the graph is built: zeros, each row added in order."""
    indices, updates, _ = ins
    out = outs[0]
    if out.shape is None or None in out.shape or not out.shape:
        raise lowering_api.Unsupported("a scatter into a shape known only at run time")
    if out.dtype.kind == "bool":
        raise lowering_api.Unsupported("a scatter adding booleans")
    depth = _depth(indices, out)
    _static(indices, updates)
    parts = [str(d) for d in out.shape]
    result, view = lowerer.fresh("r"), lowerer.fresh("c")
    lowerer.line("%s = np.zeros(%s, %s)" % (result, shape_tuple(parts), type_name(out.dtype)))
    lowerer.line("%s = %s.reshape((%s, %s))" % (view, result, product(parts[:depth]),
                                               product(parts[depth:])))
    _scatter_rows(lowerer, view, parts, indices, updates, depth, add=True)
    lowerer.assign(out, result)

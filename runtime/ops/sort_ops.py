"""Ordering ops: top_k (TopKV2, with its gradient), sort (a composite of TopKV2, as in
TensorFlow, so it is differentiable), argsort and unique.

Orders are stable: equal values keep the order of their positions (TensorFlow's top_k
returns the lower index first among equal values).
"""

import collections

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    array_ops,
    common,
    layout_ops,
    math_ops,
    reshape_ops,
)
from runtime.ops.common import REAL, SpecError, convert_to_tensor, require_kind
from runtime.ops.numba_lowerings import dims, finish, product, shape_tuple, type_name
from runtime.ops.registry import (
    KERNEL_CALL,
    NOT_DIFFERENTIABLE,
    execute,
    execute1,
    register,
)

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}
_NUMBA_SORTING = "runtime.backends.numba_sorting"  # the numba kernels' sort

OPS = {}

# (named as TensorFlow names them, which their repr shows)
TopKResult = collections.namedtuple("TopKV2", ["values", "indices"])  # type: ignore[name-match]
UniqueResult = collections.namedtuple("Unique", ["y", "idx"])  # type: ignore[name-match]


def _descending_order(x):
    """Positions that sort the last axis in descending order, NaN above every number, ties
    (NaNs among themselves too) by ascending position, and the sorted values. Numpy's
    default sort is several times faster than its stable one and gives the same order when
    no two values are equal, which is checked (two NaNs count as equal: the default sort
    leaves them in an order of its own)."""
    order = np.argsort(x, axis=-1)[..., ::-1]
    values = np.take_along_axis(x, order, axis=-1)
    before, after = values[..., :-1], values[..., 1:]
    if np.any(after == before) or (  # ties: the stable order
            values.dtype.kind in "fc" and np.any(np.isnan(after) & np.isnan(before))):
        n = x.shape[-1]
        order = n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
        values = np.take_along_axis(x, order, axis=-1)
    return order, values


def _top_k_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, REAL)
    k = attrs["k"]  # None: all of them (a full sort)
    if shape is None:
        return [(dtype, None), (dtypes.int32, None)]
    if not shape:
        raise SpecError("shape", "top_k needs a tensor of rank >= 1")
    if k is None:
        k = shape[-1]
    elif shape[-1] is not None and k > shape[-1]:
        raise SpecError("shape", "k = %d is larger than the last dimension %d" % (k, shape[-1]))
    out = shape[:-1] + (k,)
    return [(dtype, out), (dtypes.int32, out)]


def _top_k_kernel(x, k, sorted):  # noqa: A002 - TensorFlow's attribute name
    if k is None:
        k = x.shape[-1]
    if k > x.shape[-1]:
        raise ValueError("k = %d is larger than the last dimension %d" % (k, x.shape[-1]))
    order, values = _descending_order(x)
    return values[..., :k], order[..., :k].astype(np.int32)


def _top_k_grad_kernel(g, indices, x):
    out = np.zeros(x.shape, dtype=g.dtype)
    np.put_along_axis(out, indices.astype(np.intp), g, axis=-1)
    return out


def _top_k_grad(ctx, grads):
    g = grads[0]
    if g is None:
        return [None]
    return [execute1(OPS["TopKGrad"], [g, ctx.output(1), ctx.input(0)])]


def _top_k_jax_rule(lowerer, node, ins):
    # JAX's tracing protocol (runtime/backends/jax_lowering.py): `lowerer.lax` is jax.lax,
    # imported by the JAX backend. lax.top_k puts the lower index first among equal values,
    # as the kernel does, but orders -0.0 below 0.0 (so the keys have 0.0 for both) and
    # NaNs its own way (a NaN defers the call to the numpy executor).
    jnp = lowerer.jnp
    x = jnp.asarray(ins[0])
    k = x.shape[-1] if node.attrs["k"] is None else node.attrs["k"]
    keys = x
    if jnp.issubdtype(x.dtype, jnp.floating):
        lowerer.fail_if(jnp.isnan(x))
        keys = jnp.where(x == 0, jnp.zeros((), x.dtype), x)
    indices = lowerer.lax.top_k(keys, k)[1]
    return [jnp.take_along_axis(x, indices, axis=-1), indices.astype(jnp.int32)]


def _top_k_numba(lowerer, node, ins, outs):
    """TopKV2: each row's positions in the kernel's descending order (numba_sorting), the
    first `k` of them taken."""
    x = ins[0]
    if x.rank0 or x.shape is None:
        raise lowering_api.Unsupported("a top_k of a scalar")
    parts = dims(x)
    n = parts[-1]
    k = n if node.attrs["k"] is None else str(int(node.attrs["k"]))
    if node.attrs["k"] is not None and x.shape[-1] is None:
        lowerer.check_values("%s > %s" % (k, n), ValueError,
                             "k = %d is larger than the last dimension %d", (k, n))
    lowerer.modules.add(_NUMBA_SORTING)
    rows = product(parts[:-1])
    values, indices = outs
    flat, order, got, picked, r, j = (lowerer.fresh(p) for p in ("c", "o", "v", "p", "r", "j"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (flat, x, rows, n))
    lowerer.line("%s = np.empty((%s, %s), %s)" % (got, rows, k, type_name(x.dtype)))
    lowerer.line("%s = np.empty((%s, %s), np.int32)" % (picked, rows, k))
    lowerer.line("%s = np.empty(%s, np.int64)" % (order, n))
    lowerer.line("for %s in range(%s):" % (r, rows))
    with lowerer.block():
        lowerer.line("%s.descending_order(%s[%s], %s)" % (_NUMBA_SORTING, flat, r, order))
        lowerer.line("for %s in range(%s):" % (j, k))
        with lowerer.block():
            lowerer.line("%s[%s, %s] = %s[%s, %s[%s]]" % (got, r, j, flat, r, order, j))
            lowerer.line("%s[%s, %s] = %s[%s]" % (picked, r, j, order, j))
    shape = parts[:-1] + [k]
    finish(lowerer, values, got, shape)
    finish(lowerer, indices, picked, shape)


def _along_last_axis_numba(lowerer, x, indices, write):
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


OPS["TopKV2"] = register("TopKV2", _top_k_kernel, _top_k_infer, grad=_top_k_grad,
                         emit=KERNEL_CALL,
                         lowerings=dict(_NOT_LOWERED, jax=_top_k_jax_rule,
                                        numba=_top_k_numba))


# TopKGrad scatters g to the chosen positions; TakeAlongLastAxis gathers from them: each is
# the other's gradient (with respect to g).


def _last_axis_indices_jax(lw, indices, size):
    """`indices` into a last axis of `size`: out of range fails, negative ones count from
    the end (numpy's)."""
    jnp = lw.jnp
    indices = jnp.asarray(indices)
    lw.fail_if((indices < -size) | (indices >= size))
    return jnp.where(indices < 0, indices + size, indices)


def _top_k_grad_jax(lw, node, ins):
    """TopKGrad: zeros of x's shape with g put at the (distinct, top_k's) indices."""
    g, x = lw.jnp.asarray(ins[0]), lw.jnp.asarray(ins[2])
    if x.ndim == 0:
        raise lowering_api.Unsupported("puts along the last axis of a scalar")
    indices = _last_axis_indices_jax(lw, ins[1], x.shape[-1])
    out = lw.jnp.zeros(x.shape, g.dtype)
    return [lw.jnp.put_along_axis(out, indices, g, axis=-1, inplace=False, mode="clip")]


def _top_k_grad_numba(lowerer, node, ins, outs):
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
    _along_last_axis_numba(lowerer, x, indices, lambda position, row, j: lowerer.line(
        "%s[%s, %s] = %s[%s, %s]" % (view, row, position, grads, row, j)))
    lowerer.assign(outs[0], result)


OPS["TopKGrad"] = register(
    "TopKGrad", _top_k_grad_kernel, lambda specs, attrs: [(specs[0][0], specs[2][1])],
    emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["TakeAlongLastAxis"], [grads[0], ctx.input(1)]),
                             None, None],
    lowerings=dict(lowering_api.GRADIENTS_ON_HOST, jax=_top_k_grad_jax,
                   numba=_top_k_grad_numba))


def _take_along_last_axis_jax(lw, node, ins):
    """TakeAlongLastAxis: `take_along_axis(x, indices, -1)`."""
    x = lw.jnp.asarray(ins[0])
    if x.ndim == 0:
        raise lowering_api.Unsupported("takes along the last axis of a scalar")
    indices = _last_axis_indices_jax(lw, ins[1], x.shape[-1])
    return [lw.jnp.take_along_axis(x, indices, axis=-1, mode="clip")]


def _take_along_last_axis_numba(lowerer, node, ins, outs):
    """TakeAlongLastAxis: each row's elements at its indices (np.take_along_axis)."""
    x, indices = ins
    source, result = lowerer.fresh("c"), lowerer.fresh("t")
    parts = dims(x)
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        source, x, product(parts[:-1]), parts[-1]))
    lowerer.line("%s = np.empty((%s, %s), %s)" % (result, product(parts[:-1]),
                                                   dims(indices)[-1], type_name(x.dtype)))
    _along_last_axis_numba(lowerer, x, indices, lambda position, row, j: lowerer.line(
        "%s[%s, %s] = %s[%s, %s]" % (result, row, j, source, row, position)))
    finish(lowerer, outs[0], result, dims(indices))


OPS["TakeAlongLastAxis"] = register(
    "TakeAlongLastAxis",
    lambda x, indices: np.take_along_axis(x, indices.astype(np.intp), axis=-1),
    lambda specs, attrs: [(specs[0][0], specs[1][1])], emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["TopKGrad"], [grads[0], ctx.input(1), ctx.input(0)]),
                             None],
    lowerings=dict(_NOT_LOWERED, jax=_take_along_last_axis_jax,
                   numba=_take_along_last_axis_numba))


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TensorFlow's names
    """The `k` largest entries of the last dimension and their positions, largest first
    (`values`, `indices` (int32))."""
    tensor = convert_to_tensor(input)
    count = common.static_int_list(k, "k")
    if len(count) != 1 or count[0] < 0:
        raise ValueError("top_k: k must be a non-negative integer, got %r" % (k,))
    values, indices = execute(OPS["TopKV2"], [tensor], {"k": count[0], "sorted": bool(sorted)},
                              name=name)
    return TopKResult(values, indices)


def _moved_last(tensor, axis, func):
    """func applied along `axis`, by moving that axis last and back."""
    shape = tensor._shape_tuple()
    if shape is None:
        raise ValueError("sort needs a tensor of known rank")
    rank = len(shape)
    if rank == 0:
        raise ValueError("sort needs a tensor of rank >= 1")
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if not 0 <= axis < rank:
        raise ValueError("sort: axis %d is out of range for rank %d" % (axis, rank))
    if axis == rank - 1:
        return func(tensor)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return reshape_ops.transpose(func(reshape_ops.transpose(tensor, perm)), perm)


def _sorted_descending(tensor):
    """The values of the last dimension, largest first (TopKV2 with every entry)."""
    return execute(OPS["TopKV2"], [tensor], {"k": None, "sorted": True})[0]


def _check_direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("direction must be 'ASCENDING' or 'DESCENDING', got %r"
                         % (direction,))


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (differentiable for floats: the gradient goes back to each
    value's position)."""
    _check_direction(direction)
    tensor = convert_to_tensor(values)
    require_numeric(tensor, "sort")

    def along_last(t):
        if direction == "DESCENDING":
            return _sorted_descending(t)
        if t.dtype.is_floating:
            return math_ops.negative(_sorted_descending(math_ops.negative(t)))
        # integers: negating could overflow; equal values make the reversed order exact
        return layout_ops.reverse(_sorted_descending(t), [-1])
    result = _moved_last(tensor, axis, along_last)
    return result if name is None else array_ops.identity(result, name=name)


def require_numeric(tensor, what):
    """TypeError unless `tensor` holds numbers."""
    if tensor.dtype.kind not in REAL:
        raise TypeError("%s: values of dtype %s cannot be sorted" % (what, tensor.dtype.name))



def _argsort_kernel(x, descending):
    order = _descending_order(x)[0] if descending else np.argsort(x, axis=-1, kind="stable")
    return order.astype(np.int32)


def _argsort_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, REAL)
    return [(dtypes.int32, shape)]


def _argsort_jax(lw, node, ins):
    """ArgSort along the last axis, stable as the kernel's (descending: ties by ascending
    position). -0.0 and 0.0 tie, as numpy compares them; a NaN defers the call to the numpy
    executor (XLA orders NaNs its own way)."""
    jnp = lw.jnp
    keys = jnp.asarray(ins[0])
    if keys.ndim == 0:
        raise lowering_api.Unsupported("sorts a scalar")
    if keys.dtype.kind == "f":
        lw.fail_if(jnp.isnan(keys))
        keys = jnp.where(keys == 0, jnp.zeros((), keys.dtype), keys)
        if node.attrs["descending"]:
            keys = -keys
    elif keys.dtype.kind in "iu":
        if node.attrs["descending"]:
            keys = ~keys  # order-reversing, without the overflow of -x
    else:
        raise lowering_api.Unsupported("sorts %s values" % keys.dtype)
    return [jnp.argsort(keys, axis=-1, stable=True).astype(jnp.int32)]


OPS["ArgSort"] = register("ArgSort", _argsort_kernel, _argsort_infer,
                          grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                          lowerings=dict(_NOT_LOWERED, jax=_argsort_jax))


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 positions that sort `values` along `axis` (always a stable order here)."""
    _check_direction(direction)
    tensor = convert_to_tensor(values)
    require_numeric(tensor, "argsort")
    return _moved_last(tensor, axis, lambda t: execute1(
        OPS["ArgSort"], [t], {"descending": direction == "DESCENDING"}, name=name))


# -- unique ---------------------------------------------------------------------------------


def _unique_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is not None and len(shape) != 1:
        raise SpecError("shape", "unique needs a 1-D tensor")
    return [(dtype, (None,)), (attrs["out_idx"], shape)]


def _unique_kernel(x, out_idx):
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # values in the order they first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return x[first[order]], rank[np.reshape(inverse, [-1])].astype(out_idx.np_dtype)


OPS["Unique"] = register("Unique", _unique_kernel, _unique_infer, grad=NOT_DIFFERENTIABLE,
                         emit=KERNEL_CALL,
                         lowerings={"array": lowering_api.unsupported(
                             "its output's shape depends on the values")})


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D `x` in the order they first appear (`y`), and for each
    element of `x` its position in `y` (`idx`)."""
    y, idx = execute(OPS["Unique"], [convert_to_tensor(x)],
                     {"out_idx": dtypes.as_dtype(out_idx)}, name=name)
    return UniqueResult(y, idx)

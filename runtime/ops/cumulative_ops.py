"""Cumulative ops: the running sum and product along an axis, cumsum and cumprod
(TensorFlow's `tf.math.cumsum`, `tf.math.cumprod`), optionally `exclusive` (each element's own
value left out) and `reverse` (from the end).

Both ops share their compiled rules: `cumulative_numba` writes a running total in the input's
dtype, `cumulative_jax` a sequential scan in numpy's order. Each op is declared with its
kernel, inference rule, gradient and lowerings side by side.
"""

import numpy as np

from runtime import lowering_api
from runtime.ops import batching, common, math_ops
from runtime.ops.common import NUMERIC, convert_to_tensor
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_loops,
    axis_of,
    close_axis_loops,
    dims,
    finish,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


# -- cumsum -----------------------------------------------------------------------------------


_cumsum_infer = common.axis_op_infer(NUMERIC)


def _cumsum_kernel(x, axis, exclusive, reverse):
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.delete(out, -1, axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return out


def cumulative_jax(lw, node, x, add):
    """The running sum (or product) along the node's axis, in numpy's order: out[0] = x[0],
    out[i] = out[i-1] + x[i] (a sequential scan for floats and complex numbers, whose sums
    XLA would otherwise take in another order; integers wrap either way). A complex product
    is XLA's complex multiplication, which may round differently from numpy's by an ulp per
    step (numpy's loop fuses a multiply and an add where the CPU can, as jnp.multiply of
    complex operands may differ too)."""
    jnp, lax = lw.jnp, lw.lax
    x = jnp.asarray(x)
    if x.ndim == 0:
        raise lowering_api.Unsupported("a scalar has no axis")
    axis = node.attrs["axis"] % x.ndim
    if x.dtype.kind not in "iufc":
        raise lowering_api.Unsupported("a cumulative op over %s" % x.dtype)
    exclusive, reverse = node.attrs["exclusive"], node.attrs["reverse"]
    if reverse:
        x = jnp.flip(x, axis)
    if x.shape[axis] == 0:
        out = x
    elif x.dtype.kind in "iu":
        out = (jnp.cumsum if add else jnp.cumprod)(x, axis=axis, dtype=x.dtype)
    else:
        moved = jnp.moveaxis(x, axis, 0)

        def step(total, item):
            total = total + item if add else total * item
            return total, total
        _, rest = lax.scan(step, moved[0], moved[1:])
        out = jnp.moveaxis(jnp.concatenate([moved[:1], rest]), 0, axis)
    if exclusive and out.shape[axis]:
        first = lax.slice_in_dim(out, 0, 1, axis=axis)
        first = jnp.zeros_like(first) if add else jnp.ones_like(first)
        out = jnp.concatenate([first, lax.slice_in_dim(out, 0, out.shape[axis] - 1,
                                                       axis=axis)], axis=axis)
    return jnp.flip(out, axis) if reverse else out


def _cumsum_jax(lw, node, ins):
    """Cumsum (see `cumulative_jax`)."""
    return [cumulative_jax(lw, node, ins[0], add=True)]


def _cumsum_grad(ctx, grads):
    """The running sum of the gradients the other way."""
    attrs = ctx.attrs
    return [cumsum(grads[0], attrs["axis"], attrs["exclusive"], not attrs["reverse"])]


def cumulative_numba(operation, start):
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
        a, b = axis_loops(lowerer, before, after)
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
        close_axis_loops(lowerer)
        finish(lowerer, outs[0], result, parts)
    return rule


OPS["Cumsum"] = register("Cumsum", _cumsum_kernel, _cumsum_infer, grad=_cumsum_grad,
                         emit=KERNEL_CALL,
                         lowerings=dict(_NOT_LOWERED, numba=cumulative_numba("+", 0),
                                                      jax=_cumsum_jax))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along `axis`."""
    return execute1(OPS["Cumsum"], [convert_to_tensor(x)],
                    {"axis": int(axis), "exclusive": bool(exclusive), "reverse": bool(reverse)},
                    name=name)


# -- cumprod --------------------------------------------------------------------------------


_cumprod_infer = common.axis_op_infer(NUMERIC)


def _cumprod_kernel(x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    with np.errstate(all="ignore"):  # float overflow to inf and integer wrapping, as in TF
        out = np.cumprod(x, axis=axis, dtype=x.dtype)
    if exclusive:
        ones = np.ones_like(np.take(out, [0], axis=axis))
        out = np.concatenate([ones, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


def _cumprod_grad(ctx, grads):
    # TensorFlow's rule: cumsum(g * out) the other way, divided by x (NaN where x is 0)
    attrs = ctx.attrs
    total = cumsum(math_ops.multiply(grads[0], ctx.output(0)), attrs["axis"],
                                 attrs["exclusive"], not attrs["reverse"])
    return [math_ops.truediv(total, ctx.input(0))]


def _cumprod_jax(lw, node, ins):
    """Cumprod (see `cumulative_jax`)."""
    return [cumulative_jax(lw, node, ins[0], add=False)]


OPS["Cumprod"] = register("Cumprod", _cumprod_kernel, _cumprod_infer, grad=_cumprod_grad,
                          emit=KERNEL_CALL,
                          lowerings=dict(_NOT_LOWERED, numba=cumulative_numba("*", 1),
                                                       jax=_cumprod_jax))


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along `axis` (`exclusive`: starting from 1; `reverse`: from the
    end)."""
    return execute1(OPS["Cumprod"], [convert_to_tensor(x)],
                    {"axis": int(axis), "exclusive": bool(exclusive), "reverse": bool(reverse)},
                    name=name)


batching.declare(OPS["Cumsum"], batching.along_an_axis)
batching.declare(OPS["Cumprod"], batching.along_an_axis)

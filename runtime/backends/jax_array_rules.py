""""jax" rules of array ops whose shapes JAX knows at compile time (the static attributes or
the traced input's shape): Unpack, BroadcastTo, Squeeze, Tile, Fill, OneHot, and the
cumulative sums and products.

Each op names its rule in its own `register` call as
'runtime.backends.jax_array_rules:NAME' (imported with jax, when a graph is lowered). A
rule is `rule(lowerer, node, ins) -> [output values]` (runtime/backends/jax_lowering.py); a
case the kernel would refuse (a shape that does not fit) is declined, so that the numpy
executor raises its error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax_lowering import Lowerer, Unsupported


def _static(shape: Any, what: str) -> tuple[int, ...]:
    if shape is None or None in shape:
        raise Unsupported("%s is known only at run time" % what)
    return tuple(int(d) for d in shape)


def unpack(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Unpack: the slices along the axis."""
    x = lw.jnp.asarray(ins[0])
    axis, num = node.attrs["axis"], node.attrs["num"]
    if x.ndim == 0 or x.shape[axis] != num:
        raise Unsupported("unstacks a dimension of another size than num")
    return [lw.jnp.take(x, i, axis=axis) for i in range(num)]


def broadcast_to(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """BroadcastTo a static shape."""
    shape = _static(node.attrs["shape"], "the target shape")
    try:
        return [lw.jnp.broadcast_to(ins[0], shape)]
    except ValueError as e:
        raise Unsupported("cannot broadcast: %s" % e) from None


def squeeze(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Squeeze the size-1 dimensions (those of `axis`, when given)."""
    x = lw.jnp.asarray(ins[0])
    axis = node.attrs["axis"]
    if axis is not None:
        axis = tuple(a % x.ndim if x.ndim else a for a in axis)
        if any(x.shape[a] != 1 for a in axis):
            raise Unsupported("squeezes a dimension whose size is not 1")
    return [lw.jnp.squeeze(x, axis)]


def tile(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Tile by the static multiples."""
    multiples = tuple(node.attrs["multiples"])
    if len(multiples) != np.ndim(ins[0]):
        raise Unsupported("has one multiple per dimension only at run time")
    return [lw.jnp.tile(ins[0], multiples)]


def fill(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Fill a shape known at compile time."""
    shape = _static(node.attrs["static_shape"], "the shape")
    value = lw.jnp.asarray(ins[1])
    return [lw.jnp.full(shape, value, dtype=value.dtype)]


def one_hot(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """OneHot, as the kernel computes it: arange(depth) == index, then where."""
    jnp, attrs = lw.jnp, node.attrs
    indices = jnp.asarray(ins[0])
    hot = jnp.arange(attrs["depth"]) == indices[..., None]
    dtype = attrs["dtype"].np_dtype
    out = jnp.where(hot, jnp.asarray(attrs["on_value"]).astype(dtype),
                    jnp.asarray(attrs["off_value"]).astype(dtype))
    if attrs["axis"] != -1:
        out = jnp.moveaxis(out, -1, attrs["axis"])
    return [out]


def _cumulative(lw: Lowerer, node: Any, x: Any, add: bool) -> Any:
    """The running sum (or product) along the node's axis, in numpy's order: out[0] = x[0],
    out[i] = out[i-1] + x[i] (a sequential scan for floats, whose sums XLA would otherwise
    take in another order; integers wrap either way)."""
    jnp, lax = lw.jnp, lw.lax
    x = jnp.asarray(x)
    if x.ndim == 0:
        raise Unsupported("a scalar has no axis")
    axis = node.attrs["axis"] % x.ndim
    if x.dtype.kind not in "iuf":
        raise Unsupported("a cumulative op over %s" % x.dtype)
    exclusive, reverse = node.attrs["exclusive"], node.attrs["reverse"]
    if reverse:
        x = jnp.flip(x, axis)
    if x.shape[axis] == 0:
        out = x
    elif x.dtype.kind in "iu":
        out = (jnp.cumsum if add else jnp.cumprod)(x, axis=axis, dtype=x.dtype)
    else:
        moved = jnp.moveaxis(x, axis, 0)

        def step(total: Any, item: Any) -> Any:
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


def cumsum(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Cumsum (see `_cumulative`)."""
    return [_cumulative(lw, node, ins[0], add=True)]


def cumprod(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """Cumprod (see `_cumulative`)."""
    return [_cumulative(lw, node, ins[0], add=False)]

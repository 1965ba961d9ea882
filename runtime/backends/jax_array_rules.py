""""jax" rules of array ops whose shapes JAX knows at compile time (the static attributes or
the traced input's shape): Unpack, BroadcastTo, Squeeze, Tile, Fill, OneHot, the
cumulative sums and products, the gradient ops, and RealDiv (rounded as numpy rounds it).

Each op names its rule in its own `register` call as
'runtime.backends.jax_array_rules:NAME' (imported with jax, when a graph is lowered). A
rule is `rule(lowerer, node, ins) -> [output values]` (runtime/backends/jax_lowering.py); a
case the kernel would refuse (a shape that does not fit) is declined, so that the numpy
executor raises its error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends import jax_rules
from runtime.backends.jax_lowering import Lowerer
from runtime.lowering_api import Unsupported, is_concrete
from runtime.ops import conv_ops


def _static(shape: Any, what: str) -> tuple[int, ...]:
    if shape is None or None in shape:
        raise Unsupported("%s is known only at run time" % what)
    return tuple(int(d) for d in shape)


def exact_divide(lw: Lowerer, x: Any, y: Any) -> Any:
    """x / y rounded as numpy rounds it. XLA rewrites a division by a broadcast divisor (a
    scalar, a constant) into a multiplication by its rounded reciprocal, an ulp off numpy's
    quotient for about a third of the values; a divisor XLA cannot see as a broadcast (one
    plus a zero it cannot prove zero: the population count of the bits of a traced operand
    xor-ed with an iota, shifted right by 8) keeps the division."""
    jnp, lax = lw.jnp, lw.lax
    x, y = jnp.asarray(x), jnp.asarray(y)
    out = jnp.broadcast_shapes(x.shape, y.shape)
    if y.shape == out or jnp.result_type(x, y).kind != "f" or not out:
        return x / y
    dtype = jnp.result_type(x, y)
    source = jnp.broadcast_to(jnp.asarray(y if is_concrete(x) else x, dtype), out)
    width = {2: jnp.int16, 4: jnp.int32, 8: jnp.int64}[source.dtype.itemsize]
    count = int(np.prod(out))
    bits = lax.bitcast_convert_type(source, width) ^ lax.iota(width, count).reshape(out)
    zero = lax.shift_right_logical(lax.population_count(bits), jnp.asarray(8, width))
    return x / (jnp.broadcast_to(y, out).astype(dtype) + zero.astype(dtype))


def true_divide(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """RealDiv, rounded as numpy's (see `exact_divide`)."""
    return [exact_divide(lw, ins[0], ins[1])]


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


# -- gradient ops (runtime/ops/gradient_ops.py): shapes from the traced operands ------------------


def _target(node: Any, ins: list[Any]) -> tuple[int, ...]:
    """The shape a gradient op restores: its `like` operand's, else its `shape` attribute."""
    if len(ins) > 1:
        return tuple(np.shape(ins[1]))
    return _static(node.attrs["shape"], "the target shape")


def sum_to_shape(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """SumToShape: summed over the broadcast axes, as the kernel picks them."""
    x, shape = ins[0], _target(node, ins)
    have = tuple(np.shape(x))
    if have == shape:
        return [x]
    lead = len(have) - len(shape)
    if lead < 0:
        raise Unsupported("sums to a shape of higher rank")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and have[lead + i] != 1)
    if axes:
        x = lw.jnp.sum(x, axis=axes, keepdims=True)
    if int(np.prod(np.shape(x))) != int(np.prod(shape)):
        raise Unsupported("sums %s to %s" % (have, shape))
    return [lw.jnp.reshape(x, shape)]


def broadcast_like(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """BroadcastLike: broadcast to the target shape."""
    try:
        return [lw.jnp.broadcast_to(ins[0], _target(node, ins))]
    except ValueError as e:
        raise Unsupported("cannot broadcast: %s" % e) from None


def reduce_grad(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """ReduceGrad: the reduced axes restored, broadcast, divided by their size for a mean."""
    g, shape = lw.jnp.asarray(ins[0]), _target(node, ins)
    axis = node.attrs["axis"]
    axes = (tuple(range(len(shape))) if axis is None else
            tuple(sorted(a % len(shape) for a in axis)) if shape else ())
    if not node.attrs["keepdims"]:
        g = lw.jnp.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])
    try:
        out = lw.jnp.broadcast_to(g, shape)
    except ValueError as e:
        raise Unsupported("cannot broadcast: %s" % e) from None
    if node.attrs["mean"]:
        if out.dtype.kind != "f":
            raise Unsupported("the mean's gradient of %s values" % out.dtype)
        count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        out = exact_divide(lw, out, np.asarray(max(count, 1), dtype=out.dtype))
    return [out]


def relu_grad(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """ReluGrad: g where the output is positive, else 0 (g * (y > 0), as the kernel)."""
    g = lw.jnp.asarray(ins[0])
    return [g * (lw.jnp.asarray(ins[1]) > 0).astype(g.dtype)]


def gather_grad(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """GatherGrad: zeros with g added at the indices (repeated ones add up); an index out of
    range fails, as numpy's `add.at` raises."""
    g, params, indices = (lw.jnp.asarray(v) for v in ins)
    rank = params.ndim
    if rank == 0:
        raise Unsupported("gathers from a scalar")
    axis = node.attrs["axis"] % rank
    size = params.shape[axis]
    lw.fail_if((indices < -size) | (indices >= size))
    out = lw.jnp.zeros(params.shape, g.dtype)
    return [out.at[(slice(None),) * axis + (indices,)].add(g)]


def strided_slice_grad(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """StridedSliceGrad: zeros with g at `x[index]`; dynamic indices are scalars checked
    against their dimension, as the forward kernel does (dynamic slice bounds decline)."""
    g, x, dynamic = lw.jnp.asarray(ins[0]), ins[1], ins[2:]
    shape = tuple(np.shape(x))
    index = jax_rules.static_index(lw, node.attrs["spec"], list(dynamic), shape)
    out = lw.jnp.zeros(shape, g.dtype)
    try:
        return [out.at[index].set(g)]
    except (ValueError, TypeError, IndexError) as e:
        raise Unsupported("cannot place the gradient: %s" % e) from None


# -- sorting ------------------------------------------------------------------------------------


def argsort(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """ArgSort along the last axis, stable as the kernel's (descending: ties by ascending
    position). -0.0 and 0.0 tie, as numpy compares them; a NaN defers the call to the numpy
    executor (XLA orders NaNs its own way)."""
    jnp = lw.jnp
    keys = jnp.asarray(ins[0])
    if keys.ndim == 0:
        raise Unsupported("sorts a scalar")
    if keys.dtype.kind == "f":
        lw.fail_if(jnp.isnan(keys))
        keys = jnp.where(keys == 0, jnp.zeros((), keys.dtype), keys)
        if node.attrs["descending"]:
            keys = -keys
    elif keys.dtype.kind in "iu":
        if node.attrs["descending"]:
            keys = ~keys  # order-reversing, without the overflow of -x
    else:
        raise Unsupported("sorts %s values" % keys.dtype)
    return [jnp.argsort(keys, axis=-1, stable=True).astype(jnp.int32)]


def _last_axis_indices(lw: Lowerer, indices: Any, size: int) -> Any:
    """`indices` into a last axis of `size`: out of range fails, negative ones count from
    the end (numpy's)."""
    jnp = lw.jnp
    indices = jnp.asarray(indices)
    lw.fail_if((indices < -size) | (indices >= size))
    return jnp.where(indices < 0, indices + size, indices)


def take_along_last_axis(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """TakeAlongLastAxis: `take_along_axis(x, indices, -1)`."""
    x = lw.jnp.asarray(ins[0])
    if x.ndim == 0:
        raise Unsupported("takes along the last axis of a scalar")
    indices = _last_axis_indices(lw, ins[1], x.shape[-1])
    return [lw.jnp.take_along_axis(x, indices, axis=-1, mode="clip")]


def top_k_grad(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """TopKGrad: zeros of x's shape with g put at the (distinct, top_k's) indices."""
    g, x = lw.jnp.asarray(ins[0]), lw.jnp.asarray(ins[2])
    if x.ndim == 0:
        raise Unsupported("puts along the last axis of a scalar")
    indices = _last_axis_indices(lw, ins[1], x.shape[-1])
    out = lw.jnp.zeros(x.shape, g.dtype)
    return [lw.jnp.put_along_axis(out, indices, g, axis=-1, inplace=False, mode="clip")]


def max_pool(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """MaxPool (NHWC): the maximum of each window, padded with -inf as the kernel pads (a NaN
    in a window gives NaN, as numpy's max does)."""
    jnp, lax = lw.jnp, lw.lax
    x = jnp.asarray(ins[0])
    ksize, strides = tuple(node.attrs["ksize"]), tuple(node.attrs["strides"])
    attrs = {"strides": strides, "dilations": (1, 1), "padding": node.attrs["padding"]}
    (oh, top, bottom), (ow, left, right) = conv_ops._geometry(x.shape, ksize, attrs)
    if x.ndim != 4 or 0 in x.shape or not oh or not ow:
        raise Unsupported("pools an empty image")
    low = jnp.asarray(-np.inf, x.dtype)
    out = lax.reduce_window(x, low, lax.max, (1,) + ksize + (1,), (1,) + strides + (1,),
                            [(0, 0), (top, bottom), (left, right), (0, 0)])
    windows_nan = lax.reduce_window(jnp.isnan(x), False, lax.bitwise_or, (1,) + ksize + (1,),
                                    (1,) + strides + (1,),
                                    [(0, 0), (top, bottom), (left, right), (0, 0)])
    return [jnp.where(windows_nan, jnp.asarray(np.nan, x.dtype), out)]

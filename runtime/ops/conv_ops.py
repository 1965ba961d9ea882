"""Convolution and pooling over NHWC images: conv2d (Conv2D), conv1d (a Conv2D over a
height-1 image, as TensorFlow computes it), max_pool2d (MaxPool) and avg_pool2d (AvgPool).

Padding 'VALID' uses whole windows only; 'SAME' pads so that the output has
ceil(size / stride) positions, the extra padding going after (TensorFlow's rule). Average
pooling divides by the number of real (unpadded) elements in each window; max pooling's
gradient goes to the first maximum of each window.
"""

import numpy as np

from runtime import lowering_api
from runtime.ops import reshape_ops
from runtime.ops.common import FLOAT, SpecError, convert_to_tensor, require_kind, require_same_dtype
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


def _pair(value, what):
    """(h, w) from an int, a pair, or a 4-list in NHWC order (whose N and C must be 1)."""
    values = [int(value)] * 2 if np.ndim(value) == 0 else [int(v) for v in value]
    if len(values) == 4:
        if values[0] != 1 or values[3] != 1:
            raise ValueError("%s over the batch or channel dimension is not supported: %r"
                             % (what, value))
        values = values[1:3]
    if len(values) == 1:
        values = values * 2
    if len(values) != 2 or min(values) < 1:
        raise ValueError("%s must be positive: an int, 2 or 4 values, got %r" % (what, value))
    return tuple(values)


def _out_and_padding(size, window, stride, dilation, padding):
    """(output size, padding before, padding after) of one spatial dimension."""
    span = (window - 1) * dilation + 1
    if padding == "VALID":
        return max((size - span) // stride + 1, 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _geometry(shape, window, attrs):
    """[(out, before, after)] for height and width (None entries where the size is unknown)."""
    result = []
    for k in range(2):
        size = shape[1 + k]
        if size is None:
            result.append((None, 0, 0))
        else:
            result.append(_out_and_padding(size, window[k], attrs["strides"][k],
                                           attrs.get("dilations", (1, 1))[k], attrs["padding"]))
    return result


def _require_image(shape, what):
    if shape is not None and len(shape) != 4:
        raise SpecError("shape", "%s must have rank 4 (NHWC)" % what)


def _windows(x, window, attrs, fill):
    """(N, OH, OW, C, KH, KW) windows of padded x (a strided view: no copy but the pad)."""
    (_, top, bottom), (_, left, right) = _geometry(x.shape, window, attrs)
    if top or bottom or left or right:
        x = np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=fill)
    (dh, dw), (sh, sw) = attrs["dilations"], attrs["strides"]
    span = ((window[0] - 1) * dh + 1, (window[1] - 1) * dw + 1)
    if x.shape[1] < span[0] or x.shape[2] < span[1]:
        shape = (x.shape[0], 0, 0, x.shape[3]) + tuple(window)
        return np.zeros(shape, x.dtype), (top, left)
    view = np.lib.stride_tricks.sliding_window_view(x, span, axis=(1, 2))
    return view[:, ::sh, ::sw, :, ::dh, ::dw], (top, left)


# -- conv2d -----------------------------------------------------------------------------------


def _conv_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, FLOAT)
    (_, x), (_, f) = specs
    _require_image(x, "input")
    if f is not None and len(f) != 4:
        raise SpecError("shape", "filters must have rank 4 (height, width, in, out)")
    if x is None or f is None:
        return [(dtype, None)]
    if x[3] is not None and f[2] is not None and x[3] != f[2]:
        raise SpecError("shape", "input has %d channels but filters expect %d" % (x[3], f[2]))
    if None in f[:2]:
        return [(dtype, (x[0], None, None, f[3]))]
    (oh, _, _), (ow, _, _) = _geometry(x, f[:2], attrs)
    return [(dtype, (x[0], oh, ow, f[3]))]


def _offsets(x, window, attrs):
    """The padded x, and for each window offset (i, j) the index of the input positions it
    meets at every output position. A convolution is then one matmul per offset, about
    four times faster than a tensordot over a copied window view."""
    (oh, top, bottom), (ow, left, right) = _geometry(x.shape, window, attrs)
    if top or bottom or left or right:
        x = np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)])
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    offsets = {(i, j): np.s_[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                             j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
               for i in range(window[0]) for j in range(window[1])}
    return x, offsets, (oh, ow), (top, left)


def _conv_kernel(x, f, strides, dilations, padding):
    attrs = {"strides": strides, "dilations": dilations, "padding": padding}
    padded, offsets, (oh, ow), _ = _offsets(x, f.shape[:2], attrs)
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]), dtype=x.dtype)
    if oh > 0 and ow > 0:
        for (i, j), index in offsets.items():
            out += padded[index] @ f[i, j]
    return out


def _conv_input_grad_kernel(g, x, f, strides, dilations, padding):
    attrs = {"strides": strides, "dilations": dilations, "padding": padding}
    padded, offsets, (oh, ow), (top, left) = _offsets(np.zeros_like(x, dtype=g.dtype),
                                                      f.shape[:2], attrs)
    if oh > 0 and ow > 0:
        for (i, j), index in offsets.items():
            padded[index] += g @ f[i, j].T
    return padded[:, top:top + x.shape[1], left:left + x.shape[2], :]


def _conv_filter_grad_kernel(g, x, f, strides, dilations, padding):
    attrs = {"strides": strides, "dilations": dilations, "padding": padding}
    padded, offsets, (oh, ow), _ = _offsets(x, f.shape[:2], attrs)
    grad = np.zeros(f.shape, dtype=f.dtype)
    if oh > 0 and ow > 0:
        rows = g.reshape(-1, g.shape[-1])
        for (i, j), index in offsets.items():
            grad[i, j] = padded[index].reshape(-1, x.shape[-1]).T @ rows
    return grad


def _conv_grad(ctx, grads):
    g, x, f = grads[0], ctx.input(0), ctx.input(1)
    return [execute1(OPS["Conv2DBackpropInput"], [g, x, f], ctx.attrs) if ctx.needed[0]
            else None,
            execute1(OPS["Conv2DBackpropFilter"], [g, x, f], ctx.attrs) if ctx.needed[1]
            else None]


def _like_input(i):
    return lambda specs, attrs: [specs[i]]


OPS["Conv2D"] = register("Conv2D", _conv_kernel, _conv_infer, grad=_conv_grad,
                         emit=KERNEL_CALL,
                         lowerings=_NOT_LOWERED)


def _input_grad_grad(ctx, grads):
    """BackpropInput(g, x, f) is linear in g and in f (x gives only the shape)."""
    h, g, f = grads[0], ctx.input(0), ctx.input(2)
    return [execute1(OPS["Conv2D"], [h, f], ctx.attrs) if ctx.needed[0] else None, None,
            execute1(OPS["Conv2DBackpropFilter"], [g, h, f], ctx.attrs) if ctx.needed[2]
            else None]


def _filter_grad_grad(ctx, grads):
    """BackpropFilter(g, x, f) is linear in g and in x (f gives only the shape)."""
    h, g, x = grads[0], ctx.input(0), ctx.input(1)
    return [execute1(OPS["Conv2D"], [x, h], ctx.attrs) if ctx.needed[0] else None,
            execute1(OPS["Conv2DBackpropInput"], [g, x, h], ctx.attrs) if ctx.needed[1]
            else None, None]


OPS["Conv2DBackpropInput"] = register("Conv2DBackpropInput", _conv_input_grad_kernel,
                                      _like_input(1), grad=_input_grad_grad, emit=KERNEL_CALL,
                                      lowerings=lowering_api.GRADIENTS_ON_HOST)
OPS["Conv2DBackpropFilter"] = register("Conv2DBackpropFilter", _conv_filter_grad_kernel,
                                       _like_input(2), grad=_filter_grad_grad,
                                       emit=KERNEL_CALL,
                                       lowerings=lowering_api.GRADIENTS_ON_HOST)


def _padding(padding):
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    return padding.upper()


def _data_format(data_format, allowed):
    if data_format not in allowed:
        raise ValueError("data_format %r is not supported (only %s)"
                         % (data_format, " or ".join(repr(a) for a in allowed)))


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """2-D convolution (cross-correlation, as TensorFlow's) of NHWC `input` with `filters`
    [height, width, in_channels, out_channels]."""
    _data_format(data_format, ("NHWC",))
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    attrs = {"strides": _pair(strides, "strides"),
             "dilations": _pair(1 if dilations is None else dilations, "dilations"),
             "padding": _padding(padding)}
    if attrs["strides"] != (1, 1) and attrs["dilations"] != (1, 1):
        raise ValueError("conv2d: strides and dilations cannot both be above 1")
    return execute1(OPS["Conv2D"], [x, f], attrs, name=name)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """1-D convolution of NWC `input` with `filters` [width, in_channels, out_channels]."""
    _data_format(data_format, ("NWC",))
    x = reshape_ops.expand_dims(convert_to_tensor(input), 1)
    f = reshape_ops.expand_dims(convert_to_tensor(filters, dtype_hint=x.dtype), 0)
    stride = [int(stride)] if np.ndim(stride) == 0 else list(stride)
    if len(stride) == 3:
        stride = stride[1:2]
    dilation = [1] if dilations is None else (
        [int(dilations)] if np.ndim(dilations) == 0 else list(dilations)[-2:-1] or [1])
    out = conv2d(x, f, [1, stride[0]], padding, dilations=[1, dilation[0]])
    return reshape_ops.squeeze(out, [1], name=name)


# -- pooling ----------------------------------------------------------------------------------


def _pool_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, FLOAT)
    _require_image(shape, "input")
    if shape is None:
        return [(dtype, None)]
    (oh, _, _), (ow, _, _) = _geometry(shape, attrs["ksize"], attrs)
    return [(dtype, (shape[0], oh, ow, shape[3]))]


def _pool_attrs(attrs):
    return {"strides": attrs["strides"], "dilations": (1, 1), "padding": attrs["padding"]}


def _max_pool_kernel(x, ksize, strides, padding):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    windows, _ = _windows(x, ksize, _pool_attrs(attrs), -np.inf)
    return windows.max(axis=(4, 5)) if windows.size else windows[..., 0, 0]


def _counts(x, ksize, attrs):
    ones = np.ones((1,) + x.shape[1:3] + (1,), dtype=x.dtype)
    windows, _ = _windows(ones, ksize, attrs, 0)
    return windows.sum(axis=(4, 5))


def _avg_pool_kernel(x, ksize, strides, padding):
    attrs = _pool_attrs({"strides": strides, "padding": padding})
    windows, _ = _windows(x, ksize, attrs, 0)
    return (windows.sum(axis=(4, 5)) / _counts(x, ksize, attrs)).astype(x.dtype)


def _scatter_windows(x, ksize, attrs, contribution):
    """The gradient of a pooling op: `contribution(i, j)` (N, OH, OW, C) added at window
    offset (i, j) of every window, then cropped to x's shape."""
    (oh, top, bottom), (ow, left, right) = _geometry(x.shape, ksize, attrs)
    out = np.zeros((x.shape[0], x.shape[1] + top + bottom, x.shape[2] + left + right,
                    x.shape[3]), dtype=x.dtype)
    sh, sw = attrs["strides"]
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            out[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :] += contribution(i, j)
    return out[:, top:top + x.shape[1], left:left + x.shape[2], :]


def _max_pool_grad_kernel(g, x, y, ksize, strides, padding):
    attrs = _pool_attrs({"strides": strides, "padding": padding})
    windows, _ = _windows(x, ksize, attrs, -np.inf)
    taken = np.zeros(y.shape, dtype=bool)

    def first_maximum(i, j):
        hit = (windows[..., i, j] == y) & ~taken
        taken[...] |= hit
        return np.where(hit, g, 0)
    return _scatter_windows(x, ksize, attrs, first_maximum)


def _avg_pool_grad_kernel(g, x, ksize, strides, padding):
    attrs = _pool_attrs({"strides": strides, "padding": padding})
    share = g / _counts(x, ksize, attrs)
    return _scatter_windows(x, ksize, attrs, lambda i, j: share)


def _max_pool_jax(lw, node, ins):
    """MaxPool (NHWC): the maximum of each window, padded with -inf as the kernel pads (a NaN
    in a window gives NaN, as numpy's max does)."""
    jnp, lax = lw.jnp, lw.lax
    x = jnp.asarray(ins[0])
    ksize, strides = tuple(node.attrs["ksize"]), tuple(node.attrs["strides"])
    attrs = {"strides": strides, "dilations": (1, 1), "padding": node.attrs["padding"]}
    (oh, top, bottom), (ow, left, right) = _geometry(x.shape, ksize, attrs)
    if x.ndim != 4 or 0 in x.shape or not oh or not ow:
        raise lowering_api.Unsupported("pools an empty image")
    low = jnp.asarray(-np.inf, x.dtype)
    out = lax.reduce_window(x, low, lax.max, (1,) + ksize + (1,), (1,) + strides + (1,),
                            [(0, 0), (top, bottom), (left, right), (0, 0)])
    windows_nan = lax.reduce_window(jnp.isnan(x), False, lax.bitwise_or, (1,) + ksize + (1,),
                                    (1,) + strides + (1,),
                                    [(0, 0), (top, bottom), (left, right), (0, 0)])
    return [jnp.where(windows_nan, jnp.asarray(np.nan, x.dtype), out)]


OPS["MaxPool"] = register(
    "MaxPool", _max_pool_kernel, _pool_infer, emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["MaxPoolGrad"],
                                      [grads[0], ctx.input(0), ctx.output(0)], ctx.attrs)],
    lowerings=dict(_NOT_LOWERED, jax=_max_pool_jax))
OPS["AvgPool"] = register(
    "AvgPool", _avg_pool_kernel, _pool_infer, emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["AvgPoolGrad"], [grads[0], ctx.input(0)],
                                      ctx.attrs)],
    lowerings=_NOT_LOWERED)


def _max_pool_grad_grad_kernel(h, x, y, ksize, strides, padding):
    """The gradient of MaxPoolGrad with respect to g: h at each window's first maximum."""
    attrs = _pool_attrs({"strides": strides, "padding": padding})
    windows, _ = _windows(x, ksize, attrs, -np.inf)
    (_, top, bottom), (_, left, right) = _geometry(x.shape, ksize, attrs)
    h_windows, _ = _windows(np.pad(h, [(0, 0), (top, bottom), (left, right), (0, 0)]), ksize,
                            dict(attrs, padding="VALID"), 0)
    taken = np.zeros(y.shape, dtype=bool)
    out = np.zeros(y.shape, dtype=h.dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            hit = (windows[..., i, j] == y) & ~taken
            taken |= hit
            out += np.where(hit, h_windows[..., i, j], 0)
    return out


OPS["MaxPoolGrad"] = register(
    "MaxPoolGrad", _max_pool_grad_kernel, _like_input(1), emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["MaxPoolGradGrad"],
                                      [grads[0], ctx.input(1), ctx.input(2)], ctx.attrs),
                             None, None],
    lowerings=lowering_api.GRADIENTS_ON_HOST)
OPS["MaxPoolGradGrad"] = register("MaxPoolGradGrad", _max_pool_grad_grad_kernel,
                                  _like_input(2), grad=NO_GRADIENT, emit=KERNEL_CALL,
                                  lowerings=lowering_api.GRADIENTS_ON_HOST)
OPS["AvgPoolGrad"] = register(
    "AvgPoolGrad", _avg_pool_grad_kernel, _like_input(1), emit=KERNEL_CALL,
    grad=lambda ctx, grads: [execute1(OPS["AvgPool"], [grads[0]], ctx.attrs), None],
    lowerings=lowering_api.GRADIENTS_ON_HOST)


def _pool(op_name, input, ksize, strides, padding, data_format, name):  # noqa: A002
    _data_format(data_format, ("NHWC",))
    attrs = {"ksize": _pair(ksize, "ksize"), "strides": _pair(strides, "strides"),
             "padding": _padding(padding)}
    return execute1(OPS[op_name], [convert_to_tensor(input)], attrs, name=name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The maximum of each ksize window of NHWC `input`, moved by `strides`."""
    return _pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The mean of each ksize window of NHWC `input` (padding not counted)."""
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name)

"""Reductions (sum, prod, mean, max, min, any, all) and argmax/argmin.

Each op is declared with its kernel, inference rule, emit rule, gradient and lowerings side
by side; the functions below it are the public API (`tf.reduce_sum`, ...). The gradient ops
of the reductions (ReduceGrad, ProdOthers) are declared here too, with `reduce_grad`, the
helper that emits ReduceGrad.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    attr_types,
    batching,
    common,
    gradient_ops,
    math_lowerings,
    math_ops,
    numba_lowerings,
)
from runtime.ops.common import NUMERIC, REAL, convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_loops,
    axis_of,
    close_axis_loops,
    dims,
    finish,
    product,
    shape_tuple,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, NOT_DIFFERENTIABLE, execute1, register

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}


OPS = {}
_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE


# -- reductions -----------------------------------------------------------------------------


def _reduce_infer(kinds, result_dtype=None):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, kinds)
        axis, keepdims = attrs["axis"], attrs["keepdims"]
        if shape is None:  # unknown rank: only a full reduction has a known shape, ()
            full = axis is None and not keepdims
            return [(result_dtype or dtype, () if full else None)]
        rank = len(shape)
        if axis is None:
            axes = set(range(rank))
        else:
            axes = {common.normalize_axis(a, rank) for a in axis}
        if keepdims:
            out = tuple(1 if i in axes else d for i, d in enumerate(shape))
        else:
            out = tuple(d for i, d in enumerate(shape) if i not in axes)
        return [(result_dtype or dtype, out)]
    return infer


def _reduce_kernel(func):
    def kernel(x, axis, keepdims):
        return func(x, axis=axis, keepdims=keepdims, dtype=np.asarray(x).dtype)
    return kernel


def _mean_kernel(x, axis, keepdims):
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        count = x.size // max(np.size(total), 1) if x.size else 1
        return (np.trunc(total / count)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _extreme_kernel(func):
    def kernel(x, axis, keepdims):
        if np.size(x) == 0:
            raise ValueError("reduction over an empty tensor has no identity")
        return func(x, axis=axis, keepdims=keepdims)
    return kernel


def _bool_kernel(func):
    def kernel(x, axis, keepdims):
        return func(x, axis=axis, keepdims=keepdims)
    return kernel


def _ufunc_reduce_emit(ufunc, fixed_dtype):
    """`np.<ufunc>.reduce(x, axis)`: what the kernel's np.sum / np.max ... computes, without
    their Python-level dispatch. With `fixed_dtype` (Sum, Prod) the accumulator dtype is the
    input's, written into the code (`np.float32`) where the kernel asks the value for it.
    Max and Min keep the kernel unless the static shape shows the input is not empty (the
    kernel's check for an empty input could fail)."""
    def emit(outs, ins, attrs, emitter):
        x = ins[0]
        if not fixed_dtype and not shape_lib.num_elements(x.shape):  # unknown or empty
            return None
        args = [x, repr(attrs["axis"])]
        if fixed_dtype:
            if not hasattr(np, x.dtype.np_dtype.name):  # bfloat16 is ml_dtypes', not numpy's
                return None
            args.append("np." + x.dtype.np_dtype.name)
        if attrs["keepdims"]:
            args.append("keepdims=True")
        return "%s = np.%s.reduce(%s)" % (outs[0], ufunc, ", ".join(args))
    return emit


def _sum_grad(ctx, grads):
    return [reduce_grad(grads[0], like_input(ctx, 0), ctx.attrs["axis"],
                        ctx.attrs["keepdims"])]


def _mean_grad(ctx, grads):
    return [reduce_grad(grads[0], like_input(ctx, 0), ctx.attrs["axis"],
                        ctx.attrs["keepdims"], mean=True)]


def _extreme_grad(ctx, grads):
    """Max/Min: the gradient is shared equally by the elements equal to the extreme."""
    x = ctx.input(0)
    axis, keepdims = ctx.attrs["axis"], ctx.attrs["keepdims"]
    spread = reduce_grad(ctx.output(0), x, axis, keepdims)
    hits = math_ops.cast(math_ops.equal(x, spread), x.dtype)
    count = reduce_grad(reduce_sum(hits, axis, keepdims), x, axis, keepdims)
    return [math_ops.multiply(reduce_grad(grads[0], x, axis, keepdims),
                              math_ops.truediv(hits, count))]


def _prod_grad(ctx, grads):
    x = ctx.input(0)
    axis, keepdims = ctx.attrs["axis"], ctx.attrs["keepdims"]
    others = execute1(PROD_OTHERS, [x], {"axis": axis})
    return [math_ops.multiply(reduce_grad(grads[0], x, axis, keepdims), math_ops.conj(others))]


_REDUCTIONS = {
    # op name: (kernel, dtype kinds, emit rule, gradient)
    "Sum": (_reduce_kernel(np.sum), NUMERIC, _ufunc_reduce_emit("add", True),
            _sum_grad),
    "Prod": (_reduce_kernel(np.prod), NUMERIC, _ufunc_reduce_emit("multiply", True),
             _prod_grad),
    "Mean": (_mean_kernel, NUMERIC, _CALL, _mean_grad),
    "Max": (_extreme_kernel(np.max), REAL, _ufunc_reduce_emit("maximum", False),
            _extreme_grad),
    "Min": (_extreme_kernel(np.min), REAL, _ufunc_reduce_emit("minimum", False),
            _extreme_grad),
    "Any": (_bool_kernel(np.any), {"bool"}, _CALL, _NONE),
    "All": (_bool_kernel(np.all), {"bool"}, _CALL, _NONE),
}


def _reduction_lowerings(name):
    """`xp.<function>(x, axis=..., keepdims=...)`. numba's reductions take no axis nor
    keepdims: its rule reduces the whole tensor with one call, or, for some axes (of a shape
    known statically or at run time), moves them last and reduces each row in a loop. Max
    and Min check, like their kernel, that the input is not empty."""
    function = {"Sum": "sum", "Prod": "prod", "Mean": "mean", "Max": "max", "Min": "min",
                "Any": "any", "All": "all"}[name]

    def numba_rule(lowerer, node, ins, outs):
        x, out = ins[0], outs[0]
        if x.shape is None:
            raise lowering_api.Unsupported("a reduction of unknown rank")
        rank = len(x.shape)
        axis = node.attrs["axis"]
        axes = tuple(range(rank)) if axis is None else tuple(sorted(
            {a % rank for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}))
        if not axes or x.rank0:
            lowerer.assign(out, x)
            return
        if name in ("Max", "Min") and not shape_lib.num_elements(x.shape):
            lowerer.check("%s.size == 0" % x, ValueError,
                          "reduction over an empty tensor has no identity")
        # numpy adds floats pairwise along the innermost axes it reduces, in order along
        # outer ones: numba's np.sum adds in order, so trailing axes use numpy's pairwise sum
        # (under 8 elements numpy adds in order too, and np.sum is cheaper to call)
        size = shape_lib.num_elements(x.shape)
        pairwise = (name in ("Sum", "Mean") and x.dtype.is_floating
                    and axes == tuple(range(rank - len(axes), rank))
                    and (size is None or size >= 8))
        reduce = "xp.%s({0})" % function
        if pairwise:
            reduce = "numba_math.pairwise_sum({0})"
            if name == "Mean":
                reduce += " / xp.%s({0}.size)" % x.dtype.np_dtype.name
        if len(axes) == rank and not node.attrs["keepdims"]:
            lowerer.assign(out, reduce.format(x))
            return
        parts = numba_lowerings.dims(x)
        kept = [a for a in range(rank) if a not in axes]
        rows = numba_lowerings.product([parts[a] for a in kept])
        length = numba_lowerings.product([parts[a] for a in axes])
        kept_parts = [("1" if a in axes else parts[a]) for a in range(rank)
                      if a not in axes or node.attrs["keepdims"]]
        result = None if name != "Sum" else numba_lowerings.sum_leading_axes(
            lowerer, x, out, axes, length, rows)
        if result is not None:
            numba_lowerings.finish(lowerer, out, result, kept_parts)
            return
        moved = lowerer.fresh("t")
        lowerer.line("%s = xp.ascontiguousarray(%s).reshape((%s, %s))" % (
            moved, numba_lowerings.transposed(x, tuple(kept) + axes), rows, length))
        result = lowerer.fresh("r")
        row = lowerer.fresh("j")
        lowerer.line("%s = xp.empty(%s, xp.%s)" % (
            result, rows, "bool_" if out.dtype is dtypes.bool_ else out.dtype.np_dtype.name))
        lowerer.line("for %s in range(%s):" % (row, rows))
        with lowerer.block():
            lowerer.line("%s[%s] = %s" % (
                result, row, reduce.format("%s[%s]" % (moved, row))))
        numba_lowerings.finish(lowerer, out, result, kept_parts)
    return {"array": "xp.%s({0}, axis={axis}, keepdims={keepdims})" % function,
            "numba": numba_rule}


for _name, (_kernel, _kinds, _emit, _grad) in _REDUCTIONS.items():
    OPS[_name] = register(_name, _kernel, _reduce_infer(_kinds), grad=_grad, emit=_emit,
                          lowerings=_reduction_lowerings(_name),
                          traits=("may_raise",) if _name in ("Max", "Min") else ())


def _reduce(op_name, x, axis, keepdims, name):
    x = convert_to_tensor(x)
    axis = common.static_int_list(axis, "axis")
    return execute1(OPS[op_name], [x], {"axis": axis, "keepdims": bool(keepdims)}, name=name)


@dispatchable
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum of elements along `axis` (all axes when None)."""
    return _reduce("Sum", input_tensor, axis, keepdims, name)


@dispatchable
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product of elements along `axis`."""
    return _reduce("Prod", input_tensor, axis, keepdims, name)


@dispatchable
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean along `axis`; integer tensors give the truncated integer mean, as in TF."""
    return _reduce("Mean", input_tensor, axis, keepdims, name)


@dispatchable
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum along `axis`."""
    return _reduce("Max", input_tensor, axis, keepdims, name)


@dispatchable
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum along `axis`."""
    return _reduce("Min", input_tensor, axis, keepdims, name)


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64,  # noqa: A002
                  name=None):
    """The number of elements that are not zero (not False, not the empty string) over
    `axis` (all elements when None), as `dtype`."""
    x = convert_to_tensor(input)
    zero = math_ops.cast(0, x.dtype) if x.dtype != dtypes.string else convert_to_tensor("")
    nonzero = math_ops.cast(math_ops.not_equal(x, zero), dtypes.int64)
    total = reduce_sum(nonzero, axis, bool(keepdims))
    return math_ops.cast(total, dtypes.as_dtype(dtype), name=name)


@dispatchable
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or along `axis`."""
    return _reduce("Any", input_tensor, axis, keepdims, name)


@dispatchable
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and along `axis`."""
    return _reduce("All", input_tensor, axis, keepdims, name)


# -- argmax / argmin ------------------------------------------------------------------------


def _arg_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, REAL)
    if shape is None:
        return [(attrs["output_type"], None)]
    axis = common.normalize_axis(attrs["axis"], len(shape))
    return [(attrs["output_type"], shape[:axis] + shape[axis + 1:])]


def _arg_kernel(func):
    def kernel(x, axis, output_type):
        return func(x, axis=axis).astype(output_type.np_dtype)
    return kernel


def _argmax_jax(lw, node, ins):
    """ArgMax."""
    return [lw.jnp.argmax(ins[0], axis=node.attrs["axis"])]


def _arg_extreme_numba(function):
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
        a, b = axis_loops(lowerer, before, after)
        lowerer.line("%s[%s, %s] = np.%s(%s[%s, :, %s])" % (result, a, b, function, array, a,
                                                          b))
        close_axis_loops(lowerer)
        finish(lowerer, outs[0], result, parts[:axis] + parts[axis + 1:])
    return rule


OPS["ArgMax"] = register("ArgMax", _arg_kernel(np.argmax), _arg_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                         lowerings=dict(_NOT_LOWERED, jax=_argmax_jax,
                                        numba=_arg_extreme_numba("argmax")))


def _argmin_jax(lw, node, ins):
    """ArgMin."""
    return [lw.jnp.argmin(ins[0], axis=node.attrs["axis"])]


OPS["ArgMin"] = register("ArgMin", _arg_kernel(np.argmin), _arg_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                         lowerings=dict(_NOT_LOWERED, jax=_argmin_jax,
                                        numba=_arg_extreme_numba("argmin")))


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along `axis` (0 when None), as int64 by default."""
    return execute1(OPS["ArgMax"], [convert_to_tensor(input)],
                    {"axis": 0 if axis is None else int(axis),
                     "output_type": dtypes.as_dtype(output_type)}, name=name)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along `axis` (0 when None), as int64 by default."""
    return execute1(OPS["ArgMin"], [convert_to_tensor(input)],
                    {"axis": 0 if axis is None else int(axis),
                     "output_type": dtypes.as_dtype(output_type)}, name=name)



# -- the gradient ops of the reductions ----------------------------------------------------
# ReduceGrad (the gradient of Sum and Mean: `g` with the reduced axes restored, broadcast to
# `like`'s shape, divided by the number of reduced elements for Mean) and ProdOthers (for each
# element, the product of the other elements of its reduced group: the gradient of Prod, exact
# where elements are zero).


def _reduced_axes(rank, axis):
    if axis is None:
        return tuple(range(rank))
    return tuple(sorted(a % rank for a in axis)) if rank else ()


def _reduce_grad_kernel(g, *like, axis, keepdims, mean, shape):
    shape = gradient_ops.target_shape(like, shape)
    axes = _reduced_axes(len(shape), axis)
    if not keepdims:
        g = np.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])
    out = np.broadcast_to(g, shape)
    if mean:
        count = 1
        for a in axes:
            count *= shape[a]
        out = out / np.asarray(max(count, 1), dtype=out.dtype)
    return out


def _prod_others_kernel(x, axis):
    x = np.asarray(x)
    rank = x.ndim
    axes = _reduced_axes(rank, axis)
    keep = [a for a in range(rank) if a not in axes]
    perm = keep + list(axes)
    moved = np.transpose(x, perm)
    group = moved.shape[len(keep):]
    flat = moved.reshape(moved.shape[:len(keep)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(moved.shape[:len(keep)] + group)
    return np.transpose(others, np.argsort(perm))


def reduce_grad(g, like, axis, keepdims, mean=False):
    """The gradient of Sum/Mean: `g` spread back over `like`'s shape (`like` may be a
    function giving the tensor, called only when its shape is not static)."""
    shape = like.shape_hint if isinstance(like, _Like) else like._shape_tuple()
    return gradient_ops.shaped(REDUCE_GRAD, g, like, shape,
                               {"axis": axis, "keepdims": bool(keepdims), "mean": bool(mean)})


class _Like:
    """A tensor known by its static shape, made only if that shape is not fully known."""

    def __init__(self, shape_hint, make):
        self.shape_hint = shape_hint
        self._make = make

    def __call__(self):
        return self._make()


def like_input(ctx, i):
    """Input `i` of an op as the `like` of `reduce_grad`."""
    return _Like(ctx.input_shape(i), lambda: ctx.input(i))


def _reduce_grad_grad(ctx, grads):
    attrs = ctx.attrs
    reduce = reduce_mean if attrs["mean"] else reduce_sum
    return [reduce(grads[0], attrs["axis"], attrs["keepdims"])] + [None] * (
        len(ctx.needed) - 1)


def _reduce_grad_jax(lw, node, ins):
    """ReduceGrad: the reduced axes restored, broadcast, divided by their size for a mean."""
    g, shape = lw.jnp.asarray(ins[0]), gradient_ops.target_shape_jax(node, ins)
    axis = node.attrs["axis"]
    axes = (tuple(range(len(shape))) if axis is None else
            tuple(sorted(a % len(shape) for a in axis)) if shape else ())
    if not node.attrs["keepdims"]:
        g = lw.jnp.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])
    try:
        out = lw.jnp.broadcast_to(g, shape)
    except ValueError as e:
        raise lowering_api.Unsupported("cannot broadcast: %s" % e) from None
    if node.attrs["mean"]:
        if out.dtype.kind != "f":
            raise lowering_api.Unsupported("the mean's gradient of %s values" % out.dtype)
        count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        out = math_lowerings.exact_divide_jax(lw, out,
                                              np.asarray(max(count, 1), dtype=out.dtype))
    return [out]


def _reduce_grad_numba(lowerer, node, ins, outs):
    """ReduceGrad: the gradient `g` with its reduced axes restored, broadcast to the target
    shape (divided by the number of reduced elements for a Mean of floats)."""
    g, out = ins[0], outs[0]
    target = gradient_ops.target_shape_numba(lowerer, node, ins)
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


REDUCE_GRAD = register("ReduceGrad", _reduce_grad_kernel, gradient_ops.like_infer,
                       grad=_reduce_grad_grad, emit=KERNEL_CALL,
                       traits=("view",),
                       lowerings=dict(gradient_ops.lowered_on_jax(_reduce_grad_jax),
                                      numba=_reduce_grad_numba),
                       attr_types={"mean": attr_types.BOOL})


PROD_OTHERS = register("ProdOthers", _prod_others_kernel, lambda specs, attrs: [specs[0]],
                       grad=NO_GRADIENT, emit=KERNEL_CALL,
                       lowerings=lowering_api.GRADIENTS_ON_HOST)


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _batched_axes(axis, rank):
    """A reduction's `axis` attribute (None: all) over an example of rank `rank`, as axes
    of the batch."""
    return tuple(a + 1 for a in _reduced_axes(rank, axis))


def _reduction_batched(batcher, node, args, batched):
    axes = _batched_axes(node.attrs["axis"], batcher.rank(args[0], True))
    return batcher.rerun(node, args, dict(node.attrs, axis=axes))


def _reduce_grad_batched(batcher, node, args, batched):
    shape = node.attrs["shape"]
    if len(args) > 1:
        if batched[1]:
            batcher.unbatchable("ReduceGrad towards a batched shape")
        like_shape = batcher.example_shape(args[1], False)
        rank = len(like_shape)
        if None in like_shape:  # the target's shape known at run time: repeated `like`
            axes = _batched_axes(node.attrs["axis"], rank)
            return [execute1(REDUCE_GRAD, [args[0], batcher.batch(args[1])],
                             dict(node.attrs, axis=axes))]
        shape = like_shape
    axes = _batched_axes(node.attrs["axis"], len(shape))
    return [execute1(REDUCE_GRAD, [args[0]], dict(node.attrs, axis=axes,
                                                  shape=(batcher.size,) + tuple(shape)))]


for _name in _REDUCTIONS:
    batching.declare(OPS[_name], _reduction_batched)
batching.declare(REDUCE_GRAD, _reduce_grad_batched)

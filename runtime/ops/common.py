"""Helpers shared by op declarations: tensor conversion, static values and inference rules.

Tensor conversion packs lists of tensors, so the ops it needs are declared here too: Pack
(`tf.stack`), its inverse Unpack and the ZerosLike/OnesLike that Unpack's gradient fills in,
each with its gradient rule by reference.
"""

import numpy as np

from runtime import context, dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import batching, registry
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.numba_lowerings import as_3d, axis_of, dims, finish
from runtime.ops.registry import SpecError
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Returns `value` as a Tensor: tensors pass through (dtype-checked), variables are read,
    Python and numpy values become constants (eager tensors, or Const nodes in a trace)."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError("expected a %s tensor, got %s tensor %s"
                            % (dtypes.as_dtype(dtype).name, value.dtype.name, _short(value)))
        return value
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return stack([convert_to_tensor(_cast_packed(v, dtype), dtype, dtype_hint)
                      for v in value])
    if dtype is None and dtype_hint is not None and not isinstance(value, (np.ndarray, np.generic)):
        try:
            array, dt = to_numpy(value, dtype_hint)
        except TypeError:
            array, dt = to_numpy(value)
    else:
        array, dt = to_numpy(value, dtype)
    return constant_from_numpy(array, dt, name)


def _cast_packed(value, dtype):
    """An element of a Python list packed into a tensor of `dtype`: a tensor of another dtype
    is cast, as TensorFlow packs `tf.concat((v, [i]), 0)` with an int64 `i` and an int32 `v`
    (a tensor given alone must have the dtype asked for)."""
    if dtype is None:
        return value
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        value = as_tensor()
    dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) and value.dtype is not dtype:
        return registry.execute1(registry.get("Cast"), [value], {"dtype": dtype})
    return value


def _short(tensor):
    return getattr(tensor, "name", None) or "with shape %s" % shape_lib.to_string(
        tensor._shape_tuple())


def _contains_tensor(value):
    for v in value:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            return True
        if isinstance(v, (list, tuple)) and _contains_tensor(v):
            return True
    return False


def constant_from_numpy(array, dtype, name=None):
    """An eager tensor holding `array`, or a Const node when a graph is being built."""
    graph = context.current_graph()
    if graph is None:
        return EagerTensor(array, dtype)
    if isinstance(array, np.ndarray) and array.flags.writeable:
        array = array.copy()  # the trace's value: later changes to the user's array are not seen
    op = registry.get("Const")
    return graph.add_node(op, [], {"value": array, "dtype": dtype}, [(dtype, array.shape)],
                          name)[0]


def binary_operands(x, y):
    """Converts the operands of a binary op, giving Python values the other operand's dtype.
    A Python number that the tensor's dtype cannot hold (300 or -1 for uint8, 1.5 for an
    integer) is a TypeError, as in TensorFlow, rather than a tensor of another dtype."""
    x_is_tensor = isinstance(x, Tensor)
    y_is_tensor = isinstance(y, Tensor)
    if x_is_tensor and y_is_tensor:
        return x, y
    if x_is_tensor:
        return x, _operand_like(y, x.dtype)
    if y_is_tensor:
        return _operand_like(x, y.dtype), y
    x = convert_to_tensor(x)
    return x, convert_to_tensor(y, dtype_hint=x.dtype)


def _operand_like(value, dtype):
    if isinstance(value, (int, float, complex)) and dtype.is_numeric:  # bool is an int
        return convert_to_tensor(value, dtype=dtype)
    return convert_to_tensor(value, dtype_hint=dtype)


def constant_value(tensor):
    """The value of `tensor` when it is known before running the graph, else None."""
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if not isinstance(tensor, SymbolicTensor):
        return None
    node = tensor.node
    rule = node.op.static_value  # declared by the op (Const, Shape, Pack, Identity)
    return None if rule is None else rule(node, constant_value)


def partial_shape_value(tensor):
    """For a 1-D int tensor holding a shape: a tuple with None for unknown entries, or None."""
    value = constant_value(tensor)
    if value is not None:
        return tuple(None if d < 0 else int(d) for d in np.reshape(value, [-1]))
    if isinstance(tensor, SymbolicTensor):
        dims = tensor._shape
        if dims is None or len(dims) != 1:
            return None
        node = tensor.node
        rule = node.op.static_value
        if rule is not None:  # a Pack of scalars, some unknown: those entries are None
            value = rule(node, _value_or_unknown)
            if value is not None:
                return tuple(None if d is None else int(d) for d in np.reshape(value, [-1]))
        if dims[0] is not None:
            return (None,) * dims[0]
    return None


def _value_or_unknown(tensor):
    """`constant_value(tensor)`, or a None element for an unknown int scalar."""
    value = constant_value(tensor)
    if value is None and tensor._shape == () and tensor.dtype.is_integer:
        return np.array(None, dtype=object)
    return value


def static_int_list(value, what):
    """Converts an axis/perm/shape argument that must be known at trace time to a tuple of
    ints: a list, tuple, TensorShape, numpy array or tensor with a known value (`()`, `[]` and
    `TensorShape([])` give `()`)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            raise ValueError("%s must be known when the graph is built, got the symbolic "
                             "tensor %s" % (what, getattr(value, "name", value)))
        value = known
    if isinstance(value, shape_lib.TensorShape):
        value = value.as_list()
    array = np.asarray(value)
    if array.size == 0:  # `()` and `[]` hold no entries: numpy reads them as floats
        return ()
    if array.dtype.kind not in "iu":
        raise TypeError("%s must be integers, got %r" % (what, value))
    return tuple(int(v) for v in array.reshape([-1]))


# -- emit rules ---------------------------------------------------------------------------

def elementwise_operands(ins):
    """The expressions an elementwise op's `emit` hook writes for its operands (`ins`, the
    executor's Operands). When every operand is rank 0, constants are written as numpy
    scalars: an operation on numpy scalars gives the same dtype and value as on 0-d arrays,
    ~10x faster. Next to an ndarray (an operand of rank >= 1, or a function argument, which
    arrives as a 0-d array) the 0-d constant stays: numpy combines an ndarray faster with a
    0-d array than with a numpy scalar."""
    if all(x.shape == () and not x.argument for x in ins):
        return [x.scalar for x in ins]
    return list(ins)


def wraps_silently(ins, emitter):
    """True when a Python operator (`x + y`, `-x`) on these operands wraps integer overflow
    silently, as the op's ufunc kernel does (and TensorFlow). Numpy scalars warn on integer
    overflow where arrays do not, and rank-0 values are numpy scalars at run time. So: the
    operands are not integers, or one is known to be an array (rank >= 1), or the code runs
    with overflow warnings off (`emitter.overflow_ignored`: loops that compute integers)."""
    if not ins[0].dtype.is_integer or emitter.overflow_ignored:
        return True
    return any(x.shape is not None and len(x.shape) > 0 for x in ins)


# -- inference rules ----------------------------------------------------------------------

def require_same_dtype(specs):
    """The operands' one dtype. TensorFlow never promotes: an operand of another dtype is
    an error, worded as TensorFlow's."""
    first = specs[0][0]
    for i, (d, _) in enumerate(specs[1:], 1):
        if d is not first:
            raise SpecError("dtype", "input #%d(zero-based) was expected to be a %s tensor "
                            "but is a %s tensor (operands must have the same dtype, got %s)"
                            % (i, first.name, d.name, " and ".join(dt.name for dt, _ in specs)))
    return first


def axis_op_infer(kinds):
    """The shape/dtype rule of an op whose result has its operand's dtype and shape, the
    operand of a dtype in `kinds`, and whose `axis` attribute must name one of its dimensions
    (cumsum, cumprod, softmax)."""
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, kinds)
        if shape is not None:
            normalize_axis(attrs["axis"], len(shape))
        return [(dtype, shape)]
    return infer


def require_kind(dtype, kinds, what="operand"):
    if dtype.kind not in kinds:
        raise SpecError("dtype", "%s of dtype %s is not supported (expected %s)"
                        % (what, dtype.name, " or ".join(sorted(kinds))))


def broadcast_specs(specs):
    shape = specs[0][1]
    try:
        for _, s in specs[1:]:
            shape = shape_lib.broadcast(shape, s)
    except ValueError as e:
        raise SpecError("shape", "incompatible shapes for broadcasting: %s"
                        % ", ".join(shape_lib.to_string(s) for _, s in specs)) from e
    return shape


def normalize_axis(axis, rank, what="axis"):
    if rank is None:
        return axis
    if not -rank <= axis < max(rank, 1):
        raise SpecError("shape", "%s %d is out of range for a tensor of rank %d"
                        % (what, axis, rank))
    return axis + rank if axis < 0 else axis


REAL = frozenset(["int", "float"])  # ordered numbers: comparisons, min/max, floor...
NUMERIC = frozenset(["int", "float", "complex"])
FLOAT = frozenset(["float"])
INEXACT = frozenset(["float", "complex"])  # exp, tanh, sqrt... (TensorFlow's float+complex)
ANY = frozenset(["int", "float", "complex", "bool", "string"])


# Pack is declared here, next to convert_to_tensor, which packs lists holding tensors.
def _stack_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    shape = specs[0][1]
    for _, s in specs[1:]:
        if shape is None:
            shape = s
        elif s is not None:
            if len(s) != len(shape):
                raise SpecError("shape", "stack operands have different shapes")
            merged = []
            for a, b in zip(shape, s):
                if a is not None and b is not None and a != b:
                    raise SpecError("shape", "stack operands have different shapes")
                merged.append(a if a is not None else b)
            shape = tuple(merged)
    if shape is None:
        return [(dtype, None)]
    axis = normalize_axis(attrs["axis"], len(shape) + 1)
    return [(dtype, shape[:axis] + (len(specs),) + shape[axis:])]


def _stack_value(node, value_of):
    parts = [value_of(t) for t in node.inputs]
    if any(p is None for p in parts):
        return None
    return np.stack(parts, axis=node.attrs["axis"])


def _stack_lowering(lowerer, node, ins, outs):
    """Rank-0 parts: `xp.array([a, b])`; arrays of a static shape: `xp.stack`."""
    if all(x.rank0 for x in ins):
        lowerer.assign(outs[0], "xp.array([%s])" % ", ".join(ins))
        return
    if any(x.shape is None or None in x.shape for x in ins):
        raise lowering_api.Unsupported("a stack of dynamic shapes")
    lowerer.assign(outs[0], "xp.stack((%s), %d)" % ("".join(x + ", " for x in ins),
                                                    node.attrs["axis"]))


def _stack_dynamic_numba(lowerer, node, ins, outs):
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


def _stack_numba(lowerer, node, ins, outs):
    """numba: `_stack_lowering`, or for shapes known only at run time `_stack_dynamic_numba`."""
    if any(not x.rank0 and (x.shape is None or None in x.shape) for x in ins):
        _stack_dynamic_numba(lowerer, node, ins, outs)
    else:
        _stack_lowering(lowerer, node, ins, outs)


def _pack_grad(ctx, grads):
    parts = registry.execute(UNPACK, [grads[0]], {"num": len(ctx.needed),
                                                  "axis": ctx.attrs["axis"]}, name="unstack")
    return [p if need else None for p, need in zip(parts, ctx.needed)]


PACK = registry.register("Pack", lambda *xs, axis: np.stack(xs, axis=axis), _stack_infer,
                         node_name="stack", grad=_pack_grad,
                         emit=registry.KERNEL_CALL, static_value=_stack_value,
                         lowerings={"array": _stack_lowering, "numba": _stack_numba})


@dispatchable
def stack(values, axis=0, name="stack"):
    """The tensors of `values` joined along a new dimension `axis`."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    return registry.execute1(PACK, tensors, {"axis": int(axis)}, name=name)


# -- Pack's inverse, Unpack (`tf.unstack`, in concat_split_ops), and the zeros its gradient fills
# in (ZerosLike and OnesLike, whose API functions are in array_ops): declared here so that
# Pack's gradient and Unpack's reference each other directly.


def _filled_like(fill):
    """The lowering of ZerosLike/OnesLike: `fill` in the input's dtype (a scalar at rank 0)."""
    def rule(lowerer, node, ins, outs):
        if ins[0].rank0:
            lowerer.assign(outs[0], lowerer.cast(fill, outs[0].dtype))
        else:
            lowerer.assign(outs[0], "xp.full_like(%s, %s)" % (ins[0], fill))
    return rule


ZEROS_LIKE = registry.register("ZerosLike", lambda x: np.zeros_like(x),
                               lambda specs, attrs: [specs[0]],
                               grad=registry.NOT_DIFFERENTIABLE, emit=registry.KERNEL_CALL,
                               lowerings={"array": _filled_like("0")})
ONES_LIKE = registry.register("OnesLike", lambda x: np.ones_like(x),
                              lambda specs, attrs: [specs[0]],
                              grad=registry.NOT_DIFFERENTIABLE, emit=registry.KERNEL_CALL,
                              lowerings={"array": _filled_like("1")})


def _unstack_infer(specs, attrs):
    dtype, shape = specs[0]
    num = attrs["num"]
    if shape is None:
        return [(dtype, None)] * num
    axis = normalize_axis(attrs["axis"], len(shape))
    if shape[axis] is not None and shape[axis] != num:
        raise SpecError("shape", "cannot unstack dimension of size %s into %d tensors"
                        % (shape[axis], num))
    return [(dtype, shape[:axis] + shape[axis + 1:])] * num


def _unstack_kernel(x, num, axis):
    x = np.asarray(x)
    parts = tuple(np.take(x, i, axis=axis) for i in range(num))
    return parts[0] if num == 1 else parts  # one output: a bare value, like every kernel


def _unpack_grad(ctx, grads):
    parts = [g if g is not None else registry.execute1(ZEROS_LIKE, [ctx.output(i)])
             for i, g in enumerate(grads)]
    return [stack(parts, axis=ctx.attrs["axis"])]


def _unpack_jax(lw, node, ins):
    """Unpack: the slices along the axis."""
    x = lw.jnp.asarray(ins[0])
    axis, num = node.attrs["axis"], node.attrs["num"]
    if x.ndim == 0 or x.shape[axis] != num:
        raise lowering_api.Unsupported("unstacks a dimension of another size than num")
    return [lw.jnp.take(x, i, axis=axis) for i in range(num)]


def _unpack_numba(lowerer, node, ins, outs):
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


UNPACK = registry.register("Unpack", _unstack_kernel, _unstack_infer, node_name="unstack",
                           grad=_unpack_grad, emit=registry.KERNEL_CALL,
                           lowerings=dict(_NOT_LOWERED, numba=_unpack_numba, jax=_unpack_jax))


# ZerosLike and OnesLike of a batched value: the same op, batched (runtime/ops/batching.py)
batching.declare(ZEROS_LIKE, batching.elementwise)
batching.declare(ONES_LIKE, batching.elementwise)

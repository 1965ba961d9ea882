"""Linear algebra ops: matmul."""

import numpy as np

from runtime import backends
from runtime import shape as shape_lib
from runtime.ops.common import NUMERIC, SpecError, binary_operands, require_kind, require_same_dtype
from runtime.ops.registry import execute1, register

OPS = {}
_GRADS = "runtime.gradients.math_grads:"  # where the rules written with the ops API live


def _matmul_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, NUMERIC)
    a, b = specs[0][1], specs[1][1]
    if a is None or b is None:
        return [(dtype, None)]
    if len(a) < 2 or len(b) < 2:
        raise SpecError("shape", "matmul needs tensors of rank >= 2, got shapes %s and %s"
                        % (shape_lib.to_string(a), shape_lib.to_string(b)))
    if attrs["transpose_a"]:
        a = a[:-2] + (a[-1], a[-2])
    if attrs["transpose_b"]:
        b = b[:-2] + (b[-1], b[-2])
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise SpecError("shape", "matmul inner dimensions differ: %s @ %s"
                        % (shape_lib.to_string(a), shape_lib.to_string(b)))
    try:
        batch = shape_lib.broadcast(a[:-2], b[:-2])
    except ValueError:
        raise SpecError("shape", "matmul batch dimensions do not broadcast") from None
    return [(dtype, batch + (a[-2], b[-1]))]


def _matmul_kernel(a, b, transpose_a, transpose_b):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _matmul_emit(outs, ins, attrs, emitter):
    if attrs["transpose_a"] or attrs["transpose_b"]:
        return None
    return "%s = %s @ %s" % (outs[0], ins[0], ins[1])


def _matmul_lowering(lowerer, node, ins, outs):
    """`a @ b` on rank-2 operands (numba's matmul takes no batch), transposes written as
    `.T`; numba needs float operands (BLAS)."""
    a, b = ins
    if a.shape is None or b.shape is None or len(a.shape) != 2 or len(b.shape) != 2:
        raise backends.Unsupported("matmul of operands other than matrices")
    if not a.dtype.is_floating:
        raise backends.Unsupported("integer matmul")
    left = "xp.ascontiguousarray(%s.T)" % a if node.attrs["transpose_a"] else a
    right = "xp.ascontiguousarray(%s.T)" % b if node.attrs["transpose_b"] else b
    lowerer.assign(outs[0], "xp.dot(%s, %s)" % (left, right))


OPS["MatMul"] = register("MatMul", _matmul_kernel, _matmul_infer, emit=_matmul_emit,
                         grad=_GRADS + "matmul_grad",
                         lowerings={"array": _matmul_lowering, "jax": backends.jax_rule("matmul")})


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of the last two dimensions (batched over leading ones)."""
    a, b = binary_operands(a, b)
    return execute1(OPS["MatMul"], [a, b], {"transpose_a": bool(transpose_a),
                                            "transpose_b": bool(transpose_b)}, name=name)

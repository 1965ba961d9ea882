"""Linear algebra ops: matmul, inv, det, solve, diag, diag_part, band_part, and the
composites matrix_transpose and adjoint (of Transpose), trace (of the diagonal's sum) and
tensordot (transposes and reshapes around one matmul)."""

import math

import numpy as np

from runtime import lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    attr_types,
    batching,
    common,
    concat_split_ops,
    layout_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)
from runtime.ops import math_ops as M
from runtime.ops.common import (
    INEXACT,
    NUMERIC,
    SpecError,
    binary_operands,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.gradient_ops import sum_to
from runtime.ops.numba_lowerings import dims, finish, product, type_name
from runtime.ops.registry import KERNEL_CALL, execute1, register
from runtime.tensor import Tensor

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}
# LAPACK builds differ in the last bits, and a singular matrix must raise as the kernel does
_LAPACK_ON_HOST = {"array": lowering_api.unsupported("linear algebra runs on the numpy executor")}

OPS = {}


# the dtypes whose MatMul TensorFlow's x86 build runs with oneDNN's kernel
_ONEDNN_MATMUL = frozenset(["float32", "bfloat16"])
_NUMBA_BLAS = "runtime.backends.numba_blas"  # the numba kernels' matrix products


def _matmul_kernel_words(dtype, a, b):
    """(kernel message, kernel name, called name) of TensorFlow's eager MatMul of
    matrices whose inner dimensions differ (the operands' shapes as given); nothing for
    a batched product, which TensorFlow runs as another op (BatchMatMulV2)."""
    if len(a) != 2 or len(b) != 2:
        return ()
    message = "Matrix size-incompatible: In[0]: [%s,%s], In[1]: [%s,%s]" % (a + b)
    kernel = "__MklMatMul" if dtype.name in _ONEDNN_MATMUL else None
    return message, kernel, ""


def _matmul_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, NUMERIC)
    a, b = specs[0][1], specs[1][1]
    if a is None or b is None:
        return [(dtype, None)]
    if len(a) < 2 or len(b) < 2:
        raise SpecError("shape", "matmul needs tensors of rank >= 2, got shapes %s and %s"
                        % (shape_lib.to_string(a), shape_lib.to_string(b)))
    given = a, b
    if attrs["transpose_a"]:
        a = a[:-2] + (a[-1], a[-2])
    if attrs["transpose_b"]:
        b = b[:-2] + (b[-1], b[-2])
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise SpecError("shape", "matmul inner dimensions differ: %s @ %s"
                        % (shape_lib.to_string(a), shape_lib.to_string(b)),
                        *_matmul_kernel_words(dtype, *given))
    try:
        batch = shape_lib.broadcast(a[:-2], b[:-2]) or ()  # both are known
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


def _check_inner_dimensions(lowerer, node, a, b):
    """numpy's error where the operands' inner dimensions, not both known when tracing,
    differ when the kernel runs (BLAS would read past the smaller operand)."""
    a_inner = dims(a)[-2 if node.attrs["transpose_a"] else -1]
    b_inner = dims(b)[-1 if node.attrs["transpose_b"] else -2]
    if a_inner != b_inner:
        lowerer.check_values("%s != %s" % (a_inner, b_inner), ValueError, _INNER_MISMATCH,
                             (b_inner, a_inner))


_INNER_MISMATCH = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                   "gufunc signature (n?,k),(k,m?)->(n?,m?) (size %d is different from %d)")


def _matrix_product_numba(lowerer, node, ins, outs):
    """`a @ b` of two matrices (numba_blas.matmul), a transposed operand passed as `.T` (a
    view BLAS reads with a transpose flag)."""
    a, b = ins
    _check_inner_dimensions(lowerer, node, a, b)
    left = "%s.T" % a if node.attrs["transpose_a"] else a
    right = "%s.T" % b if node.attrs["transpose_b"] else b
    lowerer.assign(outs[0], "%s.matmul(%s, %s)" % (_NUMBA_BLAS, left, right))


def _batched_matmul_numba(lowerer, node, ins, outs):
    """MatMul of operands of rank > 2 with the same static batch dimensions: one BLAS
    product per pair of matrices, written into the result's rows (numba_blas.matmul_into)."""
    a, b = ins
    batch = a.shape[:-2]
    if batch != b.shape[:-2] or None in batch:
        raise lowering_api.Unsupported("a matmul broadcasting its batch dimensions")
    _check_inner_dimensions(lowerer, node, a, b)
    count = product([str(d) for d in batch])
    left, right, result, i = (lowerer.fresh(p) for p in ("c", "c", "r", "i"))
    a_rows, a_cols, b_rows, b_cols = dims(a)[-2:] + dims(b)[-2:]
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s, %s))" % (
        left, a, count, a_rows, a_cols))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s, %s))" % (
        right, b, count, b_rows, b_cols))
    rows = a_cols if node.attrs["transpose_a"] else a_rows
    cols = b_rows if node.attrs["transpose_b"] else b_cols
    lowerer.line("%s = np.empty((%s, %s, %s), %s)" % (result, count, rows, cols,
                                                      type_name(outs[0].dtype)))
    lowerer.line("for %s in range(%s):" % (i, count))
    with lowerer.block():
        x = "%s[%s]%s" % (left, i, ".T" if node.attrs["transpose_a"] else "")
        y = "%s[%s]%s" % (right, i, ".T" if node.attrs["transpose_b"] else "")
        lowerer.line("%s.matmul_into(%s[%s], %s, %s)" % (_NUMBA_BLAS, result, i, x, y))
    finish(lowerer, outs[0], result, [str(d) for d in batch] + [rows, cols])


def _matmul_numba(lowerer, node, ins, outs):
    """numba: float32 and float64 operands through numpy's own BLAS
    (runtime/backends/numba_blas.py): two matrices, or batches of the same static batch
    dimensions matrix by matrix."""
    a, b = ins
    if a.dtype.name not in ("float32", "float64"):
        raise lowering_api.Unsupported("a %s matmul (BLAS takes float32 and float64)"
                                       % a.dtype.name)
    if a.shape is None or b.shape is None:
        raise lowering_api.Unsupported("matmul of operands of unknown rank")
    lowerer.modules.add(_NUMBA_BLAS)
    if len(a.shape) == len(b.shape) == 2:
        _matrix_product_numba(lowerer, node, ins, outs)
    elif min(len(a.shape), len(b.shape)) > 2:
        _batched_matmul_numba(lowerer, node, ins, outs)
    else:
        raise lowering_api.Unsupported("matmul of a matrix and a batch of matrices")


def _matmul_jax(lw, node, ins):
    """MatMul, with its transpose attributes. Two float matrices go to `lax.dot_general`
    with the transposes as its contracting dimensions: an explicit transpose before the
    product can make XLA's CPU backend copy the operand and multiply in a slow loop (a
    gradient's `hidden^T @ g` with one column ran 10x slower)."""
    a, b = ins
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    if np.ndim(a) == 2 and np.ndim(b) == 2 and a.dtype == b.dtype and a.dtype.kind in "fc":
        contracting = ((0 if ta else 1,), (1 if tb else 0,))
        return [lw.lax.dot_general(a, b, (contracting, ((), ())),
                                   precision=lw.lax.Precision.HIGHEST)]
    if ta:
        a = lw.jnp.swapaxes(a, -1, -2)
    if tb:
        b = lw.jnp.swapaxes(b, -1, -2)
    return [lw.jnp.matmul(a, b)]


def _matmul_grad(ctx, grads):
    g = grads[0]
    # complex operands: the adjoints (conjugate transposes), as TensorFlow's rule
    a, b = M.conj(ctx.input(0)), M.conj(ctx.input(1))
    ta, tb = ctx.attrs["transpose_a"], ctx.attrs["transpose_b"]
    da = db = None
    if ctx.needed[0]:
        if not ta:
            da = matmul(g, b, transpose_b=not tb)
        else:
            da = matmul(b, g, transpose_a=tb, transpose_b=True)
        da = _batch_sum(da, ctx, 0)
    if ctx.needed[1]:
        if not tb:
            db = matmul(a, g, transpose_a=not ta)
        else:
            db = matmul(g, a, transpose_a=True, transpose_b=ta)
        db = _batch_sum(db, ctx, 1)
    return [da, db]


def _batch_sum(d, ctx, i):
    """Sums a batched matmul gradient over the batch dimensions its operand was broadcast
    along (nothing to do for plain matrices)."""
    shape = ctx.input_shape(i)
    if shape is not None and len(shape) == 2 and d._shape_tuple() is not None and \
            len(d._shape_tuple()) == 2:
        return d
    return sum_to(d, ctx, i)


OPS["MatMul"] = register("MatMul", _matmul_kernel, _matmul_infer, emit=_matmul_emit,
                         grad=_matmul_grad,
                         lowerings={"jax": _matmul_jax,
                                    "numba": _matmul_numba})


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None):
    """Matrix product of the last two dimensions (batched over leading ones); an operand
    transposed first with `transpose_*`, conjugate-transposed with `adjoint_*`."""
    a, b = binary_operands(a, b)
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        raise ValueError("matmul: transpose and adjoint of one operand cannot both be set")
    if adjoint_a:
        a, transpose_a = M.conj(a), True
    if adjoint_b:
        b, transpose_b = M.conj(b), True
    return execute1(OPS["MatMul"], [a, b], {"transpose_a": bool(transpose_a),
                                            "transpose_b": bool(transpose_b)}, name=name)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """The matrix-vector product of the last two dimensions of `a` with the last of `b`
    (batched over leading ones): matmul(a, b[..., None])[..., 0]."""
    a, b = binary_operands(a, b)
    if adjoint_a:
        a = M.conj(a) if a.dtype.is_complex else a
        transpose_a = not transpose_a
    column = reshape_ops.expand_dims(b, -1)
    return reshape_ops.squeeze(matmul(a, column, transpose_a=transpose_a), [-1],
                                    name=name)


# -- tensordot: a contraction as transpose, reshape and matmul -------------------------------


def _tensordot_axes(axes, rank_a, rank_b):
    """TensorFlow's `axes` as two lists of non-negative axes: N (the last N of a with the
    first N of b), or a pair (axes of a, axes of b), each an int or a list."""
    known = common.constant_value(axes) if isinstance(axes, Tensor) else axes
    if known is None:
        raise ValueError("tensordot: axes must be known when the function is traced")
    if isinstance(known, (int, np.integer)) or (isinstance(known, np.ndarray)
                                                 and known.ndim == 0):
        count = int(known)
        if count < 0 or count > min(rank_a, rank_b):
            raise ValueError("tensordot: axes must be an integer in [0, %d] for operands of "
                             "rank %d and %d, got %d" % (min(rank_a, rank_b), rank_a, rank_b,
                                                         count))
        return list(range(rank_a - count, rank_a)), list(range(count))
    pair = known.tolist() if isinstance(known, np.ndarray) else list(known)
    if len(pair) != 2:
        raise ValueError("tensordot: axes must be an integer or a pair of axis lists, got %r"
                         % (axes,))
    lists = [[int(a) for a in np.reshape(part, [-1])] for part in pair]
    if len(lists[0]) != len(lists[1]):
        raise ValueError("tensordot: the axis lists must have one length, got %r and %r"
                         % tuple(lists))
    normalized = []
    for part, rank, which in zip(lists, (rank_a, rank_b), "ab"):
        for axis in part:
            if not -rank <= axis < rank:
                raise ValueError("tensordot: axis %d is out of range for %s of rank %d"
                                 % (axis, which, rank))
        part = [axis % rank for axis in part]
        if len(set(part)) != len(part):
            raise ValueError("tensordot: axes of %s repeat: %r" % (which, part))
        normalized.append(part)
    return normalized[0], normalized[1]


def _dims_of(x, axes):
    """The sizes of `axes` of `x`: a list of ints where all are static, else a tensor."""
    shape = x._shape_tuple()
    if all(shape[a] is not None for a in axes):
        return [int(shape[a]) for a in axes]
    return selection_ops.gather(array_ops.shape(x), np.array(list(axes), np.int32))


def _shape_of(*parts):
    """The shape made of `parts` (each a list of ints or an int32 vector tensor)."""
    if all(isinstance(p, list) for p in parts):
        return [d for p in parts for d in p]
    return concat_split_ops.concat([np.array(p, np.int32) if isinstance(p, list) else p
                                    for p in parts], 0)


def _as_matrix(x, rows, cols):
    """`x` reshaped to [product of dims `rows`, product of dims `cols`]."""
    sizes = [[math.prod(d)] if isinstance(d, list) else
             reshape_ops.reshape(reduction_ops.reduce_prod(d), [1]) for d in (rows, cols)]
    return reshape_ops.reshape(x, _shape_of(*sizes))


def tensordot(a, b, axes, name=None):
    """The sum of products of `a`'s and `b`'s elements over the axes `axes` pairs (an
    integer N: the last N of `a` with the first N of `b`; or two axis lists), shaped as a's
    free axes then b's: traced as one transpose and reshape per operand and one matmul."""
    a, b = binary_operands(a, b)
    shape_a, shape_b = a._shape_tuple(), b._shape_tuple()
    if shape_a is None or shape_b is None:
        raise ValueError("tensordot: the operands' ranks must be known")
    axes_a, axes_b = _tensordot_axes(axes, len(shape_a), len(shape_b))
    for i, j in zip(axes_a, axes_b):
        if shape_a[i] is not None and shape_b[j] is not None and shape_a[i] != shape_b[j]:
            raise ValueError("tensordot: dimension %d of a (%d) and dimension %d of b (%d) "
                             "are contracted but differ" % (i, shape_a[i], j, shape_b[j]))
    free_a = [i for i in range(len(shape_a)) if i not in axes_a]
    free_b = [j for j in range(len(shape_b)) if j not in axes_b]
    if free_a + axes_a != list(range(len(shape_a))):
        a = reshape_ops.transpose(a, free_a + axes_a)
    if axes_b + free_b != list(range(len(shape_b))):
        b = reshape_ops.transpose(b, axes_b + free_b)
    outer_a = _dims_of(a, range(len(free_a)))
    inner = _dims_of(a, range(len(free_a), len(shape_a)))
    outer_b = _dims_of(b, range(len(axes_b), len(shape_b)))
    product_ = matmul(_as_matrix(a, outer_a, inner), _as_matrix(b, inner, outer_b))
    return reshape_ops.reshape(product_, _shape_of(outer_a, outer_b), name=name)


# -- inverse, determinant, solve ------------------------------------------------------------

def _square_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, INEXACT)
    _require_square(shape)
    return [(dtype, shape[:-2] if attrs.get("scalar") and shape is not None else shape)]


def _require_square(shape, what="matrix"):
    if shape is None:
        return
    if len(shape) < 2:
        raise SpecError("shape", "%s must have rank >= 2, got shape %s"
                        % (what, shape_lib.to_string(shape)))
    if shape[-1] is not None and shape[-2] is not None and shape[-1] != shape[-2]:
        raise SpecError("shape", "%s must be square, got shape %s"
                        % (what, shape_lib.to_string(shape)))


def _inverse_kernel(a):
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise ValueError("Input is not invertible") from None


def _solve_kernel(a, b):
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise ValueError("Input matrix is not invertible") from None


def _solve_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, INEXACT)
    (_, a), (_, b) = specs
    _require_square(a)
    if b is not None and len(b) < 2:
        raise SpecError("shape", "rhs must have rank >= 2, got %s" % shape_lib.to_string(b))
    if a is not None and b is not None and a[-1] is not None and b[-2] is not None and \
            a[-1] != b[-2]:
        raise SpecError("shape", "matrix %s and rhs %s do not fit"
                        % (shape_lib.to_string(a), shape_lib.to_string(b)))
    return [(dtype, b)]


def _adjoint_last(x):
    """The conjugate transpose of the last two dimensions (the transpose for real x): the
    rules below are TensorFlow's, written with adjoints so that they hold for complex too."""
    return matrix_transpose(x, conjugate=True)


def _inverse_grad(ctx, grads):
    inverse_h = _adjoint_last(ctx.output(0))
    return [M.negative(matmul(inverse_h, matmul(grads[0], inverse_h)))]


def _det_grad(ctx, grads):
    scale = M.multiply(grads[0], ctx.output(0))  # unconjugated, as TensorFlow's rule
    expanded = reshape_ops.expand_dims(reshape_ops.expand_dims(scale, -1), -1)
    return [M.multiply(expanded, _adjoint_last(inv(ctx.input(0))))]


def _solve_grad(ctx, grads):
    a = ctx.input(0)
    grad_b = solve(_adjoint_last(a), grads[0])
    grad_a = M.negative(matmul(grad_b, _adjoint_last(ctx.output(0))))
    return [grad_a if ctx.needed[0] else None, grad_b]


OPS["MatrixInverse"] = register("MatrixInverse", _inverse_kernel, _square_infer,
                                grad=_inverse_grad, emit=KERNEL_CALL,
                                lowerings=_LAPACK_ON_HOST)
OPS["MatrixDeterminant"] = register(
    "MatrixDeterminant", lambda a, scalar: np.asarray(np.linalg.det(a), a.dtype),
    _square_infer, grad=_det_grad, emit=KERNEL_CALL,
    lowerings=_LAPACK_ON_HOST, attr_types={"scalar": attr_types.BOOL})
OPS["MatrixSolve"] = register("MatrixSolve", _solve_kernel, _solve_infer, grad=_solve_grad,
                              emit=KERNEL_CALL,
                              lowerings=_LAPACK_ON_HOST)


def inv(input, adjoint=False, name=None):  # noqa: A002 - TensorFlow's name
    """The inverse of each square (float or complex) matrix in the last two dimensions (of
    its adjoint, the conjugate transpose, with `adjoint=True`)."""
    x = convert_to_tensor(input)
    if adjoint:
        x = matrix_transpose(x, conjugate=True)
    return execute1(OPS["MatrixInverse"], [x], name=name)


def det(input, name=None):  # noqa: A002 - TensorFlow's name
    """The determinant of each square (float or complex) matrix in the last two dimensions."""
    return execute1(OPS["MatrixDeterminant"], [convert_to_tensor(input)], {"scalar": True},
                    name=name)


def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs, for each square (float or complex) matrix in the last two
    dimensions (adjoint(matrix) @ X = rhs with `adjoint=True`)."""
    matrix, rhs = binary_operands(matrix, rhs)
    if adjoint:
        matrix = matrix_transpose(matrix, conjugate=True)
    return execute1(OPS["MatrixSolve"], [matrix, rhs], name=name)


# -- diagonals, bands, transpose ------------------------------------------------------------

def _diag_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    if not shape:
        raise SpecError("shape", "diagonal must have rank >= 1")
    return [(dtype, shape + shape[-1:])]


def _diag_kernel(d):
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), dtype=d.dtype)
    rows = np.arange(n)
    out[..., rows, rows] = d
    return out


def _diag_part_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    if len(shape) < 2:
        raise SpecError("shape", "input must have rank >= 2, got shape %s"
                        % shape_lib.to_string(shape))
    m, n = shape[-2:]
    return [(dtype, shape[:-2] + (None if m is None or n is None else min(m, n),))]


def _diag_part_kernel(x):
    return np.ascontiguousarray(np.diagonal(x, axis1=-2, axis2=-1))


def _band_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is not None and len(shape) < 2:
        raise SpecError("shape", "input must have rank >= 2, got shape %s"
                        % shape_lib.to_string(shape))
    return [(dtype, shape)]


def _band_kernel(x, lower, upper):
    m, n = x.shape[-2:]
    offset = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
    keep = np.ones((m, n), dtype=bool)
    if lower >= 0:
        keep &= offset >= -lower
    if upper >= 0:
        keep &= offset <= upper
    return np.where(keep, x, np.zeros((), x.dtype))


def _band_grad(ctx, grads):
    return [execute1(OPS["MatrixBandPart"], [grads[0]], ctx.attrs)]


def _diag_lowering(lowerer, node, ins, outs):
    d = ins[0]
    if d.shape is None or d.shape[-1] is None:
        raise lowering_api.Unsupported("a diagonal of unknown length")
    lowerer.assign(outs[0], "xp.where(xp.eye(%d, dtype=xp.bool_), %s[..., None], %s(0))"
                   % (d.shape[-1], d, lowerer.literal(d.dtype)))


def _band_lowering(lowerer, node, ins, outs):
    x = ins[0]
    if x.shape is None or None in x.shape[-2:]:
        raise lowering_api.Unsupported("a matrix of unknown size")
    m, n = x.shape[-2:]
    offset = "(xp.arange(%d)[None, :] - xp.arange(%d)[:, None])" % (n, m)  # column - row
    keep = []
    if node.attrs["lower"] >= 0:
        keep.append("(%s >= %d)" % (offset, -node.attrs["lower"]))
    if node.attrs["upper"] >= 0:
        keep.append("(%s <= %d)" % (offset, node.attrs["upper"]))
    if not keep:
        lowerer.assign(outs[0], x)
        return
    lowerer.assign(outs[0], "xp.where(%s, %s, %s(0))" % (" & ".join(keep), x,
                                                         lowerer.literal(x.dtype)))


def _diag_part_numba(lowerer, node, ins, outs):
    """numba (whose np.diagonal takes no axes): each matrix's diagonal copied in a loop."""
    x = ins[0]
    parts = dims(x)
    rows, cols = parts[-2:]
    batch = product(parts[:-2])
    length = str(min(x.shape[-2:])) if None not in x.shape[-2:] else "min(%s, %s)" % (rows,
                                                                                     cols)
    matrices, result, i = lowerer.fresh("c"), lowerer.fresh("r"), lowerer.fresh("i")
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s, %s))" % (
        matrices, x, batch, rows, cols))
    lowerer.line("%s = np.empty((%s, %s), %s)" % (result, batch, length,
                                                   type_name(x.dtype)))
    n = lowerer.fresh("n")
    lowerer.line("for %s in range(%s):" % (n, batch))
    with lowerer.block():
        lowerer.line("for %s in range(%s):" % (i, length))
        with lowerer.block():
            lowerer.line("%s[%s, %s] = %s[%s, %s, %s]" % (result, n, i, matrices, n, i, i))
    finish(lowerer, outs[0], result, parts[:-2] + [length])


OPS["MatrixDiag"] = register("MatrixDiag", _diag_kernel, _diag_infer,
                             grad=lambda ctx, grads: [diag_part(grads[0])], emit=KERNEL_CALL,
                             lowerings={"array": _diag_lowering})
OPS["MatrixDiagPart"] = register(
    "MatrixDiagPart", _diag_part_kernel, _diag_part_infer, emit=KERNEL_CALL, traits=("view",),
    lowerings={"array": "xp.diagonal({0}, axis1=-2, axis2=-1)",
               "numba": _diag_part_numba},
    grad=lambda ctx, grads: [_diag_part_grad(ctx, grads[0])])
OPS["MatrixBandPart"] = register("MatrixBandPart", _band_kernel, _band_infer,
                                 grad=_band_grad, emit=KERNEL_CALL,
                                 lowerings={"array": _band_lowering})


def _diag_part_grad(ctx, g):
    shape = ctx.input_shape(0)
    if shape is not None and shape[-1] is not None and shape[-1] == shape[-2]:
        return diag(g)
    # a rectangular matrix: the diagonal's gradient padded with zero columns or rows
    m, n = shape[-2:] if shape is not None else (None, None)
    if m is None or n is None:
        raise ValueError("the gradient of diag_part needs a static matrix shape")
    square = diag(g)
    extra = [[0, 0]] * (len(shape) - 2) + ([[0, m - n], [0, 0]] if m > n else
                                           [[0, 0], [0, n - m]])
    return layout_ops.pad(square, extra)


def diag(diagonal, name=None):
    """A matrix (per batch entry) with `diagonal` on its main diagonal, zeros elsewhere."""
    return execute1(OPS["MatrixDiag"], [convert_to_tensor(diagonal)], name=name)


def diag_part(input, name=None):  # noqa: A002 - TensorFlow's name
    """The main diagonal of each matrix in the last two dimensions."""
    return execute1(OPS["MatrixDiagPart"], [convert_to_tensor(input)], name=name)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TensorFlow's name
    """Each matrix with entries outside the band zeroed: `num_lower` subdiagonals and
    `num_upper` superdiagonals are kept (a negative count keeps the whole triangle)."""
    lower = common.static_int_list(num_lower, "num_lower")
    upper = common.static_int_list(num_upper, "num_upper")
    return execute1(OPS["MatrixBandPart"], [convert_to_tensor(input)],
                    {"lower": lower[0], "upper": upper[0]}, name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """`a` with its last two dimensions swapped (and conjugated with `conjugate=True`)."""
    a = convert_to_tensor(a)
    shape = a._shape_tuple()
    if shape is None or len(shape) < 2:
        raise ValueError("matrix_transpose needs a tensor of known rank >= 2, got %s" % (
            "unknown rank" if shape is None else shape_lib.to_string(shape)))
    perm = list(range(len(shape) - 2)) + [len(shape) - 1, len(shape) - 2]
    return reshape_ops.transpose(a, perm, name=name, conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dimensions (the transpose of a real matrix)."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def trace(x, name=None):
    """The sum of the main diagonal of each matrix in the last two dimensions."""
    return reduction_ops.reduce_sum(diag_part(x), -1, name=name)


# MatMul over a batch of matrices (runtime/ops/batching.py): its operands broadcast over the
# leading dimensions as elementwise ops' do, so the elementwise rule serves it
batching.declare(OPS["MatMul"], batching.elementwise)

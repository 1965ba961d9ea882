"""`tf.linalg`: linear algebra."""

from runtime.ops import construction_ops as _construction
from runtime.ops import einsum_ops as _einsum
from runtime.ops import linalg_ops as _linalg
from runtime.ops import norm_ops as _norm

matmul = _linalg.matmul
matvec = _linalg.matvec

# -- ops real code calls (issue 14) --
inv = _linalg.inv
det = _linalg.det
solve = _linalg.solve
diag = _linalg.diag
diag_part = _linalg.diag_part
band_part = _linalg.band_part
matrix_transpose = _linalg.matrix_transpose
adjoint = _linalg.adjoint
trace = _linalg.trace
einsum = _einsum.einsum
tensordot = _linalg.tensordot
eye = _construction.eye
norm = _norm.norm
global_norm = _norm.global_norm

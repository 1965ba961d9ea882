"""Matrix products in numba kernels through the BLAS library numpy itself calls.

numba's `np.dot` calls the BLAS of scipy (another OpenBLAS build, through its Fortran
interface and numba's checks), so a kernel's product differed from the numpy executor's in
speed (a 256x128 @ 128x10 float32 product: 17.2 us against numpy's 9.6 us with one thread)
and could differ in its last bits. Here a kernel calls numpy's own `cblas_?gemm`, found in the
library numpy's wheel bundles and loaded into LLVM's symbol table by `register()`, so the
numba backend and the executor share one BLAS (and one thread pool). A product of two small
matrices costs about half of `np.dot`'s (8x32 @ 32x32 float32: 0.28 us against 0.59 us),
which is most of a recurrent step.

`matmul(a, b)` is the product of two 2-D float32 or float64 arrays (numba refuses to type
other dtypes: the kernel then runs on the executor), and `matmul_into(out, a, b)` writes it
into `out` (a C-contiguous matrix, such as a row of a batch). An operand with a unit stride
along either axis (a transposed matrix, a row slice of a larger one) goes to BLAS as it is,
with a transpose flag and its leading dimension; any other is copied once. As numpy does, a
Gram matrix (`x @ x.T` or `x.T @ x` of one array) is syrk's upper triangle mirrored, exactly
symmetric, so that the product is numpy's bit for bit wherever numpy calls BLAS for matrices
(it calls gemv or dot for a product with one row or one column).
Where numpy's BLAS cannot be found (a numpy built against a system BLAS under another name),
both are `np.dot`, and `BLAS` says so.

The generated kernels import this module only when they multiply matrices, and name
`SOURCE_DIGEST` (which covers the library chosen), so that editing this file or changing the
BLAS gives kernels a new cache key.
"""

from __future__ import annotations

import glob
import hashlib
import os
import pathlib
from typing import Any, NamedTuple

import numpy as np

from runtime.backends.numba_math import run_once


class Blas(NamedTuple):
    """numpy's BLAS library as the kernels call it: its file and how its routines are named
    (an ILP64 build: its integers are 64-bit)."""

    path: str
    prefix: str
    suffix: str

    def symbol(self, kind: str, routine: str) -> str:
        """The name of cblas routine `routine` ("gemm") for `kind` "s" or "d"."""
        return self.prefix + kind + routine + self.suffix


# the prefix and suffix of the ILP64 gemm symbols numpy's wheels bundle: scipy-openblas64
# (numpy 2) and openblas64_ (numpy 1.22 and later); an LP64 build is not used (its 32-bit
# sizes would need checking at every call)
_NAMINGS = (("scipy_cblas_", "64_"), ("cblas_", "64_"))
_ROUTINES = ("gemm", "syrk")
_ROW_MAJOR, _NO_TRANS, _TRANS, _UPPER = 101, 111, 112, 121


def _candidate_libraries() -> list[str]:
    """The BLAS libraries a numpy wheel bundles, beside its package (Linux and Windows:
    `numpy.libs`) or inside it (macOS: `.dylibs`)."""
    package = pathlib.Path(np.__file__).parent
    found: list[str] = []
    for folder in (package.parent / "numpy.libs", package / ".dylibs", package / ".libs"):
        for pattern in ("*openblas*.so*", "*openblas*.dylib", "*openblas*.dll"):
            found += sorted(glob.glob(os.path.join(folder, pattern)))
    return found


def _find() -> Blas | None:
    """numpy's BLAS, loaded into LLVM's symbol table; None where it cannot be found. A
    symbol counts only where LLVM resolves it to that library's own definition (not to one
    another library in the process defines under the same name)."""
    import ctypes

    from llvmlite import binding
    for path in _candidate_libraries():
        try:
            library = ctypes.CDLL(path)
            binding.load_library_permanently(path)
        except (OSError, RuntimeError):
            continue
        for prefix, suffix in _NAMINGS:
            blas = Blas(path, prefix, suffix)
            if all(_defines(library, blas.symbol(kind, routine)) for kind in "sd"
                   for routine in _ROUTINES):
                return blas
    return None


def _defines(library: Any, name: str) -> bool:
    """Whether ctypes `library` defines symbol `name` and LLVM resolves the name to it."""
    import ctypes

    from llvmlite import binding
    try:
        own = ctypes.cast(getattr(library, name), ctypes.c_void_p).value
    except AttributeError:
        return False
    return own is not None and own == binding.address_of_symbol(name)


BLAS: Blas | None = None  # set by register()
SOURCE_DIGEST = ""        # set by register(): this file's bytes and BLAS


def matmul(a: Any, b: Any) -> Any:
    """`a @ b` of two 2-D float32 or float64 arrays of one dtype, in a numba kernel: a new
    C-contiguous matrix."""
    raise NotImplementedError("matmul runs only in numba-compiled code")


def matmul_into(out: Any, a: Any, b: Any) -> None:
    """Writes `a @ b` into `out` (a C-contiguous matrix of their dtype and the product's
    shape, sharing no memory with `a` or `b`: BLAS writes it while it reads them), in a
    numba kernel."""
    raise NotImplementedError("matmul_into runs only in numba-compiled code")


def _layout(matrix: Any) -> tuple[int, int]:
    """(transpose flag, leading dimension) with which BLAS reads `matrix` as it is: one of
    its axes has a unit stride and the other a stride BLAS can step by (a length-1 axis can
    have any stride); a leading dimension of 0 where it must be copied. Compiled by numba."""
    rows, cols = matrix.shape
    size = matrix.itemsize
    row_stride, col_stride = matrix.strides
    if rows == 1:
        row_stride = max(cols, 1) * size
    if cols == 1:
        col_stride = size
    if col_stride == size and row_stride % size == 0 and row_stride >= max(cols, 1) * size:
        return _NO_TRANS, row_stride // size
    if row_stride == size and col_stride % size == 0 and col_stride >= max(rows, 1) * size:
        return _TRANS, col_stride // size
    return _NO_TRANS, 0




def _register() -> None:
    """Finds numpy's BLAS and makes `matmul` and `matmul_into` compilable by numba (once
    per process)."""
    global BLAS, SOURCE_DIGEST
    from numba import types
    from numba.extending import intrinsic, overload, register_jitable

    BLAS = _find()
    text = pathlib.Path(__file__).read_bytes() + repr(BLAS).encode()
    SOURCE_DIGEST = hashlib.sha256(text).hexdigest()[:16]
    strided_layout = register_jitable(_layout)

    def layout(matrix):
        raise NotImplementedError

    @overload(layout)
    def layout_typer(matrix):
        # (the layout of a C or F array is known when the kernel compiles)
        if matrix.layout == "C":
            return lambda matrix: (_NO_TRANS, max(matrix.shape[1], 1))
        if matrix.layout == "F":
            return lambda matrix: (_TRANS, max(matrix.shape[0], 1))
        return lambda matrix: strided_layout(matrix)

    def routine(name: str, pattern: str) -> Any:
        """An intrinsic `call(out, a, b, flags, sizes)` calling cblas_<s|d><name> (by the
        dtype of `out`) with its arguments as `pattern` lists them, one letter each: `o` row
        major, `f` the next of the `flags` tuple, `i` the next of the `sizes` tuple, `1` and
        `0` the scalars, `A`, `B`, `C` the data of `a`, `b` and `out`."""
        @intrinsic
        def call(typingctx: Any, out: Any, a: Any, b: Any, flags: Any, sizes: Any) -> Any:
            dtype, blas = out.dtype, BLAS
            if blas is None or dtype not in (types.float32, types.float64):
                return None

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                from llvmlite import ir
                from numba.core import cgutils
                real = ir.FloatType() if dtype == types.float32 else ir.DoubleType()
                integer, flag = ir.IntType(64), ir.IntType(32)
                data = {letter: builder.bitcast(context.make_array(kind)(
                            context, builder, value).data, real.as_pointer())
                        for letter, kind, value in zip("CAB", signature.args, args)}
                flags, sizes = (iter(cgutils.unpack_tuple(builder, args[i])) for i in (3, 4))
                values = []
                for letter in pattern:
                    if letter == "o":
                        values.append(ir.Constant(flag, _ROW_MAJOR))
                    elif letter == "f":
                        values.append(builder.trunc(next(flags), flag))
                    elif letter == "i":
                        values.append(_as_width(builder, next(sizes), integer))
                    elif letter in "10":
                        values.append(ir.Constant(real, float(letter)))
                    else:
                        values.append(data[letter])
                function = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.VoidType(), [v.type for v in values]),
                    blas.symbol("s" if dtype == types.float32 else "d", name))
                builder.call(function, values)
                return context.get_dummy_value()
            return types.none(out, a, b, flags, sizes), codegen
        return call

    gemm = routine("gemm", "offiii1AiBi0Ci")  # C = A B (each maybe transposed)
    syrk = routine("syrk", "offii1Ai0Ci")     # the upper triangle of C = A A^T (or A^T A)

    def gram(out, a, trans_a, lda):
        # numpy's rule for `a @ a.T` (or `a.T @ a`) of one array: syrk, whose result is
        # symmetric, its upper triangle mirrored (gemm's would differ in the last bits)
        m, k = a.shape
        syrk(out, a, a, (_UPPER, trans_a), (m, k, lda, m))
        for i in range(m):
            for j in range(i + 1, m):
                out[j, i] = out[i, j]

    gram_into = register_jitable(gram)

    def into(out, a, b):
        m, k = a.shape
        n = b.shape[1]
        if b.shape[0] != k or out.shape[0] != m or out.shape[1] != n:  # (BLAS would overrun)
            raise ValueError("matmul: the operands' shapes do not match")
        if m == 0 or n == 0:
            return
        if k == 0:
            out[:] = 0
            return
        trans_a, lda = layout(a)
        trans_b, ldb = layout(b)
        if lda and ldb:
            if trans_a != trans_b and a.ctypes.data == b.ctypes.data and m == n and \
                    a.strides[0] == b.strides[1] and a.strides[1] == b.strides[0]:
                gram_into(out, a, trans_a, lda)
            else:
                gemm(out, a, b, (trans_a, trans_b),
                     (m, n, k, lda, ldb, n))
        else:  # (rare: a broadcast or reversed operand)
            gemm(out, np.ascontiguousarray(a), np.ascontiguousarray(b),
                 (_NO_TRANS, _NO_TRANS), (m, n, k, k, n, n))

    product_into = register_jitable(into)

    def typer_into(out, a, b):
        if not _float_matrices(types, out, a, b) or out.layout != "C":
            return None
        return into if BLAS is not None else lambda out, a, b: dot_into(out, a, b)

    def typer(a, b):
        if not _float_matrices(types, a, b):
            return None
        if BLAS is None:
            return lambda a, b: np.dot(a, b)

        def product(a, b):
            m, k = a.shape
            n = b.shape[1]
            out = np.empty((m, n), a.dtype)
            trans_a, lda = layout(a)
            trans_b, ldb = layout(b)
            # the common case here, without the call (tens of ns a product, and numba's own
            # inlining cost a kernel 0.5 s of compile per product); the others (copies, a
            # Gram matrix, empty or mismatched operands) in `into`
            if lda and ldb and m and n and k and b.shape[0] == k and (
                    trans_a == trans_b or a.ctypes.data != b.ctypes.data):
                gemm(out, a, b, (trans_a, trans_b),
                     (m, n, k, lda, ldb, n))
            else:
                product_into(out, a, b)
            return out
        return product

    dot_into = register_jitable(_dot_into)
    overload(matmul)(typer)
    overload(matmul_into)(typer_into)


register = run_once(_register)


def _dot_into(out: Any, a: Any, b: Any) -> None:
    """`matmul_into` where numpy's BLAS is not used: numba's `np.dot`."""
    out[:] = np.dot(a, b)


def _as_width(builder: Any, value: Any, integer: Any) -> Any:
    """LLVM integer `value` sign-extended or truncated to the type `integer`."""
    if value.type.width < integer.width:
        return builder.sext(value, integer)
    if value.type.width > integer.width:
        return builder.trunc(value, integer)
    return value


def _float_matrices(types: Any, *arrays: Any) -> bool:
    """Whether `arrays` are matrices of one float32 or float64 dtype."""
    return all(isinstance(array, types.Array) and array.ndim == 2
               and array.dtype == arrays[0].dtype for array in arrays) \
        and arrays[0].dtype in (types.float32, types.float64)

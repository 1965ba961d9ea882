"""Sorting in numba kernels: `descending_order(row, order)`, the order in which TopKV2 (and
a descending sort) takes the values of one row.

The order is the numpy kernel's (`sort_ops._descending_order`): larger values first, NaN
above every number, and equal values (-0.0 and 0.0 among them, and NaNs among themselves)
by ascending position. That comparison is a strict total order on positions, so any correct
sort gives this one result; here a merge sort (insertion-sorted runs of `_RUN`, then merged
bottom-up), O(n log n) in the worst case.

numba's own `np.argsort(kind="mergesort")` gave the same order, but compiling it took 1 to
1.5 s per dtype in each process, and a kernel spent 3 to 4 s compiling its first top_k; this
one compiles in a fraction of that, as plain loops over scalars.

The function is plain Python too (tests compare it with the kernel's order there);
`register()` makes it compilable by numba. The generated module names `SOURCE_DIGEST`, so
editing this file gives the kernels that sort a new cache key.
"""

from __future__ import annotations

import hashlib
import pathlib
from typing import Any

import numpy as np

from runtime.backends.numba_math import run_once

SOURCE_DIGEST = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()[:16]

_RUN = 16  # the length of the runs sorted by insertion before the merges


def comes_first(row: Any, a: int, b: int) -> bool:
    """Whether position `a` of `row` comes before position `b` in descending order."""
    x = row[a]
    y = row[b]
    if x > y:
        return True
    if x < y:
        return False
    if x != x:  # NaN: above every number; NaNs by position
        return y == y or a < b
    if y != y:
        return False
    return a < b


def descending_order(row: Any, order: Any) -> None:
    """Writes into `order` (an int64 array of the length of the 1-D array `row`) the
    positions of `row` in descending order (see the module docstring)."""
    n = row.shape[0]
    for start in range(0, n, _RUN):  # (insertion sort of each run)
        stop = min(start + _RUN, n)
        for i in range(start, stop):
            j = i
            while j > start and comes_first(row, i, order[j - 1]):
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
    if n <= _RUN:
        return
    source = order
    target = np.empty(n, np.int64)
    width = _RUN
    while width < n:
        for low in range(0, n, 2 * width):
            middle = min(low + width, n)
            high = min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):
                if j < high and (i == middle or comes_first(row, source[j], source[i])):
                    target[k] = source[j]
                    j += 1
                else:
                    target[k] = source[i]
                    i += 1
        source, target = target, source
        width *= 2
    if source.ctypes.data != order.ctypes.data:  # (an odd number of merge passes)
        for k in range(n):  # (a loop: numba compiles `order[:] = source` for ~1.7 s)
            order[k] = source[k]


def _register() -> None:
    """Makes `descending_order` compilable by numba (once per process)."""
    from numba.extending import register_jitable

    register_jitable(comes_first)
    register_jitable(descending_order)


register = run_once(_register)

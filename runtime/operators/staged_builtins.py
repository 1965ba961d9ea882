"""Builtins on tensors as ops: what converted code calls, through `converted_call`, when the
BUILTIN_FUNCTIONS feature is on (see autograph.features; `range`, `len`, `int`, `float`
and `bool` are in runtime.operators.py_builtins, on always).

    print(x)              prints x's value at every call of the traced function (Python's
                          print of the numpy values, run by a py_function)
    for i, v in enumerate(t) / for a, b in zip(t, u)
                          one While op over the first dimension (the items are tensors)
    abs(x), max(t), min(t), sum(t), any(t), all(t)
                          abs, reductions over the first dimension (what iterating gives),
                          max/min of several scalar tensors

Each gives what plain Python gives on the same values, and raises where Python raises
(`max` of a scalar, `sum` of a scalar: not iterable); arguments that are not symbolic
tensors go to the builtin itself (or to its always-on overload: `enumerate` and `zip` of
Datasets stay Dataset transformations).
"""

import builtins
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.operators import loops, py_builtins
from runtime.ops import array_ops, math_ops, py_function_ops, reduction_ops
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor


def _default(builtin):
    """What converted code calls for `builtin` without the feature (its always-on overload,
    such as `enumerate` of a Dataset, or the builtin itself)."""
    return py_builtins.OVERLOADS.get(builtin, builtin)


def _symbolic(*values):
    return any(isinstance(v, SymbolicTensor) for v in values)


def _python_value(value):
    if isinstance(value, EagerTensor):  # print_ stages a print of symbolic tensors
        value = value.numpy()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO":
        return np.vectorize(lambda b: b.decode("utf-8", "replace")
                            if isinstance(b, bytes) else b)(value)
    return value


def print_(*objects: Any, sep: str | None = " ", end: str | None = "\n", file: Any = None,
           flush: bool = False) -> None:
    """`print(...)`; with tensors among `objects`, their values are printed, and inside a
    trace at every call of the function rather than once while tracing."""
    if not any(isinstance(o, Tensor) for o in objects):
        return builtins.print(*objects, sep=sep, end=end, file=file, flush=flush)
    if not _symbolic(*objects):
        return builtins.print(*map(_python_value, objects), sep=sep, end=end, file=file,
                              flush=flush)
    positions = [i for i, o in enumerate(objects) if isinstance(o, Tensor)]

    def run_print(*values):
        shown = list(objects)
        for i, value in zip(positions, values):
            shown[i] = _python_value(value)
        builtins.print(*shown, sep=sep, end=end, file=file, flush=flush)
    py_function_ops.py_function(run_print, [objects[i] for i in positions], None)
    return None


def _length(tensor):
    dims = tensor._shape
    if dims is None or not dims:
        raise TypeError("iteration over a %s tensor: a tensor iterates its first dimension"
                        % ("0-d" if dims == () else "tensor of unknown rank, so a"))
    return dims[0] if dims[0] is not None else array_ops.shape(tensor)[0]


class _StagedItems:
    """Items of a loop over tensors' first dimension (enumerate, zip): a `for` loop over
    it is one While op; iterating it in Python iterates the tensors (as Python does)."""

    def __init__(self, tensors, make_item, python_items):
        self._tensors = tensors
        self._make_item = make_item
        self._python_items = python_items

    def __iter__(self):
        return iter(self._python_items())

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """A While op over the indices of the rows (`options`: the loop's LoopOptions)."""
        lengths = [_length(t) for t in self._tensors]
        count = lengths[0]
        for length in lengths[1:]:
            count = math_ops.minimum(count, length)
        indices = array_ops.range(count)
        loops.for_loop_of(indices, extra_test, lambda i: body(self._make_item(i)), get_state,
                          set_state, symbol_names, options)


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """`enumerate(...)`; over a symbolic tensor, its rows with their int32 indices."""
    if not isinstance(iterable, SymbolicTensor):
        return _default(builtins.enumerate)(iterable, start)
    return _StagedItems([iterable],
                        lambda i: (math_ops.add(i, start) if start else i, iterable[i]),
                        lambda: builtins.enumerate(iterable, start))


def zip_(*iterables: Any, strict: bool = False) -> Any:
    """`zip(...)`; over symbolic tensors only, their rows side by side (as many as the
    shortest has; `strict=True` is left to Python's zip)."""
    if strict or not iterables or not all(isinstance(t, Tensor) for t in iterables) or \
            not _symbolic(*iterables):
        return builtins.zip(*iterables, strict=strict) if strict else \
            _default(builtins.zip)(*iterables)
    return _StagedItems(list(iterables), lambda i: tuple(t[i] for t in iterables),
                        lambda: builtins.zip(*iterables))


def abs_(x: Any) -> Any:
    """`abs(x)`; elementwise for tensors."""
    if isinstance(x, Tensor):
        return math_ops.abs(x)
    return builtins.abs(x)


def _rows(builtin, x):
    """A symbolic tensor reduced over its first dimension as Python's iteration would see
    it: only a vector's rows are scalars Python can compare or add."""
    rank = x.ndim
    if rank == 0:
        raise TypeError("%s() of a 0-d tensor: a tensor is iterable only along a first "
                        "dimension" % builtin)
    if rank != 1:
        raise ValueError("%s() of a tensor of rank %s: Python would compare or test its "
                         "rows, which are tensors themselves; use tf.reduce_* with an axis"
                         % (builtin, "unknown" if rank is None else rank))


def _extreme(builtin, reduce, pairwise):
    def staged(*args, **kwargs):
        if kwargs or not _symbolic(*args):
            return builtin(*args, **kwargs)
        if len(args) == 1:
            _rows(builtin.__name__, args[0])
            return reduce(args[0])
        if not all(isinstance(a, Tensor) and a.ndim == 0 or not isinstance(a, Tensor)
                   for a in args):
            raise ValueError("%s() of several tensors needs scalars (Python would compare "
                             "arrays elementwise)" % builtin.__name__)
        result = args[0]
        for arg in args[1:]:
            result = pairwise(result, arg)
        return result
    staged.__name__ = builtin.__name__ + "_"
    staged.__doc__ = ("`%s(...)`; of one symbolic vector, its reduction; of several scalar "
                      "tensors, the elementwise %s." % (builtin.__name__, builtin.__name__))
    return staged


max_ = _extreme(builtins.max, reduction_ops.reduce_max, math_ops.maximum)
min_ = _extreme(builtins.min, reduction_ops.reduce_min, math_ops.minimum)


def sum_(iterable: Any, start: Any = 0) -> Any:
    """`sum(...)`; of a symbolic tensor, the sum of its rows (over the first axis) plus
    `start`."""
    if not isinstance(iterable, SymbolicTensor):
        return _default(builtins.sum)(iterable, start)
    if iterable.ndim == 0:
        raise TypeError("sum() of a 0-d tensor: a tensor is iterable only along a first "
                        "dimension")
    total = reduction_ops.reduce_sum(iterable, axis=0)
    return math_ops.add(total, start) if not _is_zero(start) else total


def _is_zero(value):
    return not isinstance(value, (Tensor, EagerTensor)) and value == 0


def _truth(builtin, reduce):
    def staged(iterable):
        if not isinstance(iterable, SymbolicTensor):
            return builtin(iterable)
        _rows(builtin.__name__, iterable)
        truth = iterable if iterable.dtype is dtypes.bool_ else \
            math_ops.not_equal(iterable, 0)
        return reduce(truth)
    staged.__name__ = builtin.__name__ + "_"
    staged.__doc__ = ("`%s(...)`; of a symbolic vector, whether %s element is true."
                      % (builtin.__name__, "any" if builtin is builtins.any else "every"))
    return staged


any_ = _truth(builtins.any, reduction_ops.reduce_any)
all_ = _truth(builtins.all, reduction_ops.reduce_all)

OVERLOADS = {builtins.print: print_, builtins.enumerate: enumerate_, builtins.zip: zip_,
             builtins.abs: abs_, builtins.max: max_, builtins.min: min_, builtins.sum: sum_,
             builtins.any: any_, builtins.all: all_}

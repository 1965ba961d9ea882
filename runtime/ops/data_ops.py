"""Ops that run `tf.data` pipelines inside graphs.

A dataset is a Python object describing a pipeline (see `runtime.data`); a graph does not hold
its elements. It holds three stateful ops whose kernels run the pipeline in Python, as
`py_function` does:

  * `AnonymousIterator(*dataset tensors, dataset=...)` starts a fresh pass over the dataset
    and returns it as a resource (a run-time cursor). Its inputs are the tensors the pipeline
    was built from (slices, batch sizes, values captured by mapped functions...), so a
    dataset built from a traced function's tensors works too.
  * `IteratorGetNext(iterator, specs=...)` returns the next element's components, with the
    dtypes and static shapes of the dataset's `element_spec`; past the end it raises
    `OutOfRangeError`.
  * `IteratorHasNext(iterator[, proceed])` looks one element ahead and returns whether there
    is one (False, without looking, when `proceed` is False). The element it fetched is what
    the next `IteratorGetNext` returns. A staged `for x in dataset` loop asks it in the While
    op's condition and takes the element in the body, so that the loop neither grows with
    the data nor consumes an element it will not use (`break`).

The iterator input is either the output of `AnonymousIterator` or a captured
`runtime.data.Iterator` (a Python object passed into a traced function): both are cursors
with `_has_next(proceed)` and `_next_flat()`.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import common
from runtime.ops.registry import (
    KERNEL_CALL,
    NOT_DIFFERENTIABLE,
    execute,
    not_saveable,
    register,
)

OPS = {}


def _anonymous_iterator_kernel(*values, dataset):
    return dataset._open_cursor(values)


# Side effects, not only state: each run must open a new pass where the op stands (a loop
# over a dataset inside another loop restarts it every outer iteration), so no graph pass
# may move, merge or drop it. Opening a pass is cheap: nothing is read until the first fetch.
_ITERATOR_NOT_SAVEABLE = not_saveable(
    "it iterates a Python-side Dataset; a saved model holds graphs only (iterate the Dataset "
    "outside the saved function and pass its elements in)")

OPS["AnonymousIterator"] = register(
    "AnonymousIterator", _anonymous_iterator_kernel,
    lambda specs, attrs: [(dtypes.resource, ())],
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("side_effects", "host_only", "unrepeatable"),
    saving=_ITERATOR_NOT_SAVEABLE,
    lowerings={"jax": lowering_api.OPEN_ITERATOR_ON_HOST,
               "numba": lowering_api.OPEN_ITERATOR_ON_HOST})


def _get_next_kernel(iterator, specs):
    values = iterator._next_flat()
    if len(specs) == 1:
        return values[0]
    return tuple(values)


OPS["IteratorGetNext"] = register(
    "IteratorGetNext", _get_next_kernel, lambda specs, attrs: list(attrs["specs"]),
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
    # an element may be a slice of the dataset's own arrays
    traits=("side_effects", "host_only", "unrepeatable", "shares_state"),
    saving=_ITERATOR_NOT_SAVEABLE,
    lowerings={"jax": lowering_api.ITERATOR_GET_NEXT_ON_HOST,
               "numba": lowering_api.ITERATOR_GET_NEXT_ON_HOST})


def _has_next_kernel(iterator, proceed=np.True_):
    return iterator._has_next(proceed)


OPS["IteratorHasNext"] = register(
    "IteratorHasNext", _has_next_kernel, lambda specs, attrs: [(dtypes.bool_, ())],
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("side_effects", "host_only", "unrepeatable"),
    saving=_ITERATOR_NOT_SAVEABLE,
    lowerings={"jax": lowering_api.ITERATOR_HAS_NEXT_ON_HOST,
               "numba": lowering_api.ITERATOR_HAS_NEXT_ON_HOST})


def anonymous_iterator(dataset, tensors):
    """A resource tensor: a new pass over `dataset`, built from its `tensors`."""
    inputs = [common.convert_to_tensor(t) for t in tensors]
    return execute(OPS["AnonymousIterator"], inputs, {"dataset": dataset},
                   name="AnonymousIterator")[0]


def iterator_get_next(handle, specs):
    """The next element's components (flat list of tensors) of the iterator `handle`."""
    return execute(OPS["IteratorGetNext"], [handle], {"specs": tuple(specs)},
                   name="IteratorGetNext")


def iterator_has_next(handle, proceed=None):
    """A bool tensor: does the iterator `handle` have another element? With a bool tensor
    `proceed`, only looks (and so only consumes from the source) when it is True."""
    inputs = [handle] if proceed is None else [handle, proceed]
    return execute(OPS["IteratorHasNext"], inputs, {}, name="IteratorHasNext")[0]

"""Iterators over datasets, eagerly and in graphs, and `for x in dataset` loops.

A *cursor* is one pass over a dataset: the Python iterator of its flat elements, with one
element of look-ahead. `Iterator` (TensorFlow's `tf.data.Iterator`) is what `iter(dataset)`
returns: made eagerly it holds a cursor and yields eager tensors; passed into a traced
function it is captured as a resource, so each run of the graph advances it; made inside a
trace it stands for the graph's `AnonymousIterator` output.

An eager iterator is a checkpoint's trackable object: its position (each stage's, see
runtime.data.readers) is saved under `ITERATOR_STATE/...` attributes, and restoring rewinds
(or advances) it to that position.

In a graph, `for x in dataset` (converted code calls `__ag_for_stmt__`) is ONE While op: its
condition asks `IteratorHasNext` (only while the lowered break/return flags allow, so a
`break` consumes nothing more) and its body takes the element with `IteratorGetNext`.
"""

import dis
import sys
from typing import Any

import numpy as np

from runtime import context, errors
from runtime.data import readers
from runtime.data.structure import flat_specs, pack, spec_text
from runtime.operators import loops, staging
from runtime.ops import common, data_ops
from runtime.tensor import EagerTensor


class Cursor:
    """One pass over a dataset: its flat elements (from a `readers.Reader`), with one
    element of look-ahead."""

    __slots__ = ("_source", "_pull", "_peeked")

    def __init__(self, source):
        self._source = source
        self._pull = source.__next__  # (called directly: cheaper than next(source))
        self._peeked = None

    def save(self, state):
        """Writes the position (the reader's, and the element looked ahead at) to `state`."""
        state.put_elements("peeked", [] if self._peeked is None else [self._peeked])
        self._source.save(state.child("dataset"))

    def restore(self, state, specs):
        """Sets this cursor, fresh, to the position in `state` (`specs`: the elements' flat
        (dtype, shape))."""
        peeked = state.get_elements("peeked", specs, most=1)
        self._source.restore(state.child("dataset"))
        self._peeked = peeked[0] if peeked else None

    def _has_next(self, proceed=True):
        if not proceed:
            return np.False_
        if self._peeked is None:
            try:
                self._peeked = self._pull()
            except StopIteration:
                return np.False_
        return np.True_

    def _next_flat(self):
        peeked = self._peeked
        if peeked is not None:
            self._peeked = None
            return peeked
        try:
            return self._pull()
        except StopIteration:
            raise errors.OutOfRangeError("End of sequence: the iterator has no more "
                                         "elements", "IteratorGetNext") from None


class Iterator:
    """An iterator over a dataset (`iter(dataset)`), TensorFlow's `tf.data.Iterator`.

    Made eagerly, it holds a cursor and yields eager tensors; passed into a traced function,
    it is captured as a resource and every run of the graph advances it. Made inside a trace
    (`iter(dataset)` there), it is a graph value, usable only in that trace."""

    def __init__(self, dataset, cursor=None, handle=None):
        self._element_spec = dataset.element_spec
        self._flat = flat_specs(self._element_spec)
        self._cursor = cursor
        self._handle = handle
        self._dataset = dataset if cursor is not None else None  # to restore a position

    @property
    def element_spec(self):
        """The structure of TensorSpecs that every element matches."""
        return self._element_spec

    def __repr__(self):
        return "<Iterator element_spec=%s>" % spec_text(self._element_spec)

    def __iter__(self):
        if not context.executing_eagerly():
            refuse_python_loop_in_graph("a tf.data.Iterator")
        return self

    def __next__(self):
        if context.executing_eagerly():
            try:
                flat = self._eager_cursor()._next_flat()
            except errors.OutOfRangeError:
                raise StopIteration from None
            return self._pack_eager(flat)
        # In a graph the end of the data is unknown while tracing: something like
        # `list(dataset)` would add IteratorGetNext nodes forever. No real trace takes this
        # many elements one `next` at a time.
        self._graph_nexts = getattr(self, "_graph_nexts", 0) + 1
        if self._graph_nexts > _MAX_GRAPH_NEXTS:
            raise errors.OperatorNotAllowedInGraphError(errors.with_user_location(
                "a tf.data iterator was advanced %d times while tracing one function: "
                "iterating a dataset with Python (list(), sum(), a loop in unconverted code) "
                "has no end in a graph. Use `for x in dataset` in converted code (one While "
                "op), or dataset.reduce / dataset.enumerate / tf.data.Dataset.zip"
                % _MAX_GRAPH_NEXTS))
        return self.get_next()

    def get_next(self, name=None):
        """The next element; past the end raises OutOfRangeError (when the graph runs, in a
        traced function)."""
        if context.executing_eagerly():
            return self._pack_eager(self._eager_cursor()._next_flat())
        flat = data_ops.iterator_get_next(self._resource(), self._flat)
        return pack(self._element_spec, flat)

    # -- checkpoints (runtime.checkpoint.trackables) -------------------------------------------
    def _checkpoint_state(self):
        """The iterator's position, by checkpoint attribute name: every stage's state, as
        arrays (FailedPreconditionError when a stage keeps its position in Python)."""
        values: dict[str, Any] = {}
        self._eager_cursor().save(readers.StateWriter(values, ITERATOR_STATE + "/"))
        return values

    def _restore_checkpoint_state(self, values, where):
        """Sets the position to the one saved in `values` (read from checkpoint `where`):
        a new pass over the dataset, each stage set to its saved state. Nothing changes
        when the values do not fit the dataset (DataLossError, naming the value)."""
        self._eager_cursor()
        assert self._dataset is not None  # (an iterator with a cursor keeps its dataset)
        cursor = self._dataset._open_eager()
        state = readers.StateReader(values, where)
        cursor.restore(state.child(ITERATOR_STATE), self._flat)
        state.check_all_used()
        for change in state.on_success:
            change()
        self._cursor = cursor

    # -- run time: the kernels call these on a captured iterator -----------------------------
    def _has_next(self, proceed=True):
        return self._eager_cursor()._has_next(proceed)

    def _next_flat(self):
        return self._eager_cursor()._next_flat()

    def _eager_cursor(self):
        if self._cursor is None:
            raise TypeError(errors.with_user_location(
                "this iterator was made inside a traced function (by iter(dataset) there) and "
                "can be used only inside that trace; make it eagerly and pass it in instead"))
        return self._cursor

    def _pack_eager(self, flat):
        return pack(self._element_spec,
                    [v if d is None else EagerTensor(v, d)  # None: a window's dataset
                     for v, (d, _) in zip(flat, self._flat)])

    def _resource(self):
        return self._handle if self._handle is not None else self

    # -- `for x in iterator` in converted code ---------------------------------------------------
    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """Eagerly a Python loop; in a graph, one While op whose condition asks
        IteratorHasNext (only while `extra_test`, the lowered break/return flags, holds)
        and whose body takes the element with IteratorGetNext. `options`: the loop's
        LoopOptions (shape invariants, maximum_iterations), honoured when it is staged."""
        if context.executing_eagerly():
            while extra_test is None or extra_test():
                try:
                    flat = self._eager_cursor()._next_flat()
                except errors.OutOfRangeError:
                    return
                body(self._pack_eager(flat))
            return
        staged_for(self._resource(), self._element_spec, self._flat, extra_test, body,
                   get_state, set_state, symbol_names, options)


_MAX_GRAPH_NEXTS = 1000
ITERATOR_STATE = "ITERATOR_STATE"  # the checkpoint attribute names' first part


def refuse_python_loop_in_graph(what):
    """Raises OperatorNotAllowedInGraphError when the caller's current instruction is a
    Python `for` (GET_ITER) in a graph: unconverted code (autograph=False, do_not_convert)
    would call `__next__` forever, each call adding an IteratorGetNext node. `iter(ds)` and
    `next(it)` stay allowed, and converted loops never get here (see `__ag_for_stmt__`)."""
    frame = sys._getframe(2)
    try:
        instruction = dis.opname[frame.f_code.co_code[frame.f_lasti]]
    except (IndexError, AttributeError):
        return
    finally:
        del frame
    if instruction == "GET_ITER":
        raise errors.OperatorNotAllowedInGraphError(errors.with_user_location(
            "iterating over %s with a Python for loop is not allowed in a traced function "
            "whose code is not converted (autograph=False or do_not_convert): the loop has no "
            "end while tracing. Let autograph convert the function, so that the loop becomes "
            "one While op, or take elements with next(iterator)" % what))


def staged_for(handle, element_spec, specs, extra_test, body, get_state, set_state,
               symbol_names, options=None):
    """Stages `for x in <iterator handle>` as one While op over the statement's state.

    `specs` are the element's flat (dtype, shape) pairs; `extra_test` the lowered
    break/return condition, checked before the iterator is asked for another element;
    `options` the loop's LoopOptions (or None)."""

    def test(_):
        proceed = None
        if extra_test is not None:
            keep_going = staging.as_condition(extra_test())
            if not staging.is_symbolic(keep_going):
                if not keep_going:
                    return common.convert_to_tensor(False)
            else:
                proceed = keep_going
        return data_ops.iterator_has_next(handle, proceed)

    def step(_):
        body(pack(element_spec, data_ops.iterator_get_next(handle, specs)))

    loops.stage_loop(get_state, set_state, symbol_names, test, step, options=options,
                     stage_lists="empty")

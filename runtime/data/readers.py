"""Readers: one pass over a pipeline stage's elements, whose position is a set of values.

A stage's `_reader(feed)` (runtime.data.pipeline) gives an iterator of flat elements that can
also `save` its position into a `StateWriter` and take one back from a `StateReader`: the
position of an iterator over a whole pipeline is the state of each stage's reader, each
under the stage's own names, as tensors (never pickled objects):

    taken                       (take) int64 scalar: the elements given so far
    input/input/next            (take of map of range) int64 scalar: the next value's index

That is what a `tf.train.Checkpoint` saves of a dataset iterator (runtime.data.iterator).
Restoring opens a fresh pass and sets each stage's position from the values, which are
checked (dtype, shape, range, every value used, none missing) as untrusted input: a
checkpoint may come from anyone.

A stage whose position lives in Python state (a generator, a Python function) reads
through a `GeneratorReader`, whose `save` raises FailedPreconditionError naming the stage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from runtime import dtypes, errors


class StateWriter:
    """Collects a reader's state: named arrays, under the names of the stages above it."""

    def __init__(self, values: dict[str, np.ndarray], prefix: str = "") -> None:
        self._values = values
        self._prefix = prefix

    def child(self, name: str) -> StateWriter:
        """The writer of a part (an input's reader), its names under `name/`."""
        return StateWriter(self._values, self._prefix + name + "/")

    def put(self, name: str, value: Any) -> None:
        """Saves `value` (an array or a number) as `name`."""
        self._values[self._prefix + name] = np.asarray(value)

    def put_int(self, name: str, value: int) -> None:
        """Saves the int `value` as an int64 scalar `name`."""
        self.put(name, np.int64(value))

    def put_elements(self, name: str, elements: list[tuple[Any, ...]]) -> None:
        """Saves a list of flat elements: their count and each component."""
        self.put_int(name + "/count", len(elements))
        for i, flat in enumerate(elements):
            for j, value in enumerate(flat):
                if value is not None and not isinstance(value, (np.ndarray, np.generic)):
                    raise errors.FailedPreconditionError(
                        "cannot save the iterator's state: an element held by the pipeline "
                        "has a component that is not a tensor (%s)" % type(value).__name__)
                self.put("%s/%d/%d" % (name, i, j), value)


class StateReader:
    """A reader's saved state, checked as it is read (`where` names the checkpoint)."""

    def __init__(self, values: dict[str, np.ndarray], where: str, prefix: str = "",
                 used: set[str] | None = None,
                 on_success: list[Callable[[], None]] | None = None) -> None:
        self._values = values
        self._where = where
        self._prefix = prefix
        self._used = used if used is not None else set()
        # changes to state outside the readers (a stage's), made once the whole restore
        # succeeded, so that a refused one changes nothing
        self.on_success = on_success if on_success is not None else []

    def child(self, name: str) -> StateReader:
        """The state of a part (an input's reader), saved under `name/`."""
        return StateReader(self._values, self._where, self._prefix + name + "/", self._used,
                           self.on_success)

    def fail(self, name: str, problem: str) -> errors.DataLossError:
        """The error for value `name` of the state, which has `problem`."""
        return errors.DataLossError("%s: the iterator state's value %s%s %s" % (
            self._where, self._prefix, name, problem))

    def get(self, name: str) -> np.ndarray:
        """The array saved as `name`."""
        key = self._prefix + name
        value = self._values.get(key)
        if value is None:
            raise self.fail(name, "is missing: the checkpoint was saved from an iterator "
                                  "over another dataset")
        self._used.add(key)
        return value

    def get_int(self, name: str, low: int = 0, high: int | None = None) -> int:
        """The int64 scalar saved as `name`, which must be in [low, high]."""
        value = self.get(name)
        if value.dtype != np.int64 or value.shape != ():
            raise self.fail(name, "is a %s array of shape %s, not an int64 scalar"
                            % (value.dtype, value.shape))
        number = int(value)
        if number < low or (high is not None and number > high):
            raise self.fail(name, "is %d, out of its range [%d, %s]"
                            % (number, low, "inf" if high is None else high))
        return number

    def get_elements(self, name: str, specs: list[tuple[Any, Any]],
                     most: int | None = None) -> list[tuple[Any, ...]]:
        """A list of flat elements saved by `put_elements`, each component checked against
        `specs` ((dtype, shape) per component); at most `most` of them."""
        count = self.get_int(name + "/count", 0, most)
        elements = []
        for i in range(count):
            flat = []
            for j, (dtype, shape) in enumerate(specs):
                part = "%s/%d/%d" % (name, i, j)
                flat.append(self._component(part, self.get(part), dtype, shape))
            elements.append(tuple(flat))
        return elements

    def _component(self, name: str, value: np.ndarray, dtype: Any, shape: Any) -> Any:
        if dtype is None:
            raise self.fail(name, "stands for a dataset, which no state holds")
        if dtype is dtypes.string:
            if value.dtype != object or not all(isinstance(v, bytes)
                                                for v in value.reshape(-1)):
                raise self.fail(name, "is not a string tensor")
        elif value.dtype != dtype.np_dtype:
            raise self.fail(name, "is %s, not %s" % (value.dtype, dtype.name))
        if shape is not None and (len(shape) != value.ndim or any(
                d is not None and d != s for d, s in zip(shape, value.shape))):
            raise self.fail(name, "has shape %s, not the element's %s"
                            % (value.shape, shape))
        if value.ndim == 0 and value.dtype != object:
            return value[()]  # a scalar as the stages make it: a numpy scalar
        return value

    def check_all_used(self) -> None:
        """Raises DataLossError when the state holds values no stage read."""
        unused = sorted(set(self._values) - self._used)
        if unused:
            raise errors.DataLossError(
                "%s: the iterator state holds values that no stage of this dataset has (%s): "
                "the checkpoint was saved from an iterator over another dataset"
                % (self._where, ", ".join(unused[:5])))


class Reader:
    """One pass over a stage's elements (flat tuples of numpy values), whose position can
    be saved and restored. A subclass defines `__next__`, `save` and `restore`."""

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return self

    def __next__(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def save(self, state: StateWriter) -> None:
        """Writes this reader's position (and its inputs') into `state`."""
        raise NotImplementedError

    def restore(self, state: StateReader) -> None:
        """Sets this reader, fresh at the start of its pass, to the position in `state`."""
        raise NotImplementedError


class GeneratorReader(Reader):
    """A stage's elements from its Python generator (`_generate`): the position is in the
    generator, so it cannot be saved."""

    def __init__(self, stage: Any, generator: Iterator[tuple[Any, ...]]) -> None:
        self._stage = stage
        self._generator = generator
        # the generator's own method, which `source.__next__` finds first (see InputReader)
        self.__next__ = generator.__next__  # type: ignore[method-assign]

    def __next__(self) -> tuple[Any, ...]:
        return next(self._generator)

    def save(self, state: StateWriter) -> None:
        """Refuses: see `unsaveable`."""
        raise unsaveable(self._stage)

    def restore(self, state: StateReader) -> None:
        """Refuses: see `unsaveable`."""
        raise unsaveable(self._stage)


def unsaveable(stage: Any, why: str | None = None) -> errors.FailedPreconditionError:
    """The error for saving the position of an iterator over `stage`, whose position is
    Python state (`why`, or the stage's `_position_is_python`, says why), or whose saving is
    not supported."""
    why = why or getattr(stage, "_position_is_python", None)
    if why is None:
        why = ("its pipeline's %s stage (%s) keeps no position that can be saved (not "
               "supported yet)" % (type(stage).__name__, stage._name))
    return errors.FailedPreconditionError(
        "cannot save the state of this dataset iterator: %s" % why, "SerializeIterator")


class InputReader(Reader):
    """A reader of a stage that passes its one input's elements through a stateless
    function: its position is its input's."""

    def __init__(self, source: Reader) -> None:
        self._source = source
        self._pull = source.__next__  # (called directly: cheaper than next(source))

    def save(self, state: StateWriter) -> None:
        """Writes the input's position."""
        self._source.save(state.child("input"))

    def restore(self, state: StateReader) -> None:
        """Sets the input's position."""
        self._source.restore(state.child("input"))

"""Datasets of datasets: `window` (elements that are datasets) and the transformations
whose function returns a dataset, `flat_map`, `interleave` and `group_by_window`.

A window's component travels as a dataset over the rows it holds (`Rows`). A function given
to flat_map/interleave is traced once (`DatasetFunction`); a window passed to it is a `Fed`
dataset, whose rows come from the run-time feed.
"""

import os

import numpy as np

from runtime import dtypes, errors, nest
from runtime.data.element_functions import DatasetFunction, TracedFunction
from runtime.data.pipeline import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Pipeline
from runtime.data.structure import DatasetSpec, int_param, static_int
from runtime.signature import TensorSpec


class Rows(Pipeline):
    """A dataset over rows held in memory (a window's component)."""

    _name = "_VariantDataset"

    def __init__(self, element_spec, rows):
        super().__init__(element_spec)
        self._rows = rows

    def _cardinality(self):
        return len(self._rows)

    def _generate(self, feed):
        return iter(self._rows)


class Fed(Pipeline):
    """A dataset argument of a traced flat_map/interleave function: its elements are those
    of the dataset fed under `key` when the function runs."""

    _name = "_VariantDataset"

    def __init__(self, element_spec, key):
        super().__init__(element_spec)
        self._key = key

    def _generate(self, feed):
        return feed[id(self._key)]._generate({})


class Window(Pipeline):
    """Windows of `size` consecutive elements (every `stride`-th), a new one every `shift`
    elements; each component of an element is a dataset of that component's values."""

    _name = "_WindowDataset"

    def __init__(self, input_dataset, size, shift, stride, drop_remainder, wrap):
        values = {}
        for name, value in (("size", size), ("shift", size if shift is None else shift),
                            ("stride", stride)):
            tensor = int_param(value, name, "window")
            known = static_int(tensor)
            if known is None:
                raise ValueError("window: %s must be known when the dataset is built" % name)
            if known <= 0:
                raise ValueError("window: %s must be positive, got %d" % (name, known))
            values[name] = known
        self._size, self._shift, self._stride = values["size"], values["shift"], \
            values["stride"]
        self._drop = bool(drop_remainder)
        self._wrap = wrap
        spec = input_dataset.element_spec
        # a composite component (a SparseTensor) is one dataset of its values, as in TF
        self._leaf_specs = nest.flatten(spec, expand_composites=False)
        self._widths = [len(nest.flatten(s)) for s in self._leaf_specs]
        windows = [DatasetSpec(s) for s in self._leaf_specs]
        super().__init__(nest.pack_sequence_as(spec, windows, expand_composites=False)
                         if nest.is_nested(spec, expand_composites=False) else windows[0],
                         inputs=(input_dataset,))

    def _columns(self):
        """(spec, first flat component, number of components) of each window dataset."""
        start_at = 0
        for spec, width in zip(self._leaf_specs, self._widths):
            yield spec, start_at, width
            start_at += width

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _generate(self, feed):
        span = (self._size - 1) * self._stride + 1
        buffer: list[tuple] = []
        start = 0  # the index of buffer[0] in the input
        source = self._inputs[0]._generate(feed)
        ended = False
        next_start = 0
        while True:
            while not ended and start + len(buffer) < next_start + span:
                try:
                    buffer.append(next(source))
                except StopIteration:
                    ended = True
            held = buffer[next_start - start::self._stride][:self._size]
            if not held or (self._drop and len(held) < self._size):
                return
            yield tuple(self._wrap(Rows(s, [row[start_at:start_at + width] for row in held]))
                        for s, start_at, width in self._columns())
            next_start += self._shift
            drop = min(next_start - start, len(buffer))
            del buffer[:drop]
            start += drop
            if ended and next_start >= start + len(buffer):
                return


class FlatMap(Pipeline):
    """The elements of the dataset `map_func` returns for each element, one after another."""

    _name = "_FlatMapDataset"

    def __init__(self, input_dataset, map_func, wrap, what="flat_map"):
        self._fn = DatasetFunction(map_func, input_dataset.element_spec, what,
                                   lambda spec, key: wrap(Fed(spec, key)))
        super().__init__(self._fn.dataset.element_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _generate(self, feed):
        captured = [feed[id(t)] for t in self._tensors]
        for flat in self._inputs[0]._generate(feed):
            yield from self._fn(flat, captured)


class Interleave(FlatMap):
    """The elements of the datasets `map_func` returns, `cycle_length` of them open at once,
    `block_length` elements from each in turn (TensorFlow's deterministic order)."""

    _name = "_InterleaveDataset"

    def __init__(self, input_dataset, map_func, cycle_length, block_length, wrap):
        super().__init__(input_dataset, map_func, wrap, "interleave")
        cycle = (os.cpu_count() or 1) if cycle_length in (None, -1) else cycle_length
        self._cycle = static_int(int_param(cycle, "cycle_length", "interleave"))
        self._block = static_int(int_param(block_length, "block_length", "interleave"))
        if self._cycle <= 0 or self._block <= 0:
            raise ValueError("interleave: cycle_length and block_length must be positive, got "
                             "%d and %d" % (self._cycle, self._block))

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        return n if n in (0, INFINITE_CARDINALITY) else UNKNOWN_CARDINALITY

    def _generate(self, feed):
        captured = [feed[id(t)] for t in self._tensors]
        inputs = self._inputs[0]._generate(feed)
        slots = [None] * self._cycle
        index, produced, open_count, inputs_ended = 0, 0, 0, False
        while not inputs_ended or open_count:
            current = slots[index]
            if current is not None:
                try:
                    element = next(current)
                except StopIteration:
                    slots[index] = None
                    open_count -= 1
                    index, produced = (index + 1) % self._cycle, 0
                    continue
                produced += 1
                if produced == self._block:
                    index, produced = (index + 1) % self._cycle, 0
                yield element
            elif not inputs_ended:
                try:
                    flat = next(inputs)
                except StopIteration:
                    inputs_ended = True
                    continue
                slots[index] = iter(self._fn(flat, captured))
                open_count += 1
            else:
                index, produced = (index + 1) % self._cycle, 0


def refuse_windows_in_graph(element_spec):
    """TypeError when a dataset of windows is iterated in a graph."""
    if any(isinstance(s, DatasetSpec) for s in nest.flatten(element_spec)):
        raise TypeError(errors.with_user_location(
            "a dataset whose elements are datasets (from window) can be iterated only "
            "eagerly; inside a tf.function use flat_map or interleave, e.g. "
            "ds.window(3).flat_map(lambda w: w.batch(3))"))


class GroupByWindow(Pipeline):
    """The input's elements grouped by `key_func`'s int64 key; each group of
    `window_size` (or `window_size_func(key)`) elements, and each group left at the end
    (in ascending key order), passed as a dataset to `reduce_func(key, window)`, whose
    datasets' elements are the result."""

    _name = "_GroupByWindowDataset"

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func,
                 wrap):
        spec = input_dataset.element_spec
        if (window_size is None) == (window_size_func is None):
            raise ValueError("group_by_window: give exactly one of window_size and "
                             "window_size_func")
        self._key = TracedFunction(key_func, spec, "group_by_window key_func")
        _scalar_int64(self._key.output_spec, "key_func")
        key_spec = TensorSpec((), dtypes.int64)
        self._size_fn: TracedFunction | None = None
        self._size = None
        tensors = list(self._key.tensors)
        if window_size_func is not None:
            self._size_fn = TracedFunction(window_size_func, key_spec,
                                           "group_by_window window_size_func")
            _scalar_int64(self._size_fn.output_spec, "window_size_func")
            tensors += self._size_fn.tensors
        else:
            self._size = int_param(window_size, "window_size", "group_by_window")
            tensors.append(self._size)
        self._reduce = DatasetFunction(reduce_func, (key_spec, DatasetSpec(spec)),
                                       "group_by_window reduce_func",
                                       lambda s, key: wrap(Fed(s, key)))
        self._counts = (len(self._key.tensors),
                        0 if self._size_fn is None else len(self._size_fn.tensors))
        tensors += self._reduce.tensors
        self._wrap = wrap
        self._spec = spec
        super().__init__(self._reduce.dataset.element_spec, inputs=(input_dataset,),
                         tensors=tensors)

    def _generate(self, feed):
        values = [feed[id(t)] for t in self._tensors]
        nk, ns = self._counts
        key_captured = values[:nk]
        size_fn, fixed = self._size_fn, 0
        if size_fn is not None:
            size_captured = values[nk:nk + ns]
            reduce_captured = values[nk + ns:]
        else:
            fixed = int(values[nk])
            reduce_captured = values[nk + 1:]
        groups: dict[int, list[tuple]] = {}
        sizes: dict[int, int] = {}
        for flat in self._inputs[0]._generate(feed):
            key = self._key(flat, key_captured)[0]
            k = int(key)
            if k not in sizes:
                size = fixed if size_fn is None else int(size_fn((key,), size_captured)[0])
                if size <= 0:
                    raise errors.InvalidArgumentError(
                        "group_by_window: the window size must be positive, got %d for key "
                        "%d" % (size, k), "IteratorGetNext")
                sizes[k] = size
            group = groups.setdefault(k, [])
            group.append(flat)
            if len(group) == sizes[k]:
                del groups[k], sizes[k]
                yield from self._reduce_group(k, group, reduce_captured)
        for k in sorted(groups):
            yield from self._reduce_group(k, groups[k], reduce_captured)

    def _reduce_group(self, key, rows, captured):
        window = self._wrap(Rows(self._spec, rows))
        return self._reduce((np.int64(key), window), captured)


def _scalar_int64(spec, what):
    if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.int64 or \
            spec._shape not in ((), None):
        raise ValueError(errors.with_user_location(
            "group_by_window: %s must return a scalar int64 tensor, got %s" % (what, spec)))

"""The transformations of datasets: map, filter, batch, padded_batch, unbatch, take, skip,
take_while, scan, unique, zip, shuffle, repeat, prefetch, concatenate, and the choice among
datasets (choose_from_datasets, sample_from_datasets).

Map, filter, the batchings, unbatch, take, skip, take_while, scan, zip, shuffle, repeat,
prefetch and concatenate read through `Reader`s (runtime.data.readers), whose position a
checkpoint saves: what each saves is said by its reader's class. The others read through
Python generators.
"""

import itertools

import numpy as np

from runtime import dtypes, errors, nest
from runtime import shape as shape_lib
from runtime.composite.ragged import RaggedTensorSpec
from runtime.composite.sparse import SparseTensorSpec
from runtime.data import ragged_columns as ragged_columns_lib
from runtime.data import sources
from runtime.data.element_functions import TracedFunction
from runtime.data.pipeline import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Pipeline, to_tensor
from runtime.data.readers import InputReader, Reader, unsaveable
from runtime.data.structure import (
    flat_specs,
    int_param,
    leaf_paths,
    leaves_of,
    lists_to_tuples,
    map_input,
    pack,
    path_text,
    ragged_columns,
    relaxed_spec,
    row,
    sparse_columns,
    spec_text,
    static_int,
)
from runtime.ops import common, random_ops
from runtime.signature import TensorSpec
from runtime.tensor import Tensor


class Map(Pipeline):
    """`map_func` applied to each element of the input."""

    _name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        self._fn = TracedFunction(map_func, input_dataset.element_spec, "map")
        super().__init__(self._fn.output_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _reader(self, feed):
        return _FunctionReader(self, self._inputs[0]._reader(feed),
                               [feed[id(t)] for t in self._tensors])


class _FunctionReader(InputReader):
    """Map's and filter's reader (and the base of take_while's and scan's): the function is
    stateless, the position is the input's (unless the function calls Python:
    tf.py_function, tf.numpy_function)."""

    def __init__(self, stage, source, captured):
        super().__init__(source)
        self._stage = stage
        self._fn = stage._fn
        self._captured = captured

    def __next__(self):
        return self._fn(self._pull(), self._captured)

    def save(self, state):
        """Writes the input's position; refuses when the function calls Python."""
        if self._stage._fn.calls_python():
            raise unsaveable(self._stage, (
                "the function given to Dataset.%s calls Python (tf.py_function or "
                "tf.numpy_function), whose state is not a value (TensorFlow: EagerPyFunc is "
                "stateful)" % self._stage._fn.what))
        super().save(state)


class Filter(Pipeline):
    """The input's elements for which the predicate is True."""

    _name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        self._fn = TracedFunction(predicate, input_dataset.element_spec, "filter")
        spec = self._fn.output_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool_ or \
                spec._shape not in ((), None):
            raise ValueError(errors.with_user_location(
                "the predicate given to filter must return a scalar bool tensor, got %s"
                % spec_text(spec)))
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _reader(self, feed):
        return _FilterReader(self, self._inputs[0]._reader(feed),
                             [feed[id(t)] for t in self._tensors])


class _FilterReader(_FunctionReader):
    """Filter's reader: the input's elements for which the predicate holds; the position is
    the input's."""

    def __next__(self):
        fn, captured, pull = self._fn, self._captured, self._pull
        while True:
            flat = pull()
            if fn(flat, captured)[0]:
                return flat


class Batch(Pipeline):
    """Consecutive elements stacked into batches."""

    _name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        size, static = _batch_size(batch_size, "batch")
        self._size = static
        self._drop = bool(drop_remainder)
        lead = static if self._drop else None

        def batched(spec, path):
            shape = None if spec._shape is None else (lead,) + spec._shape
            if isinstance(spec, RaggedTensorSpec):  # k-ragged elements make a k+1-ragged batch
                return RaggedTensorSpec(shape, spec.dtype, spec.ragged_rank + 1)
            kind = SparseTensorSpec if isinstance(spec, SparseTensorSpec) else TensorSpec
            return kind(shape, spec.dtype)
        spec = input_dataset.element_spec
        self._sparse_columns = sparse_columns(spec)
        self._ragged_columns = ragged_columns(spec)
        super().__init__(map_input(spec, batched), inputs=(input_dataset,), tensors=[size])

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0 or self._size is None:
            return n if n < 0 else UNKNOWN_CARDINALITY
        return n // self._size if self._drop else -(-n // self._size)

    def _reader(self, feed):
        return _BatchReader(self, feed, lambda rows: _stack(rows, self._sparse_columns,
                                                            self._ragged_columns))


def _batch_size(batch_size, what):
    """(the batch size as a tensor, its value when known while building) of a batching
    transformation `what`; a known size that is not positive is a ValueError."""
    size = int_param(batch_size, "batch_size", what)
    static = static_int(size)
    if static is not None and static <= 0:
        raise ValueError("%s: batch_size must be positive, got %d" % (what, static))
    return size, static


class _BatchReader(InputReader):
    """The batches of a batching `stage` (its batch size is its first tensor, `_drop` says
    whether a short last batch is dropped), each made by `combine(rows)`. No rows are held
    between batches: the position is the input's."""

    def __init__(self, stage, feed, combine):
        super().__init__(stage._inputs[0]._reader(feed))
        self._size = int(feed[id(stage._tensors[0])])
        self._drop = stage._drop
        self._combine = combine

    def __next__(self):
        if self._size <= 0:
            raise errors.InvalidArgumentError("batch: batch_size must be positive, got %d"
                                              % self._size, "AnonymousIterator")
        rows, pull = [], self._pull
        while True:
            try:
                rows.append(pull())
            except StopIteration:
                break
            if len(rows) == self._size:
                return self._combine(rows)
        if rows and not self._drop:
            return self._combine(rows)
        raise StopIteration


def _stack_sparse(indices, values, dense_shapes):
    """The components of a batch of sparse elements: a leading batch index on the indices,
    the values concatenated, and the largest dense shape (TensorFlow's rule)."""
    ranks = {len(s) for s in dense_shapes}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            "batch: cannot batch SparseTensors of different ranks %s" % sorted(ranks),
            "IteratorGetNext")
    rank = ranks.pop()
    batch = [np.concatenate([np.full((len(ix), 1), k, np.int64),
                             np.reshape(ix, (len(ix), rank))], axis=1)
             for k, ix in enumerate(indices)]
    shape = np.max(np.stack(dense_shapes), axis=0) if rank else np.zeros(0, np.int64)
    return (np.concatenate(batch).astype(np.int64), np.concatenate(values),
            np.concatenate([[len(indices)], shape]).astype(np.int64))


def _stack(rows, sparse_columns=(), ragged=None):
    """The arrays of a batch of `rows` (flat elements): dense components stacked, a
    SparseTensor's three (starting at a position in `sparse_columns`) and a RaggedTensor's
    (`ragged`: {start: ragged rank}) combined by their own rules."""
    columns = list(zip(*rows))
    ragged = ragged or {}
    owned = {start + k for start, rank in ragged.items() for k in range(1, rank + 1)}
    out = []
    for i, column in enumerate(columns):
        if i in sparse_columns:
            out.extend(_stack_sparse(*columns[i:i + 3]))
            continue
        if i in ragged:
            rank = ragged[i]
            out.extend(ragged_columns_lib.batch([r[i:i + rank + 1] for r in rows], rank))
            continue
        if i - 1 in sparse_columns or i - 2 in sparse_columns or i in owned:
            continue
        first = np.shape(column[0])
        for j, value in enumerate(column):
            if np.shape(value) != first:
                raise errors.InvalidArgumentError(
                    "batch: cannot batch elements of different shapes in component %d: element "
                    "0 of the batch has shape %s and element %d has shape %s"
                    % (i, shape_lib.to_string(first), j, shape_lib.to_string(np.shape(value))),
                    "IteratorGetNext")
        out.append(np.stack(column))
    return tuple(out)


class Take(Pipeline):
    """The input's first `count` elements."""

    _name = "_TakeDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "take")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None:
            return UNKNOWN_CARDINALITY
        if count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return count
        return UNKNOWN_CARDINALITY if n < 0 else min(n, count)

    def _reader(self, feed):
        return _TakeReader(self._inputs[0]._reader(feed), int(feed[id(self._count)]))


class _TakeReader(InputReader):
    """Take's reader: saves `taken`, the elements given so far, and the input's position."""

    def __init__(self, source, count):
        super().__init__(source)
        self._count = count
        self._taken = 0

    def __next__(self):
        if 0 <= self._count <= self._taken:
            raise StopIteration
        flat = self._pull()
        self._taken += 1
        return flat

    def save(self, state):
        """Writes `taken` and the input's position."""
        state.put_int("taken", self._taken)
        super().save(state)

    def restore(self, state):
        """Sets `taken` and the input's position."""
        self._taken = state.get_int("taken", 0, None if self._count < 0 else self._count)
        super().restore(state)


class Skip(Pipeline):
    """The input's elements after the first `count`."""

    _name = "_SkipDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "skip")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None or n == UNKNOWN_CARDINALITY:
            return UNKNOWN_CARDINALITY
        if count < 0:
            return 0
        return n if n == INFINITE_CARDINALITY else max(0, n - count)

    def _reader(self, feed):
        return _SkipReader(self._inputs[0]._reader(feed), int(feed[id(self._count)]))


class _SkipReader(InputReader):
    """Skip's reader: saves `skipped` (1 once the first elements were skipped) and the
    input's position."""

    def __init__(self, source, count):
        super().__init__(source)
        self._count = count
        self._skipped = False

    def __next__(self):
        if self._count < 0:
            raise StopIteration
        if not self._skipped:
            self._skipped = True
            for _ in range(self._count):
                self._pull()
        return self._pull()

    def save(self, state):
        """Writes `skipped` and the input's position."""
        state.put_int("skipped", int(self._skipped))
        super().save(state)

    def restore(self, state):
        """Sets `skipped` and the input's position."""
        self._skipped = bool(state.get_int("skipped", 0, 1))
        super().restore(state)


class Zip(Pipeline):
    """Tuples (or the given structure) of the inputs' elements, as long as the shortest."""

    _name = "_ZipDataset"

    def __init__(self, datasets):
        structure = lists_to_tuples(datasets)
        flat = nest.flatten(structure)
        for path, ds in zip(leaf_paths(structure), flat):
            if not isinstance(ds, Pipeline):
                raise TypeError("Dataset.zip takes a (nested) structure of datasets, got %r "
                                "at %s" % (ds, path_text(path)))
        spec = nest.pack_sequence_as(structure, [ds.element_spec for ds in flat]) \
            if nest.is_nested(structure) else flat[0].element_spec
        super().__init__(spec, inputs=flat)

    def _cardinality(self):
        counts = [ds._cardinality() for ds in self._inputs]
        finite = [n for n in counts if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in counts else INFINITE_CARDINALITY

    def _reader(self, feed):
        return _ZipReader([ds._reader(feed) for ds in self._inputs])


class _ZipReader(Reader):
    """Zip's reader: its position is each input's (`input_0`, `input_1`, ...)."""

    def __init__(self, sources):
        self._sources = sources

    def __next__(self):
        parts = [next(source) for source in self._sources]  # (a list: StopIteration ends it)
        return tuple(v for part in parts for v in part)

    def save(self, state):
        """Writes each input's position."""
        for i, source in enumerate(self._sources):
            source.save(state.child("input_%d" % i))

    def restore(self, state):
        """Sets each input's position."""
        for i, source in enumerate(self._sources):
            source.restore(state.child("input_%d" % i))


class Shuffle(Pipeline):
    """The input's elements shuffled through a buffer."""

    _name = "_ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = int_param(buffer_size, "buffer_size", "shuffle")
        static = static_int(self._buffer)
        if static is not None and static <= 0:
            raise ValueError("shuffle: buffer_size must be positive, got %d" % static)
        if isinstance(seed, Tensor):
            seed = common.constant_value(seed)
            if seed is None:
                raise ValueError("shuffle: the seed must be known when the dataset is built")
        global_seed = random_ops._global_seed["seed"]
        if seed is not None:
            self._seed: tuple[int, int] | None = (
                0 if global_seed is None else global_seed, int(seed))
        elif global_seed is not None:
            # Like TensorFlow's op seeds: drawn from the global seed's sequence.
            self._seed = (global_seed, int(random_ops.op_generator(None).integers(2**62)))
        else:
            self._seed = None
        self._reshuffle = bool(reshuffle_each_iteration)
        # the number of the next pass over this dataset (each pass, of every iterator,
        # shuffles in its own order unless reshuffle_each_iteration is False); an iterator's
        # checkpoint saves it and its restore sets it, as TensorFlow's seed generator's
        self._next_epoch = 0
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._buffer])

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _reader(self, feed):
        return _ShuffleReader(self, self._inputs[0]._reader(feed),
                              int(feed[id(self._buffer)]))


class _ShuffleReader(InputReader):
    """Shuffle's reader: a buffer of `size` elements, one drawn at random for each element
    read, by a generator seeded from the seed and the pass's number. Saves the generator's
    state (`rng`), the `buffer`'s elements, whether the input is `exhausted`, the number of
    the stage's `next_epoch`, and the input's position."""

    def __init__(self, stage, source, size):
        super().__init__(source)
        self._stage = stage
        self._size = size
        epoch = stage._next_epoch if stage._reshuffle else 0
        stage._next_epoch += 1
        self._rng = np.random.default_rng(None if stage._seed is None
                                          else stage._seed + (epoch,))
        self._buffer = []
        self._exhausted = False

    def __next__(self):
        if self._size <= 0:
            raise errors.InvalidArgumentError("shuffle: buffer_size must be positive, got %d"
                                              % self._size, "AnonymousIterator")
        rng, buffer = self._rng, self._buffer
        while not self._exhausted:
            try:
                flat = self._pull()
            except StopIteration:
                self._exhausted = True
                break
            if len(buffer) < self._size:
                buffer.append(flat)
                continue
            i = int(rng.integers(self._size))
            out, buffer[i] = buffer[i], flat
            return out
        if not buffer:
            raise StopIteration
        i = int(rng.integers(len(buffer)))
        buffer[i], buffer[-1] = buffer[-1], buffer[i]
        return buffer.pop()

    def save(self, state):
        """Writes the shuffle's state (see the class) and the input's position."""
        state.put("rng", _rng_words(self._rng))
        state.put_elements("buffer", self._buffer)
        state.put_int("exhausted", int(self._exhausted))
        state.put_int("next_epoch", self._stage._next_epoch)
        super().save(state)

    def restore(self, state):
        """Sets the shuffle's state (see the class) and the input's position."""
        _set_rng_words(self._rng, state, "rng")
        self._buffer = state.get_elements(
            "buffer", flat_specs(self._stage._inputs[0].element_spec), max(self._size, 0))
        self._exhausted = bool(state.get_int("exhausted", 0, 1))
        next_epoch = state.get_int("next_epoch")
        super().restore(state)
        state.on_success.append(lambda: setattr(self._stage, "_next_epoch", next_epoch))


_WORD = (1 << 64) - 1


def _rng_words(rng):
    """A PCG64 generator's state as six uint64 words (state and increment, high word first,
    then the buffered 32-bit draw and whether it is there)."""
    saved = rng.bit_generator.state
    inner = saved["state"]
    return np.array([inner["state"] >> 64, inner["state"] & _WORD, inner["inc"] >> 64,
                     inner["inc"] & _WORD, saved["has_uint32"], saved["uinteger"]],
                    dtype=np.uint64)


def _set_rng_words(rng, state, name):
    """Sets PCG64 generator `rng` to the six words saved as `name` of `state`."""
    words = state.get(name)
    if words.dtype != np.uint64 or words.shape != (6,):
        raise state.fail(name, "is not six uint64 words (a random generator's state)")
    high, low, inc_high, inc_low, has_uint32, uinteger = (int(w) for w in words)
    if has_uint32 > 1 or uinteger > 0xFFFFFFFF or not inc_low & 1:
        raise state.fail(name, "is not a random generator's state")
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": high << 64 | low, "inc": inc_high << 64 | inc_low},
        "has_uint32": has_uint32, "uinteger": uinteger}


class Repeat(Pipeline):
    """The input's elements `count` times over."""

    _name = "_RepeatDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "repeat")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None:
            return UNKNOWN_CARDINALITY
        if count == 0 or n == 0:
            return 0
        if count < 0 or n == INFINITE_CARDINALITY:
            return INFINITE_CARDINALITY if n != UNKNOWN_CARDINALITY else UNKNOWN_CARDINALITY
        return UNKNOWN_CARDINALITY if n < 0 else n * count

    def _reader(self, feed):
        return _RepeatReader(self._inputs[0], feed, int(feed[id(self._count)]))


class _RepeatReader(Reader):
    """Repeat's reader: a new pass over the input for each epoch, opened as soon as the
    previous one ends. Saves the `epoch`, whether its pass `produced` an element yet,
    whether the repeat `ended` (after its last epoch, or an empty pass), and the pass's
    position (`input`) while it has not ended."""

    def __init__(self, dataset, feed, count):
        self._dataset = dataset
        self._feed = feed
        self._count = count
        self._epoch = 0
        self._produced = False
        self._ended = count == 0
        self._source = None if self._ended else dataset._reader(feed)

    def __next__(self):
        while self._source is not None:
            try:
                flat = next(self._source)
            except StopIteration:
                self._source = None
                if not self._produced:
                    self._ended = True  # an empty dataset repeated forever is still empty
                    break
                self._epoch += 1
                self._produced = False
                if 0 <= self._count <= self._epoch:
                    self._ended = True
                    break
                self._source = self._dataset._reader(self._feed)
                continue
            self._produced = True
            return flat
        raise StopIteration

    def save(self, state):
        """Writes the repeat's state (see the class) and the input's position."""
        state.put_int("epoch", self._epoch)
        state.put_int("produced", int(self._produced))
        state.put_int("ended", int(self._ended))
        if self._source is not None:
            self._source.save(state.child("input"))

    def restore(self, state):
        """Sets the repeat's state (see the class) and the input's position."""
        self._epoch = state.get_int("epoch", 0, None if self._count < 0 else self._count)
        self._produced = bool(state.get_int("produced", 0, 1))
        self._ended = bool(state.get_int("ended", 0, 1))
        if self._ended:
            self._source = None
        elif self._source is not None:
            self._source.restore(state.child("input"))
        else:
            raise state.fail("ended", "is 0 for a repeat of no epochs")


class Prefetch(Pipeline):
    """The input's elements unchanged (there is nothing to overlap)."""

    _name = "_PrefetchDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,))

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _reader(self, feed):
        return self._inputs[0]._reader(feed)  # the input's elements, the input's position


class Concatenate(Pipeline):
    """The first input's elements, then the second's."""

    _name = "_ConcatenateDataset"

    def __init__(self, first, second):
        if not isinstance(second, Pipeline):
            raise TypeError("concatenate takes a Dataset, got %r" % (second,))
        a, b = first.element_spec, second.element_spec
        if nest.structure_signature(a) != nest.structure_signature(b) or any(
                x.dtype is not y.dtype for x, y in zip(nest.flatten(a), nest.flatten(b))):
            raise TypeError("concatenate: the datasets' elements differ: %s and %s"
                            % (spec_text(a), spec_text(b)))
        super().__init__(relaxed_spec(a, b), inputs=(first, second))

    def _cardinality(self):
        a, b = (ds._cardinality() for ds in self._inputs)
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY if min(a, b) < 0 else a + b

    def _reader(self, feed):
        return _ConcatenateReader([ds._reader(feed) for ds in self._inputs])


class _ConcatenateReader(_ZipReader):
    """Concatenate's reader: saves which input it reads (`current`) and each input's
    position."""

    def __init__(self, sources):
        super().__init__(sources)
        self._current = 0

    def __next__(self):
        while self._current < len(self._sources):
            try:
                return next(self._sources[self._current])
            except StopIteration:
                self._current += 1
        raise StopIteration

    def save(self, state):
        """Writes `current` and each input's position."""
        state.put_int("current", self._current)
        super().save(state)

    def restore(self, state):
        """Sets `current` and each input's position."""
        self._current = state.get_int("current", 0, len(self._sources))
        super().restore(state)


# -- padded_batch, unbatch ---------------------------------------------------------------------


def _padded_shape(spec, given, path):
    """The padded shape of a component: `given` (None/-1 dims: the batch's longest), or by
    default the component's shape with every unknown dimension padded to the longest."""
    if given is None:
        if spec._shape is None:
            raise ValueError("padded_batch: %s has an unknown rank; give padded_shapes"
                             % path_text(path))
        return tuple(spec._shape)
    if isinstance(given, Tensor):
        given = common.constant_value(given)
        if given is None:
            raise ValueError("padded_batch: padded_shapes must be known when the dataset is "
                             "built")
    dims = shape_lib.normalize(given)
    if dims is None:
        raise ValueError("padded_batch: the padded shape of %s must have a known rank"
                         % path_text(path))
    dims = tuple(None if d is None or d < 0 else int(d) for d in dims)
    if spec._shape is not None:
        if len(spec._shape) != len(dims):
            raise ValueError("padded_batch: the padded shape %s of %s does not have the rank "
                             "of its elements' shape %s" % (list(dims), path_text(path),
                                                          shape_lib.to_string(spec._shape)))
        for d, s in zip(dims, spec._shape):
            if d is not None and s is not None and s > d:
                raise ValueError("padded_batch: the padded shape %s of %s is smaller than "
                                 "its elements' shape %s" % (list(dims), path_text(path),
                                                            shape_lib.to_string(spec._shape)))
    return dims


def _padding_value(spec, value, path):
    if value is None:
        return b"" if spec.dtype is dtypes.string else spec.dtype.np_dtype.type(0)
    array = np.asarray(common.constant_value(value) if isinstance(value, Tensor) else value)
    if array.shape != ():
        raise ValueError("padded_batch: the padding value of %s must be a scalar, got shape "
                         "%s" % (path_text(path), list(array.shape)))
    if spec.dtype is dtypes.string:
        item = array[()]
        if not isinstance(item, (bytes, str)):
            raise TypeError("padded_batch: the padding value of %s must be a string"
                            % path_text(path))
        return item.encode("utf-8") if isinstance(item, str) else item
    if array.dtype.kind in "SUO":
        raise TypeError("padded_batch: the padding value of %s must be a %s number, got %r"
                        % (path_text(path), spec.dtype.name, array[()]))
    return spec.dtype.np_dtype.type(array[()])


def _structure_like(spec, given, what):
    """`given` (a structure matching `spec`, or None) as a flat list per leaf of `spec`."""
    leaves = nest.flatten(spec)
    if given is None:
        return [None] * len(leaves)
    if not nest.is_nested(spec):
        return [given]
    try:
        nest.assert_same_structure(spec, given, check_types=False)
    except (TypeError, ValueError):
        raise ValueError("padded_batch: %s must have the structure of the elements, %s; got %r"
                         % (what, spec_text(spec), given)) from None
    return nest.flatten(given)


class PaddedBatch(Pipeline):
    """Consecutive elements padded to a common shape and stacked into batches."""

    _name = "_PaddedBatchDataset"

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        for leaf in nest.flatten(input_dataset.element_spec, expand_composites=False):
            if not isinstance(leaf, TensorSpec):  # a SparseTensor is not padded: TF's error
                raise TypeError(
                    "`padded_batch` is only supported for datasets that produce tensor "
                    "elements but type spec of elements in the input dataset is not a "
                    "subclass of TensorSpec: `%r`." % (leaf,))
        size, static = _batch_size(batch_size, "padded_batch")
        self._size = static
        self._drop = bool(drop_remainder)
        spec = input_dataset.element_spec
        leaves = nest.flatten(spec)
        paths = leaf_paths(spec) if nest.is_nested(spec) else [()]
        shapes = _structure_like(spec, padded_shapes, "padded_shapes")
        values = _structure_like(spec, padding_values, "padding_values")
        self._shapes = [_padded_shape(s, g, p) for s, g, p in zip(leaves, shapes, paths)]
        self._values = [_padding_value(s, v, p) for s, v, p in zip(leaves, values, paths)]
        lead = static if self._drop else None
        specs = [TensorSpec((lead,) + dims, s.dtype) for s, dims in zip(leaves, self._shapes)]
        super().__init__(pack(spec, specs), inputs=(input_dataset,), tensors=[size])

    _cardinality = Batch._cardinality

    def _reader(self, feed):
        return _BatchReader(self, feed, self._pad)

    def _pad(self, rows):
        out = []
        for i, column in enumerate(zip(*rows)):
            shapes = [np.shape(v) for v in column]
            longest = tuple(max(dims) for dims in zip(*shapes)) if shapes[0] else ()
            target = tuple(m if d is None else d for d, m in zip(self._shapes[i], longest))
            for shape in shapes:
                if len(shape) != len(target) or any(s > t for s, t in zip(shape, target)):
                    raise errors.InvalidArgumentError(
                        "padded_batch: an element of component %d has shape %s, larger than "
                        "its padded shape %s" % (i, shape_lib.to_string(shape),
                                                 shape_lib.to_string(target)),
                        "IteratorGetNext")
            batch = np.empty((len(column),) + target, dtype=np.asarray(column[0]).dtype
                             if column[0] is not None else object)
            batch[...] = self._values[i]
            for j, value in enumerate(column):
                batch[(j,) + tuple(slice(0, s) for s in np.shape(value))] = value
            out.append(batch)
        return tuple(out)


class Unbatch(Pipeline):
    """The rows of each element (split along the first dimension)."""

    _name = "_UnbatchDataset"

    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        for s, path in zip(leaves_of(spec), leaf_paths(spec)):
            if s._shape == () or (isinstance(s, RaggedTensorSpec) and s.ragged_rank == 0):
                raise ValueError("unbatch: %s is a scalar; every component needs a first "
                                 "dimension" % path_text(path))

        def unbatched(s, path):
            inner = None if s._shape is None else s._shape[1:]
            if isinstance(s, RaggedTensorSpec):  # the rows of a k-ragged batch: k-1-ragged
                return RaggedTensorSpec(inner, s.dtype, s.ragged_rank - 1)
            if isinstance(s, SparseTensorSpec):
                return SparseTensorSpec(inner, s.dtype)
            return TensorSpec(inner, s.dtype)
        self._ragged = ragged_columns(spec)
        self._sparse = sparse_columns(spec)
        super().__init__(map_input(spec, unbatched), inputs=(input_dataset,))

    def _leaves(self, arrays):
        """(kind, arrays) per leaf: kind is "sparse", "dense" or a ragged rank."""
        parts, at = [], 0
        while at < len(arrays):
            kind = "sparse" if at in self._sparse else self._ragged.get(at, "dense")
            count = 3 if kind == "sparse" else 1 if kind == "dense" else int(kind) + 1
            parts.append((kind, arrays[at:at + count]))
            at += count
        return parts

    def _reader(self, feed):
        return _UnbatchReader(self, self._inputs[0]._reader(feed))


class _UnbatchReader(InputReader):
    """Unbatch's reader: saves the input `element` it splits (none or one), the index of
    its `next_row`, and the input's position."""

    def __init__(self, stage, source):
        super().__init__(source)
        self._stage = stage
        self._element = None
        self._parts = []
        self._rows = 0
        self._next_row = 0

    def _split(self, flat):
        parts = self._stage._leaves([np.asarray(v) for v in flat])
        sizes = [_count(kind, a) for kind, a in parts]
        if any(n != sizes[0] for n in sizes):
            raise errors.InvalidArgumentError(
                "unbatch: the components of an element have different first dimensions: "
                "%s" % sizes, "IteratorGetNext")
        self._element, self._parts = flat, parts
        self._rows, self._next_row = (sizes[0] if sizes else 0), 0

    def __next__(self):
        while self._element is None or self._next_row >= self._rows:
            self._element = None
            self._split(self._pull())
        i = self._next_row
        self._next_row = i + 1
        return tuple(v for kind, a in self._parts for v in _row_of(kind, a, i))

    def save(self, state):
        """Writes the element split, the next row's index and the input's position."""
        state.put_elements("element", [] if self._element is None else [self._element])
        state.put_int("next_row", self._next_row)
        super().save(state)

    def restore(self, state):
        """Sets the element split, the next row's index and the input's position."""
        element = state.get_elements(
            "element", flat_specs(self._stage._inputs[0].element_spec), 1)
        if element:
            try:
                self._split(element[0])
            except (errors.InvalidArgumentError, IndexError, ValueError, TypeError):
                raise state.fail("element", "is not an element this stage can split into "
                                            "rows") from None
        self._next_row = state.get_int("next_row", 0, self._rows)
        super().restore(state)


def _count(kind, arrays):
    if kind == "dense":
        return arrays[0].shape[0]
    if kind == "sparse":
        return int(arrays[2][0])
    return ragged_columns_lib.count_rows(arrays, kind)


def _row_of(kind, arrays, i):
    if kind == "dense":
        return (row(arrays[0], i),)
    if kind == "sparse":
        return sources.sparse_row(arrays, i)
    return ragged_columns_lib.row(arrays, kind, i)


# -- take_while, scan, unique --------------------------------------------------------------


def _predicate(fn, what):
    spec = fn.output_spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool_ or \
            spec._shape not in ((), None):
        raise ValueError(errors.with_user_location(
            "the predicate given to %s must return a scalar bool tensor, got %s"
            % (what, spec_text(spec))))


class TakeWhile(Pipeline):
    """The input's elements up to (not including) the first for which the predicate is
    False."""

    _name = "_TakeWhileDataset"

    def __init__(self, input_dataset, predicate):
        self._fn = TracedFunction(predicate, input_dataset.element_spec, "take_while")
        _predicate(self._fn, "take_while")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _reader(self, feed):
        return _TakeWhileReader(self, self._inputs[0]._reader(feed),
                                [feed[id(t)] for t in self._tensors])


class _TakeWhileReader(_FunctionReader):
    """take_while's reader: saves whether it `ended` (the predicate was False once) and the
    input's position."""

    def __init__(self, stage, source, captured):
        super().__init__(stage, source, captured)
        self._ended = False

    def __next__(self):
        if self._ended:
            raise StopIteration
        flat = self._pull()
        if not self._stage._fn(flat, self._captured)[0]:
            self._ended = True
            raise StopIteration
        return flat

    def save(self, state):
        """Writes `ended` and the input's position."""
        state.put_int("ended", int(self._ended))
        super().save(state)

    def restore(self, state):
        """Sets `ended` and the input's position."""
        self._ended = bool(state.get_int("ended", 0, 1))
        super().restore(state)


class Scan(Pipeline):
    """`scan_func(state, element) -> (new_state, output)` over the elements, from
    `initial_state`: the outputs."""

    _name = "_ScanDataset"

    def __init__(self, input_dataset, initial_state, scan_func):
        state = map_input(initial_state, lambda v, p: to_tensor(v, p, "scan"))
        state_leaves = nest.flatten(state)
        state_spec = pack(state, [TensorSpec(t._shape_tuple(), t.dtype) for t in state_leaves])
        for _ in range(2):  # a second trace with the state's shapes relaxed, as TensorFlow
            fn = TracedFunction(scan_func, (state_spec, input_dataset.element_spec), "scan")
            out = fn.output_spec
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(errors.with_user_location(
                    "the function given to scan must return a pair (new_state, output), got "
                    "%s" % spec_text(out)))
            new_state = out[0]
            try:
                nest.assert_same_structure(state_spec, new_state, check_types=False)
            except (TypeError, ValueError):
                raise TypeError(errors.with_user_location(
                    "scan: the new state %s does not have the structure of the initial state "
                    "%s" % (spec_text(new_state), spec_text(state_spec)))) from None
            olds, news = nest.flatten(state_spec), nest.flatten(new_state)
            for a, b in zip(olds, news):
                if a.dtype is not b.dtype:
                    raise TypeError(errors.with_user_location(
                        "scan: the new state has dtype %s where the initial state has %s"
                        % (b.dtype.name, a.dtype.name)))
            relaxed = [TensorSpec(shape_lib.relax(a._shape, b._shape), a.dtype)
                       for a, b in zip(olds, news)]
            if all(r._shape == a._shape for r, a in zip(relaxed, olds)):
                break
            state_spec = pack(state_spec, relaxed)
        self._fn = fn
        self._state_spec = state_spec
        self._state_count = len(state_leaves)
        super().__init__(out[1], inputs=(input_dataset,),
                         tensors=list(state_leaves) + fn.tensors)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _reader(self, feed):
        k = self._state_count
        return _ScanReader(self, self._inputs[0]._reader(feed),
                           [feed[id(t)] for t in self._tensors[k:]],
                           tuple(feed[id(t)] for t in self._tensors[:k]))


class _ScanReader(_FunctionReader):
    """scan's reader: saves the scan's `state` and the input's position."""

    def __init__(self, stage, source, captured, state):
        super().__init__(stage, source, captured)
        self._state = state

    def __next__(self):
        k = self._stage._state_count
        result = self._stage._fn(self._state + tuple(self._pull()), self._captured)
        self._state = result[:k]
        return result[k:]

    def save(self, state):
        """Writes the scan's state and the input's position."""
        state.put_elements("state", [self._state])
        super().save(state)

    def restore(self, state):
        """Sets the scan's state and the input's position."""
        saved = state.get_elements("state", flat_specs(self._stage._state_spec), 1)
        if len(saved) != 1:
            raise state.fail("state/count", "is not 1")
        self._state = saved[0]
        super().restore(state)



class Unique(Pipeline):
    """The input's elements without repeats, in the order first seen."""

    _name = "_UniqueDataset"

    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise TypeError("Dataset.unique() does not support elements of structure %s: it "
                            "needs elements that are single tensors" % spec_text(spec))
        if spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError("Dataset.unique() does not support type %s: it supports int32, "
                            "int64 and string elements" % spec.dtype.name)
        super().__init__(spec, inputs=(input_dataset,))

    def _generate(self, feed):
        seen = set()
        for flat in self._inputs[0]._generate(feed):
            value = np.asarray(flat[0])
            key = (value.shape, tuple(value.reshape(-1).tolist()))
            if key not in seen:
                seen.add(key)
                yield flat


# -- choosing among datasets -----------------------------------------------------------------


def _same_elements(datasets, what):
    if not datasets:
        raise ValueError("%s needs at least one dataset" % what)
    for ds in datasets:
        if not isinstance(ds, Pipeline):
            raise TypeError("%s takes datasets, got %r" % (what, ds))
    first = datasets[0].element_spec
    specs = [nest.flatten(first)]
    for i, ds in enumerate(datasets[1:], 1):
        other = ds.element_spec
        if nest.structure_signature(first) != nest.structure_signature(other) or any(
                x.dtype is not y.dtype for x, y in zip(nest.flatten(first),
                                                         nest.flatten(other))):
            raise TypeError("%s: all datasets must have the same element structure and "
                            "dtypes; dataset 0 has %s and dataset %d has %s"
                            % (what, spec_text(first), i, spec_text(other)))
        specs.append(nest.flatten(other))
    relaxed = []
    for column in zip(*specs):
        shape = column[0]._shape
        for s in column[1:]:
            shape = shape_lib.relax(shape, s._shape)
        relaxed.append(TensorSpec(shape, column[0].dtype))
    return pack(first, relaxed)


class ChooseFromDatasets(Pipeline):
    """The element of `datasets[i]` for each `i` of the choice dataset."""

    _name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        datasets = list(datasets)
        spec = _same_elements(datasets, "choose_from_datasets")
        choice = getattr(choice_dataset, "element_spec", None)
        if not isinstance(choice, TensorSpec) or choice.dtype is not dtypes.int64 or \
                choice._shape not in ((), None):
            raise TypeError("choose_from_datasets: choice_dataset must be a dataset of scalar "
                            "int64 tensors, got elements %s" % spec_text(choice))
        self._stop = bool(stop_on_empty_dataset)
        super().__init__(spec, inputs=[choice_dataset] + datasets)

    def _generate(self, feed):
        sources = [ds._generate(feed) for ds in self._inputs[1:]]
        ended = [False] * len(sources)
        for (index,) in self._inputs[0]._generate(feed):
            i = int(index)
            if not 0 <= i < len(sources):
                raise errors.InvalidArgumentError(
                    "choose_from_datasets: selected index %d is out of range: there are %d "
                    "datasets" % (i, len(sources)), "IteratorGetNext")
            if ended[i]:
                continue
            try:
                yield next(sources[i])
            except StopIteration:
                ended[i] = True
                if self._stop:
                    return


class SampleFromDatasets(Pipeline):
    """Elements drawn at random from `datasets`, each with its weight's probability."""

    _name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, weights, seed, stop_on_empty_dataset):
        datasets = list(datasets)
        spec = _same_elements(datasets, "sample_from_datasets")
        if weights is None:
            weights = [1.0 / len(datasets)] * len(datasets)
        if isinstance(weights, Tensor):
            weights = common.constant_value(weights)
            if weights is None:
                raise ValueError("sample_from_datasets: the weights must be known when the "
                                 "dataset is built (a dataset of weights is not supported)")
        weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        if weights.size != len(datasets):
            raise ValueError("sample_from_datasets: %d weights for %d datasets"
                             % (weights.size, len(datasets)))
        if np.any(weights < 0) or not np.any(weights > 0):
            raise ValueError("sample_from_datasets: the weights must be non-negative, with "
                             "one positive at least, got %s" % weights.tolist())
        self._weights = weights
        global_seed = random_ops._global_seed["seed"]
        if seed is not None:
            self._seed: tuple[int, int] | None = (
                0 if global_seed is None else global_seed, int(seed))
        elif global_seed is not None:
            self._seed = (global_seed, int(random_ops.op_generator(None).integers(2**62)))
        else:
            self._seed = None
        self._stop = bool(stop_on_empty_dataset)
        self._epochs = itertools.count()
        super().__init__(spec, inputs=datasets)

    def _generate(self, feed):
        epoch = next(self._epochs)
        rng = np.random.default_rng(None if self._seed is None else self._seed + (epoch,))
        sources = [ds._generate(feed) for ds in self._inputs]
        weights = self._weights.copy()
        while weights.sum() > 0:
            i = int(rng.choice(len(sources), p=weights / weights.sum()))
            try:
                yield next(sources[i])
            except StopIteration:
                if self._stop:
                    return
                weights[i] = 0.0


class RaggedBatch(Pipeline):
    """Consecutive elements batched into RaggedTensors: components of rank >= 1 whose first
    dimension may differ from element to element become (batch, None, ...) RaggedTensors;
    scalar components are stacked."""

    _name = "_DenseToRaggedBatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        size, static = _batch_size(batch_size, "ragged_batch")
        self._size = static
        self._drop = bool(drop_remainder)
        lead = static if self._drop else None
        spec = input_dataset.element_spec
        leaves = nest.flatten(spec, expand_composites=False)
        specs: list[TensorSpec | RaggedTensorSpec] = []
        self._ragged = []
        for s in leaves:
            if not isinstance(s, TensorSpec):
                raise TypeError("ragged_batch: elements must be tensors, got %s" % spec_text(s))
            if s._shape is None:
                raise ValueError("ragged_batch: the elements need a known rank")
            self._ragged.append(len(s._shape) >= 1)
            if len(s._shape) >= 1:
                specs.append(RaggedTensorSpec((lead, None) + tuple(s._shape[1:]), s.dtype,
                                              ragged_rank=1))
            else:
                specs.append(TensorSpec((lead,), s.dtype))
        packed = nest.pack_sequence_as(spec, specs, expand_composites=False) \
            if nest.is_nested(spec, expand_composites=False) else specs[0]
        super().__init__(packed, inputs=(input_dataset,), tensors=[size])

    _cardinality = Batch._cardinality

    def _reader(self, feed):
        return _BatchReader(self, feed, self._batch)

    def _batch(self, rows):
        out = []
        for column, ragged in zip(zip(*rows), self._ragged):
            if not ragged:
                out.append(np.stack(column))
                continue
            inner = {np.shape(v)[1:] for v in column}
            if len(inner) > 1:
                raise errors.InvalidArgumentError(
                    "ragged_batch: elements differ in their inner dimensions: %s"
                    % sorted(inner), "IteratorGetNext")
            lengths = [np.shape(v)[0] for v in column]
            out.append(np.concatenate(column) if column else np.asarray(column))
            out.append(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
        return tuple(out)

"""The sources of datasets: slices of tensors, tensors, a range, a Python generator, the
lines of text files and the records of TFRecord files.

Slices, tensors, ranges and text lines read through `Reader`s whose position (an index, a
file and byte offset) a checkpoint saves (runtime.data.readers); a generator's position is
in Python, and cannot be saved.
"""

import os
from typing import Any

import numpy as np

from runtime import dtypes, errors, nest
from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.data import ragged_columns
from runtime.data.generator_checks import check_spec, convert_element, python_arg, specs_from_types
from runtime.data.pipeline import UNKNOWN_CARDINALITY, Pipeline, to_tensor
from runtime.data.readers import Reader
from runtime.data.structure import (
    int_param,
    leaf_paths,
    map_input,
    object_scalar,
    path_text,
    row,
    spec_of,
    static_int,
)
from runtime.io import tfrecord
from runtime.ops import common, string_ops
from runtime.signature import TensorSpec


class TensorSlices(Pipeline):
    """The slices of tensors along their first dimension (`from_tensor_slices`); a
    RaggedTensor slices into its rows (dense tensors for one ragged dimension, with
    TensorFlow's spec: a RaggedTensorSpec of ragged rank 0), a
    SparseTensor into SparseTensors of one dimension less."""

    _name = "_TensorSliceDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: to_tensor(v, p, "from_tensor_slices"))
        leaves = nest.flatten(structure, expand_composites=False)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one tensor")
        paths = leaf_paths(tensors)
        length = None
        row_specs, self._kinds = [], []
        for t, path in zip(leaves, paths):
            kind, dims, spec = _slicing(t, path)
            self._kinds.append((kind, len(nest.flatten(t))))
            row_specs.append(spec)
            first = None if dims is None else dims[0]
            if first is not None:
                if length is not None and first != length[0]:
                    raise ValueError(
                        "from_tensor_slices: all components must have the same size in their "
                        "first dimension, but %s has %d and %s has %d"
                        % (path_text(length[1]), length[0], path_text(path), first))
                if length is None:
                    length = (first, path)
        self._length = None if length is None else length[0]
        spec = nest.pack_sequence_as(structure, row_specs, expand_composites=False) \
            if nest.is_nested(structure, expand_composites=False) else row_specs[0]
        super().__init__(spec, tensors=nest.flatten(structure))

    def _cardinality(self):
        return UNKNOWN_CARDINALITY if self._length is None else self._length

    def _reader(self, feed):
        return _SliceReader(self, feed)

    def _groups(self, feed):
        """(the (kind, arrays) of each component, the number of slices)."""
        arrays = [np.asarray(feed[id(t)]) for t in self._tensors]
        groups, at = [], 0
        for kind, count in self._kinds:
            groups.append((kind, arrays[at:at + count]))
            at += count
        sizes = [_rows(kind, parts) for kind, parts in groups]
        n = sizes[0]
        for size in sizes[1:]:
            if size != n:
                raise errors.InvalidArgumentError(
                    "from_tensor_slices: all components must have the same size in their "
                    "first dimension, got %d and %d" % (n, size), "AnonymousIterator")
        return groups, n


class _SliceReader(Reader):
    """from_tensor_slices' reader: saves the `index` of the next slice."""

    def __init__(self, stage, feed):
        self._stage = stage
        self._feed = feed
        self._groups: list[Any] = []
        self._opened = False
        self._count = 0
        self._index = 0

    def _open(self):
        if not self._opened:
            self._groups, self._count = self._stage._groups(self._feed)
            self._opened = True

    def __next__(self):
        self._open()
        i = self._index
        if i >= self._count:
            raise StopIteration
        self._index = i + 1
        return tuple(v for kind, parts in self._groups for v in _slice_row(kind, parts, i))

    def save(self, state):
        """Writes the next slice's `index`."""
        state.put_int("index", self._index)

    def restore(self, state):
        """Sets the next slice's `index`."""
        self._open()
        self._index = state.get_int("index", 0, self._count)


def _slicing(t, path):
    """(kind, static dims, the spec of a slice) of a from_tensor_slices leaf."""
    if isinstance(t, RaggedTensor):
        rows = t.row_splits._shape_tuple()
        n = None if rows is None or rows[0] is None else rows[0] - 1
        inner = tuple(t._shape_tuple()[1:])
        return ("ragged", t.ragged_rank), (n,), RaggedTensorSpec(inner, t.dtype,
                                                                t.ragged_rank - 1)
    if isinstance(t, SparseTensor):
        dims = t.shape.as_list() if t.shape.rank is not None else None
        if dims is not None and len(dims) < 1:
            raise ValueError("from_tensor_slices: %s is a scalar SparseTensor" % path_text(path))
        return "sparse", dims, SparseTensorSpec(None if dims is None else dims[1:], t.dtype)
    dims = t._shape_tuple()
    if dims == ():
        raise ValueError("from_tensor_slices: %s is a scalar; every component must have a "
                         "first dimension to slice" % path_text(path))
    return "dense", dims, TensorSpec(None if dims is None else dims[1:], t.dtype)


def _rows(kind, parts):
    if kind[0] == "ragged":
        return ragged_columns.count_rows(parts, kind[1])
    if kind == "sparse":
        return int(parts[2][0])
    return parts[0].shape[0]


def _slice_row(kind, parts, i):
    if kind[0] == "ragged":
        return ragged_columns.row(parts, kind[1], i)
    if kind == "sparse":
        return sparse_row(parts, i)
    return (row(parts[0], i),)


def sparse_row(parts, i):
    """The arrays (indices, values, dense_shape) of row `i` of a SparseTensor's arrays."""
    indices, values, dense_shape = parts
    keep = indices[:, 0] == i
    return (indices[keep][:, 1:], values[keep], dense_shape[1:])


class Tensors(Pipeline):
    """One element: the given tensors (`from_tensors`)."""

    _name = "_TensorDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: to_tensor(v, p, "from_tensors"))
        flat = nest.flatten(structure)
        spec = map_input(structure, lambda t, p: spec_of(t))
        super().__init__(spec, tensors=flat)

    def _cardinality(self):
        return 1

    def _reader(self, feed):
        return _TensorsReader(tuple(feed[id(t)] for t in self._tensors))


class _TensorsReader(Reader):
    """from_tensors' reader: saves whether its one element was `given`."""

    def __init__(self, element):
        self._element = element
        self._given = False

    def __next__(self):
        if self._given:
            raise StopIteration
        self._given = True
        return self._element

    def save(self, state):
        """Writes `given`."""
        state.put_int("given", int(self._given))

    def restore(self, state):
        """Sets `given`."""
        self._given = bool(state.get_int("given", 0, 1))


class Range(Pipeline):
    """`range(start, stop, step)` as scalars (`Dataset.range`)."""

    _name = "_RangeDataset"

    def __init__(self, args, output_type):
        if not 1 <= len(args) <= 3:
            raise TypeError("Dataset.range takes 1 to 3 arguments (stop, or start, stop[, "
                            "step]), got %d" % len(args))
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        names = ("start", "stop", "step")
        tensors = [int_param(a, n, "Dataset.range") for a, n in zip(args, names)]
        if static_int(tensors[2]) == 0:
            raise ValueError("Dataset.range: step must not be 0")
        self._dtype = dtypes.as_dtype(output_type)
        super().__init__(TensorSpec((), self._dtype), tensors=tensors)

    def _cardinality(self):
        start, stop, step = (static_int(t) for t in self._tensors)
        if None in (start, stop, step):
            return UNKNOWN_CARDINALITY
        return _range_length(start, stop, step)

    def _reader(self, feed):
        start, stop, step = (int(feed[id(t)]) for t in self._tensors)
        return _RangeReader(start, stop, step, make=self._dtype.np_dtype.type)


def _range_length(start, stop, step):
    """len(range(start, stop, step)) (step not 0), without building the range: it may not
    fit in a C ssize_t."""
    return max(0, -((start - stop) // step))


class _RangeReader(Reader):
    """Dataset.range's reader: saves the index of the `next` value."""

    def __init__(self, start, stop, step, make):
        self._start, self._step, self._make = start, step, make
        self._count = _range_length(start, stop, step) if step else -1  # (-1: a step of 0)
        self._next = 0

    def _length(self):
        if self._count < 0:
            raise errors.InvalidArgumentError("Dataset.range: step must not be 0",
                                              "AnonymousIterator")
        return self._count

    def __next__(self):
        i = self._next
        if i >= self._count:
            self._length()  # (raises for a step of 0)
            raise StopIteration
        self._next = i + 1
        return (self._make(self._start + i * self._step),)

    def save(self, state):
        """Writes the `next` value's index."""
        state.put_int("next", self._next)

    def restore(self, state):
        """Sets the `next` value's index."""
        self._next = state.get_int("next", 0, self._length())


class Generator(Pipeline):
    """The elements a Python generator yields, checked and converted (`from_generator`)."""

    _name = "_FlatMapDataset"  # TensorFlow's name for from_generator datasets
    _position_is_python = ("Dataset.from_generator keeps its position in a Python generator, "
                           "which is not a value (TensorFlow: PyFunc is stateful)")

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be a callable that returns an "
                            "iterable, got %r" % (generator,))
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator takes either output_signature or "
                                "output_types/output_shapes, not both")
            spec = map_input(output_signature, check_spec)
        elif output_types is not None:
            spec = specs_from_types(output_types, output_shapes)
        else:
            raise TypeError("from_generator needs output_signature (a structure of "
                            "tf.TensorSpec) or output_types")
        self._generator = generator
        arg_tensors = [to_tensor(a, (i,), "from_generator args")
                       for i, a in enumerate(args or ())]
        super().__init__(spec, tensors=arg_tensors)

    def _generate(self, feed):
        args = [python_arg(feed[id(t)]) for t in self._tensors]
        source = self._generator(*args)
        try:
            iterator = iter(source)
        except TypeError:
            raise errors.InvalidArgumentError(
                "from_generator: `generator` returned %r, which is not iterable"
                % (source,), "AnonymousIterator") from None
        spec = self._element_spec
        for index, value in enumerate(iterator):
            flat: list[object] = []
            convert_element(value, spec, (), index, value, flat)
            yield tuple(flat)


def _filenames(filenames, what):
    """`filenames` (a string, a list of them, or a string tensor) as a string vector
    tensor."""
    tensor = to_tensor(filenames, (), what)
    if tensor.dtype is not dtypes.string:
        raise TypeError("%s: filenames must be strings, got %s" % (what, tensor.dtype.name))
    if tensor._shape_tuple() not in ((), None) and len(tensor._shape_tuple()) != 1:
        raise ValueError("%s: filenames must be a string or a vector of strings" % what)
    return tensor


def _paths(value):
    return [p.decode("utf-8") if isinstance(p, bytes) else str(p)
            for p in np.reshape(np.asarray(value, dtype=object), [-1])]


def _no_compression(compression_type, what):
    if compression_type not in (None, ""):
        raise NotImplementedError("%s: compression_type %r is not supported (only "
                                  "uncompressed files)" % (what, compression_type))


def _open_text(path, what):
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the generator's with
    except OSError as e:
        raise errors.NotFoundError("%s: cannot open %s: %s" % (what, path, e.strerror),
                                   "IteratorGetNext") from None


class TextLines(Pipeline):
    """The lines of text files, without their line endings (`TextLineDataset`)."""

    _name = "_TextLineDataset"

    def __init__(self, filenames, compression_type):
        _no_compression(compression_type, "TextLineDataset")
        super().__init__(TensorSpec((), dtypes.string),
                         tensors=[_filenames(filenames, "TextLineDataset")])

    def _reader(self, feed):
        return _TextLinesReader(_paths(feed[id(self._tensors[0])]))


class _TextLinesReader(Reader):
    """TextLineDataset's reader: saves the index of the `file` it reads and the byte
    `offset` of the next line in it."""

    def __init__(self, paths):
        self._paths = paths
        self._file = 0
        self._offset = 0
        self._lines = self._read()  # (a generator: its `with` closes the file it holds)

    def _read(self):
        while self._file < len(self._paths):
            with _open_text(self._paths[self._file], "TextLineDataset") as f:
                if self._offset:  # (a restored position; a pipe cannot seek, nor needs to)
                    f.seek(self._offset)
                for line in f:
                    self._offset += len(line)
                    if line.endswith(b"\n"):
                        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                    yield (object_scalar(line),)
            self._file += 1
            self._offset = 0

    def __next__(self):
        return next(self._lines)

    def save(self, state):
        """Writes the `file` read and the `offset` of its next line."""
        state.put_int("file", self._file)
        state.put_int("offset", self._offset)

    def restore(self, state):
        """Sets the `file` read and the `offset` of its next line (within that file)."""
        self._file = state.get_int("file", 0, len(self._paths))
        size = 0
        if self._file < len(self._paths):
            try:
                size = os.stat(self._paths[self._file]).st_size
            except OSError as e:
                raise state.fail("file", "names %s, which cannot be read: %s"
                                 % (self._paths[self._file], e.strerror)) from None
        self._offset = state.get_int("offset", 0, size)


class TFRecords(Pipeline):
    """The records of TFRecord files, each a string (`TFRecordDataset`), checked against
    their checksums."""

    _name = "_TFRecordDataset"

    def __init__(self, filenames, compression_type):
        _no_compression(compression_type, "TFRecordDataset")
        super().__init__(TensorSpec((), dtypes.string),
                         tensors=[_filenames(filenames, "TFRecordDataset")])

    def _generate(self, feed):
        for path in _paths(feed[id(self._tensors[0])]):
            if not os.path.exists(path):
                raise errors.NotFoundError("TFRecordDataset: %s: no such file" % path,
                                           "IteratorGetNext")
            try:
                for record in tfrecord.read_records(path):
                    yield (object_scalar(record),)
            except tfrecord.RecordError as e:
                raise errors.DataLossError(str(e), "IteratorGetNext") from None


def csv_defaults(record_defaults, what):
    """`record_defaults` (per column: a DType, required; or a one-element value, the
    column's default) as (dtypes, numpy defaults)."""
    columns, defaults = [], []
    for i, d in enumerate(record_defaults):
        if isinstance(d, dtypes.DType) or (isinstance(d, type) and d in (int, float, str)):
            dtype = dtypes.as_dtype(d)
            value = np.zeros([0], dtype.np_dtype)
        else:
            tensor = to_tensor(d, (i,), what)
            known = common.constant_value(tensor)
            if known is None:
                raise ValueError("%s: record_defaults[%d] must be known when the dataset is "
                                 "built" % (what, i))
            dtype = tensor.dtype
            value = np.reshape(np.asarray(known, dtype=dtype.np_dtype), [-1])
            if value.size > 1:
                raise ValueError("%s: record_defaults[%d] must hold at most one value" % (what, i))
        if dtype not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
                         dtypes.string):
            raise TypeError("%s: column %d has dtype %s; CSV columns can be float32, float64, "
                            "int32, int64 or string" % (what, i, dtype.name))
        columns.append(dtype)
        defaults.append(value)
    return columns, defaults


class CsvRecords(Pipeline):
    """The records of CSV files, each a tuple of one scalar per column (`CsvDataset`)."""

    _name = "_CSVDataset"

    def __init__(self, filenames, record_defaults, header, field_delim, use_quote_delim,
                 na_value, select_cols, exclude_cols):
        self._dtypes, self._defaults = csv_defaults(record_defaults, "CsvDataset")
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: give select_cols or exclude_cols, not both")
        self._select = None if select_cols is None else tuple(int(c) for c in select_cols)
        self._exclude = None if exclude_cols is None else {int(c) for c in exclude_cols}
        if self._select is not None and len(self._select) != len(self._dtypes):
            raise ValueError("CsvDataset: %d select_cols for %d record_defaults"
                             % (len(self._select), len(self._dtypes)))
        self._header = bool(header)
        self._options = (str(field_delim), bool(use_quote_delim), str(na_value))
        super().__init__(tuple(TensorSpec((), d) for d in self._dtypes),
                         tensors=[_filenames(filenames, "CsvDataset")])

    def _generate(self, feed):
        delim, quote, na = self._options
        for path in _paths(feed[id(self._tensors[0])]):
            with _open_text(path, "CsvDataset") as f:
                for number, line in enumerate(f):
                    if number == 0 and self._header:
                        continue
                    line = line.rstrip(b"\n").rstrip(b"\r")
                    select = self._select
                    if self._exclude is not None:
                        count = len(string_ops.csv_fields(line, delim.encode("utf-8"), quote,
                                                          number))
                        select = tuple(c for c in range(count) if c not in self._exclude)
                    try:
                        values = string_ops.parse_csv_record(
                            line, number, self._defaults, self._dtypes, delim, quote, na,
                            select)
                    except ValueError as e:
                        raise errors.InvalidArgumentError("CsvDataset: %s: %s" % (path, e),
                                                          "IteratorGetNext") from None
                    yield tuple(object_scalar(v) if d is dtypes.string else
                                d.np_dtype.type(v) for v, d in zip(values, self._dtypes))

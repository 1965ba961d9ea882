"""`Dataset` and its kinds: sources (slices, tensors, range, generator) and
transformations (map, filter, batch, take, skip, zip, shuffle, repeat, prefetch, concatenate).

Each kind describes its elements; `_generate(feed)` produces them at run time as flat tuples
of numpy values, `feed` holding the values of the tensors the pipeline was built from.
"""

import itertools
import warnings

import numpy as np

from runtime import context, dtypes, errors, nest, tracebacks
from runtime import shape as shape_lib
from runtime.data.iterator import Cursor, Iterator, refuse_python_loop_in_graph
from runtime.data.structure import (
    flat_specs,
    int_param,
    is_sortable,
    leaf_paths,
    lists_to_tuples,
    map_input,
    pack,
    path_text,
    row,
    spec_of,
    spec_text,
    static_int,
)
from runtime.function import ConcreteFunction, Function
from runtime.graph import Graph
from runtime.ops import common, data_ops, nn_random_ops, registry
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy
from runtime.variables import Variable

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

def _convert(func):
    """`func` (given to `map`, `filter`, `reduce`...) converted by `context.function_converter`:
    inside a traced Function its converter, outside any the default one."""
    if not callable(func):
        raise TypeError("expected a function, got %r" % (func,))
    converter = context.function_converter()
    if converter is None or isinstance(func, Function):
        return func
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = converter(func)
    # The converter's warnings (source unavailable...) point at the user's map/filter call.
    location = errors.user_location(2)
    for w in caught:
        if location is None:
            warnings.warn(w.message, w.category, stacklevel=3)
        else:
            warnings.warn_explicit(w.message, w.category, location.filename, location.lineno)
    return converted


def _to_tensor(value, path, what):
    if isinstance(value, Dataset):
        raise TypeError("%s: %s is a Dataset; a dataset element holds tensors (use "
                        "Dataset.zip to combine datasets)" % (what, path_text(path)))
    if isinstance(value, Variable):
        return value.read_value()
    try:
        return common.convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError("%s: %s cannot be converted to a tensor: %s"
                        % (what, path_text(path), e)) from None


# -- Dataset -----------------------------------------------------------------------------------


class Dataset:
    """A pipeline of elements (each a nested structure of tensors; see `element_spec`)."""

    _name = "Dataset"

    def __init__(self, element_spec, inputs=(), tensors=()):
        self._element_spec = element_spec
        self._inputs = tuple(inputs)
        self._tensors = tuple(tensors)
        self._all = None

    # -- description ----------------------------------------------------------------------
    @property
    def element_spec(self):
        """The structure of TensorSpecs that every element matches."""
        return self._element_spec

    def __repr__(self):
        return "<%s element_spec=%s>" % (self._name, spec_text(self._element_spec))

    def __bool__(self):
        return True

    def cardinality(self):
        """The number of elements as an int64 tensor; INFINITE_CARDINALITY (-1) or
        UNKNOWN_CARDINALITY (-2) when it is infinite or not known without running."""
        return common.convert_to_tensor(np.int64(self._cardinality()))

    def __len__(self):
        if not context.executing_eagerly():
            raise TypeError("len() of a Dataset is only available eagerly; use "
                            "dataset.cardinality()")
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("the dataset is infinite")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("the dataset length is unknown")
        return n

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    # -- run time --------------------------------------------------------------------------
    def _all_tensors(self):
        """Every tensor the pipeline reads, its own and its inputs', without repeats."""
        if self._all is None:
            found = {}
            self._collect(found)
            self._all = tuple(found.values())
        return self._all

    def _collect(self, found):
        for t in self._tensors:
            found.setdefault(id(t), t)
        for ds in self._inputs:
            ds._collect(found)

    def _open_cursor(self, values):
        """A cursor over the elements, given the values of `_all_tensors()` (the
        `AnonymousIterator` kernel)."""
        feed = {id(t): v for t, v in zip(self._all_tensors(), values)}
        return Cursor(iter(self._generate(feed)))

    def _open_eager(self):
        values = []
        for t in self._all_tensors():
            if not isinstance(t, EagerTensor):
                raise TypeError(errors.with_user_location(
                    "this dataset was built inside a traced function from its tensor %s; it "
                    "can be iterated only inside that function" % t.name))
            values.append(t._value)
        return self._open_cursor(values)

    def _generate(self, feed):
        """Yields the flat elements (tuples of numpy values); `feed` maps id(tensor) to the
        value of each tensor of `_all_tensors()`."""
        raise NotImplementedError

    # -- iteration --------------------------------------------------------------------------
    def __iter__(self):
        if context.executing_eagerly():
            return Iterator(self, cursor=self._open_eager())
        refuse_python_loop_in_graph("a tf.data.Dataset")
        handle = data_ops.anonymous_iterator(self, self._all_tensors())
        return Iterator(self, handle=handle)

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names):
        """`for x in dataset` in converted code: a Python loop eagerly, one While op in a
        graph (see `Iterator.__ag_for_stmt__`)."""
        iter(self).__ag_for_stmt__(extra_test, body, get_state, set_state, symbol_names)

    def as_numpy_iterator(self):
        """Iterates the elements as numpy values (eagerly only)."""
        if not context.executing_eagerly():
            raise RuntimeError("as_numpy_iterator() is only available eagerly")
        for element in self:
            yield nest.map_structure(lambda t: t.numpy(), element) if nest.is_nested(
                element) else element.numpy()

    @tracebacks.api_boundary
    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements: `state = reduce_func(state, element)` from `initial_state`.

        It is one While op, traced once (eagerly, in a graph of its own), so `reduce_func`
        is traced once, as in TensorFlow."""
        func = _convert(reduce_func)

        def fold(initial):
            state = [initial]

            def body(element):
                state[0] = func(state[0], element)

            def set_state(values):
                state[0] = values[0]
            self.__ag_for_stmt__(None, body, lambda: (state[0],), set_state, ("state",))
            return state[0]

        initial = map_input(initial_state, lambda v, p: _to_tensor(v, p, "reduce"))
        if context.executing_eagerly():
            return Function(fold, name="reduce")(initial)
        return fold(initial)

    # -- sources --------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of `tensors` along their first dimension (every component
        of a tuple/dict structure must have the same first dimension)."""
        return _TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: `tensors`."""
        return _TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """`range(stop)`, `range(start, stop[, step])` as a dataset of scalars (int64)."""
        return _RangeDataset(args, output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """A dataset of the elements `generator(*args)` yields, converted to the declared
        types (`output_signature`, a structure of TensorSpecs, or `output_types` with
        optional `output_shapes`). The generator is called again for every pass."""
        return _GeneratorDataset(generator, output_types, output_shapes, args,
                                 output_signature)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """A dataset of tuples (or the given structure) of elements of the datasets, as long
        as the shortest."""
        if datasets is None:
            if not args:
                raise TypeError("Dataset.zip needs datasets")
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Dataset.zip takes the datasets positionally or as `datasets`, "
                            "not both")
        return _ZipDataset(datasets)

    # -- transformations ----------------------------------------------------------------------
    @tracebacks.api_boundary
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` to each element (a tuple element is passed as arguments)."""
        return _MapDataset(self, map_func)

    @tracebacks.api_boundary
    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` gives a scalar bool True."""
        return _FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks consecutive elements into batches of `batch_size` (the last one may be
        smaller unless `drop_remainder`)."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def take(self, count, name=None):
        """The first `count` elements (all of them when `count` is -1)."""
        return _TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first `count` elements (none when `count` is -1)."""
        return _SkipDataset(self, count)

    def enumerate(self, start=0, name=None):
        """Pairs `(index, element)` with int64 indices counting from `start`."""
        return _ZipDataset((Dataset.range(start, np.iinfo(np.int64).max), self))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles through a buffer of `buffer_size` elements; deterministic with `seed`
        (or a global seed); a new order on each pass unless `reshuffle_each_iteration` is
        False."""
        return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements `count` times over (forever when `count` is None or -1)."""
        return _RepeatDataset(self, -1 if count is None else count)

    def prefetch(self, buffer_size, name=None):
        """Accepted for compatibility: the same elements (there is nothing to overlap)."""
        return _PrefetchDataset(self)

    def concatenate(self, dataset, name=None):
        """The elements of this dataset, then those of `dataset` (same structure/dtypes)."""
        return _ConcatenateDataset(self, dataset)


# -- sources -----------------------------------------------------------------------------------


class _TensorSliceDataset(Dataset):
    _name = "_TensorSliceDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: _to_tensor(v, p, "from_tensor_slices"))
        flat = nest.flatten(structure)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one tensor")
        paths = leaf_paths(tensors)
        length = None
        for t, path in zip(flat, paths):
            dims = t._shape_tuple()
            if dims == ():
                raise ValueError("from_tensor_slices: %s is a scalar; every component must "
                                 "have a first dimension to slice" % path_text(path))
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
        row_specs = [TensorSpec(None if t._shape_tuple() is None else t._shape_tuple()[1:],
                                t.dtype) for t in flat]
        spec = pack(structure, row_specs)
        super().__init__(spec, tensors=flat)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY if self._length is None else self._length

    def _generate(self, feed):
        arrays = [np.asarray(feed[id(t)]) for t in self._tensors]
        n = arrays[0].shape[0]
        for a in arrays[1:]:
            if a.shape[0] != n:
                raise errors.InvalidArgumentError(
                    "from_tensor_slices: all components must have the same size in their "
                    "first dimension, got %d and %d" % (n, a.shape[0]), "AnonymousIterator")
        for i in range(n):
            yield tuple(row(a, i) for a in arrays)


class _TensorDataset(Dataset):
    _name = "_TensorDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: _to_tensor(v, p, "from_tensors"))
        flat = nest.flatten(structure)
        spec = pack(structure, [spec_of(t) for t in flat]) if flat else structure
        super().__init__(spec, tensors=flat)

    def _cardinality(self):
        return 1

    def _generate(self, feed):
        yield tuple(feed[id(t)] for t in self._tensors)


class _RangeDataset(Dataset):
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
        return max(0, -((start - stop) // step))  # len(range(...)) without building it

    def _generate(self, feed):
        start, stop, step = (int(feed[id(t)]) for t in self._tensors)
        if step == 0:
            raise errors.InvalidArgumentError("Dataset.range: step must not be 0",
                                              "AnonymousIterator")
        make = self._dtype.np_dtype.type
        for i in range(start, stop, step):
            yield (make(i),)


class _GeneratorDataset(Dataset):
    _name = "_FlatMapDataset"  # TensorFlow's name for from_generator datasets

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be a callable that returns an "
                            "iterable, got %r" % (generator,))
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator takes either output_signature or "
                                "output_types/output_shapes, not both")
            spec = map_input(output_signature, _check_spec)
        elif output_types is not None:
            spec = _specs_from_types(output_types, output_shapes)
        else:
            raise TypeError("from_generator needs output_signature (a structure of "
                            "tf.TensorSpec) or output_types")
        self._generator = generator
        arg_tensors = [_to_tensor(a, (i,), "from_generator args")
                       for i, a in enumerate(args or ())]
        super().__init__(spec, tensors=arg_tensors)

    def _generate(self, feed):
        args = [_python_arg(feed[id(t)]) for t in self._tensors]
        source = self._generator(*args)
        try:
            iterator = iter(source)
        except TypeError:
            raise errors.InvalidArgumentError(
                "from_generator: `generator` returned %r, which is not iterable"
                % (source,), "AnonymousIterator") from None
        spec = self._element_spec
        for index, value in enumerate(iterator):
            flat = []
            _convert_element(value, spec, (), index, value, flat)
            yield tuple(flat)


# -- from_generator: checking what the generator yields ----------------------------------------


def _python_arg(value):
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 and \
        value.dtype == object else value


def _check_spec(value, path):
    if not isinstance(value, TensorSpec):
        raise TypeError("from_generator: output_signature must hold tf.TensorSpec objects, "
                        "got %r at %s" % (value, path_text(path)))
    return value


def _specs_from_types(types, shapes, path=()):
    """The TensorSpecs for an `output_types` structure and its `output_shapes`."""
    if isinstance(types, list):
        types = tuple(types)
    if isinstance(types, dict):
        if shapes is not None and (not isinstance(shapes, dict) or set(shapes) != set(types)):
            raise TypeError("from_generator: output_shapes %r does not match the structure of "
                            "output_types %r" % (shapes, types))
        rebuilt = {k: _specs_from_types(types[k], None if shapes is None else shapes[k],
                                        path + (k,)) for k in types}
        return rebuilt if type(types) is dict else type(types)(rebuilt)
    if isinstance(types, tuple):
        if shapes is not None and (not isinstance(shapes, (tuple, list)) or
                                   len(shapes) != len(types)):
            raise TypeError("from_generator: output_shapes %r does not match the structure of "
                            "output_types %r" % (shapes, types))
        items = [_specs_from_types(t, None if shapes is None else shapes[i], path + (i,))
                 for i, t in enumerate(types)]
        return type(types)(*items) if hasattr(type(types), "_fields") else tuple(items)
    try:
        dtype = dtypes.as_dtype(types)
    except TypeError as e:
        raise TypeError("from_generator: output_types at %s: %s" % (path_text(path), e)) \
            from None
    return TensorSpec(shapes, dtype)


def _convert_element(value, spec, path, index, element, out):
    """Appends the components of a generated `value` (matching `spec`) to `out`."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            _structure_error(index, element, spec)
        for k in (sorted(spec) if is_sortable(spec) else sorted(spec, key=repr)):
            _convert_element(value[k], spec[k], path + (k,), index, element, out)
        return
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            _structure_error(index, element, spec)
        for i, (v, s) in enumerate(zip(value, spec)):
            _convert_element(v, s, path + (i,), index, element, out)
        return
    out.append(_convert_component(value, spec, path, index, element))


def _where(index, element, path):
    text = "element %d (%r) yielded by the generator" % (index, element)
    if path:
        text += ", component %s," % path_text(path)
    return text


def _structure_error(index, element, spec):
    raise errors.InvalidArgumentError(
        "from_generator: %s does not match the expected structure %s"
        % (_where(index, element, ()), spec_text(spec)), "IteratorGetNext")


_KINDS_INTO = {"float": "biuf", "int": "biu", "bool": "b", "string": "SUO"}


def _convert_component(value, spec, path, index, element):
    dtype = spec.dtype
    if isinstance(value, EagerTensor):
        value = value._value
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in _KINDS_INTO[dtype.kind]:
            raise errors.InvalidArgumentError(
                "from_generator: %s has dtype %s where %s was expected"
                % (_where(index, element, path), value.dtype, dtype.name), "IteratorGetNext")
        if dtype is dtypes.string:
            array = to_numpy(value, dtype)[0]
        else:
            array = np.asarray(value, dtype=dtype.np_dtype)
    else:
        try:
            array = to_numpy(value, dtype)[0]
        except TypeError as e:
            raise errors.InvalidArgumentError(
                "from_generator: %s could not be converted to %s: %s"
                % (_where(index, element, path), dtype.name, e), "IteratorGetNext") from None
    if not shape_lib.is_compatible(spec._shape, array.shape):
        raise errors.InvalidArgumentError(
            "from_generator: %s has shape %s where %s was expected"
            % (_where(index, element, path), shape_lib.to_string(array.shape),
               shape_lib.to_string(spec._shape)), "IteratorGetNext")
    return array


# -- transformations ---------------------------------------------------------------------------


class _TracedFunction:
    """A function of dataset elements, converted, traced once and compiled.

    The trace's graph nests in the graph being built when the dataset is (if any), so that
    the function may read that graph's tensors; those become inputs of the pipeline
    (`tensors`), fed after the element's components on every call."""

    def __init__(self, func, input_spec, what):
        converted = _convert(func)
        name = getattr(func, "__name__", what)
        name = "%s_%s" % (what, "lambda" if name == "<lambda>" else name)
        graph = Graph(name, outer=context.current_graph())
        flat_in = flat_specs(input_spec)
        with graph.as_default():
            placeholders = [graph.add_placeholder("args_%d" % i, d, s)
                            for i, (d, s) in enumerate(flat_in)]
            element = pack(input_spec, placeholders)
            if type(element) is tuple:  # TensorFlow's rule: a plain tuple is unpacked
                result = converted(*element)
            else:
                result = converted(element)
            structure = map_input(lists_to_tuples(result), lambda v, p: _output_tensor(
                v, p, what))
            outputs = [graph.capture(t) for t in nest.flatten(structure)]
        captured = [c for c in graph.captures
                    if isinstance(c.external, SymbolicTensor) and not c.leaked]
        feeds = placeholders + [c.placeholder for c in captured]
        graph.inputs, graph.outputs = list(feeds), list(outputs)
        self.tensors = [c.external for c in captured]
        self.output_spec = pack(structure, [spec_of(t) for t in outputs])
        self.out_dtypes = [t.dtype for t in outputs]
        self.concrete = ConcreteFunction(name, graph, feeds, outputs,
                                         [("t", i) for i in range(len(outputs))],
                                         structure, [], [])
        self._run = self.concrete._compiled_run()

    def __call__(self, flat, captured):
        try:
            values = self._run(*flat, *captured)
        except Exception as e:
            raise self.concrete._translate(e) from None
        return tuple(registry.np_result(v, d) for v, d in zip(values, self.out_dtypes))


def _output_tensor(value, path, what):
    if value is None:
        raise TypeError(errors.with_user_location(
            "the function given to %s returned None%s; it must return tensors"
            % (what, "" if not path else " at " + path_text(path))))
    return _to_tensor(value, path, "the function given to %s returned a value that" % what)


class _MapDataset(Dataset):
    _name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        self._fn = _TracedFunction(map_func, input_dataset.element_spec, "map")
        super().__init__(self._fn.output_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        fn = self._fn
        captured = [feed[id(t)] for t in self._tensors]
        for flat in self._inputs[0]._generate(feed):
            yield fn(flat, captured)


class _FilterDataset(Dataset):
    _name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        self._fn = _TracedFunction(predicate, input_dataset.element_spec, "filter")
        spec = self._fn.output_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool_ or \
                spec._shape not in ((), None):
            raise ValueError(errors.with_user_location(
                "the predicate given to filter must return a scalar bool tensor, got %s"
                % spec_text(spec)))
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _generate(self, feed):
        fn = self._fn
        captured = [feed[id(t)] for t in self._tensors]
        for flat in self._inputs[0]._generate(feed):
            if fn(flat, captured)[0]:
                yield flat


class _BatchDataset(Dataset):
    _name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        size = int_param(batch_size, "batch_size", "batch")
        static = static_int(size)
        if static is not None and static <= 0:
            raise ValueError("batch: batch_size must be positive, got %d" % static)
        self._size = static
        self._drop = bool(drop_remainder)
        lead = static if self._drop else None

        def batched(spec):
            shape = None if spec._shape is None else (lead,) + spec._shape
            return TensorSpec(shape, spec.dtype)
        spec = input_dataset.element_spec
        spec = nest.map_structure(batched, spec) if nest.is_nested(spec) else batched(spec)
        super().__init__(spec, inputs=(input_dataset,), tensors=[size])

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0 or self._size is None:
            return n if n < 0 else UNKNOWN_CARDINALITY
        return n // self._size if self._drop else -(-n // self._size)

    def _generate(self, feed):
        size = int(feed[id(self._tensors[0])])
        if size <= 0:
            raise errors.InvalidArgumentError("batch: batch_size must be positive, got %d"
                                              % size, "AnonymousIterator")
        rows = []
        for flat in self._inputs[0]._generate(feed):
            rows.append(flat)
            if len(rows) == size:
                yield _stack(rows)
                rows = []
        if rows and not self._drop:
            yield _stack(rows)


def _stack(rows):
    out = []
    for i, column in enumerate(zip(*rows)):
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


class _TakeDataset(Dataset):
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

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        source = self._inputs[0]._generate(feed)
        return source if count < 0 else itertools.islice(source, count)


class _SkipDataset(Dataset):
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

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        if count < 0:
            return iter(())
        return itertools.islice(self._inputs[0]._generate(feed), count, None)


class _ZipDataset(Dataset):
    _name = "_ZipDataset"

    def __init__(self, datasets):
        structure = lists_to_tuples(datasets)
        flat = nest.flatten(structure)
        for path, ds in zip(leaf_paths(structure), flat):
            if not isinstance(ds, Dataset):
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

    def _generate(self, feed):
        sources = [ds._generate(feed) for ds in self._inputs]
        for parts in zip(*sources):
            yield tuple(v for part in parts for v in part)


class _ShuffleDataset(Dataset):
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
        global_seed = nn_random_ops._global_seed["seed"]
        if seed is not None:
            self._seed = (0 if global_seed is None else global_seed, int(seed))
        elif global_seed is not None:
            # Like TensorFlow's op seeds: drawn from the global seed's sequence.
            self._seed = (global_seed, int(nn_random_ops._generator(None).integers(2**62)))
        else:
            self._seed = None
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epochs = itertools.count()
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._buffer])

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        size = int(feed[id(self._buffer)])
        if size <= 0:
            raise errors.InvalidArgumentError("shuffle: buffer_size must be positive, got %d"
                                              % size, "AnonymousIterator")
        epoch = next(self._epochs) if self._reshuffle else 0
        rng = np.random.default_rng(None if self._seed is None else self._seed + (epoch,))
        buffer = []
        for flat in self._inputs[0]._generate(feed):
            if len(buffer) < size:
                buffer.append(flat)
                continue
            i = int(rng.integers(size))
            yield buffer[i]
            buffer[i] = flat
        while buffer:
            i = int(rng.integers(len(buffer)))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()


class _RepeatDataset(Dataset):
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

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        epoch = 0
        while count < 0 or epoch < count:
            produced = False
            for flat in self._inputs[0]._generate(feed):
                produced = True
                yield flat
            if not produced:
                return  # an empty dataset repeated forever is still empty
            epoch += 1


class _PrefetchDataset(Dataset):
    _name = "_PrefetchDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,))

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        return self._inputs[0]._generate(feed)


class _ConcatenateDataset(Dataset):
    _name = "_ConcatenateDataset"

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError("concatenate takes a Dataset, got %r" % (second,))
        a, b = first.element_spec, second.element_spec
        if nest.structure_signature(a) != nest.structure_signature(b) or any(
                x.dtype is not y.dtype for x, y in zip(nest.flatten(a), nest.flatten(b))):
            raise TypeError("concatenate: the datasets' elements differ: %s and %s"
                            % (spec_text(a), spec_text(b)))
        specs = [TensorSpec(shape_lib.relax(x._shape, y._shape), x.dtype)
                 for x, y in zip(nest.flatten(a), nest.flatten(b))]
        super().__init__(pack(a, specs), inputs=(first, second))

    def _cardinality(self):
        a, b = (ds._cardinality() for ds in self._inputs)
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY if min(a, b) < 0 else a + b

    def _generate(self, feed):
        for ds in self._inputs:
            yield from ds._generate(feed)

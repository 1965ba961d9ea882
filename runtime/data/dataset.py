"""`Dataset`: the user's handle on a pipeline of elements (tf.data.Dataset).

Its sources (runtime.data.sources) and transformations (runtime.data.transformations) are
pipeline stages (runtime.data.pipeline); each method returns a Dataset around a new stage.
"""


import numpy as np

from runtime import context, dtypes, errors, nest, signature, tracebacks
from runtime.data import nested, sources, transformations
from runtime.data.element_functions import convert
from runtime.data.iterator import Iterator, refuse_python_loop_in_graph
from runtime.data.pipeline import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Pipeline, to_tensor
from runtime.data.structure import map_input, spec_text
from runtime.function import Function
from runtime.ops import common, data_ops, math_ops, reduction_ops, selection_ops
from runtime.tensor import EagerTensor

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset",
           "DatasetSpec"]

AUTOTUNE = -1


class Dataset(Pipeline):
    """A pipeline of elements (each a nested structure of tensors; see `element_spec`)."""

    def __init__(self, pipeline):
        super().__init__(pipeline.element_spec, inputs=(pipeline,))
        self._pipeline = pipeline

    def __repr__(self):
        return repr(self._pipeline)

    def _cardinality(self):
        return self._pipeline._cardinality()

    def _generate(self, feed):
        return self._pipeline._generate(feed)

    def _reader(self, feed):
        return self._pipeline._reader(feed)

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

    def _eager_values(self):
        """The values of `_all_tensors()`, which must be eager."""
        values = []
        for t in self._all_tensors():
            if not isinstance(t, EagerTensor):
                raise TypeError(errors.with_user_location(
                    "this dataset was built inside a traced function from its tensor %s; it "
                    "can be iterated only inside that function" % t.name))
            values.append(t._value)
        return values

    def _open_eager(self):
        return self._open_cursor(self._eager_values())

    _spec = None

    def _fed_object_spec(self):
        """As a Function's argument, a Dataset is keyed by its element_spec (see
        `DatasetSpec`)."""
        if self._spec is None:
            self._spec = DatasetSpec(self.element_spec)
        return self._spec

    def __iter__(self):
        if context.executing_eagerly():
            return Iterator(self, cursor=self._open_eager())
        refuse_python_loop_in_graph("a tf.data.Dataset")
        nested.refuse_windows_in_graph(self.element_spec)
        handle = data_ops.anonymous_iterator(self, self._all_tensors())
        return Iterator(self, handle=handle)

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for x in dataset` in converted code: a Python loop eagerly, one While op in a
        graph (see `Iterator.__ag_for_stmt__`)."""
        if not context.executing_eagerly():
            nested.refuse_windows_in_graph(self.element_spec)
        iter(self).__ag_for_stmt__(extra_test, body, get_state, set_state, symbol_names,
                                   options)

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
        func = convert(reduce_func)

        def fold(initial):
            state = [initial]

            def body(element):
                state[0] = func(state[0], element)

            def set_state(values):
                state[0] = values[0]
            self.__ag_for_stmt__(None, body, lambda: (state[0],), set_state, ("state",))
            return state[0]

        initial = map_input(initial_state, lambda v, p: to_tensor(v, p, "reduce"))
        if context.executing_eagerly():
            return Function(fold, name="reduce")(initial)
        return fold(initial)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of `tensors` along their first dimension (every component
        of a tuple/dict structure must have the same first dimension)."""
        return Dataset(sources.TensorSlices(tensors))

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: `tensors`."""
        return Dataset(sources.Tensors(tensors))

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """`range(stop)`, `range(start, stop[, step])` as a dataset of scalars (int64)."""
        return Dataset(sources.Range(args, output_type))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """A dataset of the elements `generator(*args)` yields, converted to the declared
        types (`output_signature`, a structure of TensorSpecs, or `output_types` with
        optional `output_shapes`). The generator is called again for every pass."""
        return Dataset(sources.Generator(generator, output_types, output_shapes, args,
                                 output_signature))

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
        return Dataset(transformations.Zip(datasets))

    @tracebacks.api_boundary
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` to each element (a tuple element is passed as arguments)."""
        return Dataset(transformations.Map(self, map_func))

    @tracebacks.api_boundary
    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` gives a scalar bool True."""
        return Dataset(transformations.Filter(self, predicate))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks consecutive elements into batches of `batch_size` (the last one may be
        smaller unless `drop_remainder`)."""
        return Dataset(transformations.Batch(self, batch_size, drop_remainder))

    def take(self, count, name=None):
        """The first `count` elements (all of them when `count` is -1)."""
        return Dataset(transformations.Take(self, count))

    def skip(self, count, name=None):
        """All but the first `count` elements (none when `count` is -1)."""
        return Dataset(transformations.Skip(self, count))

    def enumerate(self, start=0, name=None):
        """Pairs `(index, element)` with int64 indices counting from `start`."""
        return Dataset(transformations.Zip((Dataset.range(start, np.iinfo(np.int64).max), self)))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles through a buffer of `buffer_size` elements; deterministic with `seed`
        (or a global seed); a new order on each pass unless `reshuffle_each_iteration` is
        False."""
        return Dataset(transformations.Shuffle(self, buffer_size, seed, reshuffle_each_iteration))

    def repeat(self, count=None, name=None):
        """The elements `count` times over (forever when `count` is None or -1)."""
        return Dataset(transformations.Repeat(self, -1 if count is None else count))

    def prefetch(self, buffer_size, name=None):
        """Accepted for compatibility: the same elements (there is nothing to overlap)."""
        return Dataset(transformations.Prefetch(self))

    def concatenate(self, dataset, name=None):
        """The elements of this dataset, then those of `dataset` (same structure/dtypes)."""
        return Dataset(transformations.Concatenate(self, dataset))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches of `batch_size` elements, each component padded to `padded_shapes` (a
        structure like the elements'; None or -1 dimensions, and all unknown dimensions by
        default, pad to the batch's longest) with `padding_values` (0, or b'' for
        strings)."""
        return Dataset(transformations.PaddedBatch(self, batch_size, padded_shapes,
                                                   padding_values, drop_remainder))

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64,
                     name=None):
        """Batches of `batch_size` elements as RaggedTensors (elements whose first
        dimensions differ become rows of a (batch, None, ...) RaggedTensor)."""
        return Dataset(transformations.RaggedBatch(self, batch_size, drop_remainder))

    def unbatch(self, name=None):
        """The rows of each element: every component split along its first dimension."""
        return Dataset(transformations.Unbatch(self))

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("apply: the transformation function must return a Dataset, got "
                            "%r" % (result,))
        return result

    @tracebacks.api_boundary
    def take_while(self, predicate, name=None):
        """The elements up to the first for which `predicate` is False."""
        return Dataset(transformations.TakeWhile(self, predicate))

    @tracebacks.api_boundary
    def scan(self, initial_state, scan_func, name=None):
        """`scan_func(state, element) -> (new_state, output)` from `initial_state`: a
        dataset of the outputs."""
        return Dataset(transformations.Scan(self, initial_state, scan_func))

    def unique(self, name=None):
        """The elements (single int32, int64 or string tensors) without repeats, in the
        order first seen."""
        return Dataset(transformations.Unique(self))

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of `size` consecutive elements (every `stride`-th), a new window every
        `shift` (default `size`) elements; each element's components become datasets of
        that component's values (iterate them eagerly, or use flat_map)."""
        return Dataset(nested.Window(self, size, shift, stride, drop_remainder, Dataset))

    @tracebacks.api_boundary
    def flat_map(self, map_func, name=None):
        """The elements of the datasets `map_func` returns for each element, in order."""
        return Dataset(nested.FlatMap(self, map_func, Dataset))

    @tracebacks.api_boundary
    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """The elements of the datasets `map_func` returns, `cycle_length` of them open at
        a time and `block_length` (default 1) elements taken from each in turn."""
        return Dataset(nested.Interleave(self, map_func, cycle_length,
                                         1 if block_length is None else block_length,
                                         Dataset))

    @tracebacks.api_boundary
    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """Groups the elements by `key_func` (a scalar int64 per element); every
        `window_size` elements of a group (or `window_size_func(key)`), and what is left of
        each group at the end, go as a dataset to `reduce_func(key, window)`; the result is
        the elements of the datasets it returns."""
        return Dataset(nested.GroupByWindow(self, key_func, reduce_func, window_size,
                                            window_size_func, Dataset))

    @tracebacks.api_boundary
    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        """Batches of elements of similar length: an element of length L goes to the
        bucket i with bucket_boundaries[i - 1] <= L < bucket_boundaries[i], batched
        `bucket_batch_sizes[i]` at a time (padded as `padded_batch` pads, unless
        `no_padding`)."""
        boundaries = [int(b) for b in bucket_boundaries]
        sizes = [int(b) for b in bucket_batch_sizes]
        if len(sizes) != len(boundaries) + 1:
            raise ValueError("bucket_by_sequence_length: len(bucket_batch_sizes) must equal "
                             "len(bucket_boundaries) + 1, got %d and %d"
                             % (len(sizes), len(boundaries)))
        if any(b >= c for b, c in zip(boundaries, boundaries[1:])):
            raise ValueError("bucket_by_sequence_length: bucket_boundaries must be sorted "
                             "and increasing, got %s" % boundaries)
        if pad_to_bucket_boundary:
            raise NotImplementedError("bucket_by_sequence_length: pad_to_bucket_boundary is "
                                      "not supported; give padded_shapes")
        length_func = convert(element_length_func)

        def bucket_of(*element):
            length = math_ops.cast(length_func(*element), dtypes.int64)
            above = math_ops.greater_equal(length, common.convert_to_tensor(
                np.asarray(boundaries, np.int64).reshape(-1)))
            return reduction_ops.reduce_sum(math_ops.cast(above, dtypes.int64))

        def batch_size(bucket):
            return selection_ops.gather(common.convert_to_tensor(np.asarray(sizes, np.int64)),
                                        bucket)

        def batched(bucket, window):
            if no_padding:
                return window.batch(batch_size(bucket), drop_remainder=drop_remainder)
            return window.padded_batch(batch_size(bucket), padded_shapes, padding_values,
                                       drop_remainder)
        return self.group_by_window(bucket_of, batched, window_size_func=batch_size)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """For each int64 `i` of `choice_dataset`, the next element of `datasets[i]`."""
        return Dataset(transformations.ChooseFromDatasets(datasets, choice_dataset,
                                                          stop_on_empty_dataset))

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None,
                             stop_on_empty_dataset=False, rerandomize_each_iteration=None):
        """Elements drawn at random from `datasets`, `weights` giving each one's
        probability (uniform by default); a dataset that ends is left out of later draws
        (or, with stop_on_empty_dataset, ends the result)."""
        return Dataset(transformations.SampleFromDatasets(datasets, weights, seed,
                                                          stop_on_empty_dataset))


class DatasetSpec(signature.FedObjectSpec):
    """The spec of a Dataset argument of a Function, as TensorFlow's `DatasetSpec`: datasets
    of equal `element_spec` share a trace. The traced function receives a Dataset whose
    pipeline reads, at each run, the dataset fed for the call (`_FedPipeline`); the trace
    holds no dataset, so none passed to a Function is kept alive by it."""

    def __init__(self, element_spec):
        self.element_spec = element_spec
        self.key = signature.make_key([element_spec])

    def stand_in(self, placeholder):
        """A Dataset over the dataset that `placeholder` is fed with."""
        return Dataset(_FedPipeline(self.element_spec, placeholder))

    def __repr__(self):
        return "DatasetSpec(%s)" % spec_text(self.element_spec)


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """`tf.data.experimental.dense_to_ragged_batch`: a transformation for `Dataset.apply`,
    the same as `dataset.ragged_batch(...)` (its newer spelling)."""
    def transformation(dataset):
        return dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)
    return transformation


class _FedPipeline(Pipeline):
    """Inside a trace, a Dataset argument: the pipeline of the dataset fed at each run to the
    resource `placeholder` (its elements come from that dataset, opened eagerly)."""

    _name = "Dataset"

    def __init__(self, element_spec, placeholder):
        super().__init__(element_spec, tensors=(placeholder,))
        self._placeholder = placeholder

    def _reader(self, feed):
        dataset = feed[id(self._placeholder)]
        inner = {id(t): v for t, v in zip(dataset._all_tensors(), dataset._eager_values())}
        return dataset._reader(inner)

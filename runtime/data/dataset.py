"""`Dataset`: the user's handle on a pipeline of elements (tf.data.Dataset).

Its sources (runtime.data.sources) and transformations (runtime.data.transformations) are
pipeline stages (runtime.data.pipeline); each method returns a Dataset around a new stage.
"""

import numpy as np

from runtime import context, dtypes, errors, nest, tracebacks
from runtime.data import sources, transformations
from runtime.data.element_functions import convert
from runtime.data.iterator import Iterator, refuse_python_loop_in_graph
from runtime.data.pipeline import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Pipeline, to_tensor
from runtime.data.structure import map_input
from runtime.function import Function
from runtime.ops import common, data_ops
from runtime.tensor import EagerTensor

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset"]

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

    def _open_eager(self):
        values = []
        for t in self._all_tensors():
            if not isinstance(t, EagerTensor):
                raise TypeError(errors.with_user_location(
                    "this dataset was built inside a traced function from its tensor %s; it "
                    "can be iterated only inside that function" % t.name))
            values.append(t._value)
        return self._open_cursor(values)

    def __iter__(self):
        if context.executing_eagerly():
            return Iterator(self, cursor=self._open_eager())
        refuse_python_loop_in_graph("a tf.data.Dataset")
        handle = data_ops.anonymous_iterator(self, self._all_tensors())
        return Iterator(self, handle=handle)

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for x in dataset` in converted code: a Python loop eagerly, one While op in a
        graph (see `Iterator.__ag_for_stmt__`)."""
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

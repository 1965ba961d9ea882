"""Datasets split over replicas: `strategy.experimental_distribute_dataset(ds)` and
`strategy.distribute_datasets_from_function(fn)`, with `InputContext` and `ValueContext`.

A distributed dataset's elements are PerReplica values (the plain element with one
replica). `experimental_distribute_dataset` splits each batch of the global batch size G
over the N replicas as TensorFlow rebatches: replica sizes ceil(G/N) for the first G mod N
replicas and floor(G/N) for the rest, consumed in order, so the last partial batch fills the
first replicas and leaves the later ones short or empty (G=8, N=3: [3, 3, 2]; a last batch
of 5: [3, 2, 0]). G is the batch dimension of the element spec, else the batch size of the
pipeline's batching stage, else the first batch's.
Iterating works in Python and in converted code, eagerly and in a Function (`for`, `next`,
`break`, `continue`: the loop over the underlying dataset, each element split).
"""

from runtime import context, nest
from runtime.data import transformations
from runtime.distribute import values as values_lib
from runtime.ops import common


def split_sizes(global_batch_size, replicas):
    """The per-replica batch sizes TensorFlow gives a batch of `global_batch_size`."""
    floor, larger = divmod(global_batch_size, replicas)
    return [floor + 1] * larger + [floor] * (replicas - larger)


def _static_batch(element_spec):
    dims = set()
    for spec in nest.flatten(element_spec):
        shape = getattr(spec, "shape", None)
        if shape is None or not shape.rank:
            return None
        dims.add(shape[0])
    return dims.pop() if len(dims) == 1 else None


def _batching_stage_size(dataset):
    """The batch size of the nearest batching stage up a chain of one-input stages (as
    TensorFlow's compute_batch_size walks the pipeline), else None."""
    stage = dataset
    while stage is not None:
        if isinstance(stage, (transformations.Batch, transformations.PaddedBatch)):
            return getattr(stage, "_size", None)
        inputs: tuple = getattr(stage, "_inputs", ())
        stage = inputs[0] if len(inputs) == 1 else None
    return None


class _Splitter:
    """Splits one element (a nest of batched tensors) into per-replica parts."""

    def __init__(self, dataset, replicas, first=0, local=None):
        self.replicas = replicas  # in the whole job
        self.first = first  # the index of this process's first replica
        self.local = replicas if local is None else local  # this process's replicas
        self.global_batch = _static_batch(dataset.element_spec)
        if self.global_batch is None:
            self.global_batch = _batching_stage_size(dataset)

    def split(self, element):
        if self.replicas == 1:
            return element
        flat = nest.flatten(element)
        if self.global_batch is None:
            first = common.convert_to_tensor(flat[0]).shape[0]
            if first is None:
                raise ValueError("experimental_distribute_dataset: the global batch size is "
                                 "unknown; batch the dataset with drop_remainder=True or "
                                 "use distribute_datasets_from_function")
            self.global_batch = int(first)
        starts = [0]
        for size in split_sizes(self.global_batch, self.replicas):
            starts.append(starts[-1] + size)
        parts = []
        for replica in range(self.first, self.first + self.local):
            begin, end = starts[replica], starts[replica + 1]
            parts.append(nest.pack_sequence_as(
                element, [common.convert_to_tensor(t)[begin:end] for t in flat]))
        return values_lib.per_replica_leaves(parts)


def _as_it_is(element):
    return element


class DistributedIterator:
    """An iterator over a distributed dataset: `next` gives one PerReplica element."""

    advances_in_graphs = True  # next() in a Function takes elements with graph ops

    def __init__(self, iterators, split):
        self._iterators = iterators
        self._split = split

    @property
    def element_spec(self):
        """The element spec of one replica's underlying dataset."""
        return self._iterators[0].element_spec

    def __iter__(self):
        return self

    def __next__(self):
        return self._split([next(it) for it in self._iterators])

    def get_next(self):
        """The next element (OutOfRangeError past the end)."""
        return self._split([it.get_next() for it in self._iterators])

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for x in iterator` in converted code: the loop of the underlying iterator(s),
        each element split over the replicas (`options`: the loop's LoopOptions, such as
        shape invariants, honoured by the underlying iterator's loop)."""
        if len(self._iterators) == 1:
            self._iterators[0].__ag_for_stmt__(
                extra_test, lambda element: body(self._split([element])), get_state,
                set_state, symbol_names, options=options)
            return
        if not context.executing_eagerly():
            raise NotImplementedError(
                "a loop over an iterator of several replicas' datasets in a tf.function; "
                "loop over the distributed dataset itself, or take elements with next()")
        while extra_test is None or extra_test():
            try:
                element = next(self)
            except StopIteration:
                return
            body(element)


class DistributedDataset:
    """`strategy.experimental_distribute_dataset(dataset)`: each batch split over the
    replicas (see the module docstring). With several processes every process reads the
    same batches and keeps its own replicas' parts (replicas `first` .. `first + local`)."""

    # places an element where the steps run (a strategy sets it: Strategy._stage_input)
    _stage = staticmethod(_as_it_is)

    def __init__(self, dataset, replicas, first=0, local=None):
        self._dataset = dataset
        self._replicas = replicas
        self._first = first
        self._local = local

    @property
    def element_spec(self):
        """The element spec of the global dataset."""
        return self._dataset.element_spec

    def _split(self, elements):
        return self._stage(self._splitter.split(elements[0]))

    def __iter__(self):
        self._splitter = _Splitter(self._dataset, self._replicas, self._first, self._local)
        return DistributedIterator([iter(self._dataset)], self._split)

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for x in dataset` in converted code: the dataset's loop, each element split
        (`options`: the loop's LoopOptions)."""
        iter(self).__ag_for_stmt__(extra_test, body, get_state, set_state, symbol_names,
                                   options=options)

    def reduce(self, initial_state, reduce_func):
        """Folds the distributed elements eagerly: `state = reduce_func(state, element)`."""
        state = initial_state
        for element in self:
            state = reduce_func(state, element)
        return state


class InputContext:
    """`tf.distribute.InputContext`: what `dataset_fn` of distribute_datasets_from_function
    is told about the input pipeline it builds."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """`global_batch_size` / num_replicas_in_sync; ValueError when it does not divide."""
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError("The `global_batch_size` %r is not divisible by "
                             "`num_replicas_in_sync` %r "
                             % (global_batch_size, self.num_replicas_in_sync))
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return ("tf.distribute.InputContext(input pipeline id %d, total: %d)"
                % (self.input_pipeline_id, self.num_input_pipelines))


class ValueContext:
    """`tf.distribute.experimental.ValueContext`: the replica a value function makes a
    value for."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class DistributedDatasetsFromFunction:
    """`strategy.distribute_datasets_from_function(dataset_fn)`: one dataset per replica,
    `dataset_fn(InputContext)` (one input pipeline on this host feeds every replica, as in
    TensorFlow's MirroredStrategy: each replica takes the pipeline's next element)."""

    # places an element where the steps run (a strategy sets it: Strategy._stage_input)
    _stage = staticmethod(_as_it_is)

    def __init__(self, dataset_fn, replicas, pipelines=1, pipeline_id=0):
        self._replicas = replicas
        self._dataset = dataset_fn(InputContext(pipelines, pipeline_id, replicas))

    @property
    def element_spec(self):
        """The element spec of one replica's dataset."""
        return self._dataset.element_spec

    def _split(self, elements):
        return self._stage(values_lib.per_replica_leaves(elements))

    def __iter__(self):
        # one pipeline, its consecutive elements going to consecutive replicas
        shared = iter(self._dataset)
        return DistributedIterator([shared] * self._replicas, self._split)

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for x in datasets` in converted code. In a Function with several replicas, the
        loop runs over the pipeline's elements taken `replicas` at a time (as `next`
        takes them; a last group short of replicas is dropped), each group's elements
        given to consecutive replicas: the group is one element of the pipeline batched
        by the replica count, so its elements must share one shape (batch the per-replica
        dataset with drop_remainder=True). `options`: the loop's LoopOptions."""
        if context.executing_eagerly() or self._replicas == 1:
            iter(self).__ag_for_stmt__(extra_test, body, get_state, set_state, symbol_names,
                                       options=options)
            return
        groups = self._dataset.batch(self._replicas, drop_remainder=True)
        count = self._replicas

        def group_body(group):
            flat = nest.flatten(group)
            parts = [nest.pack_sequence_as(group, [t[i] for t in flat]) for i in range(count)]
            body(self._split(parts))
        iter(groups).__ag_for_stmt__(extra_test, group_body, get_state, set_state,
                                     symbol_names, options=options)

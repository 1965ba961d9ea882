"""`tf.data`: input pipelines described by Python objects, run eagerly or inside graphs.

    ds = Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).map(f).batch(2)
    for x, y in ds: ...          # eagerly: EagerTensors, nested like `ds.element_spec`

A `Dataset` holds no elements: it describes how to produce them from the tensors it was
built from (`_tensors`, possibly symbolic ones of a traced function) and from its input
datasets. Running it opens a *cursor*: a Python iterator of flat tuples of numpy values, one
per component of `element_spec` (nested tuples and dicts flattened as `runtime.nest` does).

In a traced function the pipeline runs inside stateful ops (`runtime.ops.data_ops`), as a
`py_function` would: `AnonymousIterator` opens a cursor each time the graph runs, and a
`for x in dataset` loop becomes ONE While op that asks `IteratorHasNext` in its condition
and takes the element with `IteratorGetNext` in its body. The graph therefore has the same
size for 3 elements or 3 million (the guide's "Looping over Python data").

Functions given to `map` and `filter` are converted by `context.function_converter()`: inside
a traced Function by that Function's `converter`, outside any by the default converter
(`autograph` installs its compiler's; the runtime never imports it). They are traced once
into a graph when the dataset is built, compiled by the executor and run on every element.
Their Python side effects run once, at that trace, as in TensorFlow.

`iter(dataset)` gives an `Iterator`. Passed into a Function it is captured by identity as a
resource, so each call of the graph advances it (the guide's `good_consume_next`); a Python
iterator is consumed only while tracing (`buggy_consume_next`).

A Dataset passed as a Function argument keys the trace cache by its `element_spec`, as in
TensorFlow (`dataset.DatasetSpec`): datasets of one spec share a trace, whose graph takes the
dataset as a resource fed at each call, so the trace keeps none of them alive.

Modules: `dataset` (the Dataset API), `file_datasets` (datasets read from files),
`pipeline` (a pipeline stage, what a Dataset holds), `sources` and `transformations` (the
stages), `generator_checks` (what `from_generator`
yields), `element_functions` (the traced functions of `map`, `filter`, `reduce`),
`iterator` (cursors, Iterator, staged loops), `structure` (element structures: tuples and
dicts nest, a Python list is a tensor, as in TensorFlow).
"""

import builtins as _builtins

from runtime.data.dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    dense_to_ragged_batch,
)
from runtime.data.file_datasets import (
    CsvDataset,
    TextLineDataset,
    TFRecordDataset,
    make_csv_dataset,
)
from runtime.data.iterator import Iterator
from runtime.operators import py_builtins as _py_builtins


def _enumerate(iterable, start=0):
    """`enumerate(dataset)` in converted code is `dataset.enumerate()`: a Python enumerate
    would iterate the dataset while tracing, which never ends in a graph."""
    if isinstance(iterable, Dataset):
        return iterable.enumerate(start)
    return _builtins.enumerate(iterable, start)


def _zip(*iterables):
    """`zip(ds1, ds2)` in converted code is `Dataset.zip((ds1, ds2))`."""
    datasets = [isinstance(i, Dataset) for i in iterables]
    if iterables and all(datasets):
        return Dataset.zip(tuple(iterables))
    if any(datasets):
        raise TypeError("zip() of a tf.data.Dataset with other iterables is not supported in "
                        "converted code; turn the others into datasets and use "
                        "tf.data.Dataset.zip")
    return _builtins.zip(*iterables)


_py_builtins.OVERLOADS[_builtins.enumerate] = _enumerate
_py_builtins.OVERLOADS[_builtins.zip] = _zip

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "Iterator"]

"""Datasets whose elements hold SparseTensors: from_tensors, from_tensor_slices (one row of
the dense shape per element), batch (a leading batch index, the largest dense shape), map,
window (a dataset of SparseTensors per window), padded_batch (refused, as TensorFlow does),
and iterating eagerly and in a traced Function."""

import numpy as np
import pytest

from runtime import data, errors
from runtime.composite.sparse import SparseTensor, SparseTensorSpec, to_dense
from runtime.composite.sparse_math import reduce_sum
from runtime.function import function
from runtime.operators import loops
from runtime.ops import array_ops, reshape_ops

DENSE = np.array([[1, 0, 0, 0], [0, 0, 2, 0], [0, 3, 0, 0]], np.int32)


def sample():
    return SparseTensor([[0, 0], [1, 2], [2, 1]], [1, 2, 3], [3, 4])


def test_from_tensors_holds_one_sparse_element_with_its_static_shape():
    ds = data.Dataset.from_tensors(sample())
    assert ds.element_spec == SparseTensorSpec([3, 4], "int32")
    (element,) = list(ds)
    np.testing.assert_array_equal(to_dense(element).numpy(), DENSE)


def test_from_tensor_slices_gives_each_row_as_a_sparse_tensor():
    ds = data.Dataset.from_tensor_slices((sample(), array_ops.constant([5, 6, 7])))
    assert ds.element_spec[0] == SparseTensorSpec([4], "int32")
    rows = [(to_dense(s).numpy().tolist(), int(x)) for s, x in ds]
    assert rows == [(DENSE[i].tolist(), 5 + i) for i in range(3)]


def test_from_tensor_slices_checks_the_sparse_first_dimension():
    with pytest.raises(ValueError, match="same size in their first dimension"):
        data.Dataset.from_tensor_slices((sample(), array_ops.constant([1, 2])))


def test_batch_of_sparse_elements_adds_a_batch_index_and_takes_the_largest_shape():
    ds = data.Dataset.from_tensor_slices(sample()).batch(2)
    assert ds.element_spec == SparseTensorSpec([None, 4], "int32")
    batches = [to_dense(b).numpy() for b in ds]
    np.testing.assert_array_equal(batches[0], DENSE[:2])
    np.testing.assert_array_equal(batches[1], DENSE[2:])
    ragged_shapes = data.Dataset.range(3).map(
        lambda i: SparseTensor([[0]], [i], reshape_ops.reshape(i + 1, [1])))
    (batch,) = list(ragged_shapes.batch(3))
    assert batch.dense_shape.numpy().tolist() == [3, 3]


def test_sparse_elements_in_a_traced_loop():
    ds = data.Dataset.from_tensor_slices((sample(), array_ops.constant([5, 6, 7])))

    @function
    def total(ds):
        def body(element):
            s, x = element
            acc[0] = acc[0] + reduce_sum(s) * x
        acc = [array_ops.constant(0)]

        def get_state():
            return (acc[0],)

        def set_state(state):
            acc[0] = state[0]
        loops.for_stmt(ds, None, body, get_state, set_state, ("acc",), {})
        return acc[0]

    assert int(total(ds)) == 1 * 5 + 2 * 6 + 3 * 7


def test_map_to_sparse_elements():
    ds = data.Dataset.range(3).map(lambda i: SparseTensor([[i]], [i * 2], [5]))
    assert [to_dense(s).numpy().tolist() for s in ds] == [
        [0, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 4, 0, 0]]


def test_an_index_out_of_bounds_in_a_sliced_sparse_tensor_is_reported():
    bad = SparseTensor([[0, 0], [5, 1]], [1, 2], [3, 4])
    with pytest.raises(errors.InvalidArgumentError):
        to_dense(next(iter(data.Dataset.from_tensors(bad))))


def test_map_to_a_sparse_tensor_of_known_shape_keeps_it_in_the_spec():
    ds = data.Dataset.range(3).map(lambda i: SparseTensor([[i]], [i * 2], [5]))
    assert ds.element_spec == SparseTensorSpec([5], "int64")


def test_concatenate_relaxes_sparse_shapes_and_ranks():
    rows = data.Dataset.from_tensor_slices(sample())
    wider = data.Dataset.from_tensors(SparseTensor([[0]], [9], [6]))
    assert rows.concatenate(wider).element_spec == SparseTensorSpec([None], "int32")
    deeper = data.Dataset.from_tensors(SparseTensor([[0, 0, 0]], [9], [1, 1, 1]))
    assert rows.concatenate(deeper).element_spec == SparseTensorSpec(None, "int32")
    assert [to_dense(s).numpy().tolist() for s in rows.concatenate(wider)][-1] == \
        [9, 0, 0, 0, 0, 0]


def test_from_generator_yields_sparse_tensors_of_a_sparse_signature():
    spec = SparseTensorSpec([None, 4], "int32")
    ds = data.Dataset.from_generator(lambda: iter([sample(), SparseTensor([[0, 3]], [7], [1, 4])]),
                                     output_signature=spec)
    assert ds.element_spec == spec
    assert [to_dense(s).numpy().tolist() for s in ds] == [DENSE.tolist(), [[0, 0, 0, 7]]]
    wrong = data.Dataset.from_generator(lambda: iter([SparseTensor([[0]], [1], [5])]),
                                        output_signature=spec)
    with pytest.raises(errors.InvalidArgumentError, match="has dense shape \\[5\\] where "
                                                          "\\(None, 4\\) was expected"):
        list(wrong)
    dense = data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=spec)
    with pytest.raises(errors.InvalidArgumentError, match="a SparseTensor was expected"):
        list(dense)


def test_unbatch_splits_a_sparse_element_into_sparse_rows():
    ds = data.Dataset.from_tensors(sample()).unbatch()
    assert ds.element_spec == SparseTensorSpec([4], sample().dtype)
    assert [to_dense(row).numpy().tolist() for row in ds] == DENSE.tolist()
    rebatched = data.Dataset.from_tensor_slices(sample()).batch(2).unbatch()
    assert [to_dense(row).numpy().tolist() for row in rebatched] == DENSE.tolist()
    # traced: a map function sees each row as a SparseTensor of rank 1
    sums = [int(s) for s in ds.map(reduce_sum)]
    assert sums == [1, 2, 3]


def _rows():
    """(SparseTensor row of DENSE, its index) elements."""
    return data.Dataset.from_tensor_slices((sample(), array_ops.constant([0, 1, 2])))


def test_window_of_sparse_elements_gives_a_dataset_of_sparse_tensors_per_window():
    windows = _rows().window(2)
    assert repr(windows.element_spec) == (
        "(DatasetSpec(SparseTensorSpec(TensorShape([4]), tf.int32), TensorShape([])), "
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorShape([])))")
    got = [([to_dense(s).numpy().tolist() for s in rows], [int(i) for i in index])
           for rows, index in windows]
    assert got == [(DENSE[:2].tolist(), [0, 1]), (DENSE[2:].tolist(), [2])]


def test_window_of_one_sparse_component_is_one_dataset_and_flat_maps_in_a_function():
    only = _rows().map(lambda s, i: s)
    windows = only.window(2, shift=1, drop_remainder=True)
    assert windows.element_spec.element_spec == SparseTensorSpec([4], "int32")
    batches = windows.flat_map(lambda w: w.batch(2))
    assert [to_dense(b).numpy().tolist() for b in batches] == [
        DENSE[:2].tolist(), DENSE[1:].tolist()]

    @function
    def total(ds):
        acc = [array_ops.constant(0)]

        def body(batch):
            acc[0] = acc[0] + reduce_sum(batch)

        def get_state():
            return (acc[0],)

        def set_state(state):
            acc[0] = state[0]
        loops.for_stmt(ds, None, body, get_state, set_state, ("acc",), {})
        return acc[0]

    assert int(total(batches)) == (1 + 2) + (2 + 3)


@pytest.mark.parametrize("element", [
    lambda: _rows(),
    lambda: _rows().map(lambda s, i: s),
])
def test_padded_batch_of_sparse_elements_is_refused_as_tensorflow_refuses_it(element):
    with pytest.raises(TypeError, match=r"^`padded_batch` is only supported for datasets that "
                       r"produce tensor elements but type spec of elements in the input "
                       r"dataset is not a subclass of TensorSpec: `SparseTensorSpec\("
                       r"TensorShape\(\[4\]\), tf.int32\)`\.$"):
        element().padded_batch(2)

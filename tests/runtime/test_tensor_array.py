"""tf.TensorArray: each method eagerly, in straight graphs, as the state of staged loops and
conditionals; the errors (naming the index, and the user's line when a graph runs); the
persistent run-time value; and Python lists appended to in loops on tensors (staged as
TensorArrays)."""

import random
import threading

import numpy as np
import pytest
from op_cases import empty_shape_test

from runtime import dtypes, errors, nest, tensor_array
from runtime import shape as shape_lib
from runtime import signature as signature_lib
from runtime.function import function
from runtime.functional import control_flow as functional_lib
from runtime.ops import (
    array_ops,
    math_ops,
)
from runtime.tensor_array import TensorArray
from runtime.tensor_array import value as ta_value

# -- eager ---------------------------------------------------------------------------------------


def test_write_read_stack_size_eagerly():
    ta = tensor_array.TensorArray(dtypes.float32, size=3)
    ta = ta.write(0, 1.0).write(1, array_ops.constant(2.0)).write(2, np.float32(3.0))
    assert ta.read(1).numpy() == 2.0
    assert ta.read(array_ops.constant(2)).numpy() == 3.0
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0, 3.0])
    assert ta.stack().dtype is dtypes.float32
    assert ta.size().numpy() == 3
    assert ta.dtype is dtypes.float32
    assert ta.element_shape == shape_lib.TensorShape([])


def test_write_returns_a_new_array_and_leaves_the_old_one():
    empty = tensor_array.TensorArray(dtypes.int32, size=2)
    a = empty.write(0, 1)
    b = empty.write(0, 2)
    a1 = a.write(1, 10)
    b1 = b.write(1, 20)
    np.testing.assert_array_equal(a1.stack().numpy(), [1, 10])
    np.testing.assert_array_equal(b1.stack().numpy(), [2, 20])
    assert a.read(0).numpy() == 1 and b.read(0).numpy() == 2
    with pytest.raises(errors.InvalidArgumentError, match="index 1 was read before"):
        a.read(1)
    with pytest.raises(errors.InvalidArgumentError, match="index 0 was read before"):
        empty.read(0)


def test_unstack_gather_and_scatter_eagerly():
    ta = tensor_array.TensorArray(dtypes.float32, size=3).unstack(
        [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert ta.element_shape == shape_lib.TensorShape([2])
    np.testing.assert_array_equal(ta.read(2).numpy(), [5.0, 6.0])
    gathered = ta.gather([2, 0])
    assert gathered.shape == (2, 2)
    np.testing.assert_array_equal(gathered.numpy(), [[5.0, 6.0], [1.0, 2.0]])
    np.testing.assert_array_equal(ta.gather([[0], [1]]).numpy(), [[[1.0, 2.0]], [[3.0, 4.0]]])
    scattered = tensor_array.TensorArray(dtypes.int32, size=3).scatter([2, 0, 1], [[7], [8], [9]])
    np.testing.assert_array_equal(scattered.stack().numpy(), [[8], [9], [7]])


def test_concat_joins_the_elements_along_their_first_dimension():
    ta = tensor_array.TensorArray(dtypes.float32, size=2)
    ta = ta.write(0, [[1.0, 2.0]]).write(1, [[3.0, 4.0]])
    joined = ta.concat()
    assert joined.shape == (2, 2)
    np.testing.assert_array_equal(joined.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    empty = tensor_array.TensorArray(dtypes.int32, size=0, element_shape=[None, 3]).concat()
    assert empty.shape == (0, 3) and empty.dtype is dtypes.int32
    with pytest.raises(errors.InvalidArgumentError, match="scalars"):
        tensor_array.TensorArray(dtypes.int32, size=1).write(0, 5).concat()


def test_infer_shape_false_allows_rows_of_different_lengths_joined_by_concat():
    ta = tensor_array.TensorArray(dtypes.int32, size=3, infer_shape=False)
    ta = ta.write(0, [1]).write(1, [2, 3]).write(2, [4, 5, 6])
    assert ta.element_shape == shape_lib.TensorShape(None)
    assert ta.concat().numpy().tolist() == [1, 2, 3, 4, 5, 6]
    assert ta.read(1).numpy().tolist() == [2, 3]
    with pytest.raises(errors.InvalidArgumentError, match="different shapes.*index 1"):
        ta.stack()
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        ta = tensor_array.TensorArray(dtypes.int32, size=2)
        ta.write(0, [1]).write(1, [2, 3])  # infer_shape=True


def test_dynamic_size_grows_when_writing_past_the_end():
    ta = tensor_array.TensorArray(dtypes.int32, size=0, dynamic_size=True)
    for i in range(5):
        ta = ta.write(i, i * i)
    assert ta.size().numpy() == 5
    np.testing.assert_array_equal(ta.stack().numpy(), [0, 1, 4, 9, 16])
    sparse = tensor_array.TensorArray(dtypes.int32, size=1, dynamic_size=True).write(3, 1)
    assert sparse.size().numpy() == 4
    with pytest.raises(errors.InvalidArgumentError, match="index 0 was read before"):
        sparse.stack()


def test_stack_of_an_empty_array_with_a_known_element_shape():
    empty = tensor_array.TensorArray(dtypes.float32, size=0, element_shape=[2, 3])
    assert empty.stack().shape == (0, 2, 3)
    empty = tensor_array.TensorArray(dtypes.int64, size=0, element_shape=())
    assert empty.stack().dtype is dtypes.int64
    with pytest.raises(errors.InvalidArgumentError, match="element shape .* not fully known"):
        tensor_array.TensorArray(dtypes.float32, size=0).stack()


def test_element_shape_is_learned_from_the_first_write():
    ta = tensor_array.TensorArray(dtypes.float32, size=2)
    assert ta.element_shape == shape_lib.TensorShape(None)
    ta = ta.write(0, array_ops.zeros([2, 3]))
    assert ta.element_shape == shape_lib.TensorShape([2, 3])
    partial = tensor_array.TensorArray(dtypes.float32, size=1, element_shape=[None, 3])
    assert partial.write(0, array_ops.zeros([4, 3])).element_shape == shape_lib.TensorShape([4, 3])


def test_writing_past_a_fixed_size_names_the_index():
    ta = tensor_array.TensorArray(dtypes.float32, size=2)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"index 2 is out of range: .*fixed size of 2 \(dynamic_size=False\)"
                             r"[\s\S]*in user code:[\s\S]*test_tensor_array.py"):
        ta.write(2, 1.0)
    with pytest.raises(errors.InvalidArgumentError, match="index -1 is negative"):
        ta.write(-1, 1.0)


def test_reading_unwritten_or_out_of_range_indices_names_the_index():
    ta = tensor_array.TensorArray(dtypes.float32, size=3).write(0, 1.0)
    with pytest.raises(errors.InvalidArgumentError, match="index 2 was read before it was "
                                                             "written"):
        ta.read(2)
    with pytest.raises(errors.InvalidArgumentError, match="index 5 is out of range"):
        ta.read(5)
    with pytest.raises(errors.InvalidArgumentError, match="index 1 was read before"):
        ta.stack()
    with pytest.raises(errors.InvalidArgumentError, match="index 2 was read before"):
        ta.gather([0, 2])


def test_writing_a_wrong_dtype_or_shape_is_a_clear_error():
    ta = tensor_array.TensorArray(dtypes.float32, size=2, element_shape=[2])
    with pytest.raises(errors.InvalidArgumentError,
                       match="cannot write a value of dtype int32 to a TensorArray of float32"):
        ta.write(0, array_ops.constant([1, 2]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"value of shape \(3,\) to a TensorArray whose elements have "
                             r"shape \(2,\)"):
        ta.write(0, array_ops.zeros([3]))
    learned = tensor_array.TensorArray(dtypes.float32, size=2).write(0, array_ops.zeros([2]))
    with pytest.raises(errors.InvalidArgumentError, match=r"shape \(2, 2\)"):
        learned.write(1, array_ops.zeros([2, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="unstack"):
        tensor_array.TensorArray(dtypes.float32, size=2).unstack(array_ops.zeros([3]))


def test_python_values_are_converted_to_the_element_dtype():
    ta = tensor_array.TensorArray(dtypes.float64, size=2).write(0, 1).write(1, 2.5)
    assert ta.stack().dtype is dtypes.float64
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.5])


def test_constructor_checks():
    with pytest.raises(TypeError):
        tensor_array.TensorArray("no such dtype")
    with pytest.raises(ValueError, match="negative"):
        tensor_array.TensorArray(dtypes.float32, size=-1)
    with pytest.raises(TypeError, match="integer"):
        tensor_array.TensorArray(dtypes.float32, size=1.5)


# -- persistent run-time value -------------------------------------------------------------------


def test_versions_behave_like_independent_copies():
    rng = random.Random(7)
    start = ta_value.TensorArrayValue.empty(4, True, None, np.dtype(np.int64))
    versions = [(start, [None] * 4)]
    for step in range(400):
        value, model = versions[rng.randrange(len(versions))]
        if rng.random() < 0.3:
            pairs = [(rng.randrange(8), np.int64(rng.randrange(100))) for _ in range(3)]
        else:
            pairs = [(rng.randrange(8), np.int64(step))]
        new_model = list(model)
        for index, element in pairs:
            new_model.extend([None] * (index + 1 - len(new_model)))
            new_model[index] = element
        new = value.written(pairs) if len(pairs) > 1 else value.written_one(*pairs[0])
        versions.append((new, new_model))
        for value, model in rng.sample(versions, min(3, len(versions))):
            assert value.size == len(model)
            for index, expected in enumerate(model):
                if expected is None:
                    with pytest.raises(IndexError, match="index %d" % index):
                        value.read(index)
                else:
                    assert value.read(index) == expected


def test_a_traced_array_is_fresh_on_every_call_and_on_every_thread():
    @function
    def f(n):
        ta = tensor_array.TensorArray(dtypes.int32, size=3)
        for i in array_ops.range(3):
            ta = ta.write(i, i * n)
        return ta.stack()

    assert f(array_ops.constant(1)).numpy().tolist() == [0, 1, 2]
    assert f(array_ops.constant(2)).numpy().tolist() == [0, 2, 4]
    results = {}

    def run(k):
        results[k] = [f(array_ops.constant(k)).numpy().tolist() for _ in range(20)]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(1, 5):
        assert results[k] == [[0, k, 2 * k]] * 20


# -- straight graphs ------------------------------------------------------------------------------


def test_methods_in_a_graph_have_static_shapes():
    @function
    def f(x):
        ta = tensor_array.TensorArray(dtypes.float32, size=3)
        ta = ta.unstack(x)
        ta = ta.write(1, x[0] * 10.0)
        return ta.stack(), ta.read(2), ta.gather([2, 1]), ta.size()

    cf = f.get_concrete_function(signature_lib.TensorSpec([3, 2], dtypes.float32))
    stacked, read, gathered, size = cf.structured_outputs
    assert stacked.shape == (3, 2) and read.shape == (2,) and gathered.shape == (2, 2)
    assert size.shape == ()
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    stacked, read, gathered, size = f(x)
    np.testing.assert_array_equal(stacked.numpy(), [[0, 1], [0, 10], [4, 5]])
    np.testing.assert_array_equal(read.numpy(), [4, 5])
    np.testing.assert_array_equal(gathered.numpy(), [[4, 5], [0, 10]])
    assert size.numpy() == 3


def test_graph_errors_are_invalid_argument_errors_naming_the_index_and_line():
    @function
    def read_at(i):
        ta = tensor_array.TensorArray(dtypes.float32, size=3).write(0, 1.0)
        return ta.read(i)

    assert read_at(array_ops.constant(0)).numpy() == 1.0
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"index 2 was read before it was written[\s\S]*in user code:"
                             r"[\s\S]*test_tensor_array.py:\d+[\s\S]*return ta.read\(i\)"):
        read_at(array_ops.constant(2))

    @function
    def write_at(i):
        ta = tensor_array.TensorArray(dtypes.float32, size=2)
        return ta.write(i, 1.0).stack()

    with pytest.raises(errors.InvalidArgumentError,
                       match=r"index 7 is out of range[\s\S]*return ta.write\(i, 1.0\)"):
        write_at(array_ops.constant(7))


def test_wrong_dtype_in_a_graph_fails_when_tracing():
    @function
    def f(x):
        return tensor_array.TensorArray(dtypes.float32, size=1).write(0, x).stack()

    with pytest.raises(TypeError, match="cannot write a value of dtype int32"):
        f(array_ops.constant(1))


def test_a_function_can_return_a_tensor_array():
    @function
    def f(x):
        return tensor_array.TensorArray(dtypes.float32, size=2).write(0, x).write(1, x + 1.0)

    ta = f(array_ops.constant(1.0))
    assert isinstance(ta, TensorArray)
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ta.write(1, 5.0).stack().numpy(), [1.0, 5.0])


def test_nest_treats_a_tensor_array_as_one_handle():
    ta = tensor_array.TensorArray(dtypes.int32, size=2, element_shape=[3])
    flat = nest.flatten({"a": ta, "b": [1]})
    assert len(flat) == 2 and flat[0] is ta.handle
    assert flat[0].dtype is ta_value.variant and flat[0].shape == ()
    rebuilt = nest.pack_sequence_as({"a": ta, "b": [1]}, flat)
    assert isinstance(rebuilt["a"], TensorArray) and rebuilt["a"].element_shape == [3]
    assert nest.structure_signature([ta]) == nest.structure_signature(
        [tensor_array.TensorArray(dtypes.int32, size=5)])
    assert nest.structure_signature([ta]) != nest.structure_signature([ta.handle])


# -- loops ----------------------------------------------------------------------------------------


def test_read_inside_a_loop():
    @function
    def f(x):
        ta = tensor_array.TensorArray(dtypes.float32, size=3).unstack(x)
        total = array_ops.zeros([2])
        for i in array_ops.range(ta.size()):
            total += ta.read(i)
        return total

    assert f.get_concrete_function(array_ops.ones([3, 2])).structured_outputs.shape == (2,)
    np.testing.assert_array_equal(f(array_ops.ones([3, 2])).numpy(), [3.0, 3.0])


def test_tf_while_loop_with_a_tensor_array():
    @function
    def f(n):
        ta = tensor_array.TensorArray(dtypes.int32, size=0, dynamic_size=True)
        _, ta = functional_lib.while_loop(lambda i, ta: i < n,
                                          lambda i, ta: (i + 1, ta.write(i, i * 10)), [0, ta])
        return ta.stack()

    assert f(array_ops.constant(4)).numpy().tolist() == [0, 10, 20, 30]


def test_loops_run_eagerly_too():
    ta = tensor_array.TensorArray(dtypes.float32, size=3)
    for i in array_ops.range(3):
        ta = ta.write(i, math_ops.cast(i, dtypes.float32) / 2)
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 0.5, 1.0])


# -- conditionals ---------------------------------------------------------------------------------


def test_tf_cond_returning_tensor_arrays():
    @function
    def f(x):
        ta = tensor_array.TensorArray(dtypes.int32, size=2)
        out = functional_lib.cond(x > 0, lambda: ta.write(0, x).write(1, x),
                                  lambda: ta.unstack([x, -x]))
        return out.stack()

    assert f(array_ops.constant(2)).numpy().tolist() == [2, 2]
    assert f(array_ops.constant(-2)).numpy().tolist() == [-2, 2]


# -- Python lists appended to in loops on tensors -------------------------------------------------


# -- the analysis: `x.append(...)` modifies x -----------------------------------------------------


# -- the empty shape (tests/op_cases.py) ----------------------------------------------------------


_SCALAR_SHAPE_OPS = [
    ("TensorArray", lambda s: tensor_array.TensorArray(dtypes.float32, 1, element_shape=s)
     .write(0, 1.0).stack()[0]),
]

test_shape_taking_ops_accept_the_empty_shape = empty_shape_test(_SCALAR_SHAPE_OPS)

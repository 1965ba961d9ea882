"""A Dataset passed to a Function is keyed by its `element_spec`, as in TensorFlow: datasets
of one spec share one trace, which is fed each call's dataset and keeps none alive."""

import gc
import weakref

import numpy as np
import pytest

from runtime import data, dtypes
from runtime.function import function
from runtime.operators import loops
from runtime.ops import math_ops


def _total(ds):
    """sum of the elements, as a staged `for x in ds` loop."""
    state = [np.int64(0)]

    def body(x):
        state[0] = math_ops.add(state[0], math_ops.cast(x, dtypes.int64))

    def set_state(values):
        state[0] = values[0]
    loops.for_stmt(ds, None, body, lambda: (state[0],), set_state, ("total",), {})
    return state[0]


def test_datasets_of_one_element_spec_share_a_trace_and_each_call_reads_its_own():
    total = function(_total)
    for n in range(1, 6):
        ds = data.Dataset.from_tensor_slices(np.arange(n, dtype=np.int32))
        assert total(ds).numpy() == n * (n - 1) // 2
    assert total.experimental_get_tracing_count() == 1
    total(data.Dataset.range(4))  # another element spec (int64): another trace
    assert total.experimental_get_tracing_count() == 2


def test_a_function_keeps_no_dataset_passed_to_it_alive():
    total = function(_total)
    refs = []
    for n in range(200):
        ds = data.Dataset.from_tensor_slices(np.arange(n % 5 + 1000, dtype=np.int32))
        total(ds)
        refs.append(weakref.ref(ds))
        del ds
    gc.collect()
    assert total.experimental_get_tracing_count() == 1
    alive = [r for r in refs if r() is not None]
    assert alive in ([], refs[:1])  # (the first call's arguments are kept for statistics)


def test_transformations_of_a_dataset_argument_run_on_each_calls_dataset():
    total = function(lambda ds: _total(ds.map(lambda x: x * 2).take(2)))
    assert total(data.Dataset.from_tensor_slices(np.array([1, 2, 3], np.int32))).numpy() == 6
    assert total(data.Dataset.from_tensor_slices(np.array([5, 5], np.int32))).numpy() == 20
    assert total.experimental_get_tracing_count() == 1


def test_a_concrete_function_takes_datasets_of_its_spec_and_refuses_others():
    total = function(_total)
    ds = data.Dataset.from_tensor_slices(np.arange(3, dtype=np.int32))
    cf = total.get_concrete_function(ds)
    assert cf(data.Dataset.from_tensor_slices(np.arange(5, dtype=np.int32))).numpy() == 10
    with pytest.raises(TypeError, match="element_spec"):
        cf(data.Dataset.range(3))

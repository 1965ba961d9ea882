"""Function and ConcreteFunction: cache keys, retracing, input signatures, concrete functions,
return values, nesting and run_functions_eagerly."""

import collections
import dataclasses
import gc
import inspect
import threading
import traceback
import weakref

import numpy as np
import pytest

from runtime import context, dtypes, errors, signature, trace_type, variables
from runtime import signature as signature_lib
from runtime.function import ConcreteFunction, function
from runtime.ops import array_ops, math_ops, py_function_ops, reduction_ops
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tracing import ArgKey

Pair = collections.namedtuple("Pair", "first second")


# -- cache keys: tensors ------------------------------------------------------------------------

def test_same_shape_and_dtype_reuses_the_trace():
    @function
    def f(x):
        return x * 2

    assert f(array_ops.constant([1, 2])).numpy().tolist() == [2, 4]
    assert f(array_ops.constant([5, 6])).numpy().tolist() == [10, 12]
    assert f.experimental_get_tracing_count() == 1


def test_new_shape_or_dtype_traces_again():
    @function
    def f(x):
        return x + x

    f(array_ops.constant([1, 2]))
    f(array_ops.constant([1, 2, 3]))
    f(array_ops.constant([1.0, 2.0]))
    f(array_ops.constant([[1, 2]]))
    f(array_ops.constant([7, 8]))
    assert f.experimental_get_tracing_count() == 4


def test_numpy_arrays_are_keyed_like_tensors():
    @function
    def f(x):
        return x + 1

    f(np.array([1, 2], np.int32))
    f(np.array([3, 4], np.int32))
    result = f(array_ops.constant([5, 6]))
    assert f.experimental_get_tracing_count() == 1
    assert result.numpy().tolist() == [6, 7]


def test_tensor_values_reach_the_graph_at_call_time():
    @function
    def f(x):
        return reduction_ops.reduce_sum(x)

    assert [f(array_ops.constant([i, i])).numpy() for i in range(4)] == [0, 2, 4, 6]


# -- cache keys: Python values ------------------------------------------------------------------

def test_python_scalars_are_keyed_by_value():
    @function
    def f(n):
        return array_ops.constant(n) * 2

    assert f(1).numpy() == 2
    assert f(2).numpy() == 4
    assert f(1).numpy() == 2
    assert f.experimental_get_tracing_count() == 2


def test_one_one_point_zero_and_true_are_distinct_keys():
    @function
    def f(value):
        return value

    one, one_float, true = f(1), f(1.0), f(True)
    assert f.experimental_get_tracing_count() == 3
    assert one.dtype is dtypes.int32
    assert one_float.dtype is dtypes.float32
    assert true.dtype is dtypes.bool_
    f(1)
    f(True)
    assert f.experimental_get_tracing_count() == 3


def test_strings_and_none_are_keyed_by_value():
    @function
    def f(mode, x):
        return x * 2 if mode == "double" else x if mode is None else -x

    assert f("double", array_ops.constant(3)).numpy() == 6
    assert f("negate", array_ops.constant(3)).numpy() == -3
    assert f(None, array_ops.constant(3)).numpy() == 3
    assert f("double", array_ops.constant(4)).numpy() == 8
    assert f.experimental_get_tracing_count() == 3


def test_python_control_flow_on_python_arguments_is_resolved_at_trace_time():
    @function
    def power(x, n):
        result = array_ops.ones_like(x)
        for _ in range(n):
            result = result * x
        return result

    assert power(array_ops.constant(2.0), 3).numpy() == 8.0
    assert power(array_ops.constant(3.0), 3).numpy() == 27.0
    assert power(array_ops.constant(2.0), 4).numpy() == 16.0
    assert power.experimental_get_tracing_count() == 2


# -- cache keys: structures -------------------------------------------------------------------

def test_lists_of_tensors_are_flattened_into_the_key():
    @function
    def f(values):
        return math_ops.add_n(values)

    assert f([array_ops.constant(1), array_ops.constant(2)]).numpy() == 3
    assert f([array_ops.constant(10), array_ops.constant(20)]).numpy() == 30
    assert f.experimental_get_tracing_count() == 1
    assert f([array_ops.constant(1), array_ops.constant(2), array_ops.constant(3)]).numpy() == 6
    assert f.experimental_get_tracing_count() == 2


def test_list_and_tuple_are_different_keys():
    @function
    def f(values):
        return values[0] + values[1]

    f([array_ops.constant(1), array_ops.constant(2)])
    f((array_ops.constant(1), array_ops.constant(2)))
    assert f.experimental_get_tracing_count() == 2


def test_dict_arguments_are_keyed_by_keys_and_leaf_keys():
    @function
    def f(d):
        return d["a"] * d["b"]

    assert f({"a": array_ops.constant(2), "b": array_ops.constant(3)}).numpy() == 6
    assert f({"b": array_ops.constant(4), "a": array_ops.constant(5)}).numpy() == 20
    assert f.experimental_get_tracing_count() == 1
    assert f({"a": array_ops.constant(2), "b": array_ops.constant(3), "c": 0}).numpy() == 6
    assert f.experimental_get_tracing_count() == 2
    assert f({"a": array_ops.constant(2.0), "b": array_ops.constant(3.0)}).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 3


def test_cache_key_parts_are_read_by_name():
    """Tracing reads a call's cache key through ArgKey, which names each part."""
    t = array_ops.constant([1.0, 2.0])
    value = {"b": [t, 3], "a": t}
    (key,) = signature.make_key([value])
    parts = ArgKey.read(value, key)
    assert parts.names == ("a", "b")
    tensor_parts = ArgKey.read(t, parts.children[0])
    assert (tensor_parts.dtype, tensor_parts.shape) == (dtypes.float32, (2,))
    items = ArgKey.read(value["b"], parts.children[1])
    assert len(items.children) == 2
    assert not ArgKey.read(3, items.children[1]).by_identity
    assert ArgKey.read(object(), signature.leaf_key(object())).by_identity


def test_namedtuples_are_flattened_and_distinct_from_tuples():
    @function
    def f(p):
        return p.first - p.second if isinstance(p, Pair) else p[0] + p[1]

    assert f(Pair(array_ops.constant(5), array_ops.constant(3))).numpy() == 2
    assert f(Pair(array_ops.constant(9), array_ops.constant(1))).numpy() == 8
    assert f.experimental_get_tracing_count() == 1
    assert f((array_ops.constant(5), array_ops.constant(3))).numpy() == 8
    assert f.experimental_get_tracing_count() == 2


def test_python_values_inside_structures_are_keyed_by_value():
    @function
    def f(config):
        return array_ops.constant(config["scale"]) * config["x"]

    f({"scale": 2, "x": array_ops.constant(1)})
    f({"scale": 2, "x": array_ops.constant(5)})
    f({"scale": 3, "x": array_ops.constant(1)})
    assert f.experimental_get_tracing_count() == 2


def test_nested_structures_deeper_than_one_level():
    @function
    def f(data):
        (a, b), extra = data["pair"], data["extra"]
        return a + b + extra[0]["v"]

    arg = {"pair": (array_ops.constant(1), array_ops.constant(2)),
           "extra": [{"v": array_ops.constant(3)}]}
    assert f(arg).numpy() == 6
    arg = {"pair": (array_ops.constant(10), array_ops.constant(20)),
           "extra": [{"v": array_ops.constant(30)}]}
    assert f(arg).numpy() == 60
    assert f.experimental_get_tracing_count() == 1


# -- cache keys: other objects and variables ----------------------------------------------------

class Config:
    def __init__(self, factor):
        self.factor = factor


def test_other_objects_are_keyed_by_identity():
    @function
    def f(config, x):
        return x * config.factor

    a, b = Config(2), Config(2)
    assert f(a, array_ops.constant(1)).numpy() == 2
    assert f(a, array_ops.constant(4)).numpy() == 8
    assert f.experimental_get_tracing_count() == 1
    assert f(b, array_ops.constant(1)).numpy() == 2
    assert f.experimental_get_tracing_count() == 2


class Width(trace_type.TraceType):
    """A width, or any width (None): a trace for any width serves every width."""

    def __init__(self, value):
        self.value = value

    def is_subtype_of(self, other):
        return type(other) is Width and other.value in (None, self.value)

    def most_specific_common_supertype(self, others):
        if not all(type(o) is Width for o in others):
            return None
        return self if all(o.value == self.value for o in others) else Width(None)

    def placeholder_value(self, placeholder_context):
        return Sized(self.value)

    def __eq__(self, other):
        return type(other) is Width and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return "Width(%r)" % (self.value,)


class Sized:
    def __init__(self, width):
        self.width = width

    def __tf_tracing_type__(self, context):
        return Width(self.width)


def test_objects_with_a_tracing_type_are_keyed_by_it():
    seen = []

    @function
    def f(sized, x):
        seen.append(sized.width)
        return x * (1 if sized.width is None else sized.width)

    assert f(Sized(2), array_ops.constant(3)).numpy() == 6
    assert f(Sized(2), array_ops.constant(4)).numpy() == 8  # another instance, equal type
    assert f.experimental_get_tracing_count() == 1
    assert f(Sized(5), array_ops.constant(1)).numpy() == 5
    assert f.experimental_get_tracing_count() == 2
    assert seen == [2, 5]  # the trace sees the trace type's placeholder value


def test_a_call_runs_a_trace_whose_tracing_type_its_own_is_a_subtype_of():
    @function
    def f(sized, x):
        return x + (0 if sized.width is None else sized.width)

    concrete = f.get_concrete_function(Sized(None), array_ops.constant(1))
    assert f(Sized(7), array_ops.constant(1)).numpy() == 1  # Width(7) fits Width(None)
    assert f(Sized(8), array_ops.constant(1)).numpy() == 1
    assert f.experimental_get_tracing_count() == 1
    assert concrete(Sized(3), array_ops.constant(2)).numpy() == 2


def test_reduce_retracing_traces_the_common_supertype_of_tracing_types():
    @function(reduce_retracing=True)
    def f(sized):
        return array_ops.constant(-1 if sized.width is None else sized.width)

    assert f(Sized(2)).numpy() == 2
    assert f(Sized(3)).numpy() == -1  # traced for Width(None), the common supertype
    assert f(Sized(4)).numpy() == -1  # which serves every later width
    assert f.experimental_get_tracing_count() == 2
    assert "`sized`: an object of trace type Width(2) -> an object of trace type Width(None)" \
        in f.tracing_history()[1].reasons


def test_a_concrete_function_refuses_an_object_whose_tracing_type_does_not_fit():
    @function
    def f(sized):
        return array_ops.constant(sized.width)

    concrete = f.get_concrete_function(Sized(2))
    assert concrete(Sized(2)).numpy() == 2
    with pytest.raises(TypeError, match="trace type Width.2. but was called with"):
        concrete(Sized(3))
    with pytest.raises(TypeError, match="trace type"):
        concrete(object())


def test_a_tracing_type_method_must_return_a_trace_type():
    class Bad:
        def __tf_tracing_type__(self, context):
            return 3

    with pytest.raises(TypeError, match="Bad.__tf_tracing_type__ returned 3, not a "):
        function(lambda b: array_ops.constant(1))(Bad())


def test_a_trace_type_whose_values_carry_tensors_is_refused_when_traced():
    class Carrying(Width):
        def flatten(self):
            return [signature_lib.TensorSpec([], dtypes.float32)]

    class Holder:
        def __tf_tracing_type__(self, context):
            return Carrying(1)

    with pytest.raises(NotImplementedError, match="argument 'h': its trace type Carrying "
                       "carries tensors"):
        function(lambda h: array_ops.constant(1))(Holder())


def test_object_attributes_are_read_at_trace_time():
    @function
    def f(config, x):
        return x * config.factor

    config = Config(2)
    assert f(config, array_ops.constant(1)).numpy() == 2
    config.factor = 10
    assert f(config, array_ops.constant(1)).numpy() == 2


def test_variables_with_the_same_dtype_and_shape_share_a_trace():
    @function
    def f(v):
        return v.assign_add(1.0)

    a, b = variables.Variable(1.0), variables.Variable(10.0)
    assert f(a).numpy() == 2.0
    assert f(b).numpy() == 11.0
    assert f(a).numpy() == 3.0
    assert f.experimental_get_tracing_count() == 1
    assert a.numpy() == 3.0 and b.numpy() == 11.0


def test_variables_of_another_shape_or_dtype_trace_again():
    @function
    def f(v):
        return v.read_value()

    f(variables.Variable(1.0))
    f(variables.Variable([1.0, 2.0]))
    f(variables.Variable(1))
    f(variables.Variable(5.0))
    assert f.experimental_get_tracing_count() == 3


def test_separate_function_objects_never_share_traces():
    def body(x):
        return x + 1

    f, g = function(body), function(body)
    f(array_ops.constant(1))
    g(array_ops.constant(1))
    assert f.experimental_get_tracing_count() == 1
    assert g.experimental_get_tracing_count() == 1


def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @function
        def scale(self, x):
            return x * self.k

    two, three = Scaler(2), Scaler(3)
    assert two.scale(array_ops.constant(5)).numpy() == 10
    assert three.scale(array_ops.constant(5)).numpy() == 15
    assert two.scale(array_ops.constant(6)).numpy() == 12
    assert two.scale.experimental_get_tracing_count() == 1
    assert three.scale.experimental_get_tracing_count() == 1


@dataclasses.dataclass
class _Unhashable:  # eq=True without frozen=True: __hash__ is None
    k: int

    @function
    def scale(self, x):
        return x * self.k


def test_methods_of_unhashable_instances_trace_once_per_instance():
    first = _Unhashable(2)
    for i in range(3):
        assert first.scale(array_ops.constant(i)).numpy() == 2 * i
    assert first.scale.experimental_get_tracing_count() == 1
    equal = _Unhashable(2)  # equal but another object: its own traces
    assert equal.scale(array_ops.constant(4)).numpy() == 8
    assert equal.scale.experimental_get_tracing_count() == 1
    assert first.scale.experimental_get_tracing_count() == 1


class _Plain:
    def __init__(self, k):
        self.k = k

    @function
    def scale(self, x):
        return x * self.k


@pytest.mark.parametrize("cls", [_Plain, _Unhashable], ids=lambda c: c.__name__)
def test_method_traces_do_not_keep_their_instance_alive(cls):
    instance = cls(3)
    assert instance.scale(array_ops.constant(1)).numpy() == 3
    ref = weakref.ref(instance)
    del instance
    gc.collect()
    assert ref() is None
    assert len(cls.__dict__["scale"]._bound_instances) == 0


def test_methods_of_instances_without_weak_references_trace_once():
    class Slotted:
        __slots__ = ("k",)

        def __init__(self, k):
            self.k = k

        @function
        def scale(self, x):
            return x * self.k

    instance = Slotted(5)
    assert [instance.scale(array_ops.constant(i)).numpy() for i in range(3)] == [0, 5, 10]
    assert instance.scale.experimental_get_tracing_count() == 1


def test_method_of_a_temporary_instance_and_a_kept_bound_method():
    assert _Unhashable(7).scale(array_ops.constant(2)).numpy() == 14
    scale = _Unhashable(6).scale  # holds its instance, as a Python bound method does
    gc.collect()
    assert scale(array_ops.constant(2)).numpy() == 12 and scale(array_ops.constant(3)).numpy() == 18
    assert scale.experimental_get_tracing_count() == 1
    assert isinstance(scale, function(lambda: 0).__class__)
    assert str(inspect.signature(scale)) == "(x)"


class _LockCountingArrivals:
    """A Function's lock (`_lock`) that notes each thread arriving at it: a trace can wait
    until the other threads have come, rather than sleep and hope they have."""

    def __init__(self, lock):
        self._lock = lock
        self._arrived = set()
        self._changed = threading.Condition()

    def __enter__(self):
        with self._changed:
            self._arrived.add(threading.get_ident())
            self._changed.notify_all()
        return self._lock.__enter__()

    def __exit__(self, *exc_info):
        return self._lock.__exit__(*exc_info)

    def wait_for_others(self, count, timeout):
        """Whether `count` threads besides this one arrived within `timeout` seconds."""
        me = threading.get_ident()

        def others_arrived():
            return len(self._arrived - {me}) >= count

        with self._changed:
            return self._changed.wait_for(others_arrived, timeout)


def test_threads_making_the_same_first_call_trace_once():
    entered = threading.Event()
    waited: list[bool] = []

    @function
    def slow(x):
        entered.set()
        # the other two threads arrive at the lock while this trace holds it
        waited.append(lock.wait_for_others(2, timeout=60))
        return x + 1

    lock = slow._lock = _LockCountingArrivals(slow._lock)
    results = []

    def call():
        results.append(int(slow(array_ops.constant(1)).numpy()))

    threads = [threading.Thread(target=call) for _ in range(3)]
    threads[0].start()
    entered.wait()
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join()
    assert waited == [True]
    assert results == [2, 2, 2]
    assert slow.experimental_get_tracing_count() == 1


def test_a_thread_runs_eagerly_while_another_thread_traces():
    entered, release = threading.Event(), threading.Event()

    @function
    def waits(x):
        entered.set()
        release.wait()  # (no timeout: on a busy machine the trace would end before the check)
        return x * 2

    thread = threading.Thread(target=lambda: waits(array_ops.constant(1)))
    thread.start()
    entered.wait()
    try:
        eager = array_ops.constant(3) + 1  # not a node of the other thread's graph
        assert eager.numpy() == 4
    finally:
        release.set()
        thread.join()


# -- arguments: keywords and defaults --------------------------------------------------------------

def test_keyword_and_positional_calls_share_the_key():
    @function
    def f(x, y):
        return x - y

    assert f(array_ops.constant(5), array_ops.constant(3)).numpy() == 2
    assert f(array_ops.constant(5), y=array_ops.constant(1)).numpy() == 4
    assert f(y=array_ops.constant(1), x=array_ops.constant(9)).numpy() == 8
    assert f.experimental_get_tracing_count() == 1


def test_defaults_are_part_of_the_key():
    @function
    def f(x, scale=2):
        return x * scale

    assert f(array_ops.constant(3)).numpy() == 6
    assert f(array_ops.constant(3), 2).numpy() == 6
    assert f(array_ops.constant(3), scale=2).numpy() == 6
    assert f.experimental_get_tracing_count() == 1
    assert f(array_ops.constant(3), 5).numpy() == 15
    assert f.experimental_get_tracing_count() == 2


def test_tensor_default_arguments():
    @function
    def f(x, offset=array_ops.constant(100)):
        return x + offset

    assert f(array_ops.constant(1)).numpy() == 101
    assert f(array_ops.constant(1), array_ops.constant(5)).numpy() == 6
    assert f.experimental_get_tracing_count() == 1


def test_varargs_and_kwargs():
    @function
    def f(x, *rest, **named):
        return x + sum(rest) + sum(named.values())

    assert f(array_ops.constant(1), 2, 3, a=4).numpy() == 10
    assert f(array_ops.constant(5), 2, 3, a=4).numpy() == 14
    assert f.experimental_get_tracing_count() == 1
    assert f(array_ops.constant(1), 2, a=4).numpy() == 7
    assert f.experimental_get_tracing_count() == 2


def test_wrong_arguments_raise_type_error_naming_the_function():
    @function
    def my_function(x):
        return x

    with pytest.raises(TypeError, match="my_function"):
        my_function(1, 2)
    with pytest.raises(TypeError, match="my_function"):
        my_function(y=1)
    with pytest.raises(TypeError, match="my_function"):
        my_function()


def test_a_tensor_spec_passed_to_a_call_is_rejected():
    @function
    def f(x):
        return x

    with pytest.raises(TypeError):
        f(signature_lib.TensorSpec([2], dtypes.float32))


# -- input_signature ----------------------------------------------------------------------------

def test_input_signature_with_none_dims_accepts_any_length_without_retracing():
    @function(input_signature=[signature_lib.TensorSpec([None], dtypes.int32)])
    def f(x):
        return reduction_ops.reduce_sum(x)

    assert f(array_ops.constant([1, 2, 3])).numpy() == 6
    assert f(array_ops.constant([4])).numpy() == 4
    assert f(array_ops.constant(np.arange(10, dtype=np.int32))).numpy() == 45
    assert f.experimental_get_tracing_count() == 1
    assert f.input_signature == (signature_lib.TensorSpec([None], dtypes.int32),)


def test_input_signature_traces_with_unknown_dims():
    shapes = []

    @function(input_signature=[signature_lib.TensorSpec([None, 2], dtypes.float32)])
    def f(x):
        shapes.append(x.shape)
        return x

    f(array_ops.ones([3, 2]))
    assert shapes == [(None, 2)]


@pytest.mark.parametrize("bad", [
    array_ops.constant([[1, 2]]),
    array_ops.constant(1),
    array_ops.constant([1.0, 2.0]),
    array_ops.constant([1, 2], dtype=dtypes.int64),
], ids=["rank 2", "scalar", "float32", "int64"])
def test_input_signature_rejects_other_ranks_and_dtypes_with_type_error(bad):
    @function(input_signature=[signature_lib.TensorSpec([None], dtypes.int32)])
    def f(x):
        return x

    with pytest.raises(TypeError):
        f(bad)
    assert f(array_ops.constant([1])).numpy().tolist() == [1]


def test_input_signature_accepts_python_lists():
    @function(input_signature=[signature_lib.TensorSpec([None], dtypes.float32)])
    def f(x):
        return x * 2

    result = f([1.0, 2.0])
    assert result.dtype is dtypes.float32
    assert result.numpy().tolist() == [2.0, 4.0]


def test_input_signature_rejects_extra_arguments():
    @function(input_signature=[signature_lib.TensorSpec([], dtypes.int32)])
    def f(x):
        return x

    with pytest.raises(TypeError):
        f(array_ops.constant(1), array_ops.constant(2))


def test_input_signature_must_hold_tensor_specs():
    with pytest.raises(TypeError):
        function(lambda x: x, input_signature=[1])


def test_input_signature_with_nested_specs():
    @function(input_signature=[[signature_lib.TensorSpec([], dtypes.int32),
                                signature_lib.TensorSpec([], dtypes.int32)]])
    def f(pair):
        return pair[0] * pair[1]

    assert f([array_ops.constant(3), array_ops.constant(4)]).numpy() == 12
    assert f([array_ops.constant(5), array_ops.constant(6)]).numpy() == 30
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_covers_the_positional_arguments_then_star_args():
    vector = signature_lib.TensorSpec([None], dtypes.float32)

    @function(input_signature=[vector] * 3)
    def f(x, *rest):
        return x * len(rest) + rest[0] - rest[1]

    def three(*values):
        return [array_ops.constant(np.float32(values)) for _ in range(3)]

    assert f(*three(1.0, 2.0)).numpy().tolist() == [2.0, 4.0]
    assert f(*three(3.0)).numpy().tolist() == [6.0]
    assert f.experimental_get_tracing_count() == 1
    assert f.input_signature == (vector,) * 3
    names = [spec.name for spec in f.get_concrete_function().structured_input_signature[0]]
    assert names == ["x", "rest_0", "rest_1"]
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        f(array_ops.constant([1.0]), array_ops.constant([1.0]))  # one spec left unfilled
    only_star = function(lambda *a: a[0] * a[1], input_signature=[vector, vector])
    assert only_star(*three(2.0)[:2]).numpy().tolist() == [4.0]


def test_get_concrete_function_without_arguments_uses_the_signature():
    @function(input_signature=[signature_lib.TensorSpec([None], dtypes.float32)])
    def f(x):
        return x + 1.0

    cf = f.get_concrete_function()
    assert cf is f.get_concrete_function(signature_lib.TensorSpec([None], dtypes.float32))
    assert cf(array_ops.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1


# -- reduce_retracing --------------------------------------------------------------------------

def test_reduce_retracing_relaxes_shapes_so_a_third_shape_does_not_retrace():
    shapes = []

    @function(reduce_retracing=True)
    def f(x):
        shapes.append(x.shape)
        return reduction_ops.reduce_sum(x)

    assert f(array_ops.constant([1])).numpy() == 1
    assert f(array_ops.constant([1, 2])).numpy() == 3
    assert f(array_ops.constant([1, 2, 3])).numpy() == 6
    assert f(array_ops.constant([1, 2, 3, 4])).numpy() == 10
    assert f.experimental_get_tracing_count() == 2
    assert shapes == [(1,), (None,)]


def test_reduce_retracing_keeps_dtypes_and_ranks_apart():
    @function(reduce_retracing=True)
    def f(x):
        return x

    f(array_ops.constant([1]))
    f(array_ops.constant([1, 2]))
    f(array_ops.constant([1.0]))
    f(array_ops.constant([[1]]))
    assert f.experimental_get_tracing_count() == 4


def test_without_reduce_retracing_every_shape_traces():
    @function
    def f(x):
        return x

    for n in range(1, 5):
        f(array_ops.zeros([n]))
    assert f.experimental_get_tracing_count() == 4


class _Compiled:
    @function(jit_compile=False)
    def f(self, x):
        return x


def test_jit_compile_is_recorded_on_methods_too():
    assert _Compiled().f.jit_compile is False


# -- get_concrete_function and ConcreteFunction ---------------------------------------------------

def test_get_concrete_function_from_values_is_the_trace_used_by_calls():
    @function
    def f(x):
        return x * 3

    cf = f.get_concrete_function(array_ops.constant([1, 2]))
    assert isinstance(cf, ConcreteFunction)
    assert f.experimental_get_tracing_count() == 1
    assert f(array_ops.constant([4, 5])).numpy().tolist() == [12, 15]
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(array_ops.constant([7, 8])) is cf


def test_get_concrete_function_from_tensor_specs():
    @function
    def f(x):
        return x * 2

    cf = f.get_concrete_function(signature_lib.TensorSpec([None], dtypes.float32))
    assert cf(array_ops.constant([1.0])).numpy().tolist() == [2.0]
    assert cf(array_ops.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    assert cf.structured_input_signature == (
        (signature_lib.TensorSpec([None], dtypes.float32, "x"),), {})


def test_calls_matching_a_spec_trace_reuse_it():
    @function
    def f(x):
        return x + 1

    f.get_concrete_function(signature_lib.TensorSpec([None], dtypes.int32))
    f(array_ops.constant([1, 2]))
    f(array_ops.constant([1, 2, 3]))
    assert f.experimental_get_tracing_count() == 1


def test_concrete_function_structured_input_signature_keeps_python_values():
    @function
    def f(x, n, flag=True):
        return x * n

    cf = f.get_concrete_function(signature_lib.TensorSpec([2], dtypes.int32), 3)
    args, kwargs = cf.structured_input_signature
    assert args == (signature_lib.TensorSpec([2], dtypes.int32, "x"), 3, True)
    assert kwargs == {}


def test_concrete_function_rejects_a_different_python_value_with_type_error():
    @function
    def f(x, n):
        return x * n

    cf = f.get_concrete_function(array_ops.constant(1), 3)
    assert cf(array_ops.constant(2), 3).numpy() == 6
    with pytest.raises(TypeError):
        cf(array_ops.constant(2), 4)
    with pytest.raises(TypeError):
        cf(array_ops.constant(2), 3.0)


def test_concrete_function_rejects_a_different_dtype_with_invalid_argument():
    @function
    def f(x):
        return x + x

    cf = f.get_concrete_function(array_ops.constant(1))
    with pytest.raises(errors.InvalidArgumentError, match="int32.*float32|float32.*int32"):
        cf(array_ops.constant(1.0))


def test_concrete_function_rejects_an_incompatible_shape():
    @function
    def f(x):
        return x + x

    cf = f.get_concrete_function(signature_lib.TensorSpec([2], dtypes.int32))
    with pytest.raises((errors.InvalidArgumentError, TypeError, ValueError)):
        cf(array_ops.constant([1, 2, 3]))


def test_concrete_function_accepts_python_and_numpy_values_for_tensors():
    @function
    def f(x):
        return x * 2

    cf = f.get_concrete_function(signature_lib.TensorSpec([2], dtypes.float32))
    assert cf([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]
    assert cf(np.array([3.0, 4.0], np.float32)).numpy().tolist() == [6.0, 8.0]


def test_concrete_function_with_keyword_arguments():
    @function
    def f(x, y):
        return x - y

    cf = f.get_concrete_function(array_ops.constant(1), array_ops.constant(2))
    assert cf(y=array_ops.constant(1), x=array_ops.constant(10)).numpy() == 9


def test_concrete_function_of_keyword_only_arguments_with_defaults():
    @function
    def f(x, *, scale=2, shift=array_ops.constant(1.0)):
        return x * scale + shift

    cf = f.get_concrete_function(signature_lib.TensorSpec([], dtypes.float32))
    assert cf(array_ops.constant(2.0)).numpy() == 5.0
    assert cf(array_ops.constant(2.0), shift=array_ops.constant(0.5)).numpy() == 4.5
    assert cf.structured_input_signature[1]["scale"] == 2
    concrete = f.get_concrete_function(signature_lib.TensorSpec([]), scale=3)
    assert concrete(array_ops.constant(2.0)).numpy() == 7.0


def test_input_signature_with_keyword_only_arguments_with_defaults():
    @function(input_signature=[signature_lib.TensorSpec([], dtypes.float32)])
    def f(x, *, scale=2):
        return x * scale

    assert f.get_concrete_function()(array_ops.constant(2.0)).numpy() == 4.0
    assert f(array_ops.constant(3.0)).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1


def test_concrete_function_str_lists_parameters_output_type_and_captures():
    @function
    def double(a):
        return a + a

    text = str(double.get_concrete_function(array_ops.constant(1)))
    assert text == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n"
        "  None")


def test_pretty_printed_concrete_signatures_lists_every_trace():
    @function
    def double(a):
        return a + a

    double(array_ops.constant(1))
    double(array_ops.constant([1.0, 2.0]))
    text = double.pretty_printed_concrete_signatures()
    assert text.count("Input Parameters:\n  a (POSITIONAL_OR_KEYWORD)") == 2
    assert "dtype=tf.int32" in text and "shape=(2,), dtype=tf.float32" in text
    assert double.pretty_printed_concrete_signatures(verbose=False).split("\n") == [
        "(a: TensorSpec(shape=(), dtype=tf.int32, name=None)) -> "
        "TensorSpec(shape=(), dtype=tf.int32, name=None)",
        "(a: TensorSpec(shape=(2,), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"]


def test_function_type_writes_python_values_as_literals_and_containers_by_kind():
    @function
    def f(x, pair, *rest, k=None, **extra):
        return {"y": x, "n": (pair[0], None)}

    cf = f.get_concrete_function(array_ops.constant([1.0]), [2, "s"], 3.5, k=True, z=None)
    assert str(cf.function_type) == (
        "(x: TensorSpec(shape=(1,), dtype=tf.float32, name=None), "
        "pair: List[Literal[2], Literal['s']], rest_0: Literal[3.5], /, *, "
        "k: Literal[True], z: Literal[None]) -> "
        "Dict[['y', TensorSpec(shape=(1,), dtype=tf.float32, name=None)], "
        "['n', Tuple[TensorSpec(shape=(), dtype=tf.int32, name=None), Literal[None]]]]")
    assert list(cf.function_type.parameters) == ["x", "pair", "rest_0", "k", "z"]


def test_function_type_shows_a_tensor_specs_own_name_and_dicts_in_their_key_order():
    @function
    def f(d, x):
        return d["zeta"] + x

    cf = f.get_concrete_function(
        {"zeta": array_ops.constant(1.0), "alpha": signature_lib.TensorSpec([2], name="m")},
        signature_lib.TensorSpec([], name="x"))
    assert str(cf.function_type) == (
        "(d: Dict[['zeta', TensorSpec(shape=(), dtype=tf.float32, name=None)], "
        "['alpha', TensorSpec(shape=(2,), dtype=tf.float32, name='m')]], "
        "x: TensorSpec(shape=(), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(), dtype=tf.float32, name=None)")


def test_structured_input_signature_names_each_part_after_its_place_as_tensorflow_does():
    @function
    def f(items, *args, **kwargs):
        return args[0]

    cf = f.get_concrete_function(
        [array_ops.constant(1.0), {"b": array_ops.constant(2), "a": [array_ops.constant(3.0)]}],
        array_ops.constant(1.0), signature_lib.TensorSpec([], name="z"),
        y={"q": array_ops.constant(2.0)})
    spec = signature_lib.TensorSpec
    f32, i32 = dtypes.float32, dtypes.int32
    args, kwargs = cf.structured_input_signature
    assert args == ([spec((), f32, "items_0"), {"b": spec((), i32, "items_1_b"),
                                                "a": [spec((), f32, "items_1_a_0")]}],
                    spec((), f32, "args_0"), spec((), f32, "z"))
    assert list(args[0][1]) == ["b", "a"]  # the argument's key order
    assert kwargs == {"y": {"q": spec((), f32, "y_q")}}


def test_get_concrete_function_of_a_nested_input_signature_takes_no_arguments():
    spec = signature_lib.TensorSpec

    @function(input_signature=[{"zeta": spec([]), "alpha": spec([], dtypes.int32, name="al")},
                               [spec([2], name="q")]])
    def f(d, items):
        return d["zeta"]

    cf = f.get_concrete_function()
    assert cf.structured_input_signature == (
        ({"zeta": spec([], name="d_zeta"), "alpha": spec([], dtypes.int32, "al")},
         [spec([2], name="q")]), {})
    assert f.get_concrete_function(*cf.structured_input_signature[0]) is cf


def test_concrete_function_str_lists_its_captures_by_identity():
    v = variables.Variable(1.0)
    c = array_ops.constant([1.0, 2.0])

    @function
    def f(x):
        return x + v + c

    text = str(f.get_concrete_function(array_ops.constant(1.0)))
    assert text.endswith("Captures:\n"
                         "  %d: TensorSpec(shape=(), dtype=tf.resource, name=None)\n"
                         "  %d: TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
                         % (id(v), id(c)))


def test_pretty_printed_concrete_signatures_of_an_input_signature_lists_it_before_a_call():
    @function(input_signature=[signature.TensorSpec([3], dtypes.float32)])
    def total(x):
        return reduction_ops.reduce_sum(x)

    assert total.pretty_printed_concrete_signatures(verbose=False) == (
        "(x: TensorSpec(shape=(3,), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(), dtype=tf.float32, name=None)")


def test_inference_fn_runs_the_graph_on_the_flat_tensor_inputs():
    @function
    def scale(x, factor):
        return x * factor

    atomic = scale.get_concrete_function(array_ops.constant([1.0, 2.0]), 3.0).inference_fn
    assert atomic(array_ops.constant([2.0, 4.0])).numpy().tolist() == [6.0, 12.0]
    assert str(atomic).startswith("<AtomicFunction> __inference_scale(x: TensorSpec(")
    with pytest.raises(TypeError, match="takes 1 flat inputs"):
        atomic(array_ops.constant([2.0, 4.0]), array_ops.constant(3.0))


def test_structured_outputs_are_symbolic_and_mirror_the_result():
    @function
    def f(x):
        return {"y": x * 2, "pair": (x, 3)}

    cf = f.get_concrete_function(array_ops.constant(1.0))
    outputs = cf.structured_outputs
    assert set(outputs) == {"y", "pair"}
    assert isinstance(outputs["y"], SymbolicTensor)
    assert outputs["y"].shape == () and outputs["y"].dtype is dtypes.float32


def test_python_function_is_kept():
    def body(x):
        return x

    f = function(body)
    assert f.python_function is body
    assert f.__name__ == "body"


# -- return values --------------------------------------------------------------------------

@pytest.mark.parametrize("value, dtype", [
    (1, dtypes.int32), (2.5, dtypes.float32), (True, dtypes.bool_), ("text", dtypes.string),
    (np.float64(1.5), dtypes.float64), (np.array([1, 2], np.int64), dtypes.int64),
])
def test_python_return_values_come_back_as_tensors(value, dtype):
    @function
    def f():
        return value

    result = f()
    assert isinstance(result, EagerTensor)
    assert result.dtype is dtype
    np.testing.assert_array_equal(result.numpy(), value if dtype is not dtypes.string else b"text")


def test_none_return_value_stays_none():
    @function
    def f(x):
        x + 1

    assert f(array_ops.constant(1)) is None


def test_nested_structures_are_returned_with_their_types():
    @function
    def f(x):
        return {"sum": x + 1, "parts": [x, (x * 2, 7)], "pair": Pair(x, 1.5)}

    result = f(array_ops.constant(3))
    assert set(result) == {"sum", "parts", "pair"}
    assert result["sum"].numpy() == 4
    assert isinstance(result["parts"], list)
    assert isinstance(result["parts"][1], tuple)
    assert result["parts"][1][0].numpy() == 6
    assert result["parts"][1][1].numpy() == 7
    assert isinstance(result["pair"], Pair)
    assert result["pair"].second.dtype is dtypes.float32
    assert all(isinstance(t, EagerTensor) for t in
               [result["sum"], result["parts"][0], result["pair"].first])


def test_returning_an_argument_unchanged():
    @function
    def f(x, y):
        return y, x

    a, b = f(array_ops.constant(1), array_ops.constant([2.0]))
    assert a.numpy().tolist() == [2.0] and b.numpy() == 1


def test_returning_a_captured_eager_tensor():
    c = array_ops.constant([1, 2, 3])

    @function
    def f():
        return c

    assert f().numpy().tolist() == [1, 2, 3]


def test_returning_a_variable_returns_its_current_value():
    v = variables.Variable(1.0)

    @function
    def f():
        return v

    assert f().numpy() == 1.0
    v.assign(5.0)
    result = f()
    assert isinstance(result, EagerTensor)
    assert result.numpy() == 5.0


# -- nesting ---------------------------------------------------------------------------------

def test_a_function_called_inside_another_function():
    @function
    def inner(x):
        return x * 2 + 1

    @function
    def outer(x):
        return inner(x) + inner(x + 1)

    assert outer(array_ops.constant(3)).numpy() == 7 + 9
    assert outer(array_ops.constant(4)).numpy() == 9 + 11
    assert outer.experimental_get_tracing_count() == 1
    assert inner.experimental_get_tracing_count() == 1


def test_an_inner_function_traced_from_outside_and_inside_shares_its_cache():
    @function
    def inner(x):
        return x - 1

    inner(array_ops.constant(10))

    @function
    def outer(x):
        return inner(x) * 2

    assert outer(array_ops.constant(10)).numpy() == 18
    assert inner.experimental_get_tracing_count() == 1


def test_an_inner_function_with_nested_outputs_and_python_arguments():
    @function
    def inner(x, n):
        return {"a": x * n, "b": [x + n, n]}

    @function
    def outer(x):
        r = inner(x, 3)
        return r["a"] + r["b"][0] + r["b"][1]

    assert outer(array_ops.constant(2)).numpy() == 6 + 5 + 3


def test_inner_function_side_effects_run_on_every_outer_call():
    v = variables.Variable(0)

    @function
    def bump():
        v.assign_add(1)
        return v.read_value()

    @function
    def outer():
        bump()
        return bump()

    assert outer().numpy() == 2
    assert outer().numpy() == 4
    assert v.numpy() == 4


def test_a_function_calling_itself_with_the_same_key_while_traced_raises_staging_error():
    @function
    def forever(x):
        return forever(x - 1)  # the recursive call

    with pytest.raises(errors.StagingError) as info:
        forever(array_ops.constant(3))
    message = str(info.value)
    assert "forever (defined at %s:" % __file__ in message
    assert "calls itself while it is being traced" in message
    assert "`x`: int32 tensor of shape ()" in message
    assert "return forever(x - 1)  # the recursive call" in message
    assert not isinstance(info.value, RecursionError)
    # one recursive call, not a thousand: the traceback stays short
    assert len(traceback.extract_tb(info.value.__traceback__)) < 20
    assert forever.experimental_get_tracing_count() == 0
    # the failed trace left nothing behind: the next call fails the same way
    with pytest.raises(errors.StagingError):
        forever(array_ops.constant(3))


def test_a_function_with_an_input_signature_calling_itself_raises_staging_error():
    @function(input_signature=[signature_lib.TensorSpec([], dtypes.float32)])
    def forever(x):
        return forever(x + 1.0)

    with pytest.raises(errors.StagingError, match="`x`: float32 tensor of shape"):
        forever(array_ops.constant(1.0))


def test_a_function_recursing_on_python_values_traces_once_per_value():
    @function
    def power(x, n):
        return x if n == 1 else x * power(x, n - 1)

    assert power(array_ops.constant(2), 5).numpy() == 32
    assert power.experimental_get_tracing_count() == 5


# -- Python side effects and tracing-time semantics ---------------------------------------------

def test_python_side_effects_run_only_while_tracing(capsys):
    calls = []

    @function
    def f(x):
        print("traced with", x.shape)
        calls.append(1)
        return x

    for _ in range(3):
        f(array_ops.constant(1))
    assert calls == [1]
    assert capsys.readouterr().out == "traced with ()\n"


def test_globals_are_read_at_trace_time():
    state = {"offset": 1}

    @function
    def f(x):
        return x + state["offset"]

    assert f(array_ops.constant(1)).numpy() == 2
    state["offset"] = 100
    assert f(array_ops.constant(1)).numpy() == 2
    assert f(array_ops.constant(1.0)).numpy() == 101.0


def test_python_error_raised_while_the_graph_runs_keeps_its_type_and_notes_the_node_and_line():
    def lookup(a):
        raise KeyError("missing")

    @function
    def f(x):
        return py_function_ops.py_function(lookup, [x], dtypes.int32)

    with pytest.raises(KeyError) as info:
        f(array_ops.constant(1))
    assert info.value.args == ("missing",)
    note = "\n".join(info.value.__notes__)
    assert "EagerPyFunc" in note
    assert __file__ in note
    assert "return py_function_ops.py_function(lookup, [x], dtypes.int32)" in note


# -- run_functions_eagerly --------------------------------------------------------------------

def test_run_functions_eagerly_runs_the_python_function_on_every_call():
    calls = []

    @function
    def f(x):
        calls.append(type(x))
        return x.numpy() * 2

    context.run_functions_eagerly(True)
    try:
        assert context.functions_run_eagerly()
        assert f(array_ops.constant(3)) == 6
        assert f(array_ops.constant(3)) == 6
    finally:
        context.run_functions_eagerly(False)
    assert calls == [EagerTensor, EagerTensor]
    assert f.experimental_get_tracing_count() == 0
    assert not context.functions_run_eagerly()


def test_switching_run_functions_eagerly_back_off_uses_traces_again(functions_run_eagerly):
    calls = []

    @function
    def f(x):
        calls.append(1)
        return x + 1

    f(array_ops.constant(1))
    f(array_ops.constant(1))
    assert len(calls) == 2
    context.run_functions_eagerly(False)
    f(array_ops.constant(1))
    f(array_ops.constant(1))
    assert len(calls) == 3
    assert f.experimental_get_tracing_count() == 1


def test_function_with_autograph_false_traces_the_function_as_written():
    @function(autograph=False)
    def f(x):
        return x * 2

    assert f(array_ops.constant(2)).numpy() == 4
    assert f.experimental_get_tracing_count() == 1


def test_a_trace_that_fails_is_not_counted_or_cached():
    attempts = []

    @function
    def f(x, fail):
        attempts.append(fail)
        if fail:
            raise RuntimeError("broken trace")
        return x

    with pytest.raises(RuntimeError, match="broken trace"):
        f(array_ops.constant(1), True)
    assert f.experimental_get_tracing_count() == 0
    with pytest.raises(RuntimeError):
        f(array_ops.constant(1), True)
    assert f(array_ops.constant(1), False).numpy() == 1
    assert f.experimental_get_tracing_count() == 1
    assert attempts == [True, True, False]


def test_a_cached_call_runs_its_traces_fast_call_and_sampled_calls_time_it(monkeypatch):
    general_runs = []
    general = ConcreteFunction._call_flat
    monkeypatch.setattr(ConcreteFunction, "_call_flat",
                        lambda cf, feeds: general_runs.append(cf) or general(cf, feeds))
    f = function(lambda x: x + 1, backend="numpy")
    x = array_ops.constant([1.0, 2.0])
    for _ in range(3):
        f(x)
    cf = f.get_concrete_function(x)
    assert cf.fast_call() is cf.fast_call() and not cf.fast_call().direct  # decided once
    assert len(general_runs) == 1  # the first call, which made the record
    # the dispatcher's inline key of one tensor is make_key's: a keyword call finds the trace
    assert list(f._fast_calls) == [signature_lib.make_key((x,))]
    assert f(x=x).numpy().tolist() == [2.0, 3.0] and len(f._cache) == 1
    samples = f._clock.samples
    for _ in range(160):
        result = f(x)
    assert result.numpy().tolist() == [2.0, 3.0]
    assert len(general_runs) == 1 and type(f) is type(function(lambda x: x))
    assert f.stats().calls == 164 and f._clock.samples == samples + 160 // 16  # (SAMPLE_EVERY)
    with monkeypatch.context() as patch:  # eagerly: the Python function, no trace run
        patch.setitem(context._settings, "run_functions_eagerly", True)
        assert f(x).numpy().tolist() == [2.0, 3.0]
    assert len(general_runs) == 1

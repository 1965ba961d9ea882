"""Guide section "Tracing": what tracing is, and the rules of tracing (the cache key)."""

import collections

import pytest

import autograph.tf as tf


def make_double():
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a
    return double


# -- What is "tracing"? --------------------------------------------------------------------------


def test_double_traces_once_per_argument_dtype(capsys, warns_print_of_tensor):
    double = make_double()
    print(double(tf.constant(1)))
    print()
    print(double(tf.constant(1.1)))
    print()
    print(double(tf.constant("a")))
    print()
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
        "tf.Tensor(2, shape=(), dtype=int32)\n"
        "\n"
        'Tracing with Tensor("a:0", shape=(), dtype=float32)\n'
        "tf.Tensor(2.2, shape=(), dtype=float32)\n"
        "\n"
        'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
        "tf.Tensor(b'aa', shape=(), dtype=string)\n"
        "\n")
    assert double.experimental_get_tracing_count() == 3


def test_double_values_for_each_dtype(warns_print_of_tensor):
    double = make_double()
    int_result = double(tf.constant(1))
    float_result = double(tf.constant(1.1))
    string_result = double(tf.constant("a"))
    assert int_result.dtype == tf.int32 and int_result.numpy() == 2
    assert float_result.dtype == tf.float32
    assert float_result.numpy() == pytest.approx(2.2)
    assert string_result.dtype == tf.string and string_result.numpy() == b"aa"


def test_same_argument_type_skips_tracing(capsys, warns_print_of_tensor):
    double = make_double()
    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    capsys.readouterr()
    # This doesn't print 'Tracing with ...'
    print(double(tf.constant("b")))
    assert capsys.readouterr().out == "tf.Tensor(b'bb', shape=(), dtype=string)\n"
    assert double.experimental_get_tracing_count() == 3


def test_pretty_printed_concrete_signatures_lists_every_trace(warns_print_of_tensor):
    double = make_double()
    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    double(tf.constant("b"))
    trace = ("Input Parameters:\n"
             "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.{0}, name=None)\n"
             "Output Type:\n"
             "  TensorSpec(shape=(), dtype=tf.{0}, name=None)\n"
             "Captures:\n"
             "  None")
    assert double.pretty_printed_concrete_signatures() == "\n\n".join(
        trace.format(dtype) for dtype in ("int32", "float32", "string"))


def test_calling_a_function_runs_the_graph_after_tracing(warns_print_of_tensor):
    # Tracing is immediately followed by running the graph: the first call returns a value.
    double = make_double()
    assert double(tf.constant(21)).numpy() == 42
    assert double(tf.constant(5)).numpy() == 10
    assert double.experimental_get_tracing_count() == 1


# -- Rules of tracing ----------------------------------------------------------------------------


def make_counted(func):
    """A Function that records (in `.traces`) each Python execution of `func`."""
    traces = []

    def traced(*args, **kwargs):
        traces.append(len(args))  # a count: the arguments are tensors of the trace
        return func(*args, **kwargs)

    traced.__name__ = func.__name__
    function = tf.function(traced)
    function.traces = traces
    return function


def test_tensor_key_is_shape_and_dtype():
    f = make_counted(lambda x: x * 2)
    f(tf.constant([1, 2]))
    f(tf.constant([3, 4]))               # same shape and dtype: reuse
    assert f.experimental_get_tracing_count() == 1
    f(tf.constant([1, 2, 3]))            # new shape: retrace
    assert f.experimental_get_tracing_count() == 2
    f(tf.constant([1.0, 2.0]))           # new dtype: retrace
    assert f.experimental_get_tracing_count() == 3
    f(tf.constant([[1, 2]]))             # new rank: retrace
    assert f.experimental_get_tracing_count() == 4
    f(tf.constant([7, 8, 9]))            # seen before: reuse
    assert f.experimental_get_tracing_count() == 4
    assert f(tf.constant([5, 6])).numpy().tolist() == [10, 12]


def test_variable_key_is_shape_and_dtype_so_like_variables_share_a_trace():
    # TensorFlow 2.21 keys variables on (shape, dtype); the guide's text says identity.
    f = make_counted(lambda v: v * 2)
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(5.0)
    assert f(v1).numpy() == 2.0
    assert f(v2).numpy() == 10.0
    assert f.experimental_get_tracing_count() == 1
    v1.assign(3.0)
    assert f(v1).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1
    f(tf.Variable(1))                    # int32 variable: retrace
    assert f.experimental_get_tracing_count() == 2
    f(tf.Variable([1.0, 2.0]))           # new shape: retrace
    assert f.experimental_get_tracing_count() == 3


def test_python_primitive_key_is_its_value():
    f = make_counted(lambda x: tf.constant(x))
    f(1)
    f(1)
    assert f.experimental_get_tracing_count() == 1
    f(2)
    assert f.experimental_get_tracing_count() == 2
    f(1.5)
    f("a")
    assert f.experimental_get_tracing_count() == 4
    f(2)
    f("a")
    f(1.5)
    assert f.experimental_get_tracing_count() == 4
    assert f(3).numpy() == 3
    assert f.experimental_get_tracing_count() == 5


def test_nested_structures_key_on_their_flattened_leaves():
    f = make_counted(lambda d: d["a"] + d["b"][0] + d["b"][1])
    out = f({"a": tf.constant(1), "b": [tf.constant(2), tf.constant(3)]})
    assert out.numpy() == 6
    out = f({"a": tf.constant(10), "b": [tf.constant(20), tf.constant(30)]})
    assert out.numpy() == 60
    assert f.experimental_get_tracing_count() == 1
    f({"a": tf.constant(1), "b": [tf.constant(2), 3]})      # a leaf became a Python value
    assert f.experimental_get_tracing_count() == 2
    f({"a": tf.constant(1.0), "b": [tf.constant(2.0), tf.constant(3.0)]})  # new dtypes
    assert f.experimental_get_tracing_count() == 3


def test_namedtuple_and_tuple_arguments_key_on_their_leaves():
    Point = collections.namedtuple("Point", ["x", "y"])
    f = make_counted(lambda p: p[0] * p[1])
    assert f(Point(tf.constant(2), tf.constant(3))).numpy() == 6
    assert f(Point(tf.constant(4), tf.constant(5))).numpy() == 20
    assert f.experimental_get_tracing_count() == 1
    assert f((tf.constant(2), 3)).numpy() == 6
    assert f((tf.constant(7), 3)).numpy() == 21
    assert f.experimental_get_tracing_count() == 2


def test_concrete_function_called_with_a_different_nesting_raises_type_error():
    @tf.function
    def f(pair):
        return pair[0] + pair[1]

    concrete = f.get_concrete_function([tf.constant(1), tf.constant(2)])
    assert concrete([tf.constant(3), tf.constant(4)]).numpy() == 7
    with pytest.raises(TypeError):
        concrete([tf.constant(3), tf.constant(4), tf.constant(5)])
    with pytest.raises(TypeError):
        concrete({"a": tf.constant(3), "b": tf.constant(4)})


def test_other_python_objects_key_on_identity():
    class Config:
        def __init__(self, scale):
            self.scale = scale

    f = make_counted(lambda config, x: x * config.scale)
    first, second = Config(2), Config(3)
    assert f(first, tf.constant(10)).numpy() == 20
    assert f(first, tf.constant(11)).numpy() == 22
    assert f.experimental_get_tracing_count() == 1
    assert f(second, tf.constant(10)).numpy() == 30    # a different instance: retrace
    assert f.experimental_get_tracing_count() == 2
    assert f(first, tf.constant(1)).numpy() == 2
    assert f.experimental_get_tracing_count() == 2


def test_methods_trace_independently_for_each_instance(capsys):
    class Scaler:
        def __init__(self, scale):
            self.scale = scale

        @tf.function
        def __call__(self, x):
            print("Tracing for scale", self.scale)
            return x * self.scale

    a, b = Scaler(2), Scaler(5)
    assert a(tf.constant(3)).numpy() == 6
    assert b(tf.constant(3)).numpy() == 15
    assert a(tf.constant(4)).numpy() == 8
    assert b(tf.constant(4)).numpy() == 20
    assert capsys.readouterr().out == "Tracing for scale 2\nTracing for scale 5\n"


def test_changing_a_global_alone_does_not_create_a_new_trace():
    state = {"scale": 2}
    f = make_counted(lambda x: x * state["scale"])
    assert f(tf.constant(3)).numpy() == 6
    state["scale"] = 10
    assert f(tf.constant(3)).numpy() == 6
    assert f.experimental_get_tracing_count() == 1


def test_objects_giving_a_trace_type_share_a_trace_per_type(capsys):
    # The guide's TraceType example: fruits of one kind share a trace, whatever the instance.
    @tf.function
    def get_mixed_flavor(fruit_a, fruit_b):
        print("Tracing", type(fruit_a).__name__, type(fruit_b).__name__)
        return fruit_a.flavor + fruit_b.flavor

    class FruitTraceType(tf.types.experimental.TraceType):
        def __init__(self, fruit):
            self.fruit_type = type(fruit)
            self.fruit_value = fruit

        def is_subtype_of(self, other):
            return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

        def most_specific_common_supertype(self, others):
            return self if all(self == other for other in others) else None

        def placeholder_value(self, placeholder_context=None):
            return self.fruit_value

        def __eq__(self, other):
            return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

        def __hash__(self):
            return hash(self.fruit_type)

    class Fruit:
        def __tf_tracing_type__(self, context):
            return FruitTraceType(self)

    class Apple(Fruit):
        flavor = tf.constant([1, 2])

    class Mango(Fruit):
        flavor = tf.constant([3, 4])

    assert isinstance(Apple(), tf.types.experimental.SupportsTracingProtocol)
    assert get_mixed_flavor(Apple(), Mango()).numpy().tolist() == [4, 6]
    assert get_mixed_flavor(Apple(), Mango()).numpy().tolist() == [4, 6]  # reuses the trace
    assert get_mixed_flavor(Mango(), Mango()).numpy().tolist() == [6, 8]
    assert get_mixed_flavor.experimental_get_tracing_count() == 2
    assert capsys.readouterr().out == "Tracing Apple Mango\nTracing Mango Mango\n"
    assert "<locals>.FruitTraceType object at 0x" in \
        get_mixed_flavor.pretty_printed_concrete_signatures()

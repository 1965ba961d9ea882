"""Guide section "Obtaining concrete functions": get_concrete_function, printing a
ConcreteFunction, its structured signature, and Python arguments fixed at trace time."""

import pytest

import autograph.tf as tf


def make_double():
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a
    return double


def traced_double():
    """`double` after the guide's earlier calls (int, float and string traces)."""
    double = make_double()
    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    return double


def test_get_concrete_function_reuses_an_existing_trace(capsys, warns_print_of_tensor):
    double = traced_double()
    capsys.readouterr()
    print("Obtaining concrete trace")
    double_strings = double.get_concrete_function(tf.constant("a"))
    print("Executing traced function")
    print(double_strings(tf.constant("a")))
    print(double_strings(a=tf.constant("b")))
    assert capsys.readouterr().out == (
        "Obtaining concrete trace\n"
        "Executing traced function\n"
        "tf.Tensor(b'aa', shape=(), dtype=string)\n"
        "tf.Tensor(b'bb', shape=(), dtype=string)\n")
    assert double.experimental_get_tracing_count() == 3


def test_get_concrete_function_traces_when_no_trace_matches(capsys, warns_print_of_tensor):
    double = make_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    assert capsys.readouterr().out == 'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
    assert double.experimental_get_tracing_count() == 1
    assert double_strings(tf.constant("xy")).numpy() == b"xyxy"
    # Calling the Function with the same signature reuses that trace.
    assert double(tf.constant("q")).numpy() == b"qq"
    assert double.experimental_get_tracing_count() == 1
    assert capsys.readouterr().out == ""


def test_get_concrete_function_on_a_tensor_spec(warns_print_of_tensor):
    double = traced_double()
    # You can also call get_concrete_function on an InputSpec
    double_strings_from_inputspec = double.get_concrete_function(
        tf.TensorSpec(shape=[], dtype=tf.string))
    result = double_strings_from_inputspec(tf.constant("c"))
    assert str(result) == "tf.Tensor(b'cc', shape=(), dtype=string)"
    assert result.numpy() == b"cc"


def test_get_concrete_function_on_a_tensor_spec_traces_a_fresh_function(
        capsys, warns_print_of_tensor):
    double = make_double()
    concrete = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    assert capsys.readouterr().out == 'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
    assert concrete(tf.constant("c")).numpy() == b"cc"


def test_printing_a_concrete_function_shows_its_signature(warns_print_of_tensor):
    double = traced_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    assert str(double_strings) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Captures:\n"
        "  None")


def test_structured_input_signature(capsys, warns_print_of_tensor):
    double = traced_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    signature = double_strings.structured_input_signature
    assert signature == ((tf.TensorSpec(shape=(), dtype=tf.string, name="a"),), {})
    capsys.readouterr()
    print(signature)
    assert capsys.readouterr().out == (
        "((TensorSpec(shape=(), dtype=tf.string, name='a'),), {})\n")


def test_structured_outputs_is_the_identity_output_tensor(capsys, warns_print_of_tensor):
    double = traced_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    outputs = double_strings.structured_outputs
    assert outputs.dtype == tf.string
    assert outputs.name == "Identity:0"
    capsys.readouterr()
    print(outputs)
    assert capsys.readouterr().out == 'Tensor("Identity:0", shape=(), dtype=string)\n'


def test_concrete_function_with_incompatible_dtype_raises_invalid_argument_error(
        warns_print_of_tensor):
    double = traced_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        double_strings(tf.constant(1))


def test_concrete_function_does_not_retrace_or_dispatch(warns_print_of_tensor):
    double = traced_double()
    double_strings = double.get_concrete_function(tf.constant("a"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        double_strings(tf.constant(1.5))
    assert double.experimental_get_tracing_count() == 3


def make_pow():
    @tf.function
    def pow(a, b):  # noqa: A001 - the guide's name
        return a ** b
    return pow


def test_python_arguments_stay_in_the_concrete_signature():
    square = make_pow().get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert str(square) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n"
        "  TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None")


def test_concrete_function_with_python_argument_fixed_at_trace_time():
    square = make_pow().get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert square(tf.constant(10.0)) == 100
    assert square(tf.constant(10.0)).numpy() == 100.0
    assert square(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 4.0, 9.0]
    # Passing the traced value explicitly is allowed.
    assert square(tf.constant(3.0), b=2).numpy() == 9.0


def test_concrete_function_called_with_another_python_value_raises_type_error():
    square = make_pow().get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    with pytest.raises(TypeError):
        square(tf.constant(10.0), b=3)

"""Guide section "Limitations": Python side effects, globals and free variables, Python
iterators, deleting variables between calls, and tensors leaking out of a Function."""

import gc

import pytest

import autograph.tf as tf

# -- Executing Python side effects ---------------------------------------------------------------


def test_print_runs_while_tracing_and_tf_print_on_every_call(capsys):
    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x)

    f(1)
    f(1)
    f(2)
    captured = capsys.readouterr()
    assert captured.out == "Traced with 1\nTraced with 2\n"
    assert captured.err == "Executed with 1\nExecuted with 1\nExecuted with 2\n"
    assert f.experimental_get_tracing_count() == 2


def test_function_without_return_returns_none():
    @tf.function
    def f(x):
        tf.print("Executed with", x)

    assert f(1) is None


def test_py_function_runs_python_code_on_every_call(capsys):
    external_list = []

    def side_effect(x):
        print('Python side effect')
        external_list.append(x)

    @tf.function
    def f(x):
        tf.py_function(side_effect, inp=[x], Tout=[])

    f(1)
    f(1)
    f(1)
    # The list append happens all three times!
    assert len(external_list) == 3
    # The list holds tensors, not 1, because py_function casts everything to tensors.
    assert external_list[0].numpy() == 1
    assert all(item.numpy() == 1 for item in external_list)
    assert external_list[0].dtype == tf.int32
    assert capsys.readouterr().out == "Python side effect\n" * 3
    assert f.experimental_get_tracing_count() == 1


def test_py_function_receives_each_call_value_and_returns_a_tensor():
    seen = []

    def python_square(x):
        seen.append(int(x.numpy()))
        return x * x

    @tf.function
    def f(x):
        return tf.py_function(python_square, inp=[x], Tout=tf.int32) + 1

    assert f(tf.constant(3)).numpy() == 10
    assert f(tf.constant(4)).numpy() == 17
    assert seen == [3, 4]
    assert f.experimental_get_tracing_count() == 1


# -- Changing Python global and free variables ---------------------------------------------------


external_list = []


def test_list_append_happens_only_while_tracing(capsys):
    del external_list[:]

    @tf.function
    def side_effect(x):
        print('Python side effect')
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    # The list append only happened once!
    assert len(external_list) == 1
    assert capsys.readouterr().out == "Python side effect\n"


def test_mutating_a_free_variable_happens_only_while_tracing():
    calls = {"count": 0}

    @tf.function
    def f(x):
        calls["count"] += 1
        return x + 1

    for value in range(5):
        assert f(tf.constant(value)).numpy() == value + 1
    assert calls["count"] == 1


def test_variable_state_is_updated_on_every_call():
    counter = tf.Variable(0)

    @tf.function
    def f(x):
        counter.assign_add(x)
        return counter.read_value()

    assert f(tf.constant(1)).numpy() == 1
    assert f(tf.constant(2)).numpy() == 3
    assert f(tf.constant(3)).numpy() == 6
    assert counter.numpy() == 6


# -- Using Python iterators and generators -------------------------------------------------------


def test_python_iterator_is_consumed_only_while_tracing(capsys, warns_next_on_python_iterator):
    @tf.function
    def buggy_consume_next(iterator):
        tf.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\nValue: 1\nValue: 1\n"
    assert buggy_consume_next.experimental_get_tracing_count() == 1
    # Only one value was taken from the iterator.
    assert next(iterator) == 2


def test_python_iterator_with_a_variable_prints_current_value(
        capsys, warns_next_on_python_iterator):
    # The older guide's variant: the variable is read on every call, the iterator is not.
    external_var = tf.Variable(0)

    @tf.function
    def buggy_consume_next(iterator):
        external_var.assign(next(iterator))
        tf.print("Value of external_var:", external_var)

    iterator = iter([0, 1, 2, 3])
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    assert capsys.readouterr().err == (
        "Value of external_var: 0\n"
        "Value of external_var: 0\n"
        "Value of external_var: 0\n")


def test_a_new_iterator_object_traces_again(capsys, warns_next_on_python_iterator):
    @tf.function
    def consume_next(iterator):
        tf.print("Value:", next(iterator))

    consume_next(iter([1, 2, 3]))
    consume_next(iter([4, 5, 6]))
    assert capsys.readouterr().err == "Value: 1\nValue: 4\n"
    assert consume_next.experimental_get_tracing_count() == 2


# -- Deleting tf.Variables between Function calls ------------------------------------------------


def test_concrete_function_keeps_its_captured_variable_alive(capsys):
    # TensorFlow 2.21 keeps captured variables alive (the guide's older text describes a
    # weak reference and FailedPreconditionError after the variable is collected).
    external_var = tf.Variable(3)

    @tf.function
    def f(x):
        return x * external_var

    traced_f = f.get_concrete_function(4)
    print("Calling concrete function...")
    print(traced_f(4))
    # The original variable is no longer referenced by this scope.
    external_var = tf.Variable(4)
    gc.collect()
    print()
    print("Calling concrete function after garbage collecting its closed Variable...")
    result = traced_f(4)
    print(result)
    assert capsys.readouterr().out == (
        "Calling concrete function...\n"
        "tf.Tensor(12, shape=(), dtype=int32)\n"
        "\n"
        "Calling concrete function after garbage collecting its closed Variable...\n"
        "tf.Tensor(12, shape=(), dtype=int32)\n")
    assert result.numpy() == 12
    assert external_var.numpy() == 4


def test_concrete_function_captures_the_variable_it_closed_over():
    external_var = tf.Variable(3)

    @tf.function
    def f(x):
        return x * external_var

    traced_f = f.get_concrete_function(4)
    captured = traced_f.captured_inputs
    assert len(captured) == 1
    assert captured[0] is external_var
    external_var.assign(5)
    assert traced_f(4).numpy() == 20


# -- All outputs of a tf.function must be return values -----------------------------------------


x = None


def make_leaky_function():
    @tf.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return a + 2
    return leaky_function


def make_leaky_function_returning_x():
    @tf.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return x  # Good - uses local tensor
    return leaky_function


def make_captures_leaked_tensor():
    @tf.function
    def captures_leaked_tensor(b):
        b += x  # Bad - `x` is leaked from `leaky_function`
        return b
    return captures_leaked_tensor


@pytest.fixture
def reset_x():
    global x
    x = None
    yield
    x = None


def test_leaked_tensor_has_no_numpy_value(capsys, reset_x, warns_leaked_tensor):
    correct_a = make_leaky_function()(tf.constant(1))
    assert correct_a.numpy() == 3  # Good - value obtained from function's returns
    with pytest.raises(AttributeError):
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    print(x)
    assert capsys.readouterr().out == 'Tensor("add:0", shape=(), dtype=int32)\n'


def test_leaked_tensor_is_unusable_even_when_also_returned(capsys, reset_x, warns_leaked_tensor):
    correct_a = make_leaky_function_returning_x()(tf.constant(1))
    assert correct_a.numpy() == 2  # Good - value obtained from function's returns
    with pytest.raises(AttributeError):
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    print(x)
    assert capsys.readouterr().out == 'Tensor("add:0", shape=(), dtype=int32)\n'


def test_leaked_tensor_used_in_another_function_raises_type_error(reset_x, warns_leaked_tensor):
    make_leaky_function()(tf.constant(1))
    captures_leaked_tensor = make_captures_leaked_tensor()
    # `x` leaked from `leaky_function` is captured by `captures_leaked_tensor`.
    with pytest.raises(TypeError):
        captures_leaked_tensor(tf.constant(2))


def test_leaked_tensor_is_a_captured_input_of_the_other_function(
        capsys, reset_x, warns_leaked_tensor):
    make_leaky_function()(tf.constant(1))
    captures_leaked_tensor = make_captures_leaked_tensor()
    with pytest.raises(TypeError):
        captures_leaked_tensor(tf.constant(2))
    concrete_func = captures_leaked_tensor.get_concrete_function(tf.constant(2))
    print(concrete_func.captured_inputs)
    assert capsys.readouterr().out == "[<tf.Tensor 'add:0' shape=() dtype=int32>]\n"
    assert len(concrete_func.captured_inputs) == 1
    assert x is concrete_func.captured_inputs[0]
    with pytest.raises(TypeError):
        concrete_func(tf.constant(2))


def test_leaking_through_an_external_list_and_object(warns_leaked_tensor):
    class MyClass:

        def __init__(self):
            self.field = None

    external_list = []
    external_object = MyClass()

    @tf.function
    def leaky_function():
        a = tf.constant(1)
        external_list.append(a)  # Bad - leaks tensor
        external_object.field = a  # Bad - leaks tensor
        return a

    assert leaky_function().numpy() == 1
    assert len(external_list) == 1
    assert external_list[0] is external_object.field
    with pytest.raises(AttributeError):
        external_list[0].numpy()
    with pytest.raises(AttributeError):
        external_object.field.numpy()

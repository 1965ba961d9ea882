"""Guide section "Known Issues": depending on Python globals and free variables, depending on
Python objects, and creating tf.Variables."""

import pytest

import autograph.tf as tf

# -- Depending on Python global and free variables -----------------------------------------------


foo = 1


@pytest.fixture
def reset_foo():
    global foo
    foo = 1
    yield
    foo = 1


def make_adds():
    @tf.function
    def buggy_add():
        return 1 + foo

    @tf.function
    def recommended_add(foo):
        return 1 + foo

    return buggy_add, recommended_add


def test_global_is_read_only_at_trace_time(capsys, reset_foo):
    global foo
    buggy_add, recommended_add = make_adds()
    foo = 1
    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo))
    print("Updating the value of `foo` to 100!")
    foo = 100
    print("Buggy:", buggy_add())  # Did not change!
    print("Correct:", recommended_add(foo))
    assert capsys.readouterr().out == (
        "Buggy: tf.Tensor(2, shape=(), dtype=int32)\n"
        "Correct: tf.Tensor(2, shape=(), dtype=int32)\n"
        "Updating the value of `foo` to 100!\n"
        "Buggy: tf.Tensor(2, shape=(), dtype=int32)\n"
        "Correct: tf.Tensor(101, shape=(), dtype=int32)\n")


def test_python_values_returned_come_back_as_tensors(reset_foo):
    buggy_add, recommended_add = make_adds()
    result = buggy_add()
    assert isinstance(result, tf.Tensor)
    assert result.dtype == tf.int32
    assert result.numpy() == 2
    assert recommended_add(5).numpy() == 6


def test_buggy_add_does_not_retrace_when_the_global_changes(reset_foo):
    global foo
    buggy_add, recommended_add = make_adds()
    buggy_add()
    recommended_add(foo)
    foo = 100
    buggy_add()
    recommended_add(foo)
    assert buggy_add.experimental_get_tracing_count() == 1
    assert recommended_add.experimental_get_tracing_count() == 2


def test_closure_over_free_variable_is_read_at_trace_time():
    scale = 2

    @tf.function
    def scaled(x):
        return x * scale

    assert scaled(tf.constant(3)).numpy() == 6
    scale = 10
    assert scaled(tf.constant(3)).numpy() == 6
    assert scale == 10


def test_closed_over_variable_sees_assign_add():
    # The older guide's variant: a tf.Variable is read on every call.
    counter = tf.Variable(0)

    @tf.function
    def buggy_add():
        return 1 + counter

    @tf.function
    def recommended_add(counter):
        return 1 + counter

    assert buggy_add().numpy() == 1
    assert recommended_add(counter).numpy() == 1
    counter.assign_add(1)
    assert buggy_add().numpy() == 2
    assert recommended_add(counter).numpy() == 2


# -- Depending on Python objects -----------------------------------------------------------------


class SimpleModel(tf.Module):
    def __init__(self):
        # These values are *not* tf.Variables.
        self.bias = 0.
        self.weight = 2.


def evaluate(model, x):
    return model.weight * x + model.bias


def test_same_object_with_changed_attributes_reuses_the_stale_trace(capsys):
    evaluate_fn = tf.function(evaluate)
    simple_model = SimpleModel()
    x = tf.constant(10.)
    print(evaluate_fn(simple_model, x))
    print("Adding bias!")
    simple_model.bias += 5.0
    print(evaluate_fn(simple_model, x))  # Didn't change :(
    assert capsys.readouterr().out == (
        "tf.Tensor(20.0, shape=(), dtype=float32)\n"
        "Adding bias!\n"
        "tf.Tensor(20.0, shape=(), dtype=float32)\n")
    assert evaluate_fn.experimental_get_tracing_count() == 1


def test_a_different_model_instance_gets_its_own_trace():
    evaluate_fn = tf.function(evaluate)
    x = tf.constant(10.)
    assert evaluate_fn(SimpleModel(), x).numpy() == 20.0
    biased = SimpleModel()
    biased.bias = 5.0
    assert evaluate_fn(biased, x).numpy() == 25.0
    assert evaluate_fn.experimental_get_tracing_count() == 2


def test_new_function_per_modification_workaround(capsys):
    x = tf.constant(10.)
    new_model = SimpleModel()
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    # Don't pass in `new_model`, `Function` already captured its state during tracing.
    print(evaluate_no_bias(x))
    print("Adding bias!")
    new_model.bias += 5.0
    # Create new Function and ConcreteFunction since you modified new_model.
    evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_with_bias(x))  # Don't pass in `new_model`.
    assert capsys.readouterr().out == (
        "tf.Tensor(20.0, shape=(), dtype=float32)\n"
        "Adding bias!\n"
        "tf.Tensor(25.0, shape=(), dtype=float32)\n")
    # The first concrete function still holds the state it was traced with.
    assert evaluate_no_bias(x).numpy() == 20.0
    assert evaluate_with_bias(tf.constant(1.)).numpy() == 7.0


class BetterModel:
    def __init__(self):
        self.bias = tf.Variable(0.)
        self.weight = tf.Variable(2.)


def test_variable_attributes_are_read_on_every_call(capsys):
    evaluate_fn = tf.function(evaluate)
    x = tf.constant(10.)
    better_model = BetterModel()
    print(evaluate_fn(better_model, x))
    print("Adding bias!")
    better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
    print(evaluate_fn(better_model, x))  # This works!
    assert capsys.readouterr().out == (
        "tf.Tensor(20.0, shape=(), dtype=float32)\n"
        "Adding bias!\n"
        "tf.Tensor(25.0, shape=(), dtype=float32)\n")
    assert evaluate_fn.experimental_get_tracing_count() == 1


def test_module_variables_are_found():
    class VariableModel(tf.Module):
        def __init__(self):
            super().__init__()
            self.bias = tf.Variable(0.)
            self.weight = tf.Variable(2.)

    model = VariableModel()
    assert len(model.variables) == 2
    assert len(model.trainable_variables) == 2


# -- Creating tf.Variables ----------------------------------------------------------------------


def test_creating_a_variable_on_every_call_raises_value_error():
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v

    with pytest.raises(ValueError):
        f(1.0)


def test_variable_created_outside_and_assigned_inside_is_fine():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        return v.assign_add(x)

    first = f(1.0)
    second = f(2.0)
    assert str(first) == "tf.Tensor(2.0, shape=(), dtype=float32)"
    assert str(second) == "tf.Tensor(4.0, shape=(), dtype=float32)"
    assert v.numpy() == 4.0


def test_variable_created_once_when_attribute_is_none():
    class C:
        pass

    obj = C()
    obj.v = None

    @tf.function
    def g(x):
        if obj.v is None:
            obj.v = tf.Variable(1.0)
        return obj.v.assign_add(x)

    assert g(1.0).numpy() == 2.0
    assert g(2.0).numpy() == 4.0
    assert g(2.0).numpy() == 6.0
    assert obj.v.numpy() == 6.0


def test_count_module_creates_its_variable_on_the_first_call(capsys):
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    print(c())
    print(c())
    assert capsys.readouterr().out == (
        "tf.Tensor(1, shape=(), dtype=int32)\n"
        "tf.Tensor(2, shape=(), dtype=int32)\n")
    assert c.count.numpy() == 2
    assert c().numpy() == 3


def test_count_module_instances_have_separate_variables():
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    a, b = Count(), Count()
    assert a().numpy() == 1
    assert a().numpy() == 2
    assert b().numpy() == 1
    assert a().numpy() == 3
    assert b().numpy() == 2


def test_variable_initializers_can_depend_on_arguments_and_other_variables():
    # The older guide's example: initial values computed from the first call's argument.
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(2.0 * x))
            state.append(tf.Variable(state[0] * 3.0))
        return state[0] * x * state[1]

    assert fn(tf.constant(1.0)).numpy() == 12.0
    assert fn(tf.constant(3.0)).numpy() == 36.0
    assert state[0].numpy() == 2.0
    assert state[1].numpy() == 6.0

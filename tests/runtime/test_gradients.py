"""GradientTape: the tape's semantics, every core op declaring a gradient, gradients through
Function calls, cond and while ops, TensorArrays and staged loops (second order too), and a
tape used inside a tf.function training step.

Each op's gradient rule is checked against central finite differences in its family's module
(tests/autograph/test_<family>_ops.py, with tests/op_cases.py's `gradient_rules_test`); a
check here that runs in several ways uses the same `MODES`: an eager tape, an eagerly called
Function (the call is one tape record whose gradient runs a gradient function), and the tape
inside a tf.function (the gradient is built as graph nodes and compiled).
"""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients
from op_cases import MODES, RuleOperands, check_rule

from runtime import context, dtypes, gradients, module, tensor_array
from runtime import signature as signature_lib
from runtime import variables as variables_lib
from runtime.function import function
from runtime.functional import control_flow as functional
from runtime.gradients import GradientTape, UnconnectedGradients
from runtime.ops import (
    array_ops,
    concat_split_ops,
    io_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    py_function_ops,
    random_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings

_u = RuleOperands(42).uniform


def test_every_core_op_declares_a_gradient_or_none():
    """Every op of the core op modules has a rule or is declared non-differentiable."""
    from runtime import variables
    from runtime.function import CALL_OP
    from runtime.ops import (
        array_ops,
        concat_split_ops,
        control_flow_ops,
        linalg_ops,
        math_ops,
        random_ops,
        reduction_ops,
        reshape_ops,
        slicing,
    )
    ops = dict(math_ops.OPS, **array_ops.OPS)
    ops.update(reshape_ops.OPS)
    ops.update(concat_split_ops.OPS)
    ops.update(reduction_ops.OPS)
    ops.update(linalg_ops.OPS)
    ops.update(selection_ops.OPS)
    ops.update(slicing.OPS)
    ops.update(random_ops.OPS)
    ops.update(nn_ops.OPS)
    ops.update(variables.OPS)
    ops.update(io_ops.OPS)
    ops.update(py_function_ops.OPS)
    ops.update({op.name: op for op in list(control_flow_ops.IF_OPS.values()) +
                list(control_flow_ops.WHILE_OPS.values()) + [CALL_OP]})
    missing = sorted(name for name, op in ops.items()
                     if op.grad is None and name not in ("Placeholder", "Const"))
    assert missing == []


# -- tape semantics ------------------------------------------------------------------------------


def test_watch_a_constant():
    x = array_ops.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_constant_gets_none():
    x = array_ops.constant(3.0)
    with GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_trainable_variables_are_watched_when_read():
    v = variables_lib.Variable(2.0)
    frozen = variables_lib.Variable(5.0, trainable=False)
    with GradientTape() as tape:
        y = v * v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 20.0
    assert gf is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_off():
    v = variables_lib.Variable(2.0)
    w = variables_lib.Variable(3.0)
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None
    assert float(gw) == 2.0
    assert tape.watched_variables() == (w,)


def test_variable_gradient_sums_over_reads():
    v = variables_lib.Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = reduction_ops.reduce_sum(v * 3.0) + reduction_ops.reduce_sum(math_ops.square(v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [5.0, 7.0])


def test_the_gradient_of_a_source_with_respect_to_itself_is_one():
    v = variables_lib.Variable([1.0, 2.0])
    x = array_ops.constant(3.0)
    with GradientTape(persistent=True) as tape:
        y = reduction_ops.reduce_sum(v * v)
    np.testing.assert_array_equal(tape.gradient(v, v).numpy(), [1.0, 1.0])
    assert float(tape.gradient(x, x)) == 1.0  # a target that is a source, watched or not
    # a variable that is a target and also read by another target: both contribute
    np.testing.assert_array_equal(tape.gradient([y, v], v).numpy(), [3.0, 5.0])


def test_the_gradient_of_a_variable_with_respect_to_itself_in_a_function_is_one():
    v = variables_lib.Variable(3.0)

    def f():
        with GradientTape() as tape:
            y = v * 2.0
        return tape.gradient([v, y], v)

    assert float(function(f)()) == 3.0


def test_non_persistent_second_call_raises():
    x = array_ops.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_computes_several_gradients():
    x = array_ops.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 4.0
    assert float(tape.gradient(z, x)) == 12.0
    assert float(tape.gradient(z, y)) == 2.0  # with respect to an intermediate


def test_stop_recording():
    x = array_ops.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * x * x
        total = y + z
    assert float(tape.gradient(total, x)) == 4.0


def test_stop_recording_outside_the_block_raises():
    tape = GradientTape()
    with pytest.raises(ValueError):
        with tape.stop_recording():
            pass


def test_stop_gradient():
    x = array_ops.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * array_ops.stop_gradient(x)
    assert float(tape.gradient(y, x)) == 2.0


def test_unconnected_sources_get_none_or_zero():
    x = array_ops.constant(2.0)
    u = array_ops.constant([1.0, 2.0])
    v = variables_lib.Variable([1.0, 1.0])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 3.0
    assert tape.gradient(y, [u, v]) == [None, None]
    zeros = tape.gradient(y, [u, v], unconnected_gradients=UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros[0].numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(zeros[1].numpy(), [0.0, 0.0])


def test_nested_lists_of_sources_keep_their_structure():
    a, b, c = array_ops.constant(1.0), array_ops.constant(2.0), variables_lib.Variable(3.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        y = a * b * c
    grads = tape.gradient(y, {"ab": [a, (b,)], "c": c})
    assert float(grads["ab"][0]) == 6.0
    assert float(grads["ab"][1][0]) == 3.0
    assert float(grads["c"]) == 2.0


def test_output_gradients_weight_the_target():
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=array_ops.constant([10.0, 1.0]))
    np.testing.assert_allclose(g.numpy(), [20.0, 4.0])


def test_several_targets_are_summed():
    x = array_ops.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        a = x * x
        b = x * 3.0
    assert float(tape.gradient([a, b], x)) == 7.0


def test_integer_sources_and_targets_get_none():
    i = array_ops.constant(3)
    x = array_ops.constant(2.0)
    with GradientTape() as tape:
        tape.watch([i, x])
        y = math_ops.cast(i, dtypes.float32) * x
    gi, gx = tape.gradient(y, [i, x])
    assert gi is None
    assert float(gx) == 3.0
    with GradientTape() as tape2:
        tape2.watch(i)
        k = i * 2
    assert tape2.gradient(k, i) is None


def test_cast_between_floats_passes_the_gradient_and_to_int_stops_it():
    x = array_ops.constant([1.5, 2.5], dtypes.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = math_ops.cast(x, dtypes.float32) * 2.0
        z = math_ops.cast(math_ops.cast(x, dtypes.int32), dtypes.float64)
    g = tape.gradient(y, x)
    assert g.dtype == dtypes.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])
    assert tape.gradient(z, x) is None


def test_non_differentiable_ops_give_none():
    x = array_ops.constant([1.3, 2.7])
    with GradientTape() as tape:
        tape.watch(x)
        y = (reduction_ops.reduce_sum(math_ops.floor(x))
             + math_ops.cast(reduction_ops.argmax(x), dtypes.float32))
    assert tape.gradient(y, x) is None


def _py_function_gradient_under(outer, x):
    """The gradient of a py_function, computed while `outer` records: an EagerPyFuncGrad
    op, which has no gradient rule itself."""
    with GradientTape() as inner:
        inner.watch(x)
        y = py_function_ops.py_function(lambda a: a * a, [x], dtypes.float32)
    return inner.gradient(y, x)


def test_missing_rule_raises_lookup_error_naming_the_op():
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        dy = _py_function_gradient_under(tape, x)
    with pytest.raises(LookupError, match="EagerPyFuncGrad"):
        tape.gradient(dy, x)


def test_missing_rule_off_the_path_is_not_an_error():
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        _py_function_gradient_under(tape, x)
        y = x * 2.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_second_order_with_nested_tapes():
    x = array_ops.constant(3.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0
    assert float(outer.gradient(dy, x)) == 18.0


def test_no_tape_left_recording():
    x = array_ops.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        x * 2.0
    assert context.tapes == []


def test_tape_gradient_in_the_with_block():
    x = array_ops.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        z = y * 2.0
    assert float(g) == 4.0
    assert float(tape.gradient(z, x)) == 8.0


# -- Functions ---------------------------------------------------------------------------------


def test_gradient_through_an_eager_function_call():
    @function
    def add(a, b):
        return a + b
    v = variables_lib.Variable(1.0)
    with GradientTape() as tape:
        result = add(v, 1.0)
    assert float(tape.gradient(result, v)) == 1.0


def test_gradient_through_a_function_reading_a_captured_variable():
    w = variables_lib.Variable([[1.0, 2.0], [3.0, 4.0]])

    @function
    def layer(x):
        return reduction_ops.reduce_sum(math_ops.tanh(linalg_ops.matmul(x, w)))
    x = array_ops.constant([[0.1, 0.2]])
    with GradientTape() as tape:
        y = layer(x)
    g = tape.gradient(y, w)
    h = np.array([[0.1, 0.2]]) @ w.numpy()
    want = np.array([[0.1], [0.2]]) @ (1 - np.tanh(h) ** 2)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)
    assert tape.watched_variables() == (w,)


def test_a_recorded_call_copies_a_returned_variable_read_but_not_the_residuals():
    w = variables_lib.Variable([1.0, 2.0])

    @function
    def scale(x):
        return x * w, w.read_value()  # the read is an output and the product's residual
    x = array_ops.constant([3.0, 4.0])
    with GradientTape() as tape:
        tape.watch(x)
        _, read = scale(x)
    assert not np.shares_memory(read.numpy(), w._value)
    np.testing.assert_allclose(tape.gradient(read, w).numpy(), [1.0, 1.0])
    (recorded,) = scale.get_concrete_function(x).__dict__["_compiled_residuals"].values()
    assert recorded.source.count("owned") == 1  # the output, not the residual it also is


def test_gradient_through_nested_functions():
    w = variables_lib.Variable(2.0)

    @function
    def inner(x):
        return x * w

    @function
    def outer(x):
        return inner(x) * inner(x) + x

    x = array_ops.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    gx, gw = tape.gradient(y, [x, w])
    # y = x^2 w^2 + x
    assert float(gx) == 2 * 3.0 * 4.0 + 1.0
    assert float(gw) == 2 * 9.0 * 2.0


def test_function_with_several_outputs_and_unused_output():
    @function
    def f(x):
        return {"a": x * 2.0, "b": x * x, "n": 3}

    x = array_ops.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        out = f(x)
    assert float(tape.gradient(out["b"], x)) == 4.0


def test_function_called_with_an_unwatched_tensor_is_not_recorded():
    @function
    def f(x):
        return x * 2.0
    x = array_ops.constant(1.0)
    with GradientTape() as tape:
        y = f(x)
    assert tape.gradient(y, x) is None


def test_concrete_function_call_is_recorded():
    @function
    def f(x):
        return x * x
    cf = f.get_concrete_function(signature_lib.TensorSpec([], dtypes.float32))
    x = array_ops.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = cf(x)
    assert float(tape.gradient(y, x)) == 6.0


def test_function_with_input_signature_is_recorded():
    @function(input_signature=[signature_lib.TensorSpec([None], dtypes.float32)])
    def f(x):
        return reduction_ops.reduce_sum(x * x)
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_second_order_through_a_function():
    @function
    def cube(x):
        return x * x * x
    x = array_ops.constant(2.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_gradient_function_is_built_once_per_trace():
    @function
    def f(x):
        return x * x
    x = array_ops.constant(3.0)
    for _ in range(3):
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        tape.gradient(y, x)
    cf = f.get_concrete_function(x)
    assert len(cf._gradient_functions) == 1


# -- control flow ------------------------------------------------------------------------------


def _np_grad(f, x, eps=1e-6):
    return numeric_gradients(lambda a: float(f(a)), [np.asarray(x, np.float64)], eps)[0]


def test_tf_cond_gradient():
    @function
    def f(x):
        return functional.cond(x > 0, lambda: math_ops.sin(x), lambda: math_ops.cos(x))
    x = array_ops.constant(0.5, dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert abs(float(tape.gradient(y, x)) - np.cos(0.5)) < 1e-12


def test_while_over_a_tensor_gradient_reaches_the_iterated_tensor():
    @function
    def f(xs):
        total = array_ops.constant(0.0, dtypes.float64)
        for row in xs:
            total = total * 0.5 + reduction_ops.reduce_sum(row * row)
        return total
    x0 = np.arange(6.0).reshape(3, 2) / 4
    x = array_ops.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)

    def ref(a):
        total = 0.0
        for row in a:
            total = total * 0.5 + np.sum(row * row)
        return total
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _np_grad(ref, x0), rtol=1e-6)


def test_tf_while_loop_gradient():
    @function
    def f(x):
        return functional.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * v), (0, x))[1]
    x = array_ops.constant(1.1, dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    # y = x^8
    np.testing.assert_allclose(float(tape.gradient(y, x)), 8 * 1.1 ** 7, rtol=1e-12)


# -- the tape inside a tf.function ---------------------------------------------------------------


def _mlp_variables(seed=0):
    rng = np.random.default_rng(seed)
    return [variables_lib.Variable(rng.normal(size=(4, 5)) * 0.5),
            variables_lib.Variable(np.zeros(5)),
            variables_lib.Variable(rng.normal(size=(5, 1)) * 0.5),
            variables_lib.Variable(np.zeros(1))]


def _mlp_loss(x, y, w1, b1, w2, b2):
    h = math_ops.relu(linalg_ops.matmul(x, w1) + b1)
    out = linalg_ops.matmul(h, w2) + b2
    return reduction_ops.reduce_mean(math_ops.square(out - y))


def test_training_step_inside_a_function_matches_eager():
    rng = np.random.default_rng(1)
    x = array_ops.constant(rng.normal(size=(8, 4)))
    y = array_ops.constant(rng.normal(size=(8, 1)))
    variables = _mlp_variables()
    eager_variables = _mlp_variables()

    @function
    def train_step(x, y, lr):
        with gradients.GradientTape() as tape:
            loss = _mlp_loss(x, y, *variables)
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(lr * g)
        return loss

    for _ in range(5):
        with gradients.GradientTape() as tape:
            eager_loss = _mlp_loss(x, y, *eager_variables)
        grads = tape.gradient(eager_loss, eager_variables)
        for v, g in zip(eager_variables, grads):
            v.assign_sub(0.1 * g)
        loss = train_step(x, y, 0.1)
        np.testing.assert_allclose(float(loss), float(eager_loss), rtol=1e-12)
    for v, e in zip(variables, eager_variables):
        np.testing.assert_allclose(v.numpy(), e.numpy(), rtol=1e-10)
    assert train_step.experimental_get_tracing_count() == 1


def test_training_step_with_variables_as_arguments():
    @function
    def train_step(w, x, y):
        with gradients.GradientTape() as tape:
            loss = reduction_ops.reduce_sum(math_ops.square(w * x - y))
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(0.1 * g)
        return g

    w = variables_lib.Variable(2.0)
    g = train_step(w, array_ops.constant([-1.0]), array_ops.constant([2.0]))
    assert float(g) == 8.0
    assert abs(float(w.numpy()) - 1.2) < 1e-6


def test_tape_in_function_calling_another_function():
    w = variables_lib.Variable(3.0)

    @function
    def model(x):
        return x * w * w

    @function
    def step(x):
        with gradients.GradientTape() as tape:
            y = model(x)
        return tape.gradient(y, w)

    assert float(step(array_ops.constant(2.0))) == 12.0


def test_persistent_tape_and_stop_recording_in_a_function():
    @function
    def f(x):
        with gradients.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            with tape.stop_recording():
                z = y * x
            u = y + z
        return tape.gradient(y, x), tape.gradient(u, x)
    gy, gu = f(array_ops.constant(3.0))
    assert float(gy) == 6.0
    assert float(gu) == 6.0


def test_second_order_inside_a_function():
    @function
    def f(x):
        with gradients.GradientTape() as outer:
            outer.watch(x)
            with gradients.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)
    dy, d2y = f(array_ops.constant(2.0))
    assert float(dy) == 12.0
    assert float(d2y) == 12.0


def test_watched_variables_inside_a_function():
    v = variables_lib.Variable(1.0)
    frozen = variables_lib.Variable(1.0, trainable=False)
    seen = []

    @function
    def f(x):
        with gradients.GradientTape() as tape:
            y = x * v * frozen
        seen.append(tape.watched_variables())
        return tape.gradient(y, [v, frozen])

    gv, gf = f(array_ops.constant(2.0))
    assert float(gv) == 2.0
    assert gf is None or float(gf) == 0.0
    assert seen[0] == (v,)


def test_gradient_through_a_function_call_uses_the_random_numbers_it_drew():
    @function
    def f(x):
        return x * random_ops.uniform([3], dtype=dtypes.float64)

    x = array_ops.constant([1.0, 2.0, 3.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), y.numpy() / x.numpy())


def test_random_numbers_with_the_tape_inside_the_function():
    @function
    def f(x):
        with gradients.GradientTape() as tape:
            tape.watch(x)
            mask = random_ops.uniform([3], dtype=dtypes.float64)
            y = reduction_ops.reduce_sum(x * mask)
        return tape.gradient(y, x), mask

    g, mask = f(array_ops.constant([1.0, 2.0, 3.0], dtypes.float64))
    np.testing.assert_array_equal(g.numpy(), mask.numpy())


# -- TensorArray ---------------------------------------------------------------------------------


def test_tensor_array_write_stack_eagerly():
    x = array_ops.constant([1.0, 2.0, 3.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        ta = tensor_array.TensorArray(dtypes.float64, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * x[i])
        y = reduction_ops.reduce_sum(
            ta.stack() * array_ops.constant([1.0, 10.0, 100.0], dtypes.float64))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 40.0, 600.0])


@pytest.mark.parametrize("mode", ["function_call", "tape_in_function"])
def test_tensor_array_ops(mode):
    def fn(x):
        ta = tensor_array.TensorArray(dtypes.float64, size=4)
        ta = ta.unstack(x * 2.0)                       # rows of x
        ta = ta.write(1, ta.read(0) * ta.read(2))      # overwrite element 1
        gathered = ta.gather([3, 3, 0])
        ta2 = tensor_array.TensorArray(dtypes.float64, size=3).scatter([2, 0, 1],
                                                                       math_ops.tanh(gathered))
        return reduction_ops.reduce_sum(ta.stack()) + reduction_ops.reduce_sum(ta2.stack() * x[:3])
    check_rule(fn, _u(4, 2), mode=mode)


@pytest.mark.parametrize("mode", ["function_call", "tape_in_function"])
def test_tensor_array_concat_of_rows_of_different_lengths(mode):
    def fn(x):
        ta = tensor_array.TensorArray(dtypes.float64, size=2, infer_shape=False)
        ta = ta.write(0, x[0] * x[1]).write(1, math_ops.tanh(x[1:3, 0]))
        return reduction_ops.reduce_sum(
            ta.concat() * array_ops.constant([1.0, 2.0, 3.0, 4.0], dtypes.float64))
    check_rule(fn, _u(4, 2), mode=mode)


def test_gradients_with_shapes_known_only_at_run_time():
    rng = np.random.default_rng(0)
    w1 = variables_lib.Variable(rng.normal(size=(4, 5)))
    b1 = variables_lib.Variable(np.zeros(5))
    w2 = variables_lib.Variable(rng.normal(size=(5, 1)))
    variables = [w1, b1, w2]

    def loss_fn(x, y):
        h = math_ops.relu(linalg_ops.matmul(x, w1) + b1)
        h = reshape_ops.reshape(reshape_ops.reshape(h, [-1]), array_ops.shape(h))
        out = linalg_ops.matmul(h, w2)
        top = reduction_ops.reduce_max(out, axis=0, keepdims=True)
        return (reduction_ops.reduce_mean(math_ops.square(out - y)) +
                reduction_ops.reduce_sum(top) +
                reduction_ops.reduce_sum(concat_split_ops.concat([h, out], 1) * 0.1))

    @function(input_signature=[signature_lib.TensorSpec([None, 4], dtypes.float64),
                               signature_lib.TensorSpec([None, 1], dtypes.float64)])
    def grads(x, y):
        with gradients.GradientTape() as tape:
            loss = loss_fn(x, y)
        return tape.gradient(loss, variables)

    for n in (3, 7):
        x = array_ops.constant(rng.normal(size=(n, 4)))
        y = array_ops.constant(rng.normal(size=(n, 1)))
        with gradients.GradientTape() as tape:
            loss = loss_fn(x, y)
        for got, want in zip(grads(x, y), tape.gradient(loss, variables)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    assert grads.experimental_get_tracing_count() == 1


def test_gradient_through_a_function_call_uses_the_value_read_before_an_assignment():
    w = variables_lib.Variable(2.0)

    @function
    def read_then_assign(x):
        y = w * x
        w.assign_add(1.0)
        return y

    x = array_ops.constant(3.0)
    with gradients.GradientTape() as tape:
        tape.watch(x)
        y = read_then_assign(x)
    assert float(tape.gradient(y, x)) == 2.0


# -- residuals: what the forward pass keeps for the gradient -------------------------------------


def _gradient_of_call(f, x):
    x = array_ops.constant(x)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x)


def test_gradient_through_a_function_whose_loop_draws_random_numbers():
    @function
    def f(x):
        for _ in array_ops.range(3):
            x = x * random_ops.uniform([3], 1.0, 2.0, dtype=dtypes.float64)
        return x

    x0 = np.array([1.0, 2.0, 3.0])
    y, g = _gradient_of_call(f, x0)
    np.testing.assert_allclose(g.numpy(), y.numpy() / x0)


def test_gradient_through_a_function_call_ignores_a_later_assignment():
    w = variables_lib.Variable(2.0, dtype=dtypes.float64)

    @function
    def f(x):
        return w * x * x

    x = array_ops.constant(3.0, dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    w.assign(100.0)
    assert float(tape.gradient(y, x)) == 2 * 2.0 * 3.0


def test_gradient_through_a_loop_that_assigns_the_variable_it_reads():
    v = variables_lib.Variable(1.0, dtype=dtypes.float64)

    @function
    def f(x):
        total = array_ops.constant(0.0, dtypes.float64)
        for _ in array_ops.range(3):
            total += reduction_ops.reduce_sum(v * x)
            v.assign_add(1.0)
        return total

    x = array_ops.constant([1.0, 2.0], dtypes.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.0, 6.0])  # reads 1, 2, 3
    assert float(tape.gradient(y, v)) == 3 * 3.0


def test_gradient_through_the_first_call_of_a_function_that_creates_its_variable():
    class Model(module.Module):
        def __init__(self):
            self.w = None

        @function
        def __call__(self, x):
            if self.w is None:
                self.w = variables_lib.Variable(3.0)
            return self.w * x * x

    model = Model()
    x = array_ops.constant(2.0)
    for _ in range(2):
        with GradientTape() as tape:
            tape.watch(x)
            y = model(x)
        assert (float(y), float(tape.gradient(y, x))) == (12.0, 12.0)


@pytest.mark.parametrize("mode", MODES)
def test_assign_then_read_gives_tensorflows_gradient(mode):
    """TensorFlow: the read after `assign` is a new value; no gradient flows through the
    assignment, so d(v * x)/dx is the value read, 3x."""
    v = variables_lib.Variable(1.0)

    def f(x):
        v.assign(x * 3.0)
        return v * x

    x = array_ops.constant(2.0)
    if mode == "tape_in_function":
        @function
        def run(x):
            with gradients.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return y, tape.gradient(y, x)
        y, g = run(x)
    else:
        call = f if mode == "eager" else function(f)
        with GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        g = tape.gradient(y, x)
    assert (float(y), float(g)) == (12.0, 6.0)


# -- second order through staged loops ---------------------------------------------------------


def _second_derivative(f, x):
    x = array_ops.constant(x, dtypes.float64)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def _numeric_second(f, x, eps=1e-5):
    def first(v):
        return _second_derivative(f, v)[0].numpy()
    return (first(x + eps) - first(x - eps)) / (2 * eps)


def test_second_order_through_a_for_over_tf_range():
    @function
    def f(x):
        y = x
        for _ in array_ops.range(3):
            y = y * x
        return y

    dy, d2y = _second_derivative(f, 1.5)
    assert (float(dy), float(d2y)) == (4 * 1.5 ** 3, 12 * 1.5 ** 2)


def test_second_order_through_a_while_with_several_states_and_captures():
    @function
    def f(x):
        y = array_ops.constant(1.0, dtypes.float64)
        z = x
        i = 0
        while i < 3:
            y = y * math_ops.sin(z) + x
            z = z * 1.1
            i += 1
        return y

    np.testing.assert_allclose(float(_second_derivative(f, 0.7)[1]), _numeric_second(f, 0.7),
                               rtol=1e-6)


def test_second_order_through_tf_while_loop_with_nested_tapes_in_a_function():
    @function
    def f(x):
        with gradients.GradientTape() as outer:
            outer.watch(x)
            with gradients.GradientTape() as inner:
                inner.watch(x)
                _, y = functional.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * x + 1.0),
                                             (0, x))
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    # from y = x, four times y = y x + 1: y = x^5 + x^3 + x^2 + x + 1
    x = 1.3
    want = 20 * x ** 3 + 6 * x + 2
    np.testing.assert_allclose(float(f(array_ops.constant(x, dtypes.float64))), want, rtol=1e-12)


def test_second_order_through_a_loop_with_respect_to_a_variable_it_reads():
    w = variables_lib.Variable(0.8, dtype=dtypes.float64)

    @function
    def f(x):
        y = x
        for _ in array_ops.range(3):
            y = math_ops.sin(y * w) * x
        return y

    def first(value):
        w.assign(value)
        with GradientTape() as tape:
            y = f(array_ops.constant(0.6, dtypes.float64))
        return tape.gradient(y, w).numpy()

    want = (first(0.8 + 1e-5) - first(0.8 - 1e-5)) / 2e-5
    w.assign(0.8)
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = f(array_ops.constant(0.6, dtypes.float64))
        dw = inner.gradient(y, w)
    np.testing.assert_allclose(float(outer.gradient(dw, w)), want, rtol=1e-6)
    np.testing.assert_allclose(float(_second_derivative(f, 0.6)[1]), _numeric_second(f, 0.6),
                               rtol=1e-6)


def test_second_order_cross_derivative_through_a_loop():
    @function
    def f(x, a):
        y = x
        for _ in array_ops.range(2):
            y = y * a + x * x
        return y

    x, a = array_ops.constant(0.5, dtypes.float64), array_ops.constant(2.0, dtypes.float64)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(a)
            y = f(x, a)
        da = inner.gradient(y, a)
    # y = x a^2 + x^2 a + x^2: dy/da = 2 x a + x^2, d/dx = 2 a + 2 x
    assert float(outer.gradient(da, x)) == 2 * 2.0 + 2 * 0.5


def test_second_order_through_a_loop_appending_to_a_list():
    @function
    def f(x):
        outs = [x]
        y = x
        for _ in array_ops.range(2):
            y = y * x
            outs.append(y)
        return reduction_ops.reduce_sum(concat_split_ops.stack(outs))  # x + x^2 + x^3

    dy, d2y = _second_derivative(f, 1.5)
    np.testing.assert_allclose((float(dy), float(d2y)), (1 + 3.0 + 3 * 2.25, 2 + 6 * 1.5))


def test_second_order_through_a_loop_calling_a_function_that_reads_a_variable():
    w = variables_lib.Variable(1.5, dtype=dtypes.float64)

    @function
    def scale(y, x):
        return y * x * w

    @function
    def f(x):
        y = x
        for _ in array_ops.range(2):
            y = scale(y, x)
        return y  # x^3 w^2

    x = array_ops.constant(0.7, dtypes.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dx, dw = inner.gradient(y, x), inner.gradient(y, w)
    np.testing.assert_allclose(float(dx), 3 * 0.7 ** 2 * 1.5 ** 2)
    np.testing.assert_allclose(float(outer.gradient(dx, x)), 6 * 0.7 * 1.5 ** 2)
    np.testing.assert_allclose(float(outer.gradient(dw, w)), 2 * 0.7 ** 3)
    np.testing.assert_allclose(float(outer.gradient(dw, x)), 6 * 0.7 ** 2 * 1.5)



"""Property test: gradients of random programs against central finite differences (float64).

A program takes x [3], y [3] (float64) and a trip count n (an int32 tensor). It applies a
random chain of smooth steps (binary ops against x, y or a constant, unary ops, a matmul, a
broadcast mean, slicing and concat, gather, stack, pow, softmax); optionally a converted
`for _ in tf.range(n)` loop running another random chain (optionally appending each state to
a Python list, which the compiler stages as a TensorArray, stacked after the loop);
optionally an `if` on a tensor condition; then it reduces to a scalar. The tape's gradients
with respect to x and y, taken eagerly, through an eagerly called Function and with the tape
inside a Function, must match central finite differences of the program. Steps may read a
variable (`w`) or call a Function that does. Second order: a Hessian-vector product from
nested tapes, around a Function call and inside one, must match finite differences of the
eager first-order gradient.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import autograph.tf as tf

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, database=None)

_M = np.array([[0.6, -0.4, 0.2], [0.1, 0.5, -0.3], [-0.2, 0.3, 0.7]])

# Read by the "w" operand: variable reads are values the gradient is handed by the forward
# pass (residuals), in the loop too, where the iterations are then replayed from them.
_W = tf.Variable([0.3, -0.2, 0.5], dtype=tf.float64)

_BINARY = ("add", "sub", "mul", "safe_div")
_UNARY = ("tanh", "sin", "sigmoid", "softplus", "square_tanh", "matmul", "center", "roll",
          "gather", "stack", "pow", "softmax", "call")


@tf.function
def _call_step(h):
    """A Function reading a variable: a call whose gradient is fed its residuals."""
    return tf.sin(h * _W) + h

_step = st.one_of(
    st.tuples(st.just("binary"), st.sampled_from(_BINARY),
              st.one_of(st.just("x"), st.just("y"), st.just("w"),
                        st.floats(-1.5, 1.5, allow_nan=False).map(float))),
    st.tuples(st.just("unary"), st.sampled_from(_UNARY), st.none()),
)
_chain = st.lists(_step, min_size=1, max_size=4)


def run_steps(steps, h, x, y):
    """Applies a chain of steps to h (x and y are the program's inputs)."""
    for kind, name, operand in steps:
        if kind == "binary":
            other = {"x": x, "y": y, "w": _W}.get(operand, operand)
            if name == "add":
                h = h + other
            elif name == "sub":
                h = h - other
            elif name == "mul":
                h = h * other
            else:
                h = h / (1.0 + other * other)
        elif name == "tanh":
            h = tf.tanh(h)
        elif name == "sin":
            h = tf.math.sin(h)
        elif name == "sigmoid":
            h = tf.sigmoid(h)
        elif name == "softplus":
            h = tf.math.softplus(h)
        elif name == "square_tanh":
            h = tf.square(tf.tanh(h))
        elif name == "matmul":
            h = tf.reshape(tf.matmul(tf.reshape(h, [1, 3]), tf.constant(_M)), [3])
        elif name == "center":
            h = h - tf.reduce_mean(h, keepdims=True)
        elif name == "roll":
            h = tf.concat([h[1:], h[:1]], axis=0)
        elif name == "gather":
            h = tf.gather(h, [2, 0, 0]) + h
        elif name == "stack":
            h = tf.reduce_sum(tf.stack([h, x * h]), axis=0)
        elif name == "call":
            h = _call_step(h)
        elif name == "pow":
            h = tf.pow(tf.sigmoid(h) + 0.5, 1.5)
        else:
            h = tf.nn.softmax(h) * 3.0
    return h


def make_program(pre, body, post, use_loop, use_cond, use_list=False):
    def before_cond(x, y, n):
        h = run_steps(pre, x, x, y)
        if use_loop:
            outs = [h]
            for _ in tf.range(n):
                h = tf.tanh(run_steps(body, h, x, y))
                if use_list:
                    outs.append(h)
            if use_list:
                h = h + tf.reduce_mean(tf.stack(outs), axis=0)
        return h

    def program(x, y, n):
        h = run_steps(pre, x, x, y)
        if use_loop:
            outs = [h]  # a list appended in a tensor loop is staged as a TensorArray
            for _ in tf.range(n):
                h = tf.tanh(run_steps(body, h, x, y))
                if use_list:
                    outs.append(h)
            if use_list:
                h = h + tf.reduce_mean(tf.stack(outs), axis=0)
        if use_cond:
            if tf.reduce_sum(h) > 0.0:
                h = run_steps(body, h, x, y)
            else:
                h = h * 0.5 + y
        h = run_steps(post, h, x, y)
        return tf.reduce_sum(h * tf.constant([0.7, -1.1, 1.3], tf.float64))
    program.before_cond = before_cond
    return program


def _finite_differences(program, x, y, n, eps=1e-6):
    def value(a, b):
        return float(program(tf.constant(a), tf.constant(b), n))
    grads = []
    for k in range(2):
        g = np.zeros(3)
        for i in range(3):
            d = np.zeros(3)
            d[i] = eps
            args_plus = [x + d, y] if k == 0 else [x, y + d]
            args_minus = [x - d, y] if k == 0 else [x, y - d]
            g[i] = (value(*args_plus) - value(*args_minus)) / (2 * eps)
        grads.append(g)
    return grads


def _tape_gradients(program, x, y, n, mode):
    xs = [tf.constant(x), tf.constant(y)]
    if mode == "eager":
        with tf.GradientTape() as tape:
            tape.watch(xs)
            out = program(*xs, n)
        grads = tape.gradient(out, xs)
    elif mode == "function_call":
        function = tf.function(program)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            out = function(*xs, n)
        grads = tape.gradient(out, xs)
    else:
        @tf.function
        def step(a, b, count):
            with tf.GradientTape() as tape:
                tape.watch([a, b])
                out = program(a, b, count)
            return [g if g is not None else tf.zeros_like(a) for g in tape.gradient(out, [a, b])]
        grads = step(*xs, n)
    return [np.zeros(3) if g is None else g.numpy() for g in grads]


@pytest.mark.property
@PROPERTY_SETTINGS
@given(pre=_chain, body=_chain, post=_chain, use_loop=st.booleans(), use_cond=st.booleans(),
       use_list=st.booleans(), trips=st.integers(0, 3),
       x=st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=3),
       y=st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=3))
def test_random_programs_match_finite_differences(pre, body, post, use_loop, use_cond,
                                                  use_list, trips, x, y):
    program = make_program(pre, body, post, use_loop, use_cond, use_list)
    x, y = np.array(x), np.array(y)
    n = tf.constant(trips)
    if use_cond:  # finite differences are meaningless where the branch taken flips
        assume(abs(float(tf.reduce_sum(program.before_cond(tf.constant(x), tf.constant(y),
                                                           n)))) > 1e-3)
    want = _finite_differences(program, x, y, n)
    for mode in ("eager", "function_call", "tape_in_function"):
        got = _tape_gradients(program, x, y, n, mode)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6, err_msg=mode)


def test_loop_program_with_a_tensor_trip_count_example():
    """A fixed example of the property: a converted loop with a tensor trip count."""
    program = make_program([("unary", "tanh", None)],
                           [("binary", "mul", "x"), ("binary", "add", 0.3)],
                           [("unary", "sin", None)], True, True, True)
    x, y = np.array([0.2, -0.5, 0.9]), np.array([0.4, 0.1, -0.3])
    n = tf.constant(3)
    want = _finite_differences(program, x, y, n)
    for mode in ("eager", "function_call", "tape_in_function"):
        for g, w in zip(_tape_gradients(program, x, y, n, mode), want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7, err_msg=mode)


# -- second order --------------------------------------------------------------------------------

_V = np.array([0.9, -0.4, 0.6])  # the direction of the Hessian-vector product


def _gradient_along(program, x, y, n):
    """sum(dP/dx * v) for the program P, with an eager tape."""
    a, b = tf.constant(x), tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch(a)
        out = program(a, b, n)
    return float(tf.reduce_sum(tape.gradient(out, a) * _V))


def _hessian_vector(program, x, y, n, mode):
    """d/dx sum(dP/dx * v), with nested tapes: around a Function call, or inside one."""
    def nested(a, b, count, call):
        with tf.GradientTape() as outer:
            outer.watch(a)
            with tf.GradientTape() as inner:
                inner.watch(a)
                out = call(a, b, count)
            along = tf.reduce_sum(inner.gradient(out, a) * _V)
        return outer.gradient(along, a, unconnected_gradients="zero")

    a, b = tf.constant(x), tf.constant(y)
    if mode == "function_call":
        return nested(a, b, n, tf.function(program)).numpy()
    return tf.function(lambda a, b, count: nested(a, b, count, program))(a, b, n).numpy()


@pytest.mark.property
@settings(max_examples=25, deadline=None, database=None)
@given(pre=_chain, body=_chain, post=_chain, use_loop=st.booleans(), use_cond=st.booleans(),
       trips=st.integers(0, 3),
       x=st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=3),
       y=st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=3, max_size=3))
def test_second_order_of_random_programs_matches_finite_differences(pre, body, post, use_loop,
                                                                   use_cond, trips, x, y):
    program = make_program(pre, body, post, use_loop, use_cond)
    x, y = np.array(x), np.array(y)
    n = tf.constant(trips)
    if use_cond:
        assume(abs(float(tf.reduce_sum(program.before_cond(tf.constant(x), tf.constant(y),
                                                           n)))) > 1e-2)
    eps = 1e-5
    want = np.zeros(3)
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        want[i] = (_gradient_along(program, x + d, y, n) -
                   _gradient_along(program, x - d, y, n)) / (2 * eps)
    for mode in ("function_call", "tape_in_function"):
        np.testing.assert_allclose(_hessian_vector(program, x, y, n, mode), want, rtol=1e-4,
                                   atol=1e-5, err_msg=mode)

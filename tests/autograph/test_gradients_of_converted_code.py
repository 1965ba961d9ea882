"""Gradients through converted control flow: `if` and `for`/`while` on tensors, lists and
TensorArrays in loops, dataset loops."""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

import autograph.tf as tf
from runtime.gradients import GradientTape


def _np_grad(f, x, eps=1e-6):
    return numeric_gradients(lambda a: float(f(a)), [np.asarray(x, np.float64)], eps)[0]


def _loop_np(x, n, w):
    s = np.zeros_like(x)
    for _ in range(n):
        x = np.tanh(x * w) + 0.1
        s = s + x
    return np.sum(s)


def _fd(f, x0):
    return _np_grad(f, np.asarray(x0, np.float64))


def _gradient_of_call(f, x):
    x = tf.constant(x)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("xs", [[1.0, 2.0], [-1.0, -2.0]])
def test_cond_gradient_takes_the_branch_that_ran(xs):
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x * x
        else:
            y = -x * 3.0
        return tf.reduce_sum(y)
    x = tf.constant(xs, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    want = 2 * np.array(xs) if sum(xs) > 0 else np.array([-3.0, -3.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def test_cond_gradient_for_a_value_only_one_branch_reads():
    w = tf.Variable(2.0, dtype=tf.float64)

    @tf.function
    def f(x, flag):
        if flag:
            y = x * w
        else:
            y = x + 1.0
        return y

    x = tf.constant(3.0, tf.float64)
    for flag, want_x, want_w in ((True, 2.0, 3.0), (False, 1.0, 0.0)):
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x, tf.constant(flag))
        gx, gw = tape.gradient(y, [x, w])
        assert float(gx) == want_x
        assert float(gw) == want_w


def test_nested_cond_gradient():
    @tf.function
    def f(x):
        y = x
        if x > 0:
            if x > 2:
                y = x * x * x
            else:
                y = x * x
        return y
    for value, want in ((3.0, 27.0), (1.0, 2.0), (-1.0, 1.0)):
        x = tf.constant(value, tf.float64)
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == want


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_gradient_with_a_tensor_trip_count(n):
    @tf.function
    def f(x, w, n):
        s = tf.zeros_like(x)
        for _ in tf.range(n):
            x = tf.tanh(x * w) + 0.1
            s += x
        return tf.reduce_sum(s)
    x0, w0 = np.array([0.3, -0.2, 0.5]), np.array(1.5)
    x, w = tf.constant(x0), tf.constant(w0)
    with GradientTape() as tape:
        tape.watch([x, w])
        y = f(x, w, tf.constant(n))
    gx, gw = tape.gradient(y, [x, w])
    want_x = _np_grad(lambda a: _loop_np(a, n, w0), x0)
    want_w = _np_grad(lambda b: _loop_np(x0, n, b), w0)
    if n == 0:
        assert gw is None or float(gw) == 0.0
        np.testing.assert_allclose(gx.numpy(), want_x, atol=1e-8)
        return
    np.testing.assert_allclose(gx.numpy(), want_x, rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), want_w, rtol=1e-6)


def test_while_gradient_with_variables_read_in_the_body():
    w = tf.Variable(np.array([[0.5, -0.3], [0.2, 0.8]]))
    b = tf.Variable(np.array([0.1, -0.1]))

    @tf.function
    def f(x, n):
        h = x
        i = 0
        while i < n:
            h = tf.tanh(tf.matmul(h, w) + b)
            i += 1
        return tf.reduce_sum(h * h)

    x0 = np.array([[1.0, 2.0], [0.5, -1.0]])

    def ref(wv, bv):
        h = x0
        for _ in range(3):
            h = np.tanh(h @ wv + bv)
        return np.sum(h * h)

    with GradientTape() as tape:
        y = f(tf.constant(x0), tf.constant(3))
    gw, gb = tape.gradient(y, [w, b])
    np.testing.assert_allclose(gw.numpy(), _np_grad(lambda a: ref(a, b.numpy()), w.numpy()),
                               rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), _np_grad(lambda a: ref(w.numpy(), a), b.numpy()),
                               rtol=1e-6)


def test_while_loop_with_a_print_does_not_print_again_for_the_gradient(capfd):
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            tf.print("step", i)
            x = x * 2.0
        return x
    x = tf.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    assert float(tape.gradient(y, x)) == 8.0
    err = capfd.readouterr().err
    assert err.count("step") == 3


def test_nested_while_gradient():
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            for j in tf.range(i + 1):
                x = tf.math.sin(x) + 0.5
        return x
    x0 = 0.3
    x = tf.constant(x0, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))

    def ref(a):
        for i in range(3):
            for _ in range(i + 1):
                a = np.sin(a) + 0.5
        return a
    np.testing.assert_allclose(float(tape.gradient(y, x)), _np_grad(ref, x0), rtol=1e-6)


def test_cond_inside_while_gradient():
    @tf.function
    def f(x, n):
        for i in tf.range(n):
            if x > 1.0:
                x = x * 0.5
            else:
                x = x * x + 1.0
        return x
    x0 = 0.7
    x = tf.constant(x0, tf.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(5))

    def ref(a):
        for _ in range(5):
            a = a * 0.5 if a > 1.0 else a * a + 1.0
        return a
    np.testing.assert_allclose(float(tape.gradient(y, x)), _np_grad(ref, x0), rtol=1e-6)


def test_training_step_with_a_loop_with_a_tensor_trip_count():
    w = tf.Variable(np.array([[0.5, -0.3], [0.2, 0.8]]))
    b = tf.Variable(np.array([0.1, -0.1]))

    @tf.function
    def step(x, n):
        with tf.GradientTape() as tape:
            h = x
            for _ in tf.range(n):
                h = tf.tanh(tf.matmul(h, w) + b)
            if tf.reduce_sum(h) > 0:
                loss = tf.reduce_sum(h * h)
            else:
                loss = tf.reduce_sum(h)
        gw, gb = tape.gradient(loss, [w, b])
        return loss, gw, gb

    x0 = np.array([[1.0, 2.0], [0.5, -1.0]])

    def ref(wv, bv, n):
        h = x0
        for _ in range(n):
            h = np.tanh(h @ wv + bv)
        return np.sum(h * h) if np.sum(h) > 0 else np.sum(h)

    for n in (3, 1):
        _, gw, gb = step(tf.constant(x0), tf.constant(n))
        np.testing.assert_allclose(
            gw.numpy(), _np_grad(lambda a: ref(a, b.numpy(), n), w.numpy()), rtol=1e-6)
        np.testing.assert_allclose(
            gb.numpy(), _np_grad(lambda a: ref(w.numpy(), a, n), b.numpy()), rtol=1e-6)
    assert step.experimental_get_tracing_count() == 1


def test_gradient_called_eagerly_for_a_tape_recorded_in_a_function_raises():
    tapes = []

    @tf.function
    def f(x):
        tape = tf.GradientTape()
        with tape:
            tape.watch(x)
            y = x * x
        tapes.append((tape, y))
        return y

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        f(tf.constant(1.0))
    tape, y = tapes[0]
    with pytest.raises(RuntimeError, match="inside that function"):
        tape.gradient(y, y)


def test_variable_argument_read_in_a_loop_and_a_branch_inside_a_function():
    @tf.function
    def f(w, x, n):
        with tf.GradientTape() as tape:
            h = x
            for _ in tf.range(n):
                h = h * w
            if tf.reduce_sum(h) > 0:
                y = h * w
            else:
                y = h
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, w)

    w = tf.Variable(1.5, dtype=tf.float64)
    # loss = 3 w^4 (positive branch) or -3 w^3
    assert float(f(w, tf.constant([1.0, 2.0], tf.float64), tf.constant(3))) == 12 * 1.5 ** 3
    assert float(f(w, tf.constant([-1.0, -2.0], tf.float64), tf.constant(3))) == -9 * 1.5 ** 2
    assert f.experimental_get_tracing_count() == 1


def test_variable_argument_read_in_a_loop_of_an_eagerly_called_function():
    @tf.function
    def g(w, x, n):
        h = x
        for _ in tf.range(n):
            h = h * w
        return tf.reduce_sum(h)

    w = tf.Variable(1.5, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = g(w, tf.constant([1.0, 2.0], tf.float64), tf.constant(3))
    assert float(tape.gradient(y, w)) == 9 * 1.5 ** 2


def test_tensor_array_in_a_loop_with_a_tensor_trip_count():
    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float64, size=n)
        h = x
        for i in tf.range(n):
            h = tf.tanh(h * 1.3)
            ta = ta.write(i, h)
        return tf.reduce_sum(ta.stack() * tf.reshape(tf.cast(tf.range(1, n + 1), tf.float64),
                                                      [-1, 1]))

    def ref(a):
        total, h = 0.0, a
        for i in range(3):
            h = np.tanh(h * 1.3)
            total += (i + 1) * h.sum()
        return total
    x0 = np.array([0.1, -0.4, 0.7])
    x = tf.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _fd(ref, x0), rtol=1e-6)


def test_list_appended_in_a_tensor_loop_inside_a_training_step():
    w = tf.Variable(np.array([0.5, -0.2, 0.9]))

    @tf.function
    def step(x, n):
        with tf.GradientTape() as tape:
            outs = []
            h = x
            for _ in tf.range(n):
                h = tf.math.sin(h * w) + 0.5
                outs.append(h)
            loss = tf.reduce_sum(tf.square(tf.stack(outs)))
        return tape.gradient(loss, w)

    x0 = np.array([0.3, 0.2, -0.1])

    def ref(wv):
        total, h = 0.0, x0
        for _ in range(4):
            h = np.sin(h * wv) + 0.5
            total += np.sum(h * h)
        return total
    np.testing.assert_allclose(step(tf.constant(x0), tf.constant(4)).numpy(),
                               _fd(ref, w.numpy()), rtol=1e-6)


def test_tensor_array_read_in_a_loop():
    @tf.function
    def f(xs, n):
        ta = tf.TensorArray(tf.float64, size=n).unstack(xs)
        h = tf.zeros([2], tf.float64)
        for i in tf.range(n):
            h = tf.tanh(h + ta.read(i))
        return tf.reduce_sum(h)

    def ref(a):
        h = np.zeros(2)
        for row in a:
            h = np.tanh(h + row)
        return h.sum()
    x0 = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    x = tf.constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _fd(ref, x0), rtol=1e-6)


def test_gradient_through_a_function_whose_loop_iterates_a_dataset():
    xs = np.arange(6.0).reshape(3, 2)
    ds = tf.data.Dataset.from_tensor_slices(xs).shuffle(3)
    u = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def f():
        total = tf.constant(0.0, tf.float64)
        weight = tf.constant(1.0, tf.float64)
        for x in ds:
            total += tf.reduce_sum(x * u * u) * weight
            weight = weight * 2.0
        return total

    for _ in range(2):
        with GradientTape() as tape:
            y = f()
        g = tape.gradient(y, u).numpy()
        # the shuffled order the forward pass used: y = sum_k 2**k (x_k . u*u)
        orders = [p for p in __import__("itertools").permutations(range(3))
                  if np.isclose(sum(2 ** k * xs[i] @ (u.numpy() ** 2)
                                    for k, i in enumerate(p)), float(y))]
        assert any(np.allclose(g, sum(2 ** k * xs[i] for k, i in enumerate(p)) * 2 *
                               u.numpy()) for p in orders)


def test_tape_around_a_dataset_loop_inside_a_function():
    xs = np.arange(6.0).reshape(3, 2)
    ds = tf.data.Dataset.from_tensor_slices(xs)
    u = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            total = tf.constant(0.0, tf.float64)
            for x in ds:
                total = total * 0.5 + tf.reduce_sum(x * u * u)
        return tape.gradient(total, u)

    want = sum(0.5 ** (2 - k) * xs[k] for k in range(3)) * 2 * u.numpy()
    np.testing.assert_allclose(f().numpy(), want)


def test_gradient_through_a_function_whose_if_draws_random_numbers():
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x * tf.random.uniform([3], dtype=tf.float64)
        else:
            y = x * 2.0
        return y

    x0 = np.array([1.0, 2.0, 3.0])
    y, g = _gradient_of_call(f, x0)
    np.testing.assert_allclose(g.numpy(), y.numpy() / x0)
    _, g = _gradient_of_call(f, -x0)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0, 2.0])


def test_gradient_through_nested_calls_and_loops_uses_the_forward_draws():
    @tf.function
    def scale(x):
        return x * tf.random.uniform([3], 1.0, 2.0, dtype=tf.float64)

    @tf.function
    def f(x, n):
        if n > 0:
            for _ in tf.range(n):
                x = scale(x)
        return x

    x0 = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with GradientTape() as tape:
        tape.watch(x0)
        y = f(x0, tf.constant(2))
    np.testing.assert_allclose(tape.gradient(y, x0).numpy(), y.numpy() / x0.numpy())


@pytest.mark.parametrize("x, want", [(2.0, (12.0, 8.0, 4.5, 12.0)), (-2.0, (-2.0, 0.0, 0.0, 1.0))])
def test_second_order_through_an_if_of_an_eagerly_called_function(x, want):
    v = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def f(x):
        if x > 0:
            y = v * v * x * x
        else:
            y = x * v
        return y

    x = tf.constant(x, tf.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dv, dx = inner.gradient(y, v), inner.gradient(y, x)
    got = (dv, outer.gradient(dv, v), outer.gradient(dx, x), outer.gradient(dv, x))
    assert tuple(float(g) for g in got) == want


def test_second_order_through_a_loop_whose_branch_reads_a_variable():
    w = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def f(x):
        y = x
        for i in tf.range(3):
            if i % 2 == 0:
                y = y * x * w
            else:
                y = y + tf.sin(x)
        return y

    def reference(x, w):
        return ((x * x * w + np.sin(x)) * x * w)

    def numeric(fn, at, eps=1e-5):
        return (fn(at + eps) - fn(at - eps)) / (2 * eps)

    x = tf.constant(0.7, tf.float64)
    with GradientTape(persistent=True) as outer:
        outer.watch(x)
        with GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = f(x)
        dx, dw = inner.gradient(y, x), inner.gradient(y, w)

    def d_dx(a, b):
        return numeric(lambda v: reference(v, b), a)

    def d_dw(a, b):
        return numeric(lambda v: reference(a, v), b)

    np.testing.assert_allclose(float(y), reference(0.7, 1.5))
    np.testing.assert_allclose(float(outer.gradient(dx, x)),
                               numeric(lambda v: d_dx(v, 1.5), 0.7, 1e-4), rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(dw, w)),
                               numeric(lambda v: d_dw(0.7, v), 1.5, 1e-4), rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(dw, x)),
                               numeric(lambda v: d_dw(v, 1.5), 0.7, 1e-4), rtol=1e-6)

"""tf.keras.optimizers: each update rule against its formula written in numpy, eagerly and
inside a Function; slots made on the first apply_gradients; clipping; schedules; the guide's
two-optimizer error."""

import math

import numpy as np
import pytest

import autograph.tf as tf

GRADS = [np.array([0.5, -1.5, 2.0], np.float32), np.array([-0.25, 1.0, 0.75], np.float32),
         np.array([1.0, 0.1, -3.0], np.float32)]
START = np.array([1.0, -2.0, 0.5], np.float32)


def _run(optimizer, traced=False, grads=GRADS):
    var = tf.Variable(START)

    def step(g):
        optimizer.apply_gradients([(g, var)])

    if traced:
        step = tf.function(step)
    for g in grads:
        step(tf.constant(g))
    return var.numpy()


def sgd_reference(lr, momentum=0.0, nesterov=False):
    var, m = START.astype(np.float64), np.zeros(3)
    for g in GRADS:
        if momentum == 0:
            var = var - lr * g
            continue
        m = momentum * m - lr * g
        var = var + (momentum * m - lr * g if nesterov else m)
    return var


def adam_reference(lr=0.001, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False, decay=0.0):
    var, m, v, vhat = START.astype(np.float64), np.zeros(3), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, start=1):
        var = var - var * decay * lr
        alpha = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        vhat = np.maximum(vhat, v)
        var = var - m * alpha / (np.sqrt(vhat if amsgrad else v) + eps)
    return var


def rmsprop_reference(lr=0.001, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    var, v, mom, avg = START.astype(np.float64), np.zeros(3), np.zeros(3), np.zeros(3)
    for g in GRADS:
        v = rho * v + (1 - rho) * g * g
        avg = rho * avg + (1 - rho) * g
        denominator = v - avg * avg + eps if centered else v + eps
        increment = lr * g / np.sqrt(denominator)
        mom = momentum * mom + increment
        var = var - (mom if momentum > 0 else increment)
    return var


def adagrad_reference(lr=0.001, initial=0.1, eps=1e-7):
    var, acc = START.astype(np.float64), np.full(3, initial)
    for g in GRADS:
        acc = acc + g * g
        var = var - lr * g / np.sqrt(acc + eps)
    return var


CASES = [
    ("sgd", lambda: tf.keras.optimizers.SGD(0.1), lambda: sgd_reference(0.1)),
    ("sgd_momentum", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
     lambda: sgd_reference(0.1, 0.9)),
    ("sgd_nesterov", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
     lambda: sgd_reference(0.1, 0.9, True)),
    ("adam", lambda: tf.keras.optimizers.Adam(0.1), lambda: adam_reference(0.1)),
    ("adam_amsgrad", lambda: tf.keras.optimizers.Adam(0.1, amsgrad=True),
     lambda: adam_reference(0.1, amsgrad=True)),
    ("adamw", lambda: tf.keras.optimizers.AdamW(0.1, weight_decay=0.05),
     lambda: adam_reference(0.1, decay=0.05)),
    ("rmsprop", lambda: tf.keras.optimizers.RMSprop(0.01), lambda: rmsprop_reference(0.01)),
    ("rmsprop_centered_momentum",
     lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
     lambda: rmsprop_reference(0.01, momentum=0.5, centered=True)),
    ("adagrad", lambda: tf.keras.optimizers.Adagrad(0.1), lambda: adagrad_reference(0.1)),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("make, reference", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_optimizer_follows_its_update_formula(make, reference, traced):
    np.testing.assert_allclose(_run(make(), traced), reference(), rtol=1e-5, atol=1e-6)


def test_defaults_are_keras_3s():
    adam = tf.keras.optimizers.Adam()
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    assert float(adam.learning_rate) == pytest.approx(0.001)
    sgd = tf.keras.optimizers.SGD()
    assert (sgd.momentum, sgd.nesterov) == (0.0, False)
    assert float(sgd.learning_rate) == pytest.approx(0.01)
    assert tf.keras.optimizers.AdamW().weight_decay == 0.004
    rms = tf.keras.optimizers.RMSprop()
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
    assert tf.keras.optimizers.Adagrad().initial_accumulator_value == 0.1
    np.testing.assert_allclose(_run(tf.keras.optimizers.Adam()), adam_reference(),
                               rtol=1e-6)


def test_slots_are_created_on_the_first_apply_and_iterations_counts_updates():
    opt = tf.keras.optimizers.Adam()
    assert [v.path for v in opt.variables] == ["adam/iteration", "adam/learning_rate"]
    assert not opt.built
    w = tf.Variable([1.0, 2.0], name="w")
    opt.apply_gradients(zip([tf.constant([0.1, 0.2])], [w]))
    assert opt.built
    # a tf.Variable's slots are named after its full name ('w:0'), as Keras names them
    assert [v.name for v in opt.variables][2:] == ["w_0_momentum", "w_0_velocity"]
    opt.apply_gradients(zip([tf.constant([0.1, 0.2])], [w]))
    assert int(opt.iterations.numpy()) == 2
    assert opt.iterations.dtype == tf.int64
    assert len(opt.variables) == 4


def test_an_optimizer_is_a_tf_module():
    assert isinstance(tf.keras.optimizers.SGD(), tf.Module)
    assert isinstance(tf.keras.optimizers.SGD(), tf.keras.optimizers.Optimizer)


def test_a_variable_the_optimizer_was_not_built_for_is_a_clear_error():
    opt = tf.keras.optimizers.SGD(momentum=0.5)
    opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0))])
    with pytest.raises(KeyError, match="cannot recognize variable"):
        opt.apply_gradients([(tf.constant(1.0), tf.Variable(2.0, name="other"))])


def test_missing_gradients_are_skipped_with_a_warning_and_all_missing_is_an_error():
    opt = tf.keras.optimizers.SGD(1.0)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(1.0, name="b")
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        opt.apply_gradients([(tf.constant(0.5), a), (None, b)])
    assert (a.numpy(), b.numpy()) == (0.5, 1.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.keras.optimizers.SGD().apply_gradients([(None, b)])


def test_clipnorm_clips_each_gradient_and_global_clipnorm_clips_them_together():
    g1, g2 = np.array([3.0, 4.0], np.float32), np.array([0.0, 12.0], np.float32)
    for kwargs, expected in [
            ({"clipnorm": 1.0}, [g1 / 5.0, g2 / 12.0]),
            ({"global_clipnorm": 1.0}, [g1 / 13.0, g2 / 13.0]),
            ({"clipvalue": 2.0}, [np.clip(g1, -2, 2), np.clip(g2, -2, 2)])]:
        a, b = tf.Variable(np.zeros(2, np.float32)), tf.Variable(np.zeros(2, np.float32))
        tf.keras.optimizers.SGD(1.0, **kwargs).apply_gradients(
            [(tf.constant(g1), a), (tf.constant(g2), b)])
        np.testing.assert_allclose(-a.numpy(), expected[0], rtol=1e-6)
        np.testing.assert_allclose(-b.numpy(), expected[1], rtol=1e-6)


def test_only_one_clipping_option_may_be_set():
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue`"):
        tf.keras.optimizers.SGD(clipnorm=1.0, clipvalue=1.0)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="not recognized by the optimizer: lr_decay"):
        tf.keras.optimizers.Adam(lr_decay=0.1)
    with pytest.raises(ValueError, match="`momentum` must be a float between"):
        tf.keras.optimizers.SGD(momentum=1.5)
    with pytest.raises(ValueError, match="`weight_decay` must be a float"):
        tf.keras.optimizers.AdamW(weight_decay=None)


def test_learning_rate_can_be_set_between_steps():
    opt = tf.keras.optimizers.SGD(0.5)
    var = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), var)])
    opt.learning_rate = 0.25
    opt.apply_gradients([(tf.constant(1.0), var)])
    assert var.numpy() == pytest.approx(0.25)


def test_minimize_takes_a_callable_loss_or_a_tensor_and_its_tape():
    var = tf.Variable(3.0)
    opt = tf.keras.optimizers.SGD(0.1)
    opt.minimize(lambda: var * var, [var])
    assert var.numpy() == pytest.approx(3.0 - 0.1 * 6.0)
    with tf.GradientTape() as tape:
        loss = var * var
    opt.minimize(loss, [var], tape=tape)
    assert var.numpy() == pytest.approx(2.4 - 0.1 * 4.8)
    with pytest.raises(ValueError, match="`tape` is required"):
        opt.minimize(var * var, [var])


# -- schedules -------------------------------------------------------------------------------

def _rates(optimizer, steps):
    var = tf.Variable(0.0)
    rates = []
    for _ in range(steps):
        rates.append(float(optimizer.learning_rate))
        optimizer.apply_gradients([(tf.constant(1.0), var)])
    return rates


def test_exponential_decay_schedule():
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2,
                                                               decay_rate=0.5)
    np.testing.assert_allclose(_rates(tf.keras.optimizers.SGD(schedule), 4),
                               [0.1 * 0.5 ** (s / 2) for s in range(4)], rtol=1e-6)
    stairs = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    np.testing.assert_allclose([float(stairs(s)) for s in range(5)],
                               [0.1, 0.1, 0.05, 0.05, 0.025], rtol=1e-6)


def test_piecewise_constant_decay_schedule():
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([1, 3], [1.0, 0.5, 0.1])
    assert [float(schedule(s)) for s in range(5)] == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.1])
    with pytest.raises(ValueError, match="1 less than the length of values"):
        tf.keras.optimizers.schedules.PiecewiseConstantDecay([1, 2], [1.0, 0.5])


def test_cosine_decay_schedule_with_and_without_warmup():
    schedule = tf.keras.optimizers.schedules.CosineDecay(1.0, decay_steps=4, alpha=0.1)
    expected = [(0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 4) / 4)) + 0.1) for s in range(6)]
    assert [float(schedule(s)) for s in range(6)] == pytest.approx(expected, rel=1e-6)
    warm = tf.keras.optimizers.schedules.CosineDecay(0.0, 4, warmup_target=1.0,
                                                      warmup_steps=2)
    expected = [0.0, 0.5] + [0.5 * (1 + math.cos(math.pi * s / 4)) for s in range(4)]
    assert [float(warm(s)) for s in range(6)] == pytest.approx(expected, abs=1e-6)
    assert isinstance(warm, tf.keras.optimizers.schedules.LearningRateSchedule)


def test_a_schedule_drives_updates_inside_a_function():
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([0], [1.0, 0.5])
    opt = tf.keras.optimizers.SGD(schedule)
    var = tf.Variable(0.0)
    step = tf.function(lambda: opt.apply_gradients([(tf.constant(1.0), var)]))
    step()
    step()
    assert var.numpy() == pytest.approx(-1.5)


# -- the guide's "Using with multiple Keras optimizers" ------------------------------------------

def _train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


def test_a_function_meeting_a_second_optimizer_raises_the_guides_error():
    opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
    train_step = tf.function(_train_step)
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    train_step(w, x, y, opt1)
    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables "
                                         "created on the first call"):
        train_step(w, x, y, opt2)
    assert not opt2.built and len(opt2.variables) == 2  # nothing half-made


def test_one_concrete_function_per_optimizer_is_the_guides_workaround():
    opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    train_step_1 = tf.function(_train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = tf.function(_train_step).get_concrete_function(w, x, y, opt2)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)
        else:
            train_step_2(w, x, y)
    assert int(opt1.iterations.numpy()) == 5 and int(opt2.iterations.numpy()) == 5
    assert w.numpy() < 2.0

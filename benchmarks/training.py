"""Training workloads: a gradient step of a small network, with GradientTape.

`mlp_train_step`: one SGD step of a 2-layer MLP (64 -> 128 relu -> 10, mean squared error)
on a 256x64 float32 batch: forward pass, gradients of the loss with respect to the four
parameters, and `assign_sub` updates. It is written once with the tape (`make_train_step`)
and run eagerly and as a cached `tf.function` (the tape inside the Function, so the
gradient is part of the compiled graph), against the same step with hand-written numpy
backpropagation. Every variant starts from the same parameters, so the first call's loss
(the result check) must agree; the gradients themselves are checked against numpy's when
the workload is built.
"""

import numpy as np

import autograph.tf as ag_tf
from benchmarks.workload import (
    Target,
    Variant,
    Workload,
    compiled_variants,
    jax,
    tensorflow,
    traced_once,
)

GROUP = "training"

BATCH, FEATURES, HIDDEN, OUTPUTS = 256, 64, 128, 10
LEARNING_RATE = 0.01


def _initial_values():
    rng = np.random.RandomState(0)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, OUTPUTS)).astype(np.float32)
    params = [
        (rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (rng.standard_normal((HIDDEN, OUTPUTS)) / np.sqrt(HIDDEN)).astype(np.float32),
        np.zeros(OUTPUTS, np.float32),
    ]
    return x, y, params


def make_train_step(tf, variables, learning_rate=LEARNING_RATE):
    """The training step, written with `tf`'s ops, tape and variables."""
    w1, b1, w2, b2 = variables

    def train_step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            out = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.square(out - y))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(learning_rate * g)
        return loss
    return train_step


def numpy_gradients(x, y, params):
    """Loss and gradients of the MLP, by hand."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    diff = h @ w2 + b2 - y
    loss = np.mean(np.square(diff))
    d_out = diff * np.float32(2.0 / diff.size)
    gw2 = h.T @ d_out
    gb2 = d_out.sum(axis=0)
    d_pre = (d_out @ w2.T) * (pre > 0)
    gw1 = x.T @ d_pre
    gb1 = d_pre.sum(axis=0)
    return loss, [gw1, gb1, gw2, gb2]


def make_numpy_train_step(params, learning_rate=LEARNING_RATE):
    """The same step with numpy: parameters updated in place (`params` is a list)."""
    lr = np.float32(learning_rate)

    def train_step(x, y):
        loss, grads = numpy_gradients(x, y, params)
        for i, g in enumerate(grads):
            params[i] = params[i] - lr * g
        return loss
    return train_step


def _check_gradients(x, y, params):
    """The tape's gradients (eager and in a Function) equal numpy's, or raise."""
    _, want = numpy_gradients(x, y, params)
    for mode in ("eager", "function"):
        variables = [ag_tf.Variable(p) for p in params]
        w1, b1, w2, b2 = variables

        def grads(x, y):
            with ag_tf.GradientTape() as tape:
                h = ag_tf.nn.relu(ag_tf.matmul(x, w1) + b1)
                loss = ag_tf.reduce_mean(ag_tf.square(ag_tf.matmul(h, w2) + b2 - y))
            return tape.gradient(loss, variables)
        fn = ag_tf.function(grads) if mode == "function" else grads
        for g, w in zip(fn(ag_tf.constant(x), ag_tf.constant(y)), want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-6)


def _build_mlp_train_step():
    x, y, params = _initial_values()
    _check_gradients(x, y, params)
    eager_step = make_train_step(ag_tf, [ag_tf.Variable(p) for p in params])
    function = ag_tf.function(make_train_step(ag_tf, [ag_tf.Variable(p) for p in params]))
    tx, ty = ag_tf.constant(x), ag_tf.constant(y)
    variants = [
        Variant("numpy", make_numpy_train_step([p.copy() for p in params]), (x, y),
                note="hand-written numpy forward, backpropagation and update"),
        Variant("eager", eager_step, (tx, ty), note="autograph.tf ops and GradientTape, eagerly"),
        Variant("function", function, (tx, ty), verify=traced_once(function),
                note="the same step as a cached autograph.tf.function (tape inside)"),
    ]
    made = {}  # id(Function) -> its variables, to put them back after the untimed first call

    def make_compiled(backend):
        variables = [ag_tf.Variable(p) for p in params]
        compiled = ag_tf.function(make_train_step(ag_tf, variables), backend=backend)
        made[id(compiled)] = variables
        return compiled

    def reset(compiled):
        for variable, value in zip(made[id(compiled)], params):
            variable.assign(value)
    executor = make_compiled("numpy")
    executor(tx, ty)
    reset(executor)
    variants.append(Variant("function_executor", executor, (tx, ty),
                            note="cached autograph.tf.function(backend='numpy'): the executor"))
    variants += compiled_variants(make_compiled, (tx, ty), reset=reset)
    tf = tensorflow()
    if tf is not None:
        tf_x, tf_y = tf.constant(x), tf.constant(y)
        variants.append(Variant(
            "tensorflow.eager", make_train_step(tf, [tf.Variable(p) for p in params]),
            (tf_x, tf_y), note="TensorFlow, eagerly"))
        variants.append(Variant(
            "tensorflow.function",
            tf.function(make_train_step(tf, [tf.Variable(p) for p in params])),
            (tf_x, tf_y), note="TensorFlow tf.function"))
    jax_module, jnp = jax()
    if jax_module is not None:
        variants.append(Variant("jax.jit", _jax_train_step(jax_module, jnp, params),
                                (jnp.asarray(x), jnp.asarray(y)),
                                note="jax.value_and_grad under jax.jit, result awaited"))
    return variants


def _jax_train_step(jax_module, jnp, params):
    state = [jnp.asarray(p) for p in params]

    def loss_fn(p, x, y):
        h = jnp.maximum(x @ p[0] + p[1], 0)
        return jnp.mean(jnp.square(h @ p[2] + p[3] - y))

    @jax_module.jit
    def update(p, x, y):
        loss, grads = jax_module.value_and_grad(loss_fn)(p, x, y)
        return loss, [v - LEARNING_RATE * g for v, g in zip(p, grads)]

    def train_step(x, y):
        loss, new = update(state, x, y)
        state[:] = new
        return loss.block_until_ready()
    return train_step


MLP_TRAIN_STEP = Workload(
    name="mlp_train_step",
    description="One SGD step of a 2-layer MLP (%d -> %d relu -> %d, mean squared error) on "
                "a %dx%d float32 batch: forward, GradientTape gradients of the 4 parameters, "
                "assign_sub updates." % (FEATURES, HIDDEN, OUTPUTS, BATCH, FEATURES),
    build=_build_mlp_train_step,
    targets=[Target("eager", "function", at_least=1.5),
             Target("function", "numpy", at_most=1.5), Target("function_numba", "numpy"),
             Target("function_numba", "function_executor", at_most=1.0),
             Target("function_jax", "jax.jit")],
    rtol=1e-5, atol=1e-6,
    group=GROUP,
)


# -- a recurrent network: the gradient of a converted loop --------------------------------------

STEPS, RNN_BATCH, RNN_FEATURES, RNN_HIDDEN = 16, 32, 8, 32


def _rnn_values():
    rng = np.random.RandomState(1)
    xs = rng.standard_normal((STEPS, RNN_BATCH, RNN_FEATURES)).astype(np.float32)
    y = rng.standard_normal((RNN_BATCH, 1)).astype(np.float32)
    params = [
        (rng.standard_normal((RNN_FEATURES, RNN_HIDDEN)) / np.sqrt(RNN_FEATURES)).astype(
            np.float32),
        (rng.standard_normal((RNN_HIDDEN, RNN_HIDDEN)) / np.sqrt(RNN_HIDDEN)).astype(np.float32),
        np.zeros(RNN_HIDDEN, np.float32),
        (rng.standard_normal((RNN_HIDDEN, 1)) / np.sqrt(RNN_HIDDEN)).astype(np.float32),
    ]
    return xs, y, params


def make_rnn_train_step(tf, variables, learning_rate=LEARNING_RATE):
    """A tanh RNN over the sequence `xs` (a loop over a tensor: one While op in a Function),
    a linear read-out of the last state, mean squared error, SGD."""
    wx, wh, b, wo = variables

    def rnn_train_step(xs, y):
        with tf.GradientTape() as tape:
            h = tf.zeros([RNN_BATCH, RNN_HIDDEN])
            for x in xs:
                h = tf.tanh(tf.matmul(x, wx) + tf.matmul(h, wh) + b)
            loss = tf.reduce_mean(tf.square(tf.matmul(h, wo) - y))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(learning_rate * g)
        return loss
    return rnn_train_step


def numpy_rnn_gradients(xs, y, params):
    """Loss and gradients of the RNN by hand (backpropagation through time)."""
    wx, wh, b, wo = params
    states = [np.zeros((RNN_BATCH, RNN_HIDDEN), np.float32)]
    for x in xs:
        states.append(np.tanh(x @ wx + states[-1] @ wh + b))
    diff = states[-1] @ wo - y
    loss = np.mean(np.square(diff))
    d_out = diff * np.float32(2.0 / diff.size)
    gwo = states[-1].T @ d_out
    dh = d_out @ wo.T
    gwx, gwh, gb = np.zeros_like(wx), np.zeros_like(wh), np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        d_pre = dh * (1 - np.square(states[t + 1]))
        gwx += xs[t].T @ d_pre
        gwh += states[t].T @ d_pre
        gb += d_pre.sum(axis=0)
        dh = d_pre @ wh.T
    return loss, [gwx, gwh, gb, gwo]


def make_numpy_rnn_train_step(params, learning_rate=LEARNING_RATE):
    lr = np.float32(learning_rate)

    def rnn_train_step(xs, y):
        loss, grads = numpy_rnn_gradients(xs, y, params)
        for i, g in enumerate(grads):
            params[i] = params[i] - lr * g
        return loss
    return rnn_train_step


def _build_rnn_train_step():
    xs, y, params = _rnn_values()
    _, want = numpy_rnn_gradients(xs, y, params)
    check_variables = [ag_tf.Variable(p) for p in params]
    check = ag_tf.function(make_rnn_train_step(ag_tf, check_variables, learning_rate=1.0))
    check(ag_tf.constant(xs), ag_tf.constant(y))
    for v, p, g in zip(check_variables, params, want):  # p - 1.0 * gradient
        np.testing.assert_allclose(p - v.numpy(), g, rtol=1e-3, atol=1e-6)
    function = ag_tf.function(make_rnn_train_step(ag_tf, [ag_tf.Variable(p) for p in params]))
    txs, ty = ag_tf.constant(xs), ag_tf.constant(y)
    variants = [
        Variant("numpy", make_numpy_rnn_train_step([p.copy() for p in params]), (xs, y),
                note="hand-written numpy, backpropagation through time"),
        Variant("eager", make_rnn_train_step(ag_tf, [ag_tf.Variable(p) for p in params]),
                (txs, ty), note="autograph.tf ops and GradientTape, eagerly"),
        Variant("function", function, (txs, ty), verify=traced_once(function),
                note="cached autograph.tf.function: one While op and its WhileGrad"),
    ]
    tf = tensorflow()
    if tf is not None:
        variants.append(Variant(
            "tensorflow.function",
            tf.function(make_rnn_train_step(tf, [tf.Variable(p) for p in params])),
            (tf.constant(xs), tf.constant(y)), note="TensorFlow tf.function"))
    return variants


RNN_TRAIN_STEP = Workload(
    name="rnn_train_step",
    description="One SGD step of a tanh RNN (%d steps, batch %d, %d -> %d) whose loop over "
                "the input sequence is a converted `for x in xs`: in a Function, one While op "
                "whose gradient re-runs the loop and then its body's VJP in reverse."
                % (STEPS, RNN_BATCH, RNN_FEATURES, RNN_HIDDEN),
    build=_build_rnn_train_step,
    targets=[Target("eager", "function"), Target("function", "numpy")],
    rtol=1e-5, atol=1e-6,
    group=GROUP,
)

WORKLOADS = [MLP_TRAIN_STEP, RNN_TRAIN_STEP]

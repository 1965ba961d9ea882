"""Accumulating values in a loop: the guide's `dynamic_rnn` with a TensorArray.

`dynamic_rnn`: batch 8, 200 time steps, 32 features, `rnn_step = tanh(inp @ W + state @ U)`
with 32x32 weights. Written once as a function of an ops namespace (`make_dynamic_rnn`), run
with autograph.tf eagerly and as a cached `tf.function` (the `for i in tf.range(...)` loop is
one While op carrying the TensorArray), and with hand-written numpy (a Python loop filling a
preallocated array).
"""

import numpy as np

import autograph.tf as ag_tf
from benchmarks.workload import (
    Target,
    Variant,
    Workload,
    compiled_variants,
    jax,
    jax_blocking,
    tensorflow,
    traced_once,
)

GROUP = "accumulation"

BATCH, SEQ_LEN, FEATURES = 8, 200, 32


def _inputs():
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, (BATCH, SEQ_LEN, FEATURES)).astype(np.float32)
    initial = np.zeros((BATCH, FEATURES), np.float32)
    w = (rng.standard_normal((FEATURES, FEATURES)) / np.sqrt(FEATURES)).astype(np.float32)
    u = (rng.standard_normal((FEATURES, FEATURES)) / np.sqrt(FEATURES)).astype(np.float32)
    return data, initial, w, u


def make_dynamic_rnn(tf, w, u):
    """The guide's dynamic_rnn, with the step `tanh(inp @ W + state @ U)`."""
    def rnn_step(inp, state):
        return tf.tanh(tf.matmul(inp, w) + tf.matmul(state, u))

    def dynamic_rnn(input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])  # time-major
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])
    return dynamic_rnn


def make_numpy_dynamic_rnn(w, u):
    """The same recurrence by hand: a Python loop writing into a preallocated array."""
    def dynamic_rnn(input_data, initial_state):
        steps = np.transpose(input_data, (1, 0, 2))
        out = np.empty((steps.shape[0],) + initial_state.shape, np.float32)
        state = initial_state
        for i in range(steps.shape[0]):
            state = np.tanh(steps[i] @ w + state @ u)
            out[i] = state
        return np.transpose(out, (1, 0, 2))
    return dynamic_rnn


def _build():
    data, initial, w, u = _inputs()
    tensors = (ag_tf.constant(data), ag_tf.constant(initial))
    eager_w, eager_u = ag_tf.constant(w), ag_tf.constant(u)
    function = ag_tf.function(make_dynamic_rnn(ag_tf, eager_w, eager_u))

    variants = [
        Variant("numpy", make_numpy_dynamic_rnn(w, u), (data, initial),
                note="hand-written numpy loop"),
        Variant("eager", make_dynamic_rnn(ag_tf, eager_w, eager_u), tensors,
                note="autograph.tf ops and TensorArray, eagerly"),
        Variant("function", function, tensors, verify=traced_once(function),
                note="cached autograph.tf.function (one While op)"),
    ]
    variants += compiled_variants(lambda backend: ag_tf.function(
        make_dynamic_rnn(ag_tf, eager_w, eager_u), backend=backend), tensors)
    tf = tensorflow()
    if tf is not None:
        variants.append(Variant(
            "tensorflow.function", tf.function(make_dynamic_rnn(tf, tf.constant(w),
                                                                tf.constant(u))),
            (tf.constant(data), tf.constant(initial)), note="TensorFlow tf.function"))
    jax_module, jnp = jax()
    if jax_module is not None:
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(
            make_jax_dynamic_rnn(jax_module, jnp, w, u))), (data, initial),
            note="jax.jit of lax.scan, result awaited"))
    return variants


def make_jax_dynamic_rnn(jax_module, jnp, w, u):
    """The same recurrence by hand in JAX: `lax.scan` over the time-major steps."""
    def dynamic_rnn(input_data, initial_state):
        def step(state, inp):
            state = jnp.tanh(inp @ w + state @ u)
            return state, state
        _, states = jax_module.lax.scan(step, initial_state, jnp.transpose(input_data,
                                                                           (1, 0, 2)))
        return jnp.transpose(states, (1, 0, 2))
    return dynamic_rnn


DYNAMIC_RNN = Workload(
    name="dynamic_rnn",
    description="The guide's dynamic_rnn: batch %d, %d steps, %d features, "
                "tanh(inp @ W + state @ U), states accumulated in a TensorArray."
                % (BATCH, SEQ_LEN, FEATURES),
    build=_build,
    targets=[Target("function", "numpy", at_most=1.5), Target("eager", "function"),
             Target("function_numba", "jax.jit", at_most=1.0),
             Target("function_jax", "jax.jit", at_most=1.2)],
    rtol=1e-5, atol=1e-6,
    group=GROUP,
)

WORKLOADS = [DYNAMIC_RNN]

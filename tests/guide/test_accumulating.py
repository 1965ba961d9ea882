"""Guide section "Accumulating values in a loop": the dynamic_rnn example with tf.TensorArray,
its values (against numpy) and static shapes; and the same accumulation written with a
Python list, which the project stages as a TensorArray (DESIGN 'beyond TensorFlow')."""

import numpy as np

import autograph.tf as tf

batch_size = 2
seq_len = 3
feature_size = 4


def rnn_step(inp, state):
    return inp + state


traces = []


@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    traces.append("dynamic_rnn")
    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]

    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        traces.append("loop body")
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def numpy_rnn(input_data, initial_state):
    out = []
    state = initial_state
    for t in range(input_data.shape[1]):
        state = input_data[:, t] + state
        out.append(state)
    return np.stack(out, axis=1)


def test_dynamic_rnn_gives_the_running_sums():
    data = tf.random.uniform([batch_size, seq_len, feature_size])
    result = dynamic_rnn(rnn_step, data, tf.zeros([batch_size, feature_size]))
    assert result.shape == (2, 3, 4)
    assert result.dtype is tf.float32
    np.testing.assert_allclose(result.numpy(), numpy_rnn(data.numpy(), np.zeros([2, 4])),
                               rtol=1e-6)


def test_dynamic_rnn_has_a_static_shape_and_one_while_loop():
    del traces[:]
    fresh = tf.function(dynamic_rnn.python_function)
    data = tf.TensorSpec([batch_size, seq_len, feature_size], tf.float32)
    cf = fresh.get_concrete_function(rnn_step, data, tf.TensorSpec([2, 4], tf.float32))
    assert cf.structured_outputs.shape == (2, 3, 4)
    ops = [node.op for node in cf.graph.as_graph_def().node]
    assert ops.count("While") + ops.count("StatelessWhile") == 1
    assert "TensorArrayStack" in ops
    assert traces == ["dynamic_rnn", "loop body"]  # the loop body is traced once


def test_dynamic_rnn_runs_the_cached_graph_with_new_data():
    rng = np.random.RandomState(1)
    for _ in range(3):
        data = rng.rand(batch_size, seq_len, feature_size).astype(np.float32)
        state = rng.rand(batch_size, feature_size).astype(np.float32)
        result = dynamic_rnn(rnn_step, tf.constant(data), tf.constant(state))
        np.testing.assert_allclose(result.numpy(), numpy_rnn(data, state), rtol=1e-6)


def test_dynamic_rnn_with_a_longer_sequence_and_a_nonlinear_step():
    def tanh_step(inp, state):
        return tf.tanh(inp + 0.5 * state)

    data = tf.random.uniform([3, 10, 5])
    result = dynamic_rnn(tanh_step, data, tf.zeros([3, 5]))
    assert result.shape == (3, 10, 5)
    expected = []
    state = np.zeros([3, 5], np.float32)
    for t in range(10):
        state = np.tanh(data.numpy()[:, t] + 0.5 * state)
        expected.append(state)
    np.testing.assert_allclose(result.numpy(), np.stack(expected, axis=1), rtol=1e-5)


def test_dynamic_rnn_eagerly_gives_the_same():
    data = tf.random.uniform([batch_size, seq_len, feature_size])
    initial = tf.zeros([batch_size, feature_size])
    graph_result = dynamic_rnn(rnn_step, data, initial)
    tf.config.run_functions_eagerly(True)
    try:
        eager_result = dynamic_rnn(rnn_step, data, initial)
    finally:
        tf.config.run_functions_eagerly(False)
    np.testing.assert_allclose(eager_result.numpy(), graph_result.numpy(), rtol=1e-6)


# -- the same with a Python list (beyond TensorFlow) ----------------------------------------------


@tf.function
def dynamic_rnn_with_a_list(rnn_step, input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    states = []
    state = initial_state
    for i in tf.range(tf.shape(input_data)[0]):
        state = rnn_step(input_data[i], state)
        states.append(state)
    return tf.transpose(tf.stack(states), [1, 0, 2])


def test_a_python_list_accumulates_like_the_tensor_array():
    data = tf.random.uniform([batch_size, seq_len, feature_size])
    result = dynamic_rnn_with_a_list(rnn_step, data, tf.zeros([batch_size, feature_size]))
    np.testing.assert_allclose(result.numpy(), numpy_rnn(data.numpy(), np.zeros([2, 4])),
                               rtol=1e-6)
    cf = dynamic_rnn_with_a_list.get_concrete_function(
        rnn_step, tf.TensorSpec([2, None, 4], tf.float32), tf.TensorSpec([2, 4], tf.float32))
    assert cf.structured_outputs.shape.as_list() == [2, None, 4]
    longer = dynamic_rnn_with_a_list(rnn_step, tf.ones([2, 5, 4]), tf.zeros([2, 4]))
    np.testing.assert_allclose(longer.numpy()[:, :, 0], [[1, 2, 3, 4, 5]] * 2)


def test_the_list_version_matches_plain_python():
    @tf.function
    def squares(n):
        out = []
        for i in tf.range(n):
            out.append(i * i)
        return tf.stack(out)

    def plain(n):
        out = []
        for i in range(n):
            out.append(i * i)
        return out

    for n in (1, 4, 7):
        assert squares(tf.constant(n)).numpy().tolist() == plain(n)
    assert squares.experimental_get_tracing_count() == 1

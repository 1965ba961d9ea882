"""tf.keras.Sequential: a stack of layers that builds on first call or from
`build(input_shape)`, exposes its layers' variables, trains with an optimizer inside a
Function, and prints Keras's summary table."""

import numpy as np
import pytest

import autograph.tf as tf


def _mlp():
    return tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"),
                                tf.keras.layers.Dropout(0.5),
                                tf.keras.layers.Dense(2)])


def test_calling_a_sequential_calls_each_layer_in_order():
    model = _mlp()
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    out = model(x)
    first, _, last = model.layers
    w1, b1 = first.get_weights()
    w2, b2 = last.get_weights()
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-5)
    assert [v.shape for v in model.trainable_variables] == [(4, 8), (8,), (8, 2), (2,)]
    assert isinstance(model, tf.keras.layers.Layer)
    assert tf.keras.models.Sequential is tf.keras.Sequential


def test_training_is_passed_to_the_layers_that_take_it():
    model = tf.keras.Sequential([tf.keras.layers.Dropout(0.5, seed=3)])
    x = np.ones((20, 20), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert (model(x, training=True).numpy() == 0).any()


def test_build_makes_the_weights_from_a_shape_with_an_unknown_batch():
    model = _mlp()
    model.build((None, 4))
    assert model.built and len(model.weights) == 4
    assert model(np.ones((5, 4), np.float32)).shape == (5, 2)
    with_shape = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])
    assert with_shape.built and len(with_shape.weights) == 2


def test_add_pop_and_bad_layers():
    model = tf.keras.Sequential()
    model.add(tf.keras.layers.Dense(2, name="a"))
    with pytest.raises(ValueError, match="should have unique names"):
        model.add(tf.keras.layers.Dense(2, name="a"))
    with pytest.raises(TypeError, match="Only instances of `keras.Layer`"):
        model.add(lambda x: x)
    assert model.pop().name == "a" and model.layers == []


def test_a_sequential_trains_inside_a_function():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.build((None, 2))
    model.set_weights([np.zeros((2, 1), np.float32), np.zeros(1, np.float32)])
    optimizer = tf.keras.optimizers.SGD(0.02)
    loss_fn = tf.keras.losses.MeanSquaredError()
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[1.0], [2.0]])

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(train_step(x, y)) for _ in range(100)]
    assert losses[0] == pytest.approx(2.5)
    assert losses[-1] < 0.1 * losses[0]
    # the first step's gradient, by hand: d/dw mean((xw + b - y)^2) at w = b = 0
    fresh = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    fresh.build((None, 2))
    fresh.set_weights([np.zeros((2, 1), np.float32), np.zeros(1, np.float32)])
    tf.keras.optimizers.SGD(0.1).minimize(lambda: loss_fn(y, fresh(x)),
                                          fresh.trainable_variables)
    expected = 0.1 * (2 / 2) * (np.array([[1, 2], [3, 4]]).T @ np.array([[1], [2]]))
    np.testing.assert_allclose(fresh.get_weights()[0], expected, rtol=1e-5)


def test_a_function_meeting_a_second_unbuilt_model_raises_the_guides_error():
    @tf.function
    def predict(model, x):
        return model(x)

    x = tf.ones([1, 3])
    predict(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        predict(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)
    built = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    built.build((None, 3))  # the guide's remedy: build before the Function meets it
    assert tf.function(lambda m, v: m(v))(built, x).shape == (1, 2)


def test_summary_prints_keras_table(capsys):
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(10)], name="mlp")
    model.build((None, 4))
    model.summary()
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == 'Model: "mlp"'
    assert "┃ Layer (type)" in lines[2] and "Output Shape" in lines[2]
    dense_row = next(line for line in lines if line.startswith("│ dense"))
    assert "(Dense)" in dense_row and "(None, 64)" in dense_row and dense_row.endswith(
        "320 │")
    assert any("(BatchNormalization)" in line for line in lines)  # wrapped onto its own line
    assert " Total params: 1,226 (4.79 KB)" in lines
    assert " Trainable params: 1,098 (4.29 KB)" in lines
    assert " Non-trainable params: 128 (512.00 B)" in lines
    assert len({len(line) for line in lines[1:-3]}) == 1  # every table line equally wide


def test_summary_of_an_unbuilt_model_marks_its_layers_unbuilt():
    lines = []
    tf.keras.Sequential([tf.keras.layers.Dense(2)]).summary(print_fn=lines.append)
    assert any("0 (unbuilt)" in line and "?" in line for line in lines)


def _table_widths(lines):
    top = next(line for line in lines if line.startswith("┏"))
    return len(top), [len(part) for part in top[1:-1].split("┳")]


def test_summary_is_as_wide_as_keras_draws_it_for_the_console(monkeypatch):
    # Keras: 88 columns (108 with "Connected to"), at most the console's width less 4,
    # its rich table taking the borders back from the columns evenly
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    x = tf.keras.Input((2,))
    graph = tf.keras.Model(x, [tf.keras.layers.Dense(1)(x), tf.keras.layers.Dense(1)(x)])
    for columns, chain, connected in [("80", (76, [33, 24, 15]), (76, [21, 19, 12, 19])),
                                      ("200", (88, [38, 29, 17]), (108, [31, 27, 17, 28]))]:
        monkeypatch.setenv("COLUMNS", columns)
        lines = []
        model.summary(print_fn=lines.append)
        assert _table_widths(lines) == chain
        assert len({len(line) for line in lines[1:-3]}) == 1
        lines = []
        graph.summary(print_fn=lines.append)
        assert _table_widths(lines) == connected
    lines = []
    model.summary(line_length=60, positions=[0.5, 0.75, 1.0], print_fn=lines.append)
    assert _table_widths(lines) == (60, [29, 13, 14])

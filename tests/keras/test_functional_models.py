"""The functional API: tf.keras.Input, layers called on Keras tensors, and
tf.keras.Model(inputs, outputs) with several inputs and outputs, replayed on real tensors,
eagerly and inside a Function, and its summary with the "Connected to" column."""

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
RNG = np.random.default_rng(5)


def test_input_is_a_keras_tensor_with_a_none_batch_dimension():
    x = keras.Input(shape=(4,), name="features")
    assert isinstance(x, keras.KerasTensor)
    assert x.shape == (None, 4) and x.dtype == tf.float32
    assert repr(x) == ("<KerasTensor shape=(None, 4), dtype=float32, sparse=False, "
                       "ragged=False, name=features>")
    assert keras.Input(batch_shape=(2, 3), dtype="int32").shape == (2, 3)
    assert keras.layers.Input is keras.Input
    with pytest.raises(TypeError, match="symbolic"):
        np.asarray(x)


def test_a_layer_called_on_keras_tensors_returns_keras_tensors_of_its_output_shape():
    x = keras.Input(shape=(6, 6, 1))
    conv = keras.layers.Conv2D(2, 3)
    h = conv(x)
    assert isinstance(h, keras.KerasTensor) and h.shape == (None, 4, 4, 2)
    assert conv.built and [w.shape for w in conv.weights] == [(3, 3, 1, 2), (2,)]
    flat = keras.layers.Flatten()(h)
    assert flat.shape == (None, 32)
    assert (flat * 2.0 + 1.0).shape == (None, 32)  # operators record layers too


def _two_in_two_out():
    a = keras.Input((4,), name="a")
    b = keras.Input((2,), name="b")
    hidden = keras.layers.Dense(5, activation="relu", name="hidden")(a)
    joined = keras.layers.Concatenate(name="joined")([hidden, b])
    first = keras.layers.Dense(3, name="first")(joined)
    second = keras.layers.Dense(1, name="second")(hidden)
    return keras.Model([a, b], [first, second], name="two")


def test_a_model_of_two_inputs_and_outputs_replays_its_layers_on_real_tensors():
    model = _two_in_two_out()
    assert isinstance(model, keras.Model) and model.name == "two"
    assert [layer.name for layer in model.layers] == ["a", "hidden", "b", "joined", "first",
                                                      "second"]
    assert isinstance(model.layers[0], keras.layers.InputLayer)
    assert keras.layers.InputLayer is keras.InputLayer
    assert keras.models.Model is keras.Model
    xa = RNG.normal(size=(3, 4)).astype(np.float32)
    xb = RNG.normal(size=(3, 2)).astype(np.float32)
    first, second = model([xa, xb])
    w_h, b_h = model.get_layer("hidden").get_weights()
    w_1, b_1 = model.get_layer("first").get_weights()
    w_2, b_2 = model.get_layer("second").get_weights()
    hidden = np.maximum(xa @ w_h + b_h, 0)
    np.testing.assert_allclose(first.numpy(), np.concatenate([hidden, xb], 1) @ w_1 + b_1,
                               rtol=1e-5)
    np.testing.assert_allclose(second.numpy(), hidden @ w_2 + b_2, rtol=1e-5)
    by_name = model({"a": xa, "b": xb})
    np.testing.assert_allclose(by_name[0].numpy(), first.numpy())
    assert len(model.trainable_variables) == 6


def test_a_functional_model_runs_inside_a_function_and_as_a_layer_of_another():
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, keras.layers.Dense(2)(inner_in))
    outer_in = keras.Input((3,))
    outer = keras.Model(outer_in, keras.layers.Activation("tanh")(inner(outer_in)))
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    expected = np.tanh(inner(x).numpy())
    np.testing.assert_allclose(outer(x).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.function(lambda v: outer(v))(tf.constant(x)).numpy(),
                               expected, rtol=1e-6)
    assert outer.trainable_variables == inner.trainable_variables


def test_training_reaches_the_layers_that_take_it():
    x = keras.Input((50,))
    model = keras.Model(x, keras.layers.Dropout(0.5, seed=1)(x))
    ones = np.ones((4, 50), np.float32)
    np.testing.assert_array_equal(model(ones).numpy(), ones)
    assert (model(ones, training=True).numpy() == 0).any()


def test_a_graph_that_does_not_reach_the_inputs_is_an_error():
    a, b = keras.Input((2,)), keras.Input((2,))
    out = keras.layers.Dense(1)(b)
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(a, out)
    with pytest.raises(ValueError, match="must be KerasTensors"):
        keras.Model(a, tf.ones([1, 2]))
    model = keras.Model(b, out)
    with pytest.raises(ValueError, match="expects 1 input"):
        model([np.ones((1, 2)), np.ones((1, 2))])


def test_summary_of_a_graph_has_a_connected_to_column(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # a console wide enough for Keras's 108 columns
    lines = []
    _two_in_two_out().summary(print_fn=lines.append)
    assert lines[0] == 'Model: "two"'
    assert "┃ Connected to" in lines[2]
    row = next(line for line in lines if line.startswith("│ joined"))
    assert "(None, 7)" in row and "hidden[0][0], b[0][0]" in row
    assert next(line for line in lines if line.startswith("│ a (InputLayer)")).rstrip(
        " │").endswith("-")
    assert " Total params: 55 (220.00 B)" in lines
    assert len({len(line) for line in lines[1:-3]}) == 1


def test_summary_of_a_chain_has_three_columns_and_its_input_layer():
    x = keras.Input((4,), name="x")
    model = keras.Model(x, keras.layers.Dense(2, name="d")(keras.layers.Dense(3)(x)))
    lines = []
    model.summary(print_fn=lines.append)
    assert "Connected to" not in lines[2]
    assert any(line.startswith("│ x (InputLayer)") and "(None, 4)" in line for line in lines)
    assert any(line.startswith("│ d (Dense)") and "(None, 2)" in line for line in lines)


def _sparse_rows():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def test_a_sparse_input_feeds_dense_as_a_sparse_product_of_its_values_cast():
    x = keras.Input(shape=(4,), sparse=True)
    assert x.sparse and "sparse=True" in repr(x)
    model = keras.Model(x, keras.layers.Dense(3)(x))
    kernel, bias = model.get_weights()
    dense = np.zeros((6, 4), np.float32)
    dense[[0, 0, 0, 4, 5, 5], [0, 1, 2, 3, 0, 1]] = 1.0
    expected = dense @ kernel + bias
    np.testing.assert_allclose(model(_sparse_rows()).numpy(), expected, rtol=1e-6)
    # predict cuts the rows into sparse batches
    np.testing.assert_allclose(model.predict(_sparse_rows(), batch_size=4, verbose=0),
                               expected, rtol=1e-6)


def test_fit_on_sparse_rows_needs_them_unshuffled_and_a_sparse_input_is_saved(tmp_path):
    x = keras.Input(shape=(4,), sparse=True)
    model = keras.Model(x, keras.layers.Dense(2)(x))
    model.compile(optimizer="sgd", loss="mse")
    targets = np.ones((6, 2), np.float32)
    with pytest.raises(ValueError, match="Shuffling the rows of a SparseTensor"):
        model.fit(_sparse_rows(), targets, verbose=0)
    history = model.fit(_sparse_rows(), targets, batch_size=4, epochs=2, shuffle=False,
                        verbose=0)
    assert len(history.history["loss"]) == 2
    model.save(tmp_path / "s.keras")
    restored = keras.models.load_model(tmp_path / "s.keras")
    assert restored.inputs[0].sparse
    np.testing.assert_allclose(restored(_sparse_rows()).numpy(),
                               model(_sparse_rows()).numpy(), rtol=1e-6)


def test_layers_are_listed_by_depth_as_keras_lists_them_and_a_shared_layer_runs_in_order():
    ids = keras.Input((4,), name="ids")
    first = keras.layers.Dense(3, name="near")(ids)
    deep = keras.layers.Dense(3, name="deep_2")(keras.layers.Dense(3, name="deep_1")(ids))
    model = keras.Model(ids, keras.layers.Add(name="add")([first, deep]))
    # Keras 3.15's order: deepest first, then as a walk back from the output meets them
    assert [layer.name for layer in model.layers] == ["ids", "deep_1", "near", "deep_2",
                                                      "add"]
    x = keras.Input((3,))
    shared = keras.layers.Dense(3)
    middle = keras.layers.Dense(3)
    chain = keras.Model(x, shared(middle(shared(x))))
    data = RNG.normal(size=(2, 3)).astype(np.float32)
    (ks, bs), (km, bm) = shared.get_weights(), middle.get_weights()
    expected = ((data @ ks + bs) @ km + bm) @ ks + bs
    np.testing.assert_allclose(chain(data).numpy(), expected, rtol=1e-5)

"""tf.keras.layers: each layer against its formula written in numpy, eagerly and inside a
Function; weights made on the first call from the input's shape; activations and
initializers by name."""

import numpy as np
import pytest

import autograph.tf as tf

RNG = np.random.default_rng(3)


def _both(layer, *args, **kwargs):
    """The layer's output eagerly and from a Function (the weights are made eagerly by the
    first call)."""
    eager = layer(*args, **kwargs)
    traced = tf.function(lambda *a: layer(*a, **kwargs))(*args)
    return eager, traced


def _check(layer, inputs, expected, rtol=1e-5, atol=1e-5, **kwargs):
    eager, traced = _both(layer, inputs, **kwargs)
    np.testing.assert_allclose(eager.numpy(), expected(), rtol=rtol, atol=atol)
    np.testing.assert_allclose(traced.numpy(), expected(), rtol=rtol, atol=atol)


def _conv2d_reference(x, w, stride, padding, dilation):
    kh, kw = (w.shape[0] - 1) * dilation[0] + 1, (w.shape[1] - 1) * dilation[1] + 1
    if padding == "same":
        ph = max((-(-x.shape[1] // stride[0]) - 1) * stride[0] + kh - x.shape[1], 0)
        pw = max((-(-x.shape[2] // stride[1]) - 1) * stride[1] + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh = (x.shape[1] - kh) // stride[0] + 1
    ow = (x.shape[2] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride[0]:i * stride[0] + kh:dilation[0],
                      j * stride[1]:j * stride[1] + kw:dilation[1], :]
            out[:, i, j, :] = np.einsum("bhwc,hwcf->bf", patch, w)
    return out


def _pool_reference(x, size, stride, reduce):
    oh = (x.shape[1] - size[0]) // stride[0] + 1
    ow = (x.shape[2] - size[1]) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            window = x[:, i * stride[0]:i * stride[0] + size[0],
                       j * stride[1]:j * stride[1] + size[1], :]
            out[:, i, j, :] = reduce(window, axis=(1, 2))
    return out


# -- Layer ------------------------------------------------------------------------------------

class Linear(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                 initializer="random_normal", name="w")
        self.total = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                     name="total")

    def call(self, inputs, training=None):
        if training:
            self.total.assign_add(1.0)
        return tf.matmul(inputs, self.w)


def test_a_layer_builds_its_weights_on_the_first_call_from_the_input_shape():
    layer = Linear(4)
    assert not layer.built and layer.weights == []
    out = layer(tf.ones([2, 3]))
    assert layer.built and out.shape == (2, 4)
    assert [w.name for w in layer.trainable_weights] == ["w"]
    assert [w.path for w in layer.non_trainable_weights] == ["linear/total"]
    assert len(layer.weights) == 2 and isinstance(layer, tf.Module)
    layer(tf.ones([2, 3]), training=True)
    assert layer.total.numpy() == 1.0
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2


def test_layer_names_are_keras_snake_case_and_unique():
    names = [tf.keras.layers.Conv2D(1, 1).name, tf.keras.layers.Conv2D(1, 1).name]
    assert names[0].startswith("conv2d") and names[0] != names[1]
    assert tf.keras.layers.BatchNormalization(name="bn").name == "bn"
    assert tf.keras.layers.SimpleRNN(2).name.startswith("simple_rnn")


def test_a_layer_first_called_inside_a_function_makes_its_weights_on_the_first_trace():
    layer = tf.keras.layers.Dense(2)
    f = tf.function(lambda x: layer(x))
    assert f(tf.ones([1, 3])).shape == (1, 2)
    assert len(layer.weights) == 2
    other = tf.keras.layers.Dense(2)
    g = tf.function(lambda x, which: which(x))
    g(tf.ones([1, 3]), layer)
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        g(tf.ones([1, 3]), other)


def test_get_and_set_weights_round_trip_and_check_shapes():
    layer = tf.keras.layers.Dense(2)
    layer(tf.ones([1, 3]))
    values = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones(2, np.float32)]
    layer.set_weights(values)
    np.testing.assert_array_equal(layer.get_weights()[0], values[0])
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights(values[:1])
    with pytest.raises(ValueError, match="not compatible"):
        layer.set_weights([np.ones((2, 2), np.float32), np.ones(2, np.float32)])


def test_unknown_layer_arguments_are_named():
    with pytest.raises(TypeError, match="Unrecognized keyword arguments.*kernel_size"):
        tf.keras.layers.Dense(2, kernel_size=3)
    with pytest.raises(ValueError, match="expected a positive integer"):
        tf.keras.layers.Dense(0)


# -- core layers ------------------------------------------------------------------------------

def test_dense_applies_kernel_bias_and_activation_along_the_last_axis():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    layer = tf.keras.layers.Dense(5, activation="relu", bias_initializer="ones")
    layer(x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (4, 5) and (bias == 1).all()
    _check(layer, x, lambda: np.maximum(x @ kernel + bias, 0))


def test_activation_flatten_reshape():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    _check(tf.keras.layers.Activation("tanh"), x, lambda: np.tanh(x))
    _check(tf.keras.layers.Flatten(), x, lambda: x.reshape(2, 12))
    _check(tf.keras.layers.Reshape((4, -1)), x, lambda: x.reshape(2, 4, 3))
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        tf.keras.layers.Reshape((5,))(x)


def test_dropout_only_in_training():
    x = np.ones((50, 40), np.float32)
    layer = tf.keras.layers.Dropout(0.25, seed=1)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    out = layer(x, training=True).numpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < (out == 0).mean() < 0.35
    traced = tf.function(lambda v: layer(v, training=True))(tf.constant(x)).numpy()
    assert set(np.unique(traced)) <= {0.0, np.float32(1 / 0.75)}


def test_embedding_looks_up_rows():
    layer = tf.keras.layers.Embedding(10, 3)
    ids = np.array([[1, 2], [9, 0]])
    layer(ids)
    (table,) = layer.get_weights()
    assert np.abs(table).max() <= 0.05  # Keras's "uniform": [-0.05, 0.05)
    _check(layer, ids, lambda: table[ids])


def test_lambda_applies_its_function_with_its_arguments():
    x = RNG.normal(size=(4,)).astype(np.float32)
    layer = tf.keras.layers.Lambda(lambda v: tf.stack([v, v ** 2], axis=1))
    _check(layer, x, lambda: np.stack([x, x ** 2], 1))
    assert layer.weights == []
    scaled = tf.keras.layers.Lambda(lambda v, factor: v * factor, arguments={"factor": 3.0})
    _check(scaled, x, lambda: 3.0 * x)
    with pytest.raises(ValueError, match="must be callable"):
        tf.keras.layers.Lambda(3)


def test_lambda_in_a_sequential_model_trains_the_layers_after_it():
    model = tf.keras.Sequential([
        tf.keras.layers.Lambda(lambda v: tf.stack([v, v ** 2], axis=1)),
        tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(0.01))
    x = np.linspace(-1, 1, 8).astype(np.float32)
    history = model.fit(x, 2 * x, epochs=2, verbose=0)
    assert model.layers[1].kernel.shape == (2, 1)
    assert history.history["loss"][1] < history.history["loss"][0]


def test_a_number_passed_positionally_to_a_layer_is_refused_as_keras_refuses_it():
    layer = tf.keras.layers.Dense(2)
    with pytest.raises(ValueError, match="Only input tensors may be passed as positional "
                                         "arguments.*2.0 \\(of type <class 'float'>\\)"):
        layer([[2.0, 2.0, 2.0]])
    assert not layer.built
    assert layer(np.ones((1, 3), np.float32)).shape == (1, 2)
    assert layer(tf.ones((1, 3))).shape == (1, 2)


def test_concatenate_and_add():
    a, b = RNG.normal(size=(2, 3)).astype(np.float32), RNG.normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_allclose(tf.keras.layers.Concatenate()([a, b]).numpy(),
                               np.concatenate([a, b], -1))
    np.testing.assert_allclose(tf.keras.layers.Concatenate(axis=0)([a, b]).numpy(),
                               np.concatenate([a, b], 0))
    np.testing.assert_allclose(tf.keras.layers.Add()([a, b, a]).numpy(), a + b + a, rtol=1e-6)
    with pytest.raises(ValueError, match="should be called on a list of inputs"):
        tf.keras.layers.Add()(a)


# -- convolution and pooling ------------------------------------------------------------------

@pytest.mark.parametrize("padding, strides, dilation", [
    ("valid", 1, 1), ("same", 1, 1), ("same", 2, 1), ("valid", 1, 2), ("same", (2, 1), 1)])
def test_conv2d_against_a_direct_convolution(padding, strides, dilation):
    x = RNG.normal(size=(2, 7, 6, 3)).astype(np.float32)
    layer = tf.keras.layers.Conv2D(4, (3, 2), strides=strides, padding=padding,
                                   dilation_rate=dilation, activation="relu")
    layer(x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 2, 3, 4)
    s = (strides, strides) if isinstance(strides, int) else strides
    _check(layer, x, lambda: np.maximum(
        _conv2d_reference(x, kernel, s, padding, (dilation, dilation)) + bias, 0))


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d_against_a_direct_convolution(padding):
    x = RNG.normal(size=(2, 9, 3)).astype(np.float32)
    layer = tf.keras.layers.Conv1D(2, 3, padding=padding, dilation_rate=2)
    layer(x)
    kernel, bias = layer.get_weights()
    padded = np.pad(x, [(0, 0), (4, 0), (0, 0)]) if padding == "causal" else x
    mode = "same" if padding == "same" else "valid"
    expected = _conv2d_reference(padded[:, None], kernel[None], (1, 1), mode, (1, 2))[:, 0]
    _check(layer, x, lambda: expected + bias)


def test_the_guides_conv2d_layer_runs_in_a_function():
    conv_layer = tf.keras.layers.Conv2D(100, 3)

    @tf.function
    def conv_fn(image):
        return conv_layer(image)

    image = tf.zeros([1, 200, 200, 100])
    conv_layer(image)
    assert conv_fn(image).shape == (1, 198, 198, 100)


def test_pooling_layers():
    x = RNG.normal(size=(2, 6, 7, 3)).astype(np.float32)
    _check(tf.keras.layers.MaxPooling2D(), x,
           lambda: _pool_reference(x, (2, 2), (2, 2), np.max))
    _check(tf.keras.layers.AveragePooling2D((3, 2), strides=1), x,
           lambda: _pool_reference(x, (3, 2), (1, 1), np.mean))
    assert tf.keras.layers.MaxPooling2D(padding="same")(x).shape == (2, 3, 4, 3)
    _check(tf.keras.layers.GlobalAveragePooling2D(), x, lambda: x.mean(axis=(1, 2)))
    assert tf.keras.layers.GlobalAveragePooling2D(keepdims=True)(x).shape == (2, 1, 1, 3)
    steps = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    _check(tf.keras.layers.GlobalAveragePooling1D(), steps, lambda: steps.mean(axis=1))
    assert tf.keras.layers.GlobalAveragePooling1D(keepdims=True)(steps).shape == (2, 1, 3)
    with pytest.raises(ValueError, match="`padding` argument must be one of"):
        tf.keras.layers.MaxPooling2D(padding="full")


# -- normalization ----------------------------------------------------------------------------

def test_batch_normalization_uses_batch_statistics_in_training_and_moving_ones_after():
    x = RNG.normal(2.0, 3.0, size=(8, 4)).astype(np.float32)
    layer = tf.keras.layers.BatchNormalization(momentum=0.9)
    out = layer(x, training=True).numpy()
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3),
                               rtol=1e-4, atol=1e-5)
    gamma, beta, moving_mean, moving_var = layer.get_weights()
    np.testing.assert_allclose(moving_mean, 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(moving_var, 0.9 + 0.1 * x.var(0), rtol=1e-5)
    assert [w.name for w in layer.non_trainable_weights] == ["moving_mean", "moving_variance"]
    _check(layer, x, lambda: (x - moving_mean) / np.sqrt(moving_var + 1e-3))
    traced = tf.function(lambda v: layer(v, training=True))
    traced(tf.constant(x))
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.19 * x.mean(0), rtol=1e-5)


def test_batch_normalization_over_image_channels():
    x = RNG.normal(size=(2, 3, 3, 2)).astype(np.float32)
    out = tf.keras.layers.BatchNormalization()(x, training=True).numpy()
    mean, var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)


def test_layer_normalization_normalizes_each_sample():
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    layer = tf.keras.layers.LayerNormalization(gamma_initializer="he_normal")
    layer(x)
    gamma, beta = layer.get_weights()
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    _check(layer, x, lambda: (x - mean) / np.sqrt(var + 1e-3) * gamma + beta, rtol=1e-4)


# -- recurrent --------------------------------------------------------------------------------

def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _simple_rnn_reference(x, w, u, b):
    h = np.zeros((x.shape[0], u.shape[0]))
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ w + h @ u + b)
        outs.append(h)
    return np.stack(outs, 1), h


def _lstm_reference(x, w, u, b):
    n = u.shape[0]
    h, c = np.zeros((x.shape[0], n)), np.zeros((x.shape[0], n))
    outs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ w + h @ u + b
        i, f, g, o = _sigmoid(z[:, :n]), _sigmoid(z[:, n:2 * n]), np.tanh(z[:, 2 * n:3 * n]), \
            _sigmoid(z[:, 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def _gru_reference(x, w, u, b):
    n = u.shape[0]
    h = np.zeros((x.shape[0], n))
    outs = []
    for t in range(x.shape[1]):
        xm, hm = x[:, t] @ w + b[0], h @ u + b[1]
        z = _sigmoid(xm[:, :n] + hm[:, :n])
        r = _sigmoid(xm[:, n:2 * n] + hm[:, n:2 * n])
        hh = np.tanh(xm[:, 2 * n:] + r * hm[:, 2 * n:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), h


@pytest.mark.parametrize("cls, reference", [
    (tf.keras.layers.SimpleRNN, _simple_rnn_reference), (tf.keras.layers.LSTM, _lstm_reference),
    (tf.keras.layers.GRU, _gru_reference)], ids=["simple_rnn", "lstm", "gru"])
def test_recurrent_layers_against_their_cell_formulas(cls, reference):
    x = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    layer = cls(4, return_sequences=True, return_state=True, bias_initializer="random_normal")
    layer(x)
    weights = layer.get_weights()
    expected = reference(x, *weights)
    for out, want in zip(layer(x), expected):
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    last = cls(4)
    last(x)
    last.set_weights(weights)
    _check(last, x, lambda: expected[0][:, -1], rtol=1e-4)


def test_lstm_starts_its_forget_bias_at_one_and_recurrent_kernels_are_orthogonal():
    layer = tf.keras.layers.LSTM(3)
    layer(np.zeros((1, 2, 2), np.float32))
    kernel, recurrent, bias = layer.get_weights()
    np.testing.assert_array_equal(bias, [0, 0, 0, 1, 1, 1] + [0] * 6)
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(3), atol=1e-5)


def test_a_recurrent_layer_in_a_function_is_one_while_loop():
    layer = tf.keras.layers.GRU(3)
    x = tf.constant(RNG.normal(size=(2, 6, 2)).astype(np.float32))
    f = tf.function(lambda v: layer(v))
    graph = f.get_concrete_function(x).graph
    loops = [n for n in graph.get_operations() if "While" in n.type]
    assert len(loops) == 1


def test_recurrent_gradients_flow_through_the_loop():
    layer = tf.keras.layers.SimpleRNN(2)
    x = tf.constant(RNG.normal(size=(1, 3, 2)).astype(np.float32))

    @tf.function
    def grads(v):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(v))
        return tape.gradient(loss, layer.trainable_weights)

    got = grads(x)
    w, u, b = [v.numpy().astype(np.float64) for v in layer.weights]
    eps = 1e-6
    up, down = b.copy(), b.copy()
    up[0] += eps
    down[0] -= eps
    # central differences in float64 (a forward difference's error, eps times the second
    # derivative, is the size of the gradient itself for some weights); the layer computes
    # in float32, whose rounding of terms of size 1 bounds the error of a small gradient
    numeric = (_simple_rnn_reference(x.numpy(), w, u, up)[1].sum()
               - _simple_rnn_reference(x.numpy(), w, u, down)[1].sum()) / (2 * eps)
    assert got[2].numpy()[0] == pytest.approx(numeric, rel=1e-3, abs=1e-5)


# -- activations and initializers -------------------------------------------------------------

def test_activations_by_name():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    for name, expected in [("relu", np.maximum(x, 0)), ("sigmoid", _sigmoid(x)),
                           ("tanh", np.tanh(x)), ("linear", x),
                           ("softplus", np.log1p(np.exp(x))), ("silu", x * _sigmoid(x)),
                           ("swish", x * _sigmoid(x)), ("elu", np.where(x > 0, x, np.expm1(x))),
                           ("leaky_relu", np.where(x > 0, x, 0.2 * x))]:
        function = tf.keras.activations.get(name)
        np.testing.assert_allclose(function(tf.constant(x)).numpy(), expected,
                                   rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(tf.keras.activations.softmax(tf.constant([[1.0, 2.0]])).numpy(),
                               [np.exp([1, 2]) / np.exp([1, 2]).sum()], rtol=1e-6)
    assert tf.keras.activations.gelu(tf.constant(0.0)).numpy() == 0.0
    assert tf.keras.activations.relu is tf.keras.activations.get("relu")
    assert tf.keras.activations.swish is tf.keras.activations.silu
    assert tf.keras.activations.tanh(tf.constant(0.0)).numpy() == 0.0
    assert tf.keras.activations.sigmoid(0.0).numpy() == 0.5
    assert tf.keras.activations.linear(3) == 3
    assert tf.keras.activations.elu(tf.constant(-1.0), alpha=2.0).numpy() < -1
    assert tf.keras.activations.leaky_relu(tf.constant(-1.0), negative_slope=0.5).numpy() == -0.5
    assert tf.keras.activations.softplus(tf.constant(0.0)).numpy() == pytest.approx(np.log(2))
    with pytest.raises(ValueError, match="Could not interpret activation"):
        tf.keras.activations.get("relu7")


def test_initializers_by_name_are_seeded_and_follow_keras_scales():
    glorot = tf.keras.initializers.GlorotUniform
    a = glorot(seed=4)((200, 300))
    np.testing.assert_array_equal(a, glorot(seed=4)((200, 300)))
    assert np.abs(a).max() <= np.sqrt(6 / 500)
    assert a.std() == pytest.approx(np.sqrt(2 / 500), rel=0.05)
    he = tf.keras.initializers.HeNormal(seed=1)((400, 300))
    assert he.std() == pytest.approx(np.sqrt(2 / 400), rel=0.05)
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 + 1e-6
    assert tf.keras.initializers.HeUniform(seed=1)((100, 10)).max() <= np.sqrt(0.06)
    assert tf.keras.initializers.GlorotNormal(seed=2)((3, 3, 8, 16)).shape == (3, 3, 8, 16)
    normal = tf.keras.initializers.RandomNormal(stddev=1.0, seed=0)((1000,))
    assert normal.std() == pytest.approx(1, rel=0.1)
    assert np.abs(tf.keras.initializers.TruncatedNormal(seed=0)((1000,))).max() <= 0.1
    u = tf.keras.initializers.RandomUniform(0.0, 1.0, seed=0)((100,))
    assert 0 <= u.min() and u.max() < 1
    assert (tf.keras.initializers.Constant(3.0)((2,)) == 3).all()
    assert (tf.keras.initializers.Ones()((2,)) == 1).all()
    assert (tf.keras.initializers.Zeros()((2,)) == 0).all()
    q = tf.keras.initializers.Orthogonal(seed=0)((4, 6))
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    scaling = tf.keras.initializers.VarianceScaling(scale=3.0, mode="fan_out",
                                                    distribution="uniform", seed=0)
    assert np.abs(scaling((50, 30))).max() <= np.sqrt(9 / 30)
    assert isinstance(tf.keras.initializers.get("he_normal"), tf.keras.initializers.HeNormal)
    assert isinstance(tf.keras.initializers.get("GlorotUniform"), glorot)
    assert isinstance(tf.keras.initializers.get(tf.keras.initializers.Zeros()),
                      tf.keras.initializers.Initializer)
    with pytest.raises(ValueError, match="Could not interpret initializer"):
        tf.keras.initializers.get("glorot")


def test_set_random_seed_makes_unseeded_weights_repeat():
    tf.keras.utils.set_random_seed(11)
    first = tf.keras.layers.Dense(3)
    first(tf.ones([1, 2]))
    tf.keras.utils.set_random_seed(11)
    second = tf.keras.layers.Dense(3)
    second(tf.ones([1, 2]))
    np.testing.assert_array_equal(first.get_weights()[0], second.get_weights()[0])

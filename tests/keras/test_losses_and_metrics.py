"""tf.keras.losses and tf.keras.metrics against their formulas written in numpy; metrics
keep their state in Variables, so they also work inside a Function."""

import numpy as np
import pytest

import autograph.tf as tf

EPS = 1e-7
RNG = np.random.default_rng(7)
Y_TRUE = (RNG.random((4, 3)) > 0.5).astype(np.float32)
Y_PROB = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
LOGITS = RNG.normal(size=(4, 3)).astype(np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
LABELS = np.array([0, 2, 1, 2])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _bce(y, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean(-1)


def _cce(y, p):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -(y * np.log(p)).sum(-1)


def _huber(y, p, delta):
    e = np.abs(p - y)
    return np.where(e <= delta, 0.5 * e ** 2, delta * e - 0.5 * delta ** 2).mean(-1)


FUNCTION_CASES = [
    ("mse", lambda: tf.keras.losses.mse(Y_TRUE, Y_PROB),
     ((Y_TRUE - Y_PROB) ** 2).mean(-1)),
    ("bce", lambda: tf.keras.losses.binary_crossentropy(Y_TRUE, Y_PROB), _bce(Y_TRUE, Y_PROB)),
    ("bce_logits", lambda: tf.keras.losses.binary_crossentropy(Y_TRUE, LOGITS,
                                                                from_logits=True),
     _bce(Y_TRUE, _sigmoid(LOGITS))),
    ("bce_smoothing", lambda: tf.keras.losses.binary_crossentropy(Y_TRUE, Y_PROB,
                                                                   label_smoothing=0.2),
     _bce(Y_TRUE * 0.8 + 0.1, Y_PROB)),
    ("cce", lambda: tf.keras.losses.categorical_crossentropy(ONE_HOT, Y_PROB),
     _cce(ONE_HOT, Y_PROB)),
    ("cce_logits", lambda: tf.keras.losses.categorical_crossentropy(ONE_HOT, LOGITS,
                                                                     from_logits=True),
     _cce(ONE_HOT, _softmax(LOGITS))),
    ("sparse_cce", lambda: tf.keras.losses.sparse_categorical_crossentropy(LABELS, Y_PROB),
     _cce(ONE_HOT, Y_PROB)),
    ("sparse_cce_logits", lambda: tf.keras.losses.sparse_categorical_crossentropy(
        LABELS[:, None], LOGITS, from_logits=True), _cce(ONE_HOT, _softmax(LOGITS))),
    ("huber", lambda: tf.keras.losses.huber(Y_TRUE, 3 * LOGITS, delta=0.7),
     _huber(Y_TRUE, 3 * LOGITS, 0.7)),
]


@pytest.mark.parametrize("compute, expected", [c[1:] for c in FUNCTION_CASES],
                         ids=[c[0] for c in FUNCTION_CASES])
def test_each_loss_function_gives_one_value_per_sample(compute, expected):
    np.testing.assert_allclose(compute().numpy(), expected, rtol=1e-5, atol=1e-6)


CLASS_CASES = [
    ("mse", tf.keras.losses.MeanSquaredError, {}, Y_TRUE, Y_PROB,
     ((Y_TRUE - Y_PROB) ** 2).mean(-1)),
    ("bce", tf.keras.losses.BinaryCrossentropy, {"from_logits": True}, Y_TRUE, LOGITS,
     _bce(Y_TRUE, _sigmoid(LOGITS))),
    ("cce", tf.keras.losses.CategoricalCrossentropy, {}, ONE_HOT, Y_PROB,
     _cce(ONE_HOT, Y_PROB)),
    ("sparse_cce", tf.keras.losses.SparseCategoricalCrossentropy, {"from_logits": True},
     LABELS, LOGITS, _cce(ONE_HOT, _softmax(LOGITS))),
    ("huber", tf.keras.losses.Huber, {}, Y_TRUE, 2 * LOGITS, _huber(Y_TRUE, 2 * LOGITS, 1.0)),
]


@pytest.mark.parametrize("cls, kwargs, y_true, y_pred, per_sample",
                         [c[1:] for c in CLASS_CASES], ids=[c[0] for c in CLASS_CASES])
def test_loss_classes_reduce_weighted_values(cls, kwargs, y_true, y_pred, per_sample):
    weights = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    default = cls(**kwargs)(y_true, y_pred)
    assert default.shape == ()
    np.testing.assert_allclose(default.numpy(), per_sample.mean(), rtol=1e-5)
    np.testing.assert_allclose(cls(**kwargs)(y_true, y_pred, sample_weight=weights).numpy(),
                               (per_sample * weights).sum() / 4, rtol=1e-5)
    np.testing.assert_allclose(cls(reduction="sum", **kwargs)(y_true, y_pred).numpy(),
                               per_sample.sum(), rtol=1e-5)
    np.testing.assert_allclose(cls(reduction="none", **kwargs)(y_true, y_pred).numpy(),
                               per_sample, rtol=1e-5, atol=1e-6)


def test_loss_names_and_defaults_are_keras():
    assert tf.keras.losses.MeanSquaredError().name == "mean_squared_error"
    assert tf.keras.losses.Huber().name == "huber_loss"
    bce = tf.keras.losses.BinaryCrossentropy()
    assert bce.reduction == "sum_over_batch_size"
    assert bce.get_config()["from_logits"] is False
    assert isinstance(bce, tf.keras.losses.Loss)


def test_probabilities_are_clipped_so_certain_mistakes_stay_finite():
    loss = tf.keras.losses.BinaryCrossentropy()([[1.0]], [[0.0]])
    assert loss.numpy() == pytest.approx(-np.log(EPS), rel=1e-3)


def test_bad_loss_arguments_are_named():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        tf.keras.losses.MeanSquaredError(reduction="average")
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.keras.losses.categorical_crossentropy(ONE_HOT[:, :2], Y_PROB)


def test_ignore_class_gives_those_labels_no_loss():
    values = tf.keras.losses.sparse_categorical_crossentropy(
        LABELS, LOGITS, from_logits=True, ignore_class=2).numpy()
    expected = _cce(ONE_HOT, _softmax(LOGITS)) * (LABELS != 2)
    np.testing.assert_allclose(values, expected, rtol=1e-5)


def test_a_loss_is_differentiable_inside_a_function():
    w = tf.Variable(np.ones((3, 3), np.float32))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            loss = loss_fn(LABELS, tf.matmul(tf.constant(LOGITS), w))
        return tape.gradient(loss, w)

    probs = _softmax(LOGITS @ np.ones((3, 3)))
    expected = LOGITS.T @ (probs - ONE_HOT) / 4
    np.testing.assert_allclose(grad().numpy(), expected, rtol=1e-5, atol=1e-6)


# -- metrics ---------------------------------------------------------------------------------

def test_mean_accumulates_weighted_values_and_resets():
    m = tf.keras.metrics.Mean()
    assert m.result().numpy() == 0.0
    m.update_state([1.0, 3.0])
    assert m.result().numpy() == 2.0
    m.update_state([[2.0, 4.0]], sample_weight=[3.0])  # one sample of mean 3, weight 3
    assert m.result().numpy() == pytest.approx(13.0 / 5.0)
    assert [(v.name, v.path) for v in m.variables] == [("total", "mean/total"),
                                                       ("count", "mean/count")]
    m.reset_state()
    assert m.result().numpy() == 0.0 and m.count.numpy() == 0.0


def test_accuracy_and_sparse_categorical_accuracy():
    acc = tf.keras.metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert acc.result().numpy() == 0.75
    sparse = tf.keras.metrics.SparseCategoricalAccuracy()
    scores = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.3, 0.5]], np.float32)
    assert sparse([[1], [2], [2]], scores).numpy() == pytest.approx(2 / 3)
    assert sparse.name == "sparse_categorical_accuracy"
    sparse.update_state([0], scores[1:2], sample_weight=[3.0])
    assert sparse.result().numpy() == pytest.approx(5 / 6)


def _auc_reference(y, p, curve="ROC", method="interpolation", n=200):
    thresholds = np.array([-EPS] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + EPS])
    above = p[None, :] > thresholds[:, None]
    pos = y[None, :] > 0
    tp, fp = (above & pos).sum(1), (above & ~pos).sum(1)
    fn, tn = (~above & pos).sum(1), (~above & ~pos).sum(1)
    div = lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b))  # noqa: E731
    recall = div(tp, tp + fn)
    x, h = (div(fp, fp + tn), recall) if curve == "ROC" else (recall, div(tp, tp + fp))
    pick = {"interpolation": (h[:-1] + h[1:]) / 2, "minoring": np.minimum(h[:-1], h[1:]),
            "majoring": np.maximum(h[:-1], h[1:])}[method]
    return ((x[:-1] - x[1:]) * pick).sum()


@pytest.mark.parametrize("curve, method", [("ROC", "interpolation"), ("ROC", "minoring"),
                                           ("PR", "majoring"), ("PR", "minoring")])
def test_auc_is_the_riemann_sum_over_keras_thresholds(curve, method):
    y = (RNG.random(50) > 0.5).astype(np.float32)
    p = np.clip(y * 0.3 + RNG.random(50) * 0.7, 0, 1).astype(np.float32)
    auc = tf.keras.metrics.AUC(curve=curve, summation_method=method)
    auc.update_state(y[:20], p[:20])
    auc.update_state(y[20:], p[20:])
    assert auc.result().numpy() == pytest.approx(_auc_reference(y, p, curve, method),
                                                 rel=1e-5)


def test_auc_matches_keras_documented_examples():
    auc = tf.keras.metrics.AUC(num_thresholds=3)
    auc.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    assert auc.result().numpy() == pytest.approx(0.75)
    assert tf.keras.metrics.AUC().num_thresholds == 200
    pr = tf.keras.metrics.AUC(curve="PR")
    pr.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert 0.75 < pr.result().numpy() < 0.85


def test_auc_from_logits_and_bad_arguments():
    logits = np.array([-2.0, 1.0, -0.5, 3.0], np.float32)
    auc = tf.keras.metrics.AUC(from_logits=True)
    auc.update_state([0, 0, 1, 1], logits)
    assert auc.result().numpy() == pytest.approx(
        _auc_reference(np.array([0, 0, 1, 1]), _sigmoid(logits)), rel=1e-5)
    with pytest.raises(ValueError, match="Invalid `curve` argument value"):
        tf.keras.metrics.AUC(curve="roc")


def test_metrics_update_inside_a_function_and_keep_state_across_calls():
    mean = tf.keras.metrics.Mean()
    auc = tf.keras.metrics.AUC()

    @tf.function
    def step(y, p):
        mean.update_state(p)
        auc.update_state(y, p)
        return mean.result(), auc.result()

    step(tf.constant([0.0, 1.0]), tf.constant([0.2, 0.6]))
    m, a = step(tf.constant([1.0, 0.0]), tf.constant([0.9, 0.4]))
    assert m.numpy() == pytest.approx(0.525)
    assert a.numpy() == pytest.approx(
        _auc_reference(np.array([0, 1, 1, 0]), np.array([0.2, 0.6, 0.9, 0.4])), rel=1e-5)
    assert isinstance(mean, tf.keras.metrics.Metric)


def test_the_accuracy_metrics_compile_chooses_against_numpy():
    binary = tf.keras.metrics.BinaryAccuracy()
    binary.update_state([[1.0], [0.0], [1.0], [0.0]], [[0.7], [0.6], [0.2], [0.1]])
    assert binary.result().numpy() == pytest.approx(0.5)
    assert tf.keras.metrics.BinaryAccuracy(threshold=0.15)(
        [[1.0], [0.0]], [[0.2], [0.1]]).numpy() == pytest.approx(1.0)
    categorical = tf.keras.metrics.CategoricalAccuracy()
    categorical.update_state(np.eye(3)[[0, 2, 1]], [[0.8, 0.1, 0.1], [0.5, 0.2, 0.3],
                                                     [0.1, 0.7, 0.2]])
    assert categorical.result().numpy() == pytest.approx(2 / 3)
    assert categorical.name == "categorical_accuracy"


def test_error_metrics_average_per_sample_errors_over_updates():
    y_true = np.array([[0.0, 1.0], [2.0, 2.0]], np.float32)
    y_pred = np.array([[1.0, 1.0], [0.0, 2.0]], np.float32)
    mse = tf.keras.metrics.MeanSquaredError()
    mse.update_state(y_true, y_pred)
    assert mse.result().numpy() == pytest.approx(np.mean((y_true - y_pred) ** 2))
    mae = tf.keras.metrics.MeanAbsoluteError()
    mae.update_state(y_true, y_pred)
    mae.update_state(y_true[:1], y_true[:1])  # one more sample with no error
    assert mae.result().numpy() == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    wrapped = tf.keras.metrics.MeanMetricWrapper(tf.keras.losses.mse,
                                                 name="wrapped")
    wrapped.update_state(y_true, y_pred)
    assert wrapped.name == "wrapped" and wrapped.result().numpy() == mse.result().numpy()


def test_mean_absolute_error_loss_against_numpy():
    y_true = np.array([[0.0, 1.0], [2.0, 2.0]], np.float32)
    y_pred = np.array([[1.0, 1.0], [0.0, 3.0]], np.float32)
    np.testing.assert_allclose(tf.keras.losses.mae(y_true, y_pred).numpy(),
                               np.abs(y_true - y_pred).mean(-1))
    loss = tf.keras.losses.MeanAbsoluteError()
    assert loss(y_true, y_pred).numpy() == pytest.approx(np.abs(y_true - y_pred).mean())
    assert loss.name == "mean_absolute_error"


def test_the_function_forms_have_tensorflows_short_names_only():
    # tf.keras.losses in TensorFlow 2.21 exports mse/MSE and mae/MAE, not the long names
    losses = tf.keras.losses
    assert tf.keras.losses.MSE is losses.mse and tf.keras.losses.MAE is losses.mae
    assert losses.mse.__name__ == "mean_squared_error"
    for missing in ("mean_squared_error", "mean_absolute_error"):
        with pytest.raises(AttributeError, match=missing):
            getattr(losses, missing)

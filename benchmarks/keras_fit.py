"""Keras workloads: `model.fit` of a small MLP, end to end.

`keras_fit`: one call of `model.fit(x, y, batch_size=32, epochs=1, shuffle=False,
verbose=0)` on a 2048x32 float32 dataset, i.e. 64 train steps of a Dense(64, relu) ->
Dense(10) model with mean squared error and SGD(0.01): the batching, the callbacks and
the progress logic of `fit` around 64 runs of the traced train step (forward pass,
GradientTape, the optimizer's update, the loss tracker). It runs on the executor and on
the numba and JAX backends (the train step traced once, before timing, with that backend
the process default), against the same epoch written by hand in numpy. Every variant starts
from the same weights, so the first call's result (the epoch's mean loss) must agree.

Steps per second = 64 / (time per call). The same model and data trained by Keras 3 on
TensorFlow is measured by `benchmarks/reference/keras_fit_tensorflow.py` (run by hand in an
environment with TensorFlow; never by the benchmarks, which do not import Keras).
"""

import numpy as np

import autograph
import autograph.tf as ag_tf
from benchmarks.workload import Target, Variant, Workload, optional_module

GROUP = "keras"

SAMPLES, FEATURES, HIDDEN, OUTPUTS = 2048, 32, 64, 10
BATCH = 32
STEPS = SAMPLES // BATCH
LEARNING_RATE = 0.01


def fit_data():
    """(x, y, [kernel, bias, kernel, bias]): the data and the starting weights (the
    reference script makes the same with the same generator)."""
    rng = np.random.RandomState(0)
    x = rng.standard_normal((SAMPLES, FEATURES)).astype(np.float32)
    y = rng.standard_normal((SAMPLES, OUTPUTS)).astype(np.float32)
    weights = [
        (rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (rng.standard_normal((HIDDEN, OUTPUTS)) / np.sqrt(HIDDEN)).astype(np.float32),
        np.zeros(OUTPUTS, np.float32),
    ]
    return x, y, weights


def _numpy_epoch(weights):
    """One epoch of the same training by hand; returns the mean of the batch losses."""
    lr = np.float32(LEARNING_RATE)

    def epoch(x, y):
        losses = []
        for start in range(0, SAMPLES, BATCH):
            xb, yb = x[start:start + BATCH], y[start:start + BATCH]
            w1, b1, w2, b2 = weights
            pre = xb @ w1 + b1
            h = np.maximum(pre, 0)
            diff = h @ w2 + b2 - yb
            losses.append(np.mean(np.square(diff)))
            d_out = diff * np.float32(2.0 / diff.size)
            d_pre = (d_out @ w2.T) * (pre > 0)
            grads = [xb.T @ d_pre, d_pre.sum(axis=0), h.T @ d_out, d_out.sum(axis=0)]
            for i, g in enumerate(grads):
                weights[i] = weights[i] - lr * g
        return np.float32(np.mean(losses))
    return epoch


def _model(weights):
    keras = ag_tf.keras
    model = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(HIDDEN, activation="relu"),
                              keras.layers.Dense(OUTPUTS)])
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(LEARNING_RATE), loss="mse")
    return model


def _fit_variant(backend, x, y, weights):
    """`fit` on `backend`: traced (one untimed epoch) with that backend the default, then
    put back to the starting weights."""
    model = _model(weights)

    def epoch(x, y):
        history = model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
        return np.float32(history.history["loss"][-1])

    autograph.config(backend=backend)
    try:
        epoch(x, y)
    finally:
        autograph.config(backend=None)
    model.set_weights(weights)
    train_function = model.train_function
    report = train_function._concrete[0].backend_report()  # its one trace, not a new one
    note = "model.fit, %d steps, the train step traced on backend=%r" % (STEPS, backend)
    if report.running != backend:
        note += "; FELL BACK to the executor: %s" % report.reason

    def verify():
        count = train_function.experimental_get_tracing_count()
        return None if count == 1 else "the train step traced %d times (expected 1)" % count
    return Variant("fit_" + ("executor" if backend == "numpy" else backend), epoch, (x, y),
                   verify=verify, note=note)


def _build_keras_fit():
    x, y, weights = fit_data()
    variants = [Variant("numpy", _numpy_epoch([w.copy() for w in weights]), (x, y),
                        note="the same epoch by hand: forward, backpropagation, update")]
    for backend in ("numpy", "numba", "jax"):
        if backend == "numpy" or optional_module(backend) is not None:
            variants.append(_fit_variant(backend, x, y, weights))
    return variants


KERAS_FIT = Workload(
    name="keras_fit",
    description="One `model.fit` epoch of %d steps (batch %d) of a Dense(%d, relu) -> "
                "Dense(%d) MLP, mean squared error, SGD: steps per second = %d / time per "
                "call." % (STEPS, BATCH, HIDDEN, OUTPUTS, STEPS),
    build=_build_keras_fit,
    targets=[Target("fit_executor", "numpy"), Target("fit_numba", "numpy"),
             Target("fit_jax", "numpy")],
    rtol=1e-5, atol=1e-6,
    group=GROUP,
)

WORKLOADS = [KERAS_FIT]

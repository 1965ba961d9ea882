"""Keras 3 on TensorFlow doing the `keras_fit` workload (benchmarks/keras_fit.py): the
figure to set beside this project's `fit` steps per second. NOT run by the benchmarks or
the tests, and it imports neither this project nor its benchmarks (they never import
TensorFlow). Run it by hand where TensorFlow and Keras are installed:

    /tmp/tfenv/bin/python benchmarks/reference/keras_fit_tensorflow.py

The model, data, starting weights, batch size, optimizer and loss are keras_fit's (the data
made by the same seeded generator, written out here again). It trains one epoch untimed
(tracing and warm-up), then times `fit(..., epochs=1)` calls of 64 steps as the benchmark
does: the median over rounds of the per-call time, and 64 / that as steps per second. The
first epoch's mean loss is printed too: it must equal the benchmark's numpy reference.
"""

import os
import statistics
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402

SAMPLES, FEATURES, HIDDEN, OUTPUTS = 2048, 32, 64, 10  # as in benchmarks/keras_fit.py
BATCH = 32
STEPS = SAMPLES // BATCH
LEARNING_RATE = 0.01
ROUNDS, CALLS_PER_ROUND = 7, 5


def fit_data():
    """keras_fit's data and starting weights, from the same generator."""
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


def main():
    """Prints the first epoch's loss, the median time per fit call and steps/s, and the
    steps/s of one 10-epoch fit call."""
    x, y, weights = fit_data()
    model = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(HIDDEN, activation="relu"),
                              keras.layers.Dense(OUTPUTS)])
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(LEARNING_RATE), loss="mse")

    def epoch():
        return model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False,
                         verbose=0).history["loss"][-1]
    print("first epoch's mean loss: %.7f" % epoch())
    per_call = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS_PER_ROUND):
            epoch()
        per_call.append((time.perf_counter() - start) / CALLS_PER_ROUND)
    median = statistics.median(per_call)
    print("keras %s, backend %s: %.0f us per fit call of %d steps (spread %.0f%%), "
          "%.0f steps/s" % (keras.__version__, keras.backend.backend(), median * 1e6, STEPS,
                            100 * (max(per_call) - min(per_call)) / median, STEPS / median))
    # the same steps with fit's per-call work (its data pipeline, callbacks) spread over
    # 10 epochs: nearer the train step's own speed
    start = time.perf_counter()
    model.fit(x, y, batch_size=BATCH, epochs=10, shuffle=False, verbose=0)
    seconds = time.perf_counter() - start
    print("one fit call of 10 epochs (%d steps): %.0f steps/s" % (10 * STEPS,
                                                                  10 * STEPS / seconds))


if __name__ == "__main__":
    main()

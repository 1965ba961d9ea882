"""Writes float32_tf.npz, TensorFlow's float32 exp and softmax of inputs chosen where their
last digit differs from numpy's. NOT run by the test suite, and not project code: it needs
real TensorFlow (2.21, default settings: oneDNN on, as on an AVX-512 CPU), which the project
never imports. Run once, from the repository root:

    /tmp/tfenv/bin/python tests/runtime/data/make_float32_fixture.py

Records `exp_x`/`exp_y` (inputs over [-110, 90], infinities, NaN, where TensorFlow's exp
differs from numpy's, and some where it does not) and, for rows of several lengths,
`softmax_x<n>`/`softmax_y<n>`.
"""

import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.RandomState(20)
    x = np.concatenate([rng.uniform(-110, 90, 200000), rng.normal(0, 3, 100000)]).astype(
        np.float32)
    y = tf.exp(x).numpy()
    with np.errstate(all="ignore"):
        differs = y != np.exp(x)
    chosen = np.concatenate([np.flatnonzero(differs)[:3000], np.flatnonzero(~differs)[:1000]])
    special = np.array([0, -0.0, 1, -1, 88.72, 88.73, 89, 100, -87.3, -88, -103.9, -104,
                        -104.1, np.inf, -np.inf, np.nan, 1e-8, 0.5], np.float32)
    out = {"exp_x": np.concatenate([x[chosen], special])}
    out["exp_y"] = tf.exp(out["exp_x"]).numpy()
    for n in (1, 2, 3, 7, 16, 17, 65, 300):
        rows = rng.normal(0, 4, (max(2, 2000 // n), n)).astype(np.float32)
        rows[0, 0] = -np.inf
        out["softmax_x%d" % n] = rows
        out["softmax_y%d" % n] = tf.nn.softmax(rows).numpy()
    np.savez_compressed(os.path.join(HERE, "float32_tf.npz"), **out)


if __name__ == "__main__":
    main()

"""Summary ops run on the host from a Function compiled by numba or JAX (strict: the
backend must lower the graph, calling the op's kernel back), writing on every call in
program order, as on the numpy executor."""

import importlib.util

import pytest

import autograph.tf as tf
from tests.summary.events import values

BACKENDS = ["numpy"] + [name for name in ("numba", "jax")
                        if importlib.util.find_spec(name) is not None]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_compiled_function_writes_its_summaries_on_every_call(tmp_path, backend):
    def train(step, x):
        tf.summary.scalar("x", x, step=step)
        tf.summary.histogram("h", x * tf.ones([4]), step=step)
        return x * 2.0

    function = tf.function(train, backend=backend,
                           **({} if backend == "numpy" else {"strict": True}))
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            assert function(tf.constant(step, tf.int64), tf.constant(float(step))).numpy() \
                == 2.0 * step
    writer.close()
    assert [(s, float(v)) for s, v in values(tmp_path, "x")] == [(0, 0.0), (1, 1.0),
                                                                 (2, 2.0)]
    assert [s for s, h in values(tmp_path, "h") if h[:, 2].sum() == 4] == [0, 1, 2]

"""`autograph.config(float32_digits=...)`: whose float32 exp and softmax the numpy executor
computes (runtime/ops/float32_kernels.py), numpy's by default."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from runtime.ops import float32_kernels


def test_autograph_config_chooses_the_digits_and_none_restores_the_environments(monkeypatch):
    autograph.config(float32_digits="tensorflow")
    try:
        assert float32_kernels.digits() == "tensorflow"
        monkeypatch.setenv(float32_kernels.ENVIRONMENT_VARIABLE, "tensorflow")
        autograph.config(float32_digits="numpy")
        assert float32_kernels.digits() == "numpy"
        autograph.config(float32_digits=None)  # the environment's choice
        assert float32_kernels.digits() == "tensorflow"
        with pytest.raises(ValueError, match="float32_digits must be one of 'numpy', "
                                             "'tensorflow' or None, got 'eigen'"):
            autograph.config(float32_digits="eigen")
        monkeypatch.setenv(float32_kernels.ENVIRONMENT_VARIABLE, "fast")
        with pytest.raises(ValueError, match="AUTOGRAPH_FLOAT32_DIGITS must be one of"):
            autograph.config(float32_digits=None)
    finally:
        monkeypatch.delenv(float32_kernels.ENVIRONMENT_VARIABLE)
        autograph.config(float32_digits=None)
    assert float32_kernels.digits() == "numpy"


def test_the_setting_changes_what_a_traced_function_computes_at_its_next_call():
    @tf.function(backend="numpy")  # the setting is the executor's (numba and JAX keep theirs)
    def softmax(x):
        return tf.nn.softmax(x)

    x = tf.constant([[4.0, 5.0], [10.0, 1.0]])
    numpys = softmax(x).numpy()
    autograph.config(float32_digits="tensorflow")
    try:
        tensorflows = softmax(x).numpy()
    finally:
        autograph.config(float32_digits=None)
    # TensorFlow's kernel gives 0.73105854 where numpy's rounds to 0.7310586
    assert tensorflows[0, 1] == np.float32(0.73105854) != numpys[0, 1]
    assert softmax.experimental_get_tracing_count() == 1

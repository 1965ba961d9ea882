"""Fixtures of the Keras tests: weights that repeat from run to run."""

import numpy as np
import pytest

from autograph.tf.keras import initializers


@pytest.fixture(autouse=True)
def unseeded_initializers_draw_the_same_every_run(monkeypatch):
    """A layer's weights without `seed=` come from one generator per process, drawn from
    fresh entropy: a test's numbers would differ from run to run (and a check that holds for
    most weights, a finite difference or a training run's loss, fail now and then). Each test
    starts that generator at the same seed instead, whatever ran before it."""
    monkeypatch.setitem(initializers._GLOBAL, "rng", np.random.default_rng(20261129))

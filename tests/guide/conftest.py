"""Shared fixtures for the guide tests ("Better performance with tf.function")."""

import pytest

import autograph.tf as tf


@pytest.fixture(autouse=True)
def _restore_global_switches():
    """Every test starts and ends with graph execution on and numeric checks off."""
    tf.config.run_functions_eagerly(False)
    tf.debugging.disable_check_numerics()
    yield
    tf.config.run_functions_eagerly(False)
    tf.debugging.disable_check_numerics()

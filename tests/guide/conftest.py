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


# The guide shows some pitfalls on purpose (a Python print of a tensor to reveal tracing,
# next() on a Python iterator, tensors leaked into outer state): their tests expect the
# SideEffectWarning that reports each one.
@pytest.fixture
def warns_print_of_tensor():
    """Expects the SideEffectWarning for a Python print() of a tensor."""
    with pytest.warns(tf.autograph.SideEffectWarning, match=r"print\(\) of a tensor"):
        yield


@pytest.fixture
def warns_next_on_python_iterator():
    """Expects the SideEffectWarning for next() on a Python iterator while tracing."""
    with pytest.warns(tf.autograph.SideEffectWarning, match=r"next\(\) on a Python iterator"):
        yield


@pytest.fixture
def warns_leaked_tensor():
    """Expects the SideEffectWarning for a tensor stored into state outside the function."""
    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        yield

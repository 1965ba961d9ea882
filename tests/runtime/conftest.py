"""Fixtures for the runtime tests (the execution-state guard is in tests/conftest.py)."""

import pytest

import autograph.tf as tf


@pytest.fixture
def functions_run_eagerly():
    """Switches `run_functions_eagerly` on for one test, and always back off."""
    tf.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        tf.config.run_functions_eagerly(False)

"""Fixtures of the distribution tests: the host CPU split into logical devices."""

import pytest

import autograph.tf as tf
from runtime import devices


@pytest.fixture
def logical_cpus():
    """A function `split(n)` that splits the CPU into `n` logical devices for the test."""
    saved = dict(devices._state["logical"])

    def split(count):
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * count)
    yield split
    devices._state["logical"] = saved

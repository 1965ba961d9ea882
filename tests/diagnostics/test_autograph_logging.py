"""The standard `logging` logger "autograph", its verbosity switch, and the
AUTOGRAPH_VERBOSITY environment variable."""

import logging
import os
import subprocess
import sys

import pytest

import autograph
import autograph.tf as tf
from runtime import diagnostics
from tests.diagnostics.conftest import DEBUG, records

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _helper(x):
    return x + 1


def test_the_logger_is_the_standard_autograph_logger():
    assert diagnostics.logger is logging.getLogger("autograph")


@pytest.mark.parametrize("verbosity, level", [(0, logging.WARNING), (1, logging.INFO),
                                              (2, logging.DEBUG), (10, logging.DEBUG)])
def test_set_verbosity_sets_the_loggers_level(verbosity, level):
    autograph.set_verbosity(verbosity)
    assert diagnostics.logger.level == level


def test_the_facade_has_set_verbosity():
    assert tf.autograph.set_verbosity is autograph.set_verbosity
    assert tf.autograph.RetracingWarning is autograph.RetracingWarning
    assert tf.autograph.SideEffectWarning is autograph.SideEffectWarning
    assert tf.autograph.UnrollingWarning is autograph.UnrollingWarning


@pytest.mark.parametrize("level", ["2", 1.0, None])
def test_a_bad_verbosity_is_refused(level):
    with pytest.raises(TypeError, match="set_verbosity"):
        autograph.set_verbosity(level)


def test_conversion_decisions_are_logged_at_debug(caplog):
    caplog.set_level(DEBUG, logger="autograph")

    @tf.function
    def f(x):
        return _helper(x) + tf.abs(x)

    f(tf.constant(1.0))
    debug = records(caplog, DEBUG)
    assert any("converted _helper (the user's code)" in m for m in debug), debug
    assert any("left alone" in m and "(library code (runtime.ops" in m for m in debug), debug
    assert all(m.startswith(__file__ + ":") for m in debug)


def test_alsologtostdout_prints_records(capsys):
    autograph.set_verbosity(1, alsologtostdout=True)
    f = tf.function(lambda x: x)
    f(tf.ones([1]))
    f(tf.ones([2]))
    assert "autograph INFO: " in capsys.readouterr().out


def test_the_environment_variable_sets_the_verbosity():
    script = ("import autograph.tf as tf\n"
              "f = tf.function(lambda x: x)\n"
              "f(tf.ones([1])); f(tf.ones([2]))\n")
    env = dict(os.environ, AUTOGRAPH_VERBOSITY="1", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True, cwd=ROOT)
    assert "autograph INFO: " in result.stderr and "traced again" in result.stderr
    env["AUTOGRAPH_VERBOSITY"] = "loud"
    result = subprocess.run([sys.executable, "-W", "always", "-c", script], env=env,
                            capture_output=True, text=True, check=True, cwd=ROOT)
    assert "AUTOGRAPH_VERBOSITY must be an integer" in result.stderr

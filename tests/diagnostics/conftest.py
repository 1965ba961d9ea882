"""Fixtures of the run-time diagnostics tests: every test starts from the default settings
(no retrace budget, side-effect warnings on, verbosity 0) and leaves them so."""

import logging

import pytest

from runtime import diagnostics


@pytest.fixture(autouse=True)
def _default_diagnostics():
    level = diagnostics.logger.level
    diagnostics.configure(retrace_budget=None, side_effect_warnings=True)
    yield
    diagnostics.configure(retrace_budget=None, side_effect_warnings=True)
    diagnostics.logger.setLevel(level)
    for name in list(diagnostics._handlers):
        diagnostics.logger.removeHandler(diagnostics._handlers.pop(name))


def records(caplog, level):
    """The messages the `autograph` logger recorded at `level`."""
    return [r.getMessage() for r in caplog.records
            if r.name == "autograph" and r.levelno == level]


DEBUG, INFO = logging.DEBUG, logging.INFO

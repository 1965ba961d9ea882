"""Shared fixtures for the compiler's unit tests (one test file per pass).

Every test must leave the global execution state as it found it: no graph left on the
context stack and `run_functions_eagerly` off. Test functions are defined at module level
(or nested in tests) so that the compiler can read their source.
"""

import pytest

from runtime import context


@pytest.fixture(autouse=True)
def clean_execution_state():
    assert context.graph_stack == [], "a previous test left a graph on the context stack"
    yield
    leaked = list(context.graph_stack)
    eager = context.functions_run_eagerly()
    del context.graph_stack[:]
    context.run_functions_eagerly(False)
    assert leaked == [], "the test left a graph on the context stack: %r" % leaked
    assert not eager, "the test left run_functions_eagerly(True) switched on"

"""Execution context: are ops running eagerly, or being recorded into a graph?

Each thread has its own stack of the graphs it is building, innermost last; an empty stack
means eager execution, so a thread tracing a function never captures another thread's ops.
`building` lists the graphs being built in every thread: the hot paths (each eager op, each
cached Function call) test that one global list and look at their thread's own stack only
while some thread is tracing.
"""

import contextlib
import threading
from typing import Any


class _ThreadState(threading.local):
    def __init__(self):
        self.graph_stack = []
        self.converters = []  # the converters of the Functions being traced, innermost last


_thread = _ThreadState()
# every thread's graphs being built: empty means every thread runs eagerly (runtime.graph
# Graphs: the graph layer imports this module, so it names no graph type)
building: list[Any] = []
_settings = {"run_functions_eagerly": False, "default_converter": None,
             "check_numerics": False}
# The GradientTapes recording eager ops (runtime.gradients.tape), innermost last. Eager
# execution checks it once per op; a tape entered inside a trace records graph nodes instead
# and is never listed here.
tapes: list[Any] = []


def thread_graphs():
    """This thread's stack of graphs being built, innermost last (the list itself)."""
    return _thread.graph_stack


def thread_state():
    """This thread's graphs being built and converters (copies), for a helper thread that
    works for it (a strategy's replica thread) to adopt."""
    return list(_thread.graph_stack), list(_thread.converters)


@contextlib.contextmanager
def adopted_thread_state(state):
    """Within the block, this thread builds the graphs and uses the converters of `state`
    (from `thread_state()` of the thread it works for; that thread waits meanwhile)."""
    graphs, converters = state
    _thread.graph_stack[:] = graphs
    _thread.converters[:] = converters
    try:
        yield
    finally:
        del _thread.graph_stack[:]
        del _thread.converters[:]


@contextlib.contextmanager
def eager_scope():
    """Runs the block eagerly in this thread, even inside a trace (the graphs being built
    are set aside and restored after it)."""
    stack = _thread.graph_stack
    saved = stack[:]
    del stack[:]
    try:
        yield
    finally:
        stack[:] = saved


def push_graph(graph):
    """Makes `graph` the one this thread adds ops to (see Graph.as_default)."""
    _thread.graph_stack.append(graph)
    building.append(graph)


def pop_graph():
    """Undoes the last `push_graph` of this thread."""
    building.remove(_thread.graph_stack.pop())


def current_graph():
    """The graph this thread adds ops to, or None when it executes eagerly."""
    if not building:
        return None
    stack = _thread.graph_stack
    return stack[-1] if stack else None


def executing_eagerly():
    """True when this thread's ops run immediately (it builds no graph)."""
    return not building or not _thread.graph_stack


@contextlib.contextmanager
def converter_scope(converter):
    """While a Function traces, `converter` (its `converter` parameter; None: no conversion)
    is the one the functions it hands to the runtime (`Dataset.map`...) are converted with."""
    stack = _thread.converters
    stack.append(converter)
    try:
        yield
    finally:
        stack.pop()


def set_default_converter(converter):
    """The converter used outside any trace (`autograph` installs its compiler's)."""
    _settings["default_converter"] = converter


def function_converter():
    """The converter for functions handed to the runtime here: the one of the innermost
    Function being traced in this thread, else the default (None: functions run as written)."""
    stack = _thread.converters
    return stack[-1] if stack else _settings["default_converter"]


def run_functions_eagerly(run_eagerly):
    """When True, `Function`s call their Python function directly, unconverted and untraced."""
    _settings["run_functions_eagerly"] = bool(run_eagerly)


def functions_run_eagerly():
    """The current value of the `run_functions_eagerly` switch."""
    return _settings["run_functions_eagerly"]


def set_check_numerics(enabled):
    """When True, ops run eagerly and Functions traced from now on raise InvalidArgumentError
    when an op produces NaN or Inf (`tf.debugging.enable_check_numerics`)."""
    _settings["check_numerics"] = bool(enabled)


def numerics_checked():
    """The current value of the check-numerics switch."""
    return _settings["check_numerics"]


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Makes ops created from now on raise InvalidArgumentError when they produce NaN or Inf
    (the two limits are accepted for TensorFlow's signature and unused)."""
    set_check_numerics(True)


def disable_check_numerics() -> None:
    """Stops checking new ops for NaN and Inf."""
    set_check_numerics(False)

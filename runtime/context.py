"""Execution context: are ops running eagerly, or being recorded into a graph?

The stack holds the graphs being built, innermost last; an empty stack means eager
execution. Kept in one tiny module so that the hot path is a single list lookup.
"""

graph_stack = []
_settings = {"run_functions_eagerly": False}
# The GradientTapes recording eager ops (runtime.gradients.tape), innermost last. Eager
# execution checks it once per op; a tape entered inside a trace records graph nodes instead
# and is never listed here.
tapes = []


def current_graph():
    """The graph ops are being added to, or None when executing eagerly."""
    return graph_stack[-1] if graph_stack else None


def executing_eagerly():
    """True when ops run immediately (no graph is being built)."""
    return not graph_stack


def run_functions_eagerly(run_eagerly):
    """When True, `Function`s call their Python function directly, unconverted and untraced."""
    _settings["run_functions_eagerly"] = bool(run_eagerly)


def functions_run_eagerly():
    """The current value of the `run_functions_eagerly` switch."""
    return _settings["run_functions_eagerly"]

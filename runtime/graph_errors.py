"""Errors raised while a graph runs, named after the graph node that failed.

The executor (or a compiled backend) raises whatever the op's kernel raised; the user needs
the node, the trace it belongs to and the lines of their code that created it. `translate`
turns the raw error into that, and points its traceback at those lines when tracebacks are
filtered (see runtime.tracebacks).
"""

from __future__ import annotations

from runtime import errors, tracebacks


def translate(error, compiled, name):
    """The error to raise for `error`, raised by `compiled` (the graph of the trace called
    `name`) as it ran: named after the failing node (inside the trace a call node calls,
    when that is where it failed) and the user's lines that created it. When tracebacks
    are filtered, its traceback ends with frames at those lines, followed by the user's own
    frames that ran inside the node (a py_function's)."""
    nodes = _failing_nodes(compiled, error.__traceback__) if compiled else []
    if not nodes:
        return error
    owner = nodes[-2].attrs["f"].name if len(nodes) > 1 else name
    locations = [node.location for node in nodes if node.location is not None]
    translated = _in_node_terms(error, nodes[-1], owner, locations)
    if locations and tracebacks.filtering_enabled():
        tb = tracebacks.filter_traceback(error.__traceback__)
        for location in reversed(locations):
            tb = tracebacks.location_traceback(location, tb)
        translated.with_traceback(tb)
    return translated


def _failing_nodes(compiled, tb):
    """The node of graph `compiled` whose line raised in traceback `tb`, then, while that
    node calls another trace (PartitionedCall), the node of that trace that raised."""
    nodes = []
    while compiled is not None:
        node = compiled.node_for_traceback(tb)
        if node is None:
            break
        nodes.append(node)
        compiled = None
        if "calls_function" in node.op.traits:
            callee, residuals = node.attrs["f"], tuple(node.attrs.get("residuals", ()))
            compiled = callee._compiled_with(residuals) if residuals else callee._compiled
    return nodes


def _in_node_terms(error, node, owner, locations):
    """`error` named after `node` of the trace of `owner`, created at `locations`."""
    where = ""
    if locations:
        where = "\n\nin user code:\n  %s" % "\n  ".join(str(loc) for loc in locations)
    prefix = "graph node %r (%s) of %s failed" % (node.name, node.op.name, owner)
    if isinstance(error, errors.OpError):
        return type(error)("%s: %s%s" % (prefix, error.message, where), node.name)
    if isinstance(error, (ValueError, IndexError, ZeroDivisionError, FloatingPointError,
                          OverflowError)) or (isinstance(error, TypeError) and
                                              node.op.name != "EagerPyFunc"):
        return errors.InvalidArgumentError("%s: %s%s" % (prefix, error, where), node.name)
    errors.add_note(error, "(raised inside %s%s)" % (prefix.replace(" failed", ""), where))
    return error

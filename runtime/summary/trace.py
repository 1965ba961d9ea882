"""Graph tracing for TensorBoard: `trace_on(graph=True)` collects the graph of every Function
that runs until `trace_export(name, step)` writes them, as one GraphDef event, to the default
writer (TensorBoard's graph dashboard reads it).

    trace_on(graph=True)
    f(x)                                  # f's graph is collected (traced now or before)
    trace_export("f_trace", step=0)       # Event{step 0, graph_def: f/x, f/add, ...}

Each function's nodes are put under a name scope of its own (the function's name, made
unique), which TensorBoard draws as one box to open.
"""

from __future__ import annotations

import threading
from typing import Any

from runtime import concrete_function
from runtime.graph import tensor_ref_name
from runtime.summary import protos, writers

_lock = threading.Lock()
_collected: dict[int, Any] | None = None  # id -> ConcreteFunction, in call order


def _collect(function: Any) -> None:
    with _lock:
        if _collected is not None:
            _collected.setdefault(id(function), function)


def trace_on(graph: bool = True, profiler: bool = False,
             profiler_outdir: str | None = None) -> None:
    """Starts collecting the graphs of the Functions that run (`graph=True`); profiling is
    not available here and `profiler=True` raises."""
    global _collected
    if profiler:
        raise NotImplementedError("tf.summary.trace_on(profiler=True): profiling is not "
                                  "available; graph tracing is")
    with _lock:
        if _collected is not None:
            return  # already on, as TensorFlow: a warning there, nothing changes
        if graph:
            _collected = {}
            concrete_function.call_observers.append(_collect)


def trace_off() -> None:
    """Stops collecting and forgets what was collected."""
    global _collected
    with _lock:
        if _collect in concrete_function.call_observers:
            concrete_function.call_observers.remove(_collect)
        _collected = None


def trace_export(name: str, step: Any = None, profiler_outdir: str | None = None) -> None:
    """Writes the graphs collected since `trace_on` as one GraphDef event at `step` (default:
    the default step) to the default writer, then stops collecting. `name` is accepted for
    TensorFlow's signature: a GraphDef event carries no tag (TensorBoard shows it as the
    run's graph)."""
    with _lock:
        functions = list(_collected.values()) if _collected is not None else None
    trace_off()
    if functions is None:
        raise ValueError("tf.summary.trace_export(%r): tracing is not on (call "
                         "tf.summary.trace_on() first)" % (name,))
    writer = writers.default_writer()
    if writer is None:
        return
    if step is None:
        step = writers.get_step()
        if step is None:
            raise ValueError("no step set for the trace: pass `step=` or set one with "
                             "tf.summary.experimental.set_step()")
    value = getattr(step, "numpy", None)
    writer.write_event(int(value() if value is not None else step),
                       graph_def=graph_def_of([f.graph for f in functions]))


def graph_def_of(graphs: list[Any]) -> bytes:
    """The serialized GraphDef of `graphs`, each one's nodes under a name scope of its own."""
    nodes = []
    scopes: set[str] = set()
    for graph in graphs:
        scope = graph.name or "function"
        number = 1
        while scope in scopes:
            scope = "%s_%d" % (graph.name, number)
            number += 1
        scopes.add(scope)
        for node in graph.nodes:
            inputs = ["%s/%s" % (scope, tensor_ref_name(t)) for t in node.inputs]
            inputs += ["^%s/%s" % (scope, c.name) for c in node.control_inputs]
            shapes = [t._shape_tuple() for t in node.outputs]
            nodes.append(protos.node_def("%s/%s" % (scope, node.name), node.op.name, inputs,
                                         node.attrs, shapes))
    return protos.graph_def(nodes)

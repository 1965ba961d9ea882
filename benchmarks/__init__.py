"""Side-by-side benchmarks of the runtime: `python -m benchmarks [--quick] [--filter NAME]`.

Each workload is timed beside hand-written numpy doing the same work in the same run (and
beside TensorFlow and JAX when they happen to be importable), and checked against targets
expressed as time ratios. See benchmarks/README.md for the workloads and the latest results.

To add workloads, write a module defining `WORKLOADS` (a list of `benchmarks.workload.Workload`)
and add its name to `WORKLOAD_MODULES` below.
"""

import importlib

from benchmarks.workload import Target, Variant, Workload  # the public API

# The one list of workload groups, run in this order.
WORKLOAD_MODULES = [
    "benchmarks.runtime_core",
    "benchmarks.compiler",
    "benchmarks.accumulation",
    "benchmarks.functional",
    "benchmarks.training",
    "benchmarks.keras_fit",
    "benchmarks.jacobians",
]


def load_workloads(modules=None):
    """All registered workloads, in order (imports each group module)."""
    workloads = []
    for name in modules or WORKLOAD_MODULES:
        module = importlib.import_module(name)
        for workload in module.WORKLOADS:
            if not workload.group:
                workload.group = name.rsplit(".", 1)[-1]
            workloads.append(workload)
    return workloads


def select(workloads, filters):
    """The workloads whose name or group contains any of `filters` (case-insensitive)."""
    if not filters:
        return list(workloads)
    wanted = [f.lower() for f in filters]
    return [w for w in workloads
            if any(f in w.name.lower() or f in w.group.lower() for f in wanted)]

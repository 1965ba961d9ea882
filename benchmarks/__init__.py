"""Side-by-side benchmarks of the runtime: `python -m benchmarks [--quick] [--filter NAME]`.

Each workload is timed beside hand-written numpy doing the same work in the same run (and
beside TensorFlow and JAX when they happen to be importable), and checked against targets
expressed as time ratios. See benchmarks/README.md for the workloads and the latest results.

To add workloads, write a module defining `WORKLOADS` (a list of `benchmarks.workload.Workload`)
and add its name to `WORKLOAD_MODULES` below.
"""

import importlib
import os

# One BLAS thread unless the caller chose (read when numpy is first imported, which the
# line below does): the targets are time ratios of our code against the same work by hand,
# and a second BLAS thread contending with XLA's pool and the rest of the machine made
# BLAS-heavy timings bimodal (spreads of 100-390% on a 2-core machine, against 4-9% with
# one thread). `OPENBLAS_NUM_THREADS=4 python -m benchmarks` times four.
BLAS_THREADS = {name: os.environ.setdefault(name, "1") for name in (
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}

from benchmarks.workload import Target, Variant, Workload  # noqa: E402 - the public API

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

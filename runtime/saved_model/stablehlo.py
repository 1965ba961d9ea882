"""`save(..., format="stablehlo")`: each saved trace also written through `jax.export`.

Next to the usual files (which `load` reads; it ignores these), the folder gets one
`stablehlo.<function key>.bin` per saved trace, the bytes of `jax.export.serialize`, and
`stablehlo.json`, their index: for each function key, its file, size, SHA-256 and signature.
Any XLA runtime can serve them; in Python, `jax.export.deserialize(bytearray(data))
.call(*tensor_arguments)` runs one. Its results are the trace's outputs, then a bool scalar
that is true where the numpy executor would have raised (a failed check: the outputs are then
meaningless). Captured variables are exported with their values at save time.
"""

from __future__ import annotations

import re
from typing import Any

from runtime.backends import jax_backend
from runtime.saved_model import schema
from runtime.saved_model.errors import NotSaveableError

INDEX = "stablehlo.json"
RESULTS = ("the trace's outputs in order, then a bool scalar that is true where a check failed "
           "(the outputs are then meaningless)")


def export_files(traces: dict[str, Any]) -> dict[str, bytes]:
    """{file name: content} for the traces {function key: ConcreteFunction}; ValueError when
    JAX is missing, NotSaveableError naming the trace and the reason when one cannot be
    exported."""
    missing = jax_backend.unavailable()
    if missing is not None:
        raise ValueError("save(format='stablehlo') exports through JAX: %s" % missing)
    files: dict[str, bytes] = {}
    index: dict[str, Any] = {}
    for key, cf in traces.items():
        try:
            data = jax_backend.export_stablehlo(cf)
        except ValueError as e:
            raise NotSaveableError("cannot export %s as StableHLO: %s" % (cf.name, e)) from e
        name = "stablehlo.%s.bin" % re.sub(r"[^A-Za-z0-9_.-]", "_", key)
        files[name] = data
        index[key] = {"file": name, "bytes": len(data), "sha256": schema.digest(data),
                      "signature": cf.pretty_printed_signature()}
    files[INDEX] = schema.dumps({"format": "stablehlo", "results": RESULTS,
                                 "functions": index})
    return files

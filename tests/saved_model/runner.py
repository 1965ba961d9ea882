"""Loads saved models and runs calls on them: the fresh process of the round-trip tests.

    python -m tests.saved_model.runner CALLS.json RESULTS.json     (from the repository root)

CALLS.json lists `{"model": folder, "path": ["attr", ...], "args": [...], "kwargs": {...}}`;
`path` names the loaded object's attribute to call (`["signatures", "serving_default"]` for a
signature, `[]` for the loaded object itself, `["assign", "v"]` assigns `args[0]` to the
variable `v`). Arguments are JSON values or `{"tensor": values, "dtype": name}`. Each result is
what `encode` writes: the call's outputs, tf.print text included, or its error class. The
round-trip tests compute the same encoding in the saving process (`run_call`)."""

import contextlib
import io
import json
import sys

import numpy as np

import autograph.tf as tf
from runtime import saved_model


def encode(value):
    """A JSON form of a call's result that compares exactly (dtype, shape, values)."""
    if isinstance(value, tf.Tensor):
        array = value.numpy()
        if value.dtype is tf.string:
            items = [v.decode("latin-1") for v in np.asarray(array, dtype=object).flat]
        else:
            items = np.asarray(array).astype(np.float64).ravel().tolist() \
                if value.dtype.is_floating else np.asarray(array).ravel().tolist()
        return {"dtype": value.dtype.name, "shape": list(np.shape(array)),
                "values": [repr(v) for v in items]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in sorted(value.items(), key=repr)}}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(v) for v in value]}
    return {"python": repr(value)}


def decode_arg(data):
    """An argument from CALLS.json."""
    if isinstance(data, dict) and "tensor" in data:
        return tf.constant(np.asarray(data["tensor"]), dtype=getattr(tf, data["dtype"]))
    if isinstance(data, list):
        return [decode_arg(d) for d in data]
    return data


def run_call(root, call):
    """Runs `call` (a CALLS.json entry) on loaded or original object `root`; returns its
    encoded outcome, with what it printed."""
    args = [decode_arg(a) for a in call.get("args", [])]
    kwargs = {k: decode_arg(v) for k, v in call.get("kwargs", {}).items()}
    path = call["path"]
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed), contextlib.redirect_stdout(printed):
            if path and path[0] == "assign":
                getattr(root, path[1]).assign(args[0])
                result = None
            else:
                target = root
                for name in path:
                    target = target[name] if isinstance(target, dict) else getattr(target, name)
                result = target(*args, **kwargs)
        outcome = {"result": encode(result)}
    except Exception as e:  # noqa: BLE001 - the error class is the outcome compared
        outcome = {"error": type(e).__name__, "unbound": isinstance(e, UnboundLocalError)}
    outcome["printed"] = printed.getvalue()
    return outcome


def main(argv):
    """Loads each model once and runs the calls in order."""
    with open(argv[0]) as f:
        calls = json.load(f)
    loaded = {}
    results = []
    for call in calls:
        if call["model"] not in loaded:
            loaded[call["model"]] = saved_model.load(call["model"])
        results.append(run_call(loaded[call["model"]], call))
    with open(argv[1], "w") as f:
        json.dump({"results": results, "modules": sorted(sys.modules)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

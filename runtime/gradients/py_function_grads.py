"""Gradients through `py_function` (EagerPyFunc), as TensorFlow gives them.

A py_function's Python code runs on eager tensors, so its ops can be recorded by a
GradientTape of its own. When the op may be differentiated (it is staged in a graph, or
runs eagerly while a tape records), each run executes the function under a persistent tape
watching its float inputs (`run_recorded`) and remembers that tape by the identity of the
run's first float output array (the value the gradient op is handed, so a gradient always
finds the run it belongs to, even inside loops).

The gradient is one `EagerPyFuncGrad` op (declared with EagerPyFunc in
runtime/ops/py_function_ops.py, its kernel `py_function_grad_kernel` below): (that output,
upstream gradients) -> gradients of the inputs, computed by the remembered tape. An output
the function did not compute with ops from its inputs (a numpy array, a Python number, a
constant) cannot pass a gradient on: when one flows into it, the gradient op raises instead
of giving a made-up value.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import context, errors
from runtime.dtypes import DType
from runtime.gradients.tape import GradientTape
from runtime.shape import Shape
from runtime.tensor import EagerTensor, Tensor

# id(first float output array of a run) -> (weak reference to it, _Run)
_Runs = dict[int, tuple["weakref.ref[np.ndarray]", "_Run"]]
_RUNS: _Runs = {}


class _Run:
    """One recorded run of a py_function: its tape, eager arguments and raw results."""

    __slots__ = ("tape", "args", "results")

    def __init__(self, tape: GradientTape, args: list[EagerTensor], results: Sequence[Any]) -> None:
        self.tape = tape
        self.args = args
        self.results = results


def run_recorded(func: Callable[..., Any],
                 args: list[EagerTensor]) -> tuple[Any, GradientTape]:
    """Calls `func(*args)` under a persistent tape watching the float arguments; returns
    (result, tape)."""
    tape = GradientTape(persistent=True)
    with tape:
        for a in args:
            if a.dtype.kind == "float":
                tape.watch(a)
        result = func(*args)
    return result, tape


def remember(outputs: list[np.ndarray], tape: GradientTape, args: list[EagerTensor],
             results: Sequence[Any]) -> list[np.ndarray]:
    """Keeps the tape of a run for its gradient, keyed by the first float output array;
    returns the outputs to hand on. That array is handed on as a fresh view, which only the
    run's consumers hold: the entry goes when they drop it (the run itself holds the
    function's results, which may share the array's data)."""
    index = next((i for i, o in enumerate(outputs) if o.dtype.kind == "f"), None)
    if index is None:
        return outputs
    outputs = list(outputs)
    key_array = outputs[index] = outputs[index].view()
    key = id(key_array)

    # `runs` bound now: still there at interpreter exit
    def forget(ref: weakref.ref[np.ndarray], key: int = key, runs: _Runs = _RUNS) -> None:
        found = runs.get(key)
        if found is not None and found[0] is ref:
            del runs[key]
    _RUNS[key] = (weakref.ref(key_array, forget), _Run(tape, args, results))
    return outputs


def _find_run(key_array: np.ndarray) -> _Run | None:
    found = _RUNS.get(id(key_array))
    if found is None or found[0]() is not key_array:
        return None
    return found[1]


def _not_connected(func: Callable[..., Any], index: int, value: Any,
                   where: errors.SourceLocation | None) -> errors.InvalidArgumentError:
    name = getattr(func, "__name__", repr(func))
    what = ("a tensor that does not depend on the function's inputs"
            if isinstance(value, Tensor) else
            "a value of type %s, not a tensor" % type(value).__name__)
    return errors.InvalidArgumentError(errors.with_user_location(
        "a gradient flows into output %d of tf.py_function(%s), but the function returned %s "
        "for it, so it was not computed with TensorFlow ops from the inputs and no gradient "
        "can flow back through it. Compute that output with tf ops on the inputs, or wrap it "
        "in tf.stop_gradient." % (index, name, what), where), "EagerPyFuncGrad")


def py_function_grad_kernel(key_value: np.ndarray, *dys: np.ndarray, func: Callable[..., Any],
                            dy_indices: Sequence[int], wanted: Sequence[int],
                            out_specs: Sequence[tuple[DType, Shape]],
                            where: errors.SourceLocation | None
                            ) -> np.ndarray | tuple[np.ndarray, ...]:
    """EagerPyFuncGrad's kernel: the gradients of the run's `wanted` inputs, from the tape
    kept for the run whose output `key_value` is, under upstream gradients `dys` (for the
    outputs `dy_indices`)."""
    run = _find_run(key_value)
    if run is None:
        raise errors.InvalidArgumentError(
            "internal error: the recorded run of tf.py_function(%s) that this gradient needs "
            "is gone" % getattr(func, "__name__", "?"), "EagerPyFuncGrad")
    targets: list[Tensor] = []
    weights: list[EagerTensor] = []
    for i, dy in zip(dy_indices, dys):
        value = run.results[i]
        if not isinstance(value, Tensor) or id(value) not in run.tape._live:
            if np.any(dy):
                raise _not_connected(func, i, value, where)
            continue
        targets.append(value)
        weights.append(EagerTensor(np.asarray(dy, dtype=value.dtype.np_dtype), value.dtype))
    sources = [run.args[j] for j in wanted]
    with context.eager_scope():
        grads = (run.tape.gradient(targets, sources, output_gradients=weights)
                 if targets else [None] * len(sources))
    out = []
    for g, (dtype, _), source in zip(grads, out_specs, sources):
        value = np.zeros_like(source._value) if g is None else g._value
        out.append(np.asarray(value, dtype=dtype.np_dtype))
    return out[0] if len(out) == 1 else tuple(out)

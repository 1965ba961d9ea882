"""Round trips: saved functions give the same results when loaded in a fresh process that
never had their source (the source file is deleted before it starts).

The guide's saveable functions (guide_models.py) and the random-program generator's programs
(tests/autograph/random_programs.py, its base generator) are traced and called here, saved,
called again (the expected results: variables and random generators continue from the saved
state), and then loaded and called by tests/saved_model/runner.py in a subprocess."""

import importlib.util
import json
import linecache
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import autograph
import autograph.tf as tf
from runtime import backends, context
from tests.autograph import random_programs as programs
from tests.saved_model import guide_models, runner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def one_backend_in_both_processes(monkeypatch):
    """Under "auto" (the default) this process and the fresh one run every graph on the numpy
    executor: "auto" may promote a graph to numba on one side only (in the fresh process,
    one whose kernel a promotion left in the cache folder, at its second call), and numba's
    transcendental math is within 4 ulp of the executor's, not equal."""
    if backends.default() == "auto":
        monkeypatch.setitem(context._settings, "backend", "numpy")
        monkeypatch.setenv("AUTOGRAPH_BACKEND", "numpy")


def run_fresh(tmp_path, calls):
    """The outcomes of `calls` run by runner.py in a new Python process."""
    calls_file, results_file = tmp_path / "calls.json", tmp_path / "results.json"
    calls_file.write_text(json.dumps(calls))
    done = subprocess.run([sys.executable, "-m", "tests.saved_model.runner", str(calls_file),
                           str(results_file)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(results_file.read_text())


def _call_entry(folder, path, args, kwargs):
    return {"model": str(folder), "path": path, "args": args, "kwargs": kwargs}


def test_guide_functions_give_the_same_results_after_loading_in_a_fresh_process(tmp_path):
    source = tmp_path / "guide_source_models.py"
    source.write_text(guide_models.SOURCE)
    spec = importlib.util.spec_from_file_location("guide_source_models", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = []
    for name, (attribute, model_calls) in guide_models.MODELS.items():
        obj = getattr(module, attribute)
        folder = tmp_path / "saved" / name
        entries = [_call_entry(folder, *call) for call in model_calls]
        for entry in entries:  # traces every signature the calls use
            if entry["path"][:1] != ["signatures"]:
                runner.run_call(obj, entry)
        signature = guide_models.SIGNATURES.get(name)
        tf.saved_model.save(obj, folder,
                            signatures=getattr(obj, signature) if signature else None)
        calls.extend(entries)
    expected = [_expected(module, guide_models.MODELS, call) for call in calls]
    source.unlink()
    linecache.clearcache()
    got = run_fresh(tmp_path, calls)
    assert "guide_source_models" not in got["modules"]
    for call, want, result in zip(calls, expected, got["results"]):
        assert result == want or _within_ulps(result, want), call


def _within_ulps(result, want, ulps=4):
    """On a compiled backend (AUTOGRAPH_BACKEND=jax or numba, which may run one side and not
    the other), results that differ only by float values within `ulps` units in the last
    place; False on the numpy executor, where they must be equal (under "auto" both
    processes run there: see `one_backend_in_both_processes`)."""
    if backends.default() not in backends.BACKENDS:
        return False
    if isinstance(result, dict) and isinstance(want, dict):
        if result.keys() != want.keys():
            return False
        if "values" in want and want.get("dtype", "").startswith(("float", "bfloat")):
            dtype = np.dtype(want["dtype"]) if want["dtype"] != "bfloat16" else np.float32
            got = np.array([float(v) for v in result["values"]], dtype)
            expected = np.array([float(v) for v in want["values"]], dtype)
            equal = np.isclose(got, expected, rtol=0, atol=0, equal_nan=True)
            with np.errstate(invalid="ignore"):  # inf - inf: not near (but equal)
                near = np.abs(got.astype(np.float64) - expected) <= ulps * np.spacing(
                    np.abs(expected))
            return result["shape"] == want["shape"] and got.shape == expected.shape and \
                bool(np.all(equal | near))
        return all(_within_ulps(result[k], want[k], ulps) for k in want)
    if isinstance(result, list) and isinstance(want, list):
        return len(result) == len(want) and all(
            _within_ulps(r, w, ulps) for r, w in zip(result, want))
    if isinstance(result, str) and isinstance(want, str):  # printed text: its float32s
        return _printed_within_ulps(result, want, ulps)
    return result == want


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")


def _printed_within_ulps(result, want, ulps):
    """The same text but for printed float32 numbers within `ulps` of each other."""
    if _NUMBER.sub("#", result) != _NUMBER.sub("#", want):
        return False
    got = np.array([float(v) for v in _NUMBER.findall(result)], np.float32)
    expected = np.array([float(v) for v in _NUMBER.findall(want)], np.float32)
    return got.shape == expected.shape and bool(np.all(
        np.abs(got.astype(np.float64) - expected) <= ulps * np.spacing(np.abs(expected))))


def _expected(module, models, call):
    """The outcome of `call` on the original object (a signature: on its function, with the
    signature's dict of outputs)."""
    name = os.path.basename(call["model"])
    obj = getattr(module, models[name][0])
    if call["path"][:1] == ["signatures"]:
        function = getattr(obj, guide_models.SIGNATURES[name]) if \
            name in guide_models.SIGNATURES else obj
        outcome = runner.run_call(function, dict(call, path=[]))
        result = outcome.get("result")
        if result is not None and "dict" not in result:
            outcome["result"] = {"dict": {"output_0": result}}
        return outcome
    return runner.run_call(obj, call)


def test_the_loaded_guide_functions_reject_calls_matching_no_saved_trace(tmp_path):
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    tf.saved_model.save(double, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    with pytest.raises(TypeError, match=r"(?s)match none of its saved signatures.*"
                                        r"a: TensorSpec\(shape=\(\), dtype=tf.int32"):
        loaded(tf.constant(1.0))


# -- random programs ----------------------------------------------------------------------------


def _collect_programs(count):
    """`count` programs of the random-program generator (the same ones on every run), each
    with arguments."""
    found = []

    @settings(max_examples=count, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(source=programs.programs(frozenset()), x=programs.st.integers(0, 9),
           y=programs.st.integers(0, 9))
    def collect(source, x, y):
        found.append((source, x, y))

    collect()
    return found


def check_random_programs(tmp_path, count):
    """Traces, saves and reloads `count` random programs; the fresh process must give the
    traced function's outcome (a value, or UnboundLocalError) for each."""
    calls, expected = [], []
    for number, (source, x, y) in enumerate(_collect_programs(count)):
        f = programs.load(source)
        function = tf.function(f)
        args = (tf.constant(x), tf.constant(y))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                concrete = function.get_concrete_function(*args)
        except (UnboundLocalError, NotImplementedError):
            continue  # refused at trace time (see check_program): nothing to save
        folder = tmp_path / ("program%d" % number)
        autograph.save(concrete, folder)
        call = _call_entry(folder, [], [{"tensor": x, "dtype": "int32"},
                                        {"tensor": y, "dtype": "int32"}], {})
        expected.append(runner.run_call(concrete, call))
        calls.append(call)
    linecache.clearcache()
    got = run_fresh(tmp_path, calls)
    for call, want, result in zip(calls, expected, got["results"]):
        assert result == want, call
    return len(calls)


@pytest.mark.property
def test_random_programs_give_the_same_results_after_loading(tmp_path):
    assert check_random_programs(tmp_path, 5) >= 3


@pytest.mark.slow
@pytest.mark.property
def test_many_random_programs_give_the_same_results_after_loading(tmp_path):
    assert check_random_programs(tmp_path, 150) >= 100

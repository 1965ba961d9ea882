"""Property: a hostile saved-model folder never runs code, never hangs, never exhausts memory.

Hypothesis mutates saved folders of a few small real models as an attacker would: JSON
values and keys of graphs.json (names, attribute names and values, dtypes, shapes, with code
payloads, huge numbers and deep nesting; the manifest rehashed so that only the loader's own
checks stand in the way), manifest entries, the `.npy` headers and compression of `.npz`
members, and the kind of a file (a FIFO, a symbolic link to a device or out of the folder, a
folder). Then `load` and a first call (and, for a model with a custom gradient, the gradient
of its first output) must either work or raise SavedModelError (a call may
also raise the documented run-time errors of the ops from the values it computes, as an
edited graph may compute something else: a failed assertion, an index out of range; never an
error of a kernel given an attribute of the wrong type, which the loader must refuse), and:
  * no code ran: every payload would create a marker file, which must not exist;
  * nothing hung: load and call run in a thread that must finish within TIME_BOUND seconds;
  * memory stayed bounded: the peak that tracemalloc sees (numpy reports its arrays to it)
    stays under MEMORY_BOUND bytes, whatever sizes the folder declares.
"""

import collections
import io
import json
import os
import shutil
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph.tf as tf
from runtime import errors
from runtime.saved_model import SavedModelError, load, save, schema
from tests.saved_model.tampering import within

TIME_BOUND = 60
MEMORY_BOUND = 256 << 20


class Branching(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([0.5, -1.0, 2.0])

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32),
                                  tf.TensorSpec([], tf.string)])
    def __call__(self, x, tag):
        y = x * self.v
        i = tf.constant(0)
        while tf.reduce_sum(y) > 1.0 and i < 5:
            y = y * 0.5
            i += 1
        z = y[:, 1:] if i > 2 else -y[:, :2]
        return {"z": z, "i": i, "tag": tag + tf.constant("!")}


class Kernels(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32),
                                  tf.TensorSpec([], tf.string)])
    def __call__(self, x, tag):
        y = tf.einsum("ij,kj->ik", x, x)
        tf.debugging.assert_equal(tf.reduce_all(tf.equal(tf.zeros_like(y), 0.0)), True)
        return tf.reduce_max(y, axis=1), tf.fill(tf.constant([3]), 2.0), tag


@tf.custom_gradient
def _clipped(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


class CustomGradients(tf.Module):
    """Saves its custom gradient as a graph (a SavedCustomGradient node calling it): the
    check differentiates its first output."""

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32),
                                  tf.TensorSpec([], tf.string)])
    def __call__(self, x, tag):
        return _clipped(x * x) + 1.0, tag


MODELS = {"branching": Branching, "kernels": Kernels, "custom_gradient": CustomGradients}
DIFFERENTIATED = {"custom_gradient"}
_ARGS = (tf.constant(np.array([[4.0, -2.0, 3.0], [1.0, 1.0, 1.0]], np.float32)),
         tf.constant("id"))
_CALL_ERRORS = (errors.InvalidArgumentError, errors.FailedPreconditionError,
                errors.OutOfRangeError, errors.AssertionFailedError,
                errors.UndefinedValueError, TypeError,
                LookupError)  # a gradient through an edited graph: an op without one


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{model name: folder of its pristine saved model}."""
    folders = {}
    for name, model in MODELS.items():
        folders[name] = tmp_path_factory.mktemp("pristine") / name
        save(model(), folders[name])
        load(folders[name])(*_ARGS)
    return folders


def _payloads(marker):
    code = "__import__('pathlib').Path(%r).touch()" % str(marker)
    return [") if %s or 1 else 0; _ = dict(zz" % code, "x'); %s; ('" % code,
            "f(x):\n    %s\ndef g" % code, code, "lambda", "__class__", "None"]


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 70000),
                     st.sampled_from([2 ** 31, 10 ** 13, -(10 ** 13), 2 ** 63]),
                     st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=4),
                     st.sampled_from(["float32", "int64", "bytes", "resource", "object",
                                      "file:///tmp/x", "stdout", "Einsum", "PrintV2", "c0",
                                      "x", "Const", "__call___0"]))


def _values(payloads):
    shapes = st.lists(st.one_of(st.none(), st.integers(-1, 4), st.just(10 ** 13)),
                      max_size=4)
    return st.one_of(_SCALARS, st.sampled_from(payloads), shapes,
                     st.just({"dtype": "float64"}), st.just({"list": []}),
                     st.builds(lambda k, shape: {"array": {"key": k, "dtype": "float32",
                                                           "shape": shape}},
                               st.sampled_from(["c0", "c1", "v0", "../c0"]), shapes),
                     st.builds(lambda depth: json.loads("[" * depth + "]" * depth),
                               st.integers(1, 400)))


def _paths(value, prefix=()):
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in items:
        found.append(prefix + (key,))
        found.extend(_paths(child, prefix + (key,)))
    return found


def _edit_json(path, choice, action, value):
    data = json.loads(path.read_text())
    paths = _paths(data)
    if not paths:
        return
    target = paths[choice % len(paths)]
    parent = data
    for key in target[:-1]:
        parent = parent[key]
    key = target[-1]
    if action == "nudge":  # a change of the same type, which the loader is likelier to accept
        parent[key] = _nudged(parent[key], value)
    elif action == "delete":
        del parent[key]
    elif action == "rename" and isinstance(parent, dict) and isinstance(value, str):
        parent[value] = parent.pop(key)
    else:
        parent[key] = value
    path.write_text(json.dumps(data))


def _nudged(old, value):
    if type(old) is bool:
        return not old
    if type(old) is int:
        return old + (1 if isinstance(value, int) and value % 2 else -1)
    if type(old) is float:
        return old * 2.0 + 1.0
    if isinstance(old, list) and old:
        return old[:-1]
    return value


def _edit_npz(path, choice, header):
    """Rewrites one member of an .npz: another `.npy` header (dtype, shape, order), or the
    same bytes compressed."""
    source = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    infos = source.infolist()
    if not infos:
        return
    target = infos[choice % len(infos)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for info in infos:
            data = source.read(info)
            if info is not target:
                out.writestr(info, data)
            elif header is None:
                out.writestr(info.filename, data, zipfile.ZIP_DEFLATED)
            else:
                descr, shape, fortran = header
                text = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    text, {"descr": descr, "fortran_order": fortran, "shape": shape})
                out.writestr(info, text.getvalue() + data[-16:])
    path.write_bytes(buffer.getvalue())


def _change_kind(folder, name, kind, outside):
    path = folder / name
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "outside":
        path.symlink_to(outside)
    else:
        path.symlink_to(kind)


@st.composite
def mutations(draw):
    """(model name, [mutation, ...]): one to three mutations of one saved model."""
    model = draw(st.sampled_from(sorted(MODELS)))
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["graphs", "graphs", "graphs", "manifest", "npz",
                                     "file"]))
        if kind in ("graphs", "manifest"):
            steps.append((kind, draw(st.integers(0, 10 ** 6)),
                          draw(st.sampled_from(["nudge", "nudge", "set", "set", "delete",
                                                "rename"])),
                          draw(st.integers(0, 10 ** 6))))
        elif kind == "npz":
            header = draw(st.one_of(st.none(), st.tuples(
                st.sampled_from(["<f4", "<f8", "<i4", "<i8", "|u1", "|O", ">f4", "<U3",
                                 "|V8"]),
                st.lists(st.sampled_from([0, 1, 2, 3, 10 ** 13, 2 ** 40]), max_size=3).map(
                    tuple),
                st.booleans())))
            steps.append((kind, draw(st.sampled_from([schema.CONSTANTS, schema.VARIABLES])),
                          draw(st.integers(0, 100)), header))
        else:
            steps.append((kind, draw(st.sampled_from(schema.DATA_FILES + (schema.MANIFEST,))),
                          draw(st.sampled_from(["fifo", "folder", "outside", "/dev/zero",
                                                "/dev/null", "/dev/stdin"]))))
    return model, steps


def _rehash_what_can_be(folder):
    """`rehash`, for the regular files of a folder whose manifest may be mutated already."""
    if not (folder / schema.MANIFEST).is_file():
        return  # (a FIFO would block the reading)
    try:
        manifest = json.loads((folder / schema.MANIFEST).read_text())
        for name in schema.DATA_FILES:
            if (folder / name).is_file():
                content = (folder / name).read_bytes()
                manifest["files"][name] = {"sha256": schema.digest(content),
                                           "bytes": len(content)}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return  # not a manifest any more, or not a file: left as the mutations made it
    (folder / schema.MANIFEST).write_text(json.dumps(manifest))


def _mutate(folder, steps, payloads, value_choices):
    for step in steps:
        kind = step[0]
        if kind in ("graphs", "manifest"):
            _, choice, action, value_index = step
            name = schema.GRAPHS if kind == "graphs" else schema.MANIFEST
            if not (folder / name).is_file() or (folder / name).is_symlink():
                continue
            _edit_json(folder / name, choice, action,
                       value_choices[value_index % len(value_choices)])
            if kind == "graphs":
                _rehash_what_can_be(folder)
        elif kind == "npz":
            _, name, choice, header = step
            if (folder / name).is_file() and not (folder / name).is_symlink():
                _edit_npz(folder / name, choice, header)
                _rehash_what_can_be(folder)
        else:
            _, name, file_kind = step
            if (folder / name).exists() or (folder / name).is_symlink():
                _change_kind(folder, name, file_kind, folder.parent / "outside.json")


OUTCOMES = collections.Counter()
PEAKS = []


def _raised_for_a_type(error):
    """True when a graph node's kernel failed on a value of a type it does not take (an
    attribute the loader should have refused), not on the values the call computed. (A call
    whose arguments match none of the saved signatures, which an edit may change, is refused
    before any node runs.)"""
    if isinstance(error, errors.OpError):
        return isinstance(error.__context__, TypeError)
    return any("raised inside" in note for note in getattr(error, "__notes__", ()))


def check_hostile_folder(saved, tmp_path_factory, model, steps, values):
    """Mutates a copy of a saved model; load + first call must work or fail cleanly, within
    the time and memory bounds, without running any payload."""
    workspace = tmp_path_factory.mktemp("hostile")
    folder = workspace / "model"
    shutil.copytree(saved[model], folder)
    (workspace / "outside.json").write_bytes((folder / schema.GRAPHS).read_bytes())
    marker = workspace / "payload_ran"
    payloads = _payloads(marker)
    _mutate(folder, steps, payloads, values + payloads)

    def load_and_call():
        try:
            loaded = load(folder)
        except SavedModelError:
            return "refused at load"
        try:
            with tf.GradientTape() as tape:
                tape.watch(_ARGS[0])
                outputs = loaded(*_ARGS)
            if model in DIFFERENTIATED:
                tape.gradient(tf.nest.flatten(outputs)[0], _ARGS[0])
        except _CALL_ERRORS as e:
            if _raised_for_a_type(e):
                return "loaded; the call failed for a type: %s: %s" % (type(e).__name__, e)
            return "loaded; the call raised %s" % type(e).__name__
        return "loaded and ran"

    tracemalloc.start()
    try:
        outcome = within(TIME_BOUND, load_and_call)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not marker.exists(), "a payload ran"
    assert "for a type" not in outcome, outcome
    assert peak < MEMORY_BOUND, "peak memory %d bytes" % peak
    OUTCOMES[outcome] += 1
    PEAKS.append(peak)
    shutil.rmtree(workspace, ignore_errors=True)


_SETTINGS = settings(max_examples=25, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow])


@pytest.mark.property
@_SETTINGS
@given(mutation=mutations(), values=st.lists(_values(["payload"]), min_size=1, max_size=3))
def test_hostile_folders_load_cleanly_or_are_refused_never_running_code(
        saved, tmp_path_factory, mutation, values):
    check_hostile_folder(saved, tmp_path_factory, *mutation, values)


@pytest.fixture(scope="module")
def outcome_report():
    """Prints the outcomes and the largest memory peak of the examples run (with `-s`)."""
    OUTCOMES.clear()
    PEAKS.clear()
    yield
    print("\nhostile folders: %d examples, %s; largest memory peak %.1f MiB"
          % (sum(OUTCOMES.values()), dict(OUTCOMES), max(PEAKS, default=0) / 2 ** 20))


@pytest.mark.slow
@pytest.mark.property
@settings(_SETTINGS, max_examples=10_000)
@given(mutation=mutations(), values=st.lists(_values(["payload"]), min_size=1, max_size=3))
def test_ten_thousand_hostile_folders(saved, tmp_path_factory, outcome_report, mutation,
                                      values):
    check_hostile_folder(saved, tmp_path_factory, *mutation, values)

"""Property: a damaged saved model never loads into a wrong answer or an unexpected crash.

Hypothesis damages one file of a saved model (truncation, a flipped bit, an edited JSON value
or type, a deleted JSON field). Loading must then raise SavedModelError, or (when the damage
changed nothing) give exactly the original results. A second property edits graphs.json and
updates the manifest's checksums, as a person editing the JSON by hand would: the loader's own
checks must then refuse it with SavedModelError, or the model must load and its calls either
run or raise the documented run-time errors (an edited graph may legitimately compute
something else)."""

import json
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph.tf as tf
from runtime import errors
from runtime.saved_model import SavedModelError, load, save, schema
from tests.saved_model import runner


@tf.function
def _helper(x):
    return tf.reduce_max(x, axis=1)


class Corruptible(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([0.5, -1.0, 2.0])
        self.count = tf.Variable(0)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                  tf.TensorSpec([], tf.string)])
    def __call__(self, x, tag):
        y = x * self.v
        i = tf.constant(0)
        while tf.reduce_sum(y) > 1.0 and i < 5:
            y = y * 0.5
            i += 1
        if i > 2:
            z = y[:, 1:]
        else:
            z = -y[:, :2]
        self.count.assign_add(1)
        parts = tf.TensorArray(tf.float32, size=2)
        parts = parts.write(0, tf.reduce_sum(z)).write(1, tf.reduce_min(z))
        return {"z": z, "i": i, "tag": tag + tf.constant("!"), "n": self.count.read_value(),
                "max": _helper(x), "parts": parts.stack()}


_X = np.array([[4.0, -2.0, 3.0], [1.0, 1.0, 1.0]], np.float32)


def _outcome(obj):
    call = {"path": [], "args": [{"tensor": _X.tolist(), "dtype": "float32"},
                                 {"tensor": "id", "dtype": "string"}]}
    return runner.run_call(obj, call), runner.run_call(obj, call)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(folder of the pristine saved model, the outcomes of two calls after loading it)."""
    folder = tmp_path_factory.mktemp("pristine") / "model"
    save(Corruptible(), folder)
    expected = _outcome(load(folder))
    assert "result" in expected[0] and expected[0] != expected[1]  # a state that changes
    return folder, expected


_FILES = (schema.MANIFEST,) + schema.DATA_FILES
_JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 70000),
                         st.floats(allow_nan=False, allow_infinity=False),
                         st.text(max_size=4), st.lists(st.integers(-1, 3), max_size=3),
                         st.just({"dtype": "float64"}), st.just({"list": []}),
                         st.just({"array": {"key": "c0", "dtype": "int32", "shape": []}}))


def _paths(value, prefix=()):
    """Every path to a value inside parsed JSON (the root excluded)."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in items:
        found.append(prefix + (key,))
        found.extend(_paths(child, prefix + (key,)))
    return found


@st.composite
def json_edits(draw):
    """(path choice, delete it?, new value): an edit of a JSON file, applied by `_edit_json`."""
    return draw(st.integers(0, 10 ** 6)), draw(st.booleans()), draw(_JSON_VALUES)


def _edit_json(path, edit):
    choice, delete, value = edit
    data = json.loads(path.read_text())
    paths = _paths(data)
    target = paths[choice % len(paths)]
    parent = data
    for key in target[:-1]:
        parent = parent[key]
    if delete:
        del parent[target[-1]]
    else:
        parent[target[-1]] = value
    path.write_text(json.dumps(data))


@st.composite
def damages(draw):
    """(file name, kind, parameters): a damage of one file of a saved model."""
    name = draw(st.sampled_from(_FILES))
    kind = draw(st.sampled_from(["truncate", "flip", "edit"] if name.endswith(".json")
                                else ["truncate", "flip"]))
    if kind == "edit":
        return name, kind, draw(json_edits())
    return name, kind, (draw(st.integers(0, 10 ** 6)), draw(st.integers(0, 7)))


def _damage(folder, damage):
    name, kind, parameters = damage
    path = folder / name
    if kind == "edit":
        _edit_json(path, parameters)
        return
    content = path.read_bytes()
    position = parameters[0] % len(content)
    if kind == "truncate":
        path.write_bytes(content[:position])
    else:
        path.write_bytes(content[:position] + bytes([content[position] ^ (1 << parameters[1])]) +
                         content[position + 1:])


def _copy(saved_folder, tmp_path_factory):
    folder = tmp_path_factory.mktemp("damaged") / "model"
    shutil.copytree(saved_folder, folder)
    return folder


CORRUPTION_SETTINGS = settings(max_examples=40, deadline=None, database=None,
                               suppress_health_check=[HealthCheck.function_scoped_fixture])


def check_damage(saved, tmp_path_factory, damage):
    """Damages a copy of the saved model: a SavedModelError or exactly the original results."""
    folder, expected = saved
    copy = _copy(folder, tmp_path_factory)
    _damage(copy, damage)
    try:
        loaded = load(copy)
    except SavedModelError:
        return
    assert _outcome(loaded) == expected
    shutil.rmtree(copy.parent)


@pytest.mark.property
@CORRUPTION_SETTINGS
@given(damage=damages())
def test_damaged_files_raise_saved_model_error_or_give_the_original_results(
        saved, tmp_path_factory, damage):
    check_damage(saved, tmp_path_factory, damage)


def _rehash(folder):
    manifest = json.loads((folder / schema.MANIFEST).read_text())
    for name in schema.DATA_FILES:
        content = (folder / name).read_bytes()
        manifest["files"][name] = {"sha256": schema.digest(content), "bytes": len(content)}
    (folder / schema.MANIFEST).write_text(json.dumps(manifest))


def check_hand_edit(saved, tmp_path_factory, edit):
    """Edits graphs.json keeping the checksums valid: refused, or loads and runs cleanly."""
    folder, _ = saved
    copy = _copy(folder, tmp_path_factory)
    _edit_json(copy / schema.GRAPHS, edit)
    _rehash(copy)
    try:
        loaded = load(copy)
    except SavedModelError:
        return
    for outcome in _outcome(loaded):
        assert "result" in outcome or outcome["error"] in _RUN_TIME_ERRORS, outcome
    shutil.rmtree(copy.parent)


# What a call of a loaded (edited but valid) graph may raise: errors of running its ops, and
# the TypeError of a call that matches no saved signature.
_RUN_TIME_ERRORS = {cls.__name__ for cls in (
    errors.InvalidArgumentError, errors.FailedPreconditionError, errors.OutOfRangeError,
    errors.AssertionFailedError, errors.UndefinedValueError, TypeError)}


@pytest.mark.property
@CORRUPTION_SETTINGS
@given(edit=json_edits())
def test_hand_edited_graphs_are_refused_or_load_into_working_functions(
        saved, tmp_path_factory, edit):
    check_hand_edit(saved, tmp_path_factory, edit)


@pytest.mark.slow
@pytest.mark.property
@settings(CORRUPTION_SETTINGS, max_examples=1500)
@given(damage=damages(), edit=json_edits())
def test_many_damaged_and_hand_edited_models(saved, tmp_path_factory, damage, edit):
    check_damage(saved, tmp_path_factory, damage)
    check_hand_edit(saved, tmp_path_factory, edit)

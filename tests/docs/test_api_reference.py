"""docs/api.md is generated from the facade's docstrings and kept current; every facade
name has a docstring and is exercised by some test."""

import pathlib
import re

import pytest

from autograph.tools import api_reference

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
ENTRIES = api_reference.facade_entries()


def _test_sources():
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(TESTS.rglob("*.py"))
                     if p.name != "test_api_reference.py")


_DOTTED = re.compile(r"\w+(?:\.\w+)*")


def dotted_names(text):
    """Every run of whole components of each dotted name in `text`: 'x = a.b.c' gives 'x',
    'a', 'b', 'c', 'a.b', 'b.c' and 'a.b.c' (one pass over the text, where a search per
    facade name read the whole test suite a thousand times)."""
    names = set()
    for chain in set(_DOTTED.findall(text)):
        parts = chain.split(".")
        for start in range(len(parts)):
            for stop in range(start + 1, len(parts) + 1):
                names.add(".".join(parts[start:stop]))
    return names


def mentioned(path, names):
    """True when text whose `dotted_names` are `names` names the facade entry `path`
    ('tf.math.top_k'): as its dotted name after any prefix ('math.top_k' in
    'tf.math.top_k' or 'autograph.tf.math.top_k'), or, for a top-level name, as
    'tf.<name>'."""
    parts = path.split(".")
    return (path if len(parts) == 2 else ".".join(parts[1:])) in names


def test_the_facade_has_the_linalg_nn_math_strings_random_and_debugging_names():
    paths = {e.path for e in ENTRIES}
    assert {"tf.eye", "tf.linalg.inv", "tf.nn.conv2d", "tf.math.top_k", "tf.strings.join",
            "tf.random.stateless_normal", "tf.debugging.assert_near"} <= paths


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.documentable],
                         ids=lambda e: e.path)
def test_every_facade_function_and_class_has_a_docstring(entry):
    assert entry.doc.strip(), "%s has no docstring" % entry.path


def test_every_facade_name_is_mentioned_by_a_test():
    names = dotted_names(_test_sources())
    missing = [e.path for e in ENTRIES if not mentioned(e.path, names)]
    assert missing == [], "facade names no test mentions: %s" % ", ".join(missing)


def test_mentioned_reads_dotted_names_not_substrings():
    assert mentioned("tf.math.top_k", dotted_names("x = tf.math.top_k(y)"))
    assert mentioned("tf.nn.relu", dotted_names("from autograph import tf; autograph.tf.nn.relu"))
    assert not mentioned("tf.nn.relu", dotted_names("tf.nn.relu6(x)"))
    assert not mentioned("tf.range", dotted_names("for i in range(3): pass"))
    assert not mentioned("tf.range", dotted_names("my_tf.range(3)"))
    assert not mentioned("tf.math.top_k", dotted_names("tf.math.top_k_v2(y)"))
    assert mentioned("tf.range", dotted_names("tf.range(3)"))


def test_docs_api_md_is_current():
    text = (ROOT / api_reference.DEFAULT_OUTPUT).read_text(encoding="utf-8")
    assert text == api_reference.render(ENTRIES), (
        "docs/api.md is stale: run python -m autograph.tools.api_reference")


def test_the_reference_lists_each_name_with_its_signature_and_doc():
    text = api_reference.render(ENTRIES)
    assert "### `tf.math.top_k(input, k=1, sorted=True, name=None)`" in text
    assert "implemented by `runtime.ops.sort_ops.top_k`" in text
    assert "- `tf.float32` = `tf.float32`" in text
    assert "## `tf.strings`" in text


def test_signatures_show_annotations_as_written_and_a_class_without_its_init_return():
    def scale(x: "float", factor: "int | None" = None) -> "float":
        """Scales x."""

    class Meter:
        """Measures."""

        def __init__(self, unit: "str") -> "None":
            self.unit = unit

    text = api_reference.render([api_reference.Entry("tf.scale", "tf", scale),
                                 api_reference.Entry("tf.Meter", "tf", Meter)])
    assert "### `tf.scale(x: float, factor: int | None = None) -> float`" in text
    assert "### `tf.Meter(unit: str)`" in text


def test_the_script_writes_and_checks(tmp_path, capsys):
    target = tmp_path / "api.md"
    assert api_reference.main(["--output", str(target), "--check"]) == 1  # no file yet
    assert api_reference.main(["--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == api_reference.render(ENTRIES)
    assert api_reference.main(["--output", str(target), "--check"]) == 0
    target.write_text("stale\n", encoding="utf-8")
    assert api_reference.main(["--output", str(target), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err


def test_a_failed_write_leaves_nothing_behind(tmp_path, capsys):
    missing_dir = tmp_path / "no" / "such" / "api.md"
    assert api_reference.main(["--output", str(missing_dir)]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []

"""The example of docs/backends.md runs as printed there, and the page describes what the
"auto" backend does (promotion, demotion, fallback) with the constants the code uses."""

import re
import runpy

import pytest

import autograph
from runtime.backends import coverage, promotion


def _page():
    return coverage.DOC.read_text(encoding="utf-8")


def test_the_python_example_runs(tmp_path, capsys, monkeypatch):
    pytest.importorskip("numba")  # the example names backend="numba"
    monkeypatch.delenv("AUTOGRAPH_BACKEND", raising=False)  # the page shows the default
    autograph.config(backend=None)
    blocks = re.findall(r"```python\n(.*?)```", _page(), re.S)
    assert len(blocks) == 1
    example = tmp_path / "example.py"  # a file: tf.function converts from the source
    example.write_text(blocks[0])
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    assert "auto requested" in printed
    assert "numba could not run doubled: op StringFormat" in printed
    assert "refused: op StringFormat" in printed


def test_the_page_states_the_promotion_constants_of_the_code():
    page = " ".join(_page().split())
    assert "first %d compiled calls" % promotion.TRIAL_CALLS in page
    assert "over %.1fx the fastest" % promotion.DEMOTION_MARGIN in page
    assert "up to %d" % promotion.EXECUTOR_SAMPLES in page
    assert "fewer than %d nodes" % promotion.MIN_NODES_WITHOUT_LOOPS in page
    assert "%g s before the first" % promotion.FIRST_COMPILE_PRIOR_S in page


def test_writing_the_coverage_keeps_the_hand_written_part(tmp_path, monkeypatch):
    page = tmp_path / "backends.md"
    page.write_text("# Backends\n\nprose\n\n## Op coverage\n\n| a stale table |\n")
    monkeypatch.setattr(coverage, "DOC", page)
    written = coverage.document()
    assert written.startswith("# Backends\n\nprose\n\n## Op coverage\n")
    assert "stale" not in written and written.endswith(coverage.table())

"""The reports shown in docs/explain.md are what `autograph explain` prints for the examples
today (so the page cannot go stale)."""

import os

import pytest

from autograph import cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("argv", [
    ["examples/unrolling.py:accumulate", "--arg", "float32[None]", "--arg", "4"],
    ["examples/training_step.py:train", "--arg", "float32[None,3]", "--arg", "float32[None]"],
])
def test_the_page_shows_the_current_report(argv, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert cli.main(["explain"] + argv) == 0
    out = capsys.readouterr().out
    with open(os.path.join(REPO, "docs", "explain.md"), encoding="utf-8") as f:
        page = f.read()
    assert out.strip() in page

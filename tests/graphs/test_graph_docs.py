"""The DOT shown in docs/graphs.md is what `autograph graph` writes for the example today."""

import os

from autograph import cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_page_shows_the_current_dot(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    out = tmp_path / "tanh.dot"
    assert cli.main(["graph", "examples/cli_demo.py:tanh_until_small", "--arg",
                     "float32[None]", "-o", str(out)]) == 0
    capsys.readouterr()
    with open(os.path.join(REPO, "docs", "graphs.md"), encoding="utf-8") as f:
        page = f.read()
    assert "```dot\n" + out.read_text() + "```" in page

"""docs/check.md documents every rule, and its examples say what the lint does: each rule's
"Bad" example gives that rule's finding (and no other), its "Fixed" example gives none."""

import pathlib
import re

import pytest

from autograph import lint

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "check.md"
HEADER = "import autograph.tf as tf\n\n"


def _sections():
    """Rule code -> (bad example, fixed example), from the page's `### AGnnn name` sections."""
    text = DOCS.read_text()
    sections = {}
    for match in re.finditer(r"^### (AG\d{3}) [\w-]+\n(.*?)(?=^#{2,3} |\Z)", text,
                             re.MULTILINE | re.DOTALL):
        blocks = re.findall(r"```python\n(.*?)```", match.group(2), re.DOTALL)
        sections[match.group(1)] = blocks
    return sections


SECTIONS = _sections()
CODES = [r.code for r in lint.all_rules()]


def _codes(source):
    return sorted({f.code for f in lint.check_source(HEADER + source, "example.py")})


def test_every_rule_has_a_section_with_a_bad_and_a_fixed_example():
    assert sorted(SECTIONS) == CODES
    for code, blocks in SECTIONS.items():
        assert len(blocks) == 2, code


def test_every_rule_is_in_the_table_with_its_name():
    text = DOCS.read_text()
    for r in lint.all_rules():
        assert "| %s | %s |" % (r.code, r.name) in text


@pytest.mark.parametrize("code", CODES)
def test_bad_example_gives_exactly_its_rule(code):
    bad, _ = SECTIONS[code]
    assert _codes(bad) == [code]


@pytest.mark.parametrize("code", CODES)
def test_fixed_example_gives_no_finding(code):
    _, fixed = SECTIONS[code]
    assert _codes(fixed) == []


@pytest.mark.parametrize("code", CODES)
def test_examples_are_valid_python(code):
    for block in SECTIONS[code]:
        compile(HEADER + block, "example.py", "exec")


def test_the_example_output_is_what_the_lint_prints():
    text = DOCS.read_text()
    intro = text[:text.index("## The rules")]
    (source,) = re.findall(r"```python\n(.*?)```", intro, re.DOTALL)
    (output,) = re.findall(r"```text\n(.*?)```", intro, re.DOTALL)
    findings = lint.check_source(source, "train.py")
    assert lint.format_findings(findings) == output

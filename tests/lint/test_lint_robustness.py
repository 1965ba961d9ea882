"""The lint on mangled sources: guide snippets with lines dropped, duplicated, swapped and
re-indented. Whatever the mutation, it reports findings that point into the source, or an
UnreadableInputError naming the file; never another exception."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograph import lint
from tests.lint.test_guide_snippets import GOOD, HEADER, PITFALLS

SNIPPETS = [HEADER + s for s in GOOD.values()] + \
    [HEADER + source for source, _ in PITFALLS.values()]


@st.composite
def mutated_sources(draw):
    lines = draw(st.sampled_from(SNIPPETS)).splitlines(True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "duplicate", "swap", "dedent", "indent"]))
        if action == "drop":
            del lines[i]
        elif action == "duplicate":
            lines.insert(j, lines[i])
        elif action == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "dedent":
            lines[i] = lines[i].lstrip(" ")
        else:
            lines[i] = "    " + lines[i]
    return "".join(lines)


def _check(source):
    try:
        findings = lint.check_source(source, "mutated.py")
    except lint.UnreadableInputError as e:
        assert str(e).startswith("mutated.py:")
        return
    line_count = len(source.splitlines())
    for finding in findings:
        assert 1 <= finding.line <= line_count and finding.column >= 1
        assert finding.message and finding.hint


@pytest.mark.property
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=mutated_sources())
def test_mutated_snippets_give_findings_or_a_clean_error(source):
    _check(source)


@pytest.mark.property
@pytest.mark.slow
@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=mutated_sources())
def test_many_mutated_snippets_give_findings_or_a_clean_error(source):
    _check(source)

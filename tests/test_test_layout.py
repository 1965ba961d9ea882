"""Tests are filed by behaviour: no test file or folder is named after a review, an issue, a
fix or a regression, or after the round of work that produced it, and no test function names
a review, a regression or a numbered issue (CONTRIBUTING.md, "Run the tests"). A name says
what is tested (`test_layout_ops.py`, `test_try_jumps.py`), so that a reader finds an op's or
a feature's tests in one place."""

import ast
import pathlib
import re

import pytest

TESTS = pathlib.Path(__file__).resolve().parent

# Words of a file or folder name that say where a test came from rather than what it tests.
HISTORY_WORDS = {"review", "reviews", "reviewed", "issue", "issues", "fix", "fixes",
                 "regression", "regressions", "conformance"}
# A round of work is named by its number ("round_3", "round3", "r4"); `round` alone may be the op.
NUMBERED_ROUND = re.compile(r"(round|r)\d+")

# Names that hold one of those words as the name of a behaviour, and why.
BEHAVIOUR_NAMES = {
    "test_known_issues.py": "the TensorFlow guide's section \"Known issues\", which it follows",
}


def history_words(name):
    """The words of a file or folder `name` that say history, in order ([] when none)."""
    if name in BEHAVIOUR_NAMES:
        return []
    words = re.split(r"[_.\-]", name.lower())
    found = []
    for word, following in zip(words, words[1:] + [""]):
        if word in HISTORY_WORDS or NUMBERED_ROUND.fullmatch(word):
            found.append(word)
        elif word in ("round", "rounds") and following.isdigit():
            found.append("%s_%s" % (word, following))
    return found


def history_in_test_name(name):
    """The part of a test function's `name` that names a review, a regression or a numbered
    issue or round (None when none)."""
    match = re.search(r"(?:^|_)(reviews?|regressions?|(?:issue|round)_?\d+)(?:_|$)", name)
    return match.group(1) if match else None


def _test_paths():
    return sorted(p for p in TESTS.rglob("*")
                  if "__pycache__" not in p.parts and not p.name.startswith("."))


def _test_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [(node.lineno, node.name) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test")]


@pytest.mark.parametrize("name, words", [
    ("review", ["review"]),
    ("test_review_r4.py", ["review", "r4"]),
    ("test_conformance_fixes.py", ["conformance", "fixes"]),
    ("test_review_regressions.py", ["review", "regressions"]),
    ("test_issue_fixes.py", ["issue", "fixes"]),
    ("round_3", ["round_3"]),
    ("test_round3_fixes", ["round3", "fixes"]),
    ("test_round_trip.py", []),
    ("test_round_ops.py", []),
    ("test_known_issues.py", []),
    ("test_layout_ops.py", []),
    ("test_retracing_suggestions.py", []),
])
def test_history_words_are_found_in_file_and_folder_names(name, words):
    assert history_words(name) == words


@pytest.mark.parametrize("name, found", [
    ("test_the_facade_has_the_names_of_issue_14", "issue_14"),
    ("test_review_example_runs", "review"),
    ("test_values_of_round2", "round2"),
    ("test_a_round_trip_keeps_the_values", None),
    ("test_writing_past_a_fixed_size_names_the_index", None),
    ("test_known_issues_of_the_guide", None),
])
def test_history_is_found_in_test_function_names(name, found):
    assert history_in_test_name(name) == found


def test_no_test_file_or_folder_is_named_after_its_history():
    named = ["%s (%s)" % (path.relative_to(TESTS.parent), ", ".join(history_words(path.name)))
             for path in _test_paths() if history_words(path.name)]
    assert not named, ("name these after the behaviour they test, and file their tests with "
                       "the tests of that behaviour: %s" % "; ".join(named))


def test_no_test_function_is_named_after_its_history():
    named = []
    for path in _test_paths():
        if path.suffix == ".py":
            named.extend("%s:%d %s" % (path.relative_to(TESTS.parent), line, name)
                         for line, name in _test_functions(path)
                         if history_in_test_name(name))
    assert not named, "name these tests after the behaviour they pin: %s" % "; ".join(named)

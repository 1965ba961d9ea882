"""Every module of the project opens with a docstring, and its first sentence says what the
module is in words no other module of its package uses: a reader choosing among a package's
modules (which op module holds an op, say) tells them apart by that sentence alone.

The sentence ends at the first full stop, colon, question or exclamation mark; the modules
are read with `ast` (nothing is imported).
"""

import ast
import collections
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")


def first_sentence(docstring):
    """The docstring's first sentence, its whitespace collapsed."""
    text = " ".join(docstring.split())
    match = re.match(r"(.+?[.:!?])(\s|$)", text)
    return match.group(1) if match else text


def _docstrings():
    """(package folder, module file name) -> the module's docstring, or None."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            found[(path.parent.relative_to(ROOT).as_posix(), path.name)] = ast.get_docstring(tree)
    return found


def test_every_module_has_a_docstring():
    missing = sorted("%s/%s" % key for key, doc in _docstrings().items() if not doc)
    assert missing == []


def test_first_docstring_sentences_are_unique_within_each_package():
    by_sentence = collections.defaultdict(list)
    for (package, name), doc in _docstrings().items():
        if doc:
            by_sentence[(package, first_sentence(doc))].append(name)
    shared = sorted("%s: %s open with %r" % (package, ", ".join(names), sentence)
                    for (package, sentence), names in by_sentence.items() if len(names) > 1)
    assert shared == [], "\n".join(shared)


def test_the_first_sentence_ends_at_the_first_stop():
    assert first_sentence("Ops that pick elements: gather and where.\n\nMore.") == (
        "Ops that pick elements:")
    assert first_sentence("Shape ops.  Reshape, squeeze.") == "Shape ops."
    assert first_sentence("No stop at all") == "No stop at all"

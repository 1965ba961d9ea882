"""Runs the rules over source files and reports findings; reads files, never runs them.

`check_source(text, path)` parses one module (with the compiler's parser), finds its
converted functions (see `scope.ModuleFacts`), runs the selected rules over each, and
drops the findings a `# autograph: noqa` comment on their line silences (bare: every rule;
`# autograph: noqa[AG101, AG102]`: those codes). `check_paths` does that for files and
directories, and `format_findings` prints them as text or JSON.
"""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
import warnings
from typing import Iterable, Sequence

from autograph.lint import rules as _rules  # registers the rules
from autograph.lint.rule import Finding, Rule, UnreadableInputError, all_rules, iter_problems
from autograph.lint.scope import ModuleFacts
from autograph.pyct import parsing

del _rules

_NOQA = re.compile(r"#\s*autograph:\s*noqa(?:\[([A-Za-z0-9_,\s]*)\])?", re.IGNORECASE)
ALL_CODES = object()  # a bare noqa: every rule


def select_rules(select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Rule]:
    """The rules whose code starts with one of `select` (all when empty) and with none of
    `ignore`; an entry that matches no rule raises ValueError."""
    rules = all_rules()
    for entry in list(select) + list(ignore):
        if not any(r.code.startswith(entry.upper()) for r in rules):
            raise ValueError("unknown rule code %r (known: %s)"
                             % (entry, ", ".join(r.code for r in rules)))
    chosen = [r for r in rules
              if not select or any(r.code.startswith(s.upper()) for s in select)]
    return [r for r in chosen if not any(r.code.startswith(i.upper()) for i in ignore)]


def check_source(source: str, path: str = "<string>",
                 rules: Iterable[Rule] | None = None) -> list[Finding]:
    """The findings of `rules` (default: all) in module source text `source`, sorted;
    raises UnreadableInputError when it does not parse."""
    rules = list(all_rules() if rules is None else rules)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `x is 1`, '\d': not errors
            warnings.simplefilter("ignore", DeprecationWarning)
            compile(source, path, "exec", flags=0, dont_inherit=True)
        tree, _ = parsing.parse_source(source, path)
    except SyntaxError as e:
        where = ":".join(str(n) for n in (e.lineno, e.offset) if n)
        raise UnreadableInputError("%s:%s syntax error: %s"
                                   % (path, where + ":" if where else "", e.msg)) from None
    except (ValueError, RecursionError) as e:  # null bytes; absurd nesting
        raise UnreadableInputError("%s: cannot parse: %s" % (path, e)) from None
    module = ModuleFacts(tree, path)
    silenced = noqa_lines(source)
    found = set()
    for function in module.functions:
        for rule, (node, message, hint) in iter_problems(rules, function):
            line, column = node.lineno, node.col_offset + 1
            codes = silenced.get(line)
            if codes is ALL_CODES or (codes and rule.code in codes):
                continue
            found.add(Finding(path, line, column, rule.code, rule.name, message, hint))
    return sorted(found)


def noqa_lines(source: str) -> dict:
    """Line -> the codes its `# autograph: noqa[...]` comment silences (ALL_CODES for a bare
    one); comments only, never text inside strings."""
    found: dict = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _NOQA.search(token.string)
        if not match:
            continue
        line = token.start[0]
        if match.group(1) is None:
            found[line] = ALL_CODES
        elif found.get(line) is not ALL_CODES:
            codes = {c.strip().upper() for c in match.group(1).split(",") if c.strip()}
            found[line] = found.get(line, set()) | codes
    return found


def python_files(paths: Sequence[str]) -> list[str]:
    """The files to check: each path that is a file, and the .py files under each
    directory (not hidden folders or __pycache__), sorted within a directory; each file
    once, under the first name it is reached by (a file named twice, or reached again
    through a link, would report its findings twice)."""
    found = []
    for path in paths:
        if not os.path.isdir(path):
            found.append(path)
            continue
        for root, directories, names in os.walk(path):
            directories[:] = sorted(d for d in directories
                                    if not d.startswith(".") and d != "__pycache__")
            found.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
    files, seen = [], set()
    for path in found:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            files.append(path)
    return files


def read_source(path: str) -> str:
    """The text of Python file `path`, decoded as its PEP 263 declaration (or BOM) says;
    raises UnreadableInputError naming the file (and the line of a bad byte)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UnreadableInputError("cannot read %s: %s" % (path, e.strerror or e)) from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except SyntaxError as e:  # an unknown encoding, or one that contradicts a BOM
        raise UnreadableInputError("%s: cannot read: %s" % (path, e.msg)) from None
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise UnreadableInputError("%s:%d: cannot decode byte 0x%02x as %s"
                                   % (path, line, data[e.start], encoding)) from None


def check_paths(paths: Sequence[str],
                rules: Iterable[Rule] | None = None) -> tuple[list[Finding], list[str]]:
    """(findings, errors) for the files and directories `paths`: every readable file is
    checked; each unreadable one gives an error message instead."""
    rules = list(all_rules() if rules is None else rules)
    findings, errors = [], []
    for path in python_files(paths):
        try:
            findings.extend(check_source(read_source(path), path, rules))
        except UnreadableInputError as e:
            errors.append(str(e))
    return findings, errors


def format_findings(findings: Sequence[Finding], output_format: str = "text") -> str:
    """The findings as text (one `path:line:col: AGnnn message (fix: hint)` per line) or as
    a JSON array of objects."""
    if output_format == "json":
        return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"
    return "".join(f.as_text() + "\n" for f in findings)


__all__ = ["UnreadableInputError", "check_paths", "check_source", "format_findings",
           "noqa_lines", "python_files", "read_source", "select_rules"]

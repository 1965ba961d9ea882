"""The lint's vocabulary: a `Rule` (code, name, summary, what it checks) and a `Finding`.

A rule is a function of one converted function (a `scope.ConvertedFunction`) that yields
`(node, message, hint)` for each problem; `@rule(code, name, summary)` registers it, and its
docstring is the rule's documentation (what it finds, why it is wrong, how to fix it).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

if TYPE_CHECKING:  # (the facts are made by scope, which registers no rule)
    from autograph.lint.scope import ConvertedFunction

# (node, message, hint): the node gives the line and column.
Problem = tuple  # tuple[gast.AST, str, str]
Check = Callable[..., Iterable[Problem]]


@dataclasses.dataclass(frozen=True)
class Rule:
    """One check: `code` (AGnnn), a short `name`, a one-line `summary`, its `check`
    function and, from that function's docstring, its documentation `doc`."""

    code: str
    name: str
    summary: str
    check: Check

    @property
    def doc(self) -> str:
        """What the rule finds and how to fix it (the check function's docstring)."""
        return " ".join((self.check.__doc__ or "").split())


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One problem at `path:line:column` (line and column 1-based), found by rule `code`."""

    path: str
    line: int
    column: int
    code: str
    name: str
    message: str
    hint: str

    def as_text(self) -> str:
        """`path:line:col: AGnnn message (fix: hint)`: one line, as compilers print."""
        return "%s:%d:%d: %s %s (fix: %s)" % (self.path, self.line, self.column, self.code,
                                              self.message, self.hint)

    def as_dict(self) -> dict:
        """The finding as a JSON-ready dict."""
        return dataclasses.asdict(self)


class UnreadableInputError(ValueError):
    """A file the lint cannot read or parse; the message names the file (and line)."""


_RULES: dict[str, Rule] = {}


def rule(code: str, name: str, summary: str) -> Callable[[Check], Check]:
    """Registers the decorated check function as rule `code`."""
    def register(check: Check) -> Check:
        if code in _RULES:
            raise ValueError("lint rule %s is registered twice" % code)
        _RULES[code] = Rule(code, name, summary, check)
        return check
    return register


def all_rules() -> list[Rule]:
    """Every registered rule, by code."""
    return [_RULES[code] for code in sorted(_RULES)]


def iter_problems(rules: Iterable[Rule],
                  function: ConvertedFunction) -> Iterator[tuple[Rule, Problem]]:
    """(rule, problem) for each problem each rule finds in `function`."""
    for r in rules:
        for problem in r.check(function):
            yield r, problem

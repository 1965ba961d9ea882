"""`match` statements to an if/else chain, so that a tensor subject stages like an `if`.

    match x:                              match_subject = x
        case 0 | 1:                       if match_subject == 0 or match_subject == 1:
            y = 1                             y = 1
        case n if n > 5:          ->      else:
            y = n                             n = match_subject
        case _:                               if n > 5:
            y = 0                                 y = n
                                              else:
                                                  y = 0

The subject is evaluated once, into a temporary. Literal and value patterns become `==`,
`None`/`True`/`False` become `is`, `|` becomes `or`, and a capture (`n`, `... as n`) binds
the subject once its pattern matched, before the guard reads it (as CPython does: a failed
`case 2 as n` leaves `n` unbound; a bare `n` always matches). The later passes then convert
the chain like any `if`: staged for a tensor test, plain Python for a Python one, so a
Python subject keeps Python semantics. A `match` with sequence, mapping, class or star
patterns (which look inside the subject in ways a tensor does not support) stays a Python
`match` (its case bodies still converted), with the subject passed through
`ag__.match_subject`, which refuses a tensor subject with an error naming the line:

    match point:                  ->      match ag__.match_subject(point, 'a class pattern',
        case Point(x=0): ...                                       'f.py:12'):
                                              case Point(x=0): ...

Runs before the passes that lower jumps (autograph.pipeline: 'matches-lowered'), so a
`return` or `break` in a case body is handled like one in an `if`.
"""

import copy

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context, mark_original
from autograph.pyct import templates, traversal
from runtime import reserved_names

_REFUSED = {
    gast.MatchSequence: "a sequence pattern",
    gast.MatchMapping: "a mapping pattern",
    gast.MatchClass: "a class pattern",
    gast.MatchStar: "a star pattern",
}


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrites every `match` in function `node`'s own body (not in nested functions)."""
    return _MatchRewriter(ctx).visit_body(node)


class _MatchRewriter(base.FunctionTransformer):
    """Visits statements only (a `match` is a statement)."""

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(node, field, None), list):
                setattr(node, field, self.visit_statements(getattr(node, field)))
        for handler in getattr(node, "handlers", []):
            handler.body = self.visit_statements(handler.body)
        return node

    def visit_Match(self, node):
        unsupported = _unsupported_pattern(node)
        if unsupported is not None:
            for case in node.cases:
                case.body = self.visit_statements(case.body)
            node.subject = templates.replace_as_expression(
                "ag__.match_subject(subject, pattern, where)", subject=node.subject,
                pattern=gast.Constant(value=_REFUSED[type(unsupported)], kind=None),
                where=gast.Constant(value=self.ctx.location(unsupported), kind=None))
            return node
        subject = self.ctx.namer.new(reserved_names.MATCH_SUBJECT)
        assign = gast.Assign(targets=[_name(subject, gast.Store())], value=node.subject,
                             type_comment=None)
        mark_original(gast.copy_location(assign, node))
        return [assign] + self._chain(node.cases, subject)

    def _chain(self, cases, subject):
        """The statements that run the first matching case of `cases`."""
        if not cases:
            return []
        case, rest = cases[0], cases[1:]
        line_node = case.pattern
        bindings = []
        for name in _captured_names(case.pattern):
            bind = gast.Assign(targets=[_name(name, gast.Store())],
                               value=_name(subject, gast.Load()), type_comment=None)
            bindings.append(mark_original(gast.copy_location(bind, line_node)))
        pattern_test = self._test(case.pattern, subject)
        body = self.visit_statements(case.body)
        before = bindings
        if pattern_test is not None and bindings:
            # `case 2 as y`: y is bound only when the pattern matches (before the guard).
            if case.guard is None:
                body, before = bindings + body, []
            else:
                bind = gast.If(test=copy.deepcopy(pattern_test), body=bindings, orelse=[])
                before = [mark_original(gast.copy_location(bind, line_node))]
        test = pattern_test
        if case.guard is not None:
            test = case.guard if test is None else gast.BoolOp(op=gast.And(),
                                                               values=[test, case.guard])
        if test is None:  # irrefutable: the cases after it cannot run
            return before + body
        branch = gast.If(test=test, body=body, orelse=self._chain(rest, subject))
        return before + [mark_original(gast.copy_location(branch, line_node))]

    def _test(self, pattern, subject):
        """The test for `pattern` against the subject, or None for one that always matches."""
        if isinstance(pattern, gast.MatchValue):
            return _compare(subject, gast.Eq(), pattern.value, pattern)
        if isinstance(pattern, gast.MatchSingleton):
            constant = gast.copy_location(gast.Constant(value=pattern.value, kind=None),
                                          pattern)
            return _compare(subject, gast.Is(), constant, pattern)
        if isinstance(pattern, gast.MatchAs):
            return None if pattern.pattern is None else self._test(pattern.pattern, subject)
        if isinstance(pattern, gast.MatchOr):
            tests = [self._test(p, subject) for p in pattern.patterns]
            if any(t is None for t in tests):
                return None
            return gast.copy_location(gast.BoolOp(op=gast.Or(), values=tests), pattern)
        raise AssertionError("unsupported pattern %r" % pattern)  # _unsupported_pattern


def _unsupported_pattern(match):
    """The first sequence, mapping, class or star pattern of `match`'s cases, or None."""
    for case in match.cases:
        for sub in traversal.walk(case.pattern):
            if type(sub) in _REFUSED:
                return sub
    return None


def _captured_names(pattern):
    """The names a (supported) pattern binds: each one to the subject itself."""
    names = []
    for sub in traversal.walk(pattern):
        if isinstance(sub, gast.MatchAs) and sub.name is not None and sub.name not in names:
            names.append(sub.name)
    return names


def _compare(subject, op, value, origin):
    compare = gast.Compare(left=_name(subject, gast.Load()), ops=[op], comparators=[value])
    return gast.copy_location(compare, origin)


def _name(identifier, ctx):
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)

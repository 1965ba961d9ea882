"""The compiler's passes, in order, as data: what each requires of the tree and provides.

A pass is a function `transform(node, ctx) -> node` over one parsed function. Its contract
names facts about the tree (strings such as 'jumps-lowered'):

  * requires:    facts that must hold before it runs (provided by an earlier pass and not
                 invalidated since);
  * provides:    facts that hold after it;
  * invalidates: facts it breaks. A pass that runs once the tree is 'analysed' must state
                 this (possibly as nothing): the analysis is keyed by node, and a pass that
                 replaces analysed nodes makes later lookups raise.

`build(passes)` checks the contracts and returns the passes, or raises PipelineError naming
the pass and the fact; `PASSES` is the checked pipeline `conversion.convert_node` runs.
"""

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import gast

from autograph.converters import (
    break_statements,
    continue_statements,
    control_flow,
    directives,
    expressions,
    function_scopes,
    match_statements,
    outer_stores,
    return_statements,
    super_calls,
    try_statements,
)
from autograph.converters.conversion_context import Context
from autograph.pyct.analysis import dataflow

ANALYSED = "analysed"


class PipelineError(ValueError):
    """A pass list whose order breaks a pass's contract."""


@dataclass(frozen=True)
class Pass:
    """One compiler pass and its contract (see the module docstring)."""

    name: str
    transform: Callable
    requires: frozenset = frozenset()
    provides: frozenset = frozenset()
    invalidates: Optional[frozenset] = None  # None: not stated


def _pass(name, transform, requires=(), provides=(), invalidates=None):
    return Pass(name, transform, frozenset(requires), frozenset(provides),
                None if invalidates is None else frozenset(invalidates))


def build(passes: Sequence[Pass]) -> tuple:
    """`passes` as a tuple, once every pass's requirements hold where it runs; raises
    PipelineError naming the first pass whose contract the order breaks."""
    holding: set = set()
    invalidated_by: dict = {}
    for index, pass_ in enumerate(passes):
        missing = sorted(pass_.requires - holding)
        if missing:
            reasons = [f"'{fact}'" + (f" (invalidated by '{invalidated_by[fact]}')"
                                      if fact in invalidated_by else "")
                       for fact in missing]
            raise PipelineError(
                f"pass '{pass_.name}' (position {index}) requires {', '.join(reasons)}, which "
                "no earlier pass provides: move it after the pass that does")
        if ANALYSED in holding and pass_.invalidates is None:
            raise PipelineError(
                f"pass '{pass_.name}' changes the tree after the analysis without stating what "
                "it invalidates (invalidates=() when the analysed nodes stay)")
        for fact in pass_.invalidates or ():
            holding.discard(fact)
            invalidated_by[fact] = pass_.name
        holding |= pass_.provides
        for fact in pass_.provides:
            invalidated_by.pop(fact, None)
    return tuple(passes)


def analyse(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """The dataflow analysis as a pass: its results go to `ctx.annotations`."""
    ctx.annotations = dataflow.analyze(node, ctx.loop_flags)
    return node


_JUMPS_LOWERED = ("returns-lowered", "breaks-lowered", "continues-lowered")

PASSES = build([
    # Loop directives are found where the user wrote them, before any pass moves code.
    _pass("directives", directives.transform, provides=["directives-marked"]),
    # `match` becomes if/else first, so the jumps in its cases are lowered like any other.
    _pass("match_statements", match_statements.transform, provides=["matches-lowered"]),
    # Before any pass moves code into generated functions, where `super()` would find the
    # wrong frame.
    _pass("super_calls", super_calls.transform, provides=["super-explicit"]),
    # Before the jumps are lowered: their flags are the function's own names.
    _pass("outer_stores", outer_stores.transform, provides=["outer-stores-reported"]),
    _pass("return_statements", return_statements.transform,
          requires=["matches-lowered"], provides=["returns-lowered"]),
    _pass("break_statements", break_statements.transform,
          requires=["matches-lowered", "returns-lowered"], provides=["breaks-lowered"]),
    _pass("continue_statements", continue_statements.transform,
          requires=["matches-lowered"], provides=["continues-lowered"]),
    # Turns calls into ag__.converted_call (control_flow recognises `range` in that form)
    # and marks the lambdas of deferred operands, which the analysis reads.
    _pass("expressions", expressions.transform, requires=["super-explicit"],
          provides=["calls-converted", "deferred-operands-marked"]),
    # The analysis assumes a body without jumps (its structured passes are exact only then).
    _pass("analyse", analyse, requires=[*_JUMPS_LOWERED, "deferred-operands-marked"],
          provides=[ANALYSED]),
    # Wraps try bodies in a `with`: every analysed node stays in the tree.
    _pass("try_statements", try_statements.transform, requires=_JUMPS_LOWERED,
          provides=["try-bodies-guarded"], invalidates=()),
    # Replaces the analysed statements with ag__ calls.
    _pass("control_flow", control_flow.transform,
          requires=[ANALYSED, "calls-converted", "super-explicit", "try-bodies-guarded",
                    "directives-marked"],
          provides=["control-flow-converted"], invalidates=[ANALYSED]),
    _pass("function_scopes", function_scopes.transform, requires=["control-flow-converted"],
          provides=["function-scoped"], invalidates=()),
])

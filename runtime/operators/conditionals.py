"""`if` statements and conditional expressions.

    if x > 0:                      def if_body():          def else_body():
        y = x                          nonlocal y              nonlocal y
    else:                  ->          y = x                   y = -x
        y = -x                     ag__.if_stmt(x > 0, if_body, else_body,
                                                get_state, set_state, ('y',))

A Python condition runs one branch as plain Python. A symbolic tensor condition traces both
branches into an If op and sets the variables to its outputs.
"""

from typing import Any, Callable, Collection, Iterable, Sequence

from runtime.operators import cond_staging, mutations, staging, staging_log, try_regions


def _nothing():
    pass


def if_stmt(cond: Any, body: Callable[[], Any], orelse: Callable[[], Any] | None = None,
            get_state: Callable[[], tuple] | None = None,
            set_state: Callable[[tuple], None] | None = None, symbol_names: Sequence[str] = (),
            restore_only: Collection[str] = (), mutated: Iterable[str] = (),
            must_exist: Collection[str] = ()) -> None:
    """Runs `body` or `orelse` depending on `cond` (staged when `cond` is a symbolic tensor).

    Converted code leaves out `orelse` for an `if` without `else`, and the state functions
    when the statement assigns nothing that is used later. `restore_only` names state
    variables that are not used after the statement: a branch reads them before assigning
    them, so each staged branch must start from their value before the `if`, but they are
    not merged. `mutated` names the calls of methods that change a state container in place
    ('items.pop'; see runtime.operators.mutations). A key or attribute set in one branch
    only carries a definedness flag, checked where it is read, unless it is named in
    `must_exist` (its object outlives the function: a flag cannot be left inside it).

    A `global` (or `nonlocal`) variable the statement assigns is staged like a local read
    after it (the module may read it at any time): the function's own results are Python's,
    and the module's variable holds the merged value, a tensor of the trace (reported by a
    SideEffectWarning where the branch stores it, as any tensor stored into a global). It
    never holds one of the compiler's markers; one with no value before the statement is
    refused, naming it (see staging.state_functions)."""
    cond = staging.as_condition(cond)
    if staging_log.active is not None:
        with staging_log.active.statement("if", cond, symbol_names):
            return run_if(cond, body, orelse, get_state, set_state, symbol_names, restore_only,
                          mutated, must_exist)
    return run_if(cond, body, orelse, get_state, set_state, symbol_names, restore_only,
                  mutated, must_exist)


def run_if(cond: Any, body: Callable[[], Any], orelse: Callable[[], Any] | None,
           get_state: Callable[[], tuple] | None, set_state: Callable[[tuple], None] | None,
           symbol_names: Sequence[str], restore_only: Collection[str] = (),
           mutated: Iterable[str] = (), must_exist: Collection[str] = ()) -> None:
    """`if_stmt` once `cond` is a condition (`staging.as_condition`), not recorded: also the
    staged guard of loop iterations after a tensor `break`."""
    orelse = orelse or _nothing
    if not staging.is_symbolic(cond):
        if cond:
            body()
        else:
            orelse()
        return
    with try_regions.staged_statement():
        _staged_if(cond, body, orelse, get_state, set_state, symbol_names, restore_only,
                   mutated, must_exist)


def _staged_if(cond, body, orelse, get_state, set_state, symbol_names, restore_only, mutated,
               must_exist):
    get_state, set_state = staging.state_functions(get_state, set_state)
    init = get_state()
    calls = mutations.calls_by_name(mutated)

    def branch(fn):
        def run():
            copies = mutations.branch_copies(symbol_names, init, calls)
            set_state(cond_staging.branch_copies(copies))
            fn()
            return get_state()
        return run

    try:
        merged = cond_staging.staged_cond(cond, branch(body), branch(orelse), "an if statement",
                                          symbol_names, restore_only, calls, must_exist)
    except BaseException:
        set_state(init)
        raise
    set_state(mutations.write_back(symbol_names, init, merged, calls))


def if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any],
           expr_repr: str | None = None) -> Any:
    """`if_true() if cond else if_false()`, staged as an If op when `cond` is symbolic."""
    cond = staging.as_condition(cond)
    if staging_log.active is not None:
        with staging_log.active.statement("conditional expression", cond):
            return _run_if_exp(cond, if_true, if_false, expr_repr)
    return _run_if_exp(cond, if_true, if_false, expr_repr)


def _run_if_exp(cond, if_true, if_false, expr_repr):
    if not staging.is_symbolic(cond):
        return if_true() if cond else if_false()
    return cond_staging.staged_cond(cond, if_true, if_false,
                               "the conditional expression %s" % (expr_repr or ""))


def match_subject(subject: Any, pattern: str, where: str) -> Any:
    """The subject of a `match` statement kept as Python (its cases use `pattern`: sequence,
    mapping or class patterns, which look inside the subject): returned as it is, unless it
    is a tensor being traced, which such patterns cannot test."""
    if staging.is_symbolic(staging.as_condition(subject)):
        raise NotImplementedError(
            "%s: the match statement's subject is a tensor, but its cases use %s, which "
            "cannot test a tensor in a graph; use literal, value, `|`, capture and wildcard "
            "patterns (converted to if/elif), or if/elif with tensor conditions" % (where, pattern))
    return subject

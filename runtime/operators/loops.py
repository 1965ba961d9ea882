"""`while` and `for` loops.

    while x > 1:                   def loop_test():           def loop_body():
        x = x / 2          ->          return x > 1               nonlocal x
                                                                  x = x / 2
                                   ag__.while_stmt(loop_test, loop_body, get_state,
                                                   set_state, ('x',))

A Python condition runs a plain Python loop; as soon as the condition is a symbolic tensor
the (rest of the) loop is staged as one While op, so the graph does not grow with the trip
count. `for` over a Python iterable unrolls; over a symbolic tensor it iterates the first
dimension inside a While op; over `tf.range` (or `range` with tensor bounds) it counts
without materialising the range. `extra_test` carries lowered `break`/`return` flags.
Python iterations are counted (runtime.operators.unrolling): a Python loop that adds more
than `diagnostics.UNROLL_LIMIT` ops to one graph warns (UnrollingWarning) at its line.
"""

from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from runtime import dtypes
from runtime.operators import (
    aliases,
    conditionals,
    loop_options,
    loop_staging,
    mutations,
    py_builtins,
    staging,
    staging_log,
    try_regions,
)
from runtime.operators.staged_lists import StagedList
from runtime.operators.unrolling import UnrollCounter
from runtime.ops import array_ops, common, math_ops, selection_ops
from runtime.variables import Variable


def while_stmt(loop_test: Callable[[], Any], loop_body: Callable[[], Any],
               get_state: Callable[[], tuple] | None = None,
               set_state: Callable[[tuple], None] | None = None,
               symbol_names: Sequence[str] = (), opts: Mapping[str, Any] | None = None,
               mutated: Iterable[str] = (), must_exist: Collection[str] = ()) -> None:
    """Runs the loop as Python while its condition is a Python value, staged otherwise.

    `opts` holds the loop's options (runtime.operators.loop_options), which apply once the
    loop is staged; maximum_iterations counts the iterations already run in Python.
    `mutated` names the calls of methods that change a state container in place
    ('items.pop'; see runtime.operators.mutations). A key or attribute the loop creates
    carries a definedness flag, unless named in `must_exist` (see if_stmt)."""
    if staging_log.active is not None:
        with staging_log.active.statement("while", None, symbol_names) as record:
            return _while(record.test(loop_test), record.body(loop_body), get_state,
                          set_state, symbol_names, opts, mutated, must_exist)
    return _while(loop_test, loop_body, get_state, set_state, symbol_names, opts, mutated,
                  must_exist)


def _while(loop_test, loop_body, get_state, set_state, symbol_names, opts, mutated=(),
           must_exist=()):
    get_state, set_state = staging.state_functions(get_state, set_state)
    counter = UnrollCounter()
    while True:
        test = staging.as_condition(loop_test())
        if staging.is_symbolic(test):
            counter.report()
            stage_loop(get_state, set_state, symbol_names,
                       lambda values: loop_test(), lambda values: loop_body(),
                       options=_options(opts), done=counter.iterations, mutated=mutated,
                       must_exist=must_exist)
            return
        if not test:
            counter.report()
            return
        loop_body()
        counter.iterations += 1


def _options(opts):
    """The checked LoopOptions in a statement's `opts`, or None."""
    if not opts or not any(name in opts for name in loop_options.OPTION_NAMES):
        return None
    return loop_options.LoopOptions(opts)


def stage_loop(get_state: Callable[[], tuple] | None, set_state: Callable[[tuple], None] | None,
               symbol_names: Sequence[str], test: Callable[..., Any],
               step: Callable[..., Any], counter: Any = None,
               counter_name: str = staging.LOOP_COUNTER,
               options: loop_options.LoopOptions | None = None, done: Any = 0,
               mutated: Iterable[str] = (), must_exist: Collection[str] = (),
               stage_lists: bool | str = True) -> None:
    """Stages a loop over the statement's state as one While op: `test(i)` is its condition
    and `step(i)` runs its body, given the optional hidden counter `i` (named `counter_name`
    in the graph and in messages: the user's loop variable, when the counter is its value;
    `step` returns its next value). `options` are the loop's LoopOptions (or None), honoured
    by every kind of loop that stages through here (a while, a for over a tensor, a dataset
    or an iterator); `done` the iterations the loop already ran as Python; `mutated` and
    `must_exist` as for while_stmt; `stage_lists` as in loop_staging.staged_loop."""
    with try_regions.staged_statement():
        _stage_loop(get_state, set_state, symbol_names, test, step, counter, counter_name,
                    options, done, mutated, must_exist, stage_lists)


def _stage_loop(get_state, set_state, symbol_names, test, step, counter, counter_name,
                options, done, mutated, must_exist, stage_lists):
    init = tuple(get_state())
    user_init = init
    calls = mutations.calls_by_name(mutated)
    mutations.refuse_sets_in_loop(symbol_names, init, calls)
    aliases.refuse_shared_containers(symbol_names, [("before the loop", init)],
                                     "a loop on a tensor", calls)
    names = tuple(symbol_names)
    invariants = options.invariants_for(init) if options is not None else {}
    maximum = options.remaining(done) if options is not None else None
    if maximum is not None:
        get_state, set_state, test, step = loop_options.bounded(get_state, set_state, test,
                                                                step, maximum)
        init = tuple(get_state())
        names = (staging.ITERATION_COUNT,) + names
        invariants = {i + 1: shapes for i, shapes in invariants.items()}
    if counter is not None:
        invariants = {i + 1: shapes for i, shapes in invariants.items()}
        init = (counter,) + init
        names = (counter_name,) + names

    def split(values):
        values = list(values)
        if counter is None:
            return None, values
        return values[0], values[1:]

    def cond_fn(values):
        i, rest = split(values)
        set_state(tuple(rest))
        return test(i)

    def body_fn(values):
        i, rest = split(values)
        before = mutations.branch_copies(symbol_names, rest[len(rest) - len(user_init):], calls)
        set_state(tuple(rest))
        new_i = step(i)
        state = list(get_state())
        for name, old, new in zip(symbol_names, before, state[len(state) - len(user_init):]):
            mutations.refuse_changed_shape(name, new, old, calls, "a loop on a tensor",
                                           ("after an iteration", "before it"))
        aliases.refuse_shared_containers(
            symbol_names, [("after an iteration", state[len(state) - len(user_init):])],
            "a loop on a tensor", calls)
        return ([new_i] if counter is not None else []) + state

    try:
        final = loop_staging.staged_loop(names, init, cond_fn, body_fn, stage_lists=stage_lists,
                                         invariants=invariants, must_exist=must_exist)
    except BaseException:
        set_state(split(init)[1] if counter is not None else init)
        raise
    state = tuple(split(final)[1])
    set_state(mutations.write_back(symbol_names, user_init, state, calls))


def for_stmt(iter_: Any, extra_test: Callable[[], Any] | None,
             body: Callable[[Any], Any],
             get_state: Callable[[], tuple] | None = None,
             set_state: Callable[[tuple], None] | None = None,
             symbol_names: Sequence[str] = (), opts: Mapping[str, Any] | None = None,
             mutated: Iterable[str] = (), must_exist: Collection[str] = ()) -> None:
    """Runs `body(item)` for each item of `iter_` while `extra_test()` (if given) holds.

    `opts` may hold 'iterate_names', the source of the loop's target (`'i'`): a loop over a
    tensor range names its counter, which is the target's value, after it; and the loop's
    options (runtime.operators.loop_options), which apply when the loop is staged;
    `mutated` as for while_stmt."""
    if staging_log.active is not None:
        with staging_log.active.statement("for", iter_, symbol_names) as record:
            return _for(iter_, extra_test, record.body(body), get_state, set_state,
                        symbol_names, opts, mutated, must_exist)
    return _for(iter_, extra_test, body, get_state, set_state, symbol_names, opts, mutated,
                must_exist)


def for_loop_of(iter_: Any, extra_test: Callable[[], Any] | None,
                body: Callable[[Any], Any], get_state: Callable[[], tuple] | None,
                set_state: Callable[[tuple], None] | None,
                symbol_names: Sequence[str],
                options: loop_options.LoopOptions | None = None) -> None:
    """`for_stmt` without a staging-report record of its own, for an iterable whose
    `__ag_for_stmt__` (recorded already) loops over something else: a RaggedTensor over
    the indices of its rows. `options`: the loop's LoopOptions (or None)."""
    return _for(iter_, extra_test, body, get_state, set_state, symbol_names, None,
                options=options)


def _for(iter_, extra_test, body, get_state, set_state, symbol_names, opts, mutated=(),
         must_exist=(), options=None):
    get_state, set_state = staging.state_functions(get_state, set_state)
    options = _options(opts) if options is None else options
    if isinstance(iter_, StagedList):
        iter_ = iter_.loop_items()
    custom = getattr(iter_, "__ag_for_stmt__", None)
    if custom is not None:
        # The iterable stages its own loop (a dataset, an iterator, a RaggedTensor): the
        # protocol is __ag_for_stmt__(extra_test, body, get_state, set_state, symbol_names,
        # options=None), the loop's LoopOptions passed only when it has some.
        if options is None:
            return custom(extra_test, body, get_state, set_state, symbol_names)
        return custom(extra_test, body, get_state, set_state, symbol_names, options=options)
    if isinstance(iter_, Variable):
        iter_ = iter_.read_value()
    if staging.is_symbolic(iter_):
        return _staged_for(iter_, extra_test, body, get_state, set_state, symbol_names,
                           (opts or {}).get("iterate_names"), options, mutated, must_exist)
    return _python_for(iter_, extra_test, body, get_state, set_state, symbol_names, mutated,
                       must_exist)


def _python_for(iter_, extra_test, body, get_state, set_state, symbol_names, mutated=(),
                must_exist=()):
    counter = UnrollCounter()
    for item in iter_:
        counter.count(item)
        if extra_test is not None:
            keep_going = staging.as_condition(extra_test())
            if staging.is_symbolic(keep_going):
                # A tensor `break`/`return` flag: later iterations run only where it is unset
                # (staged like the loop's own `if`: its in-place changes carried too).
                conditionals.run_if(keep_going, lambda: body(item), lambda: None,
                                    get_state, set_state, symbol_names, mutated=mutated,
                                    must_exist=must_exist)
                continue
            if not keep_going:
                counter.iterations -= 1
                break
        body(item)
    counter.report()


def _staged_for(tensor, extra_test, body, get_state, set_state, symbol_names, target=None,
                options=None, mutated=(), must_exist=()):
    node = tensor.node
    counter_name = staging.LOOP_COUNTER
    if node.op.name == "Range":
        start, limit, delta = node.inputs
        step_value = common.constant_value(delta)
        if step_value is None or step_value == 0:
            # The loop counts without running the Range op, so it checks the step itself
            # (before the loop: with step 0 it would never end, or never start).
            py_builtins.check_range_step(delta)
        if step_value is not None and step_value > 0:
            def in_range(i):
                return math_ops.less(i, limit)
        elif step_value is not None:
            def in_range(i):
                return math_ops.greater(i, limit)
        else:
            def in_range(i):
                return selection_ops.where(math_ops.greater(delta, 0), math_ops.less(i, limit),
                                       math_ops.greater(i, limit))

        def item_at(i):
            return i
        counter = start
        counter_name = target or counter_name  # the counter is the user's loop variable
    else:
        dims = tensor._shape
        if dims is None or not dims:
            staging.fail(ValueError, "cannot iterate over a tensor of shape %s: a for loop "
                         "over a tensor iterates its first dimension"
                         % ("<unknown>" if dims is None else "()"))
        length = dims[0] if dims[0] is not None else array_ops.shape(tensor)[0]
        delta = 1

        def in_range(i):
            return math_ops.less(i, length)

        def item_at(i):
            return tensor[i]
        counter = common.convert_to_tensor(0, dtype=dtypes.int32)

    def test(i):
        keep_going = in_range(i)
        if extra_test is None:
            return keep_going
        extra = staging.as_condition(extra_test())
        if not staging.is_symbolic(extra):
            return keep_going if extra else common.convert_to_tensor(False)
        return math_ops.logical_and(keep_going, extra)

    def step(i):
        body(item_at(i))
        return math_ops.add(i, delta)

    stage_loop(get_state, set_state, symbol_names, test, step, counter=counter,
               counter_name=counter_name, options=options, mutated=mutated,
               must_exist=must_exist)

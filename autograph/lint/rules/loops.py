"""Python loops in a Function (the guide's "Looping over Python data" and the `range`
versus `tf.range` graph sizes), and closures made in loops."""

import gast

from autograph.lint.rule import rule
from autograph.lint.rules.side_effects import MUTATING_METHODS, source
from autograph.lint.scope import ConvertedFunction


def _parameters_in(fn, node):
    """The parameters (not given tensor specs, not rebound) that `node` reads, other than
    through a static property (`x.shape`, `x.ndim`): a tensor's static shape is fixed by
    its trace, and a loop over it is meant to unroll."""
    return sorted({n.id for n in gast.walk(node) if fn.is_parameter_name(n)
                   and n.id not in fn.tensor_params and n.id not in fn.rebound
                   and not _static_property(fn, n)})


def _static_property(fn: ConvertedFunction, name_node: gast.Name) -> bool:
    parent = fn.module.parents.get(name_node)
    return isinstance(parent, gast.Attribute) and parent.attr in ("shape", "ndim", "dtype")


@rule("AG301", "python-loop-over-parameter",
      "range(n) or len() of a parameter drives a Python loop")
def python_loop_over_parameter(fn):
    """`for i in range(n)` (or `while i < len(xs)`) where `n` is a parameter: called with a
    Python number, the loop runs while tracing and is unrolled into the graph (one copy of
    its body per iteration, so the graph grows with `n`), and every new value of `n`
    traces again. Pass `n` as a tensor (`f(tf.constant(10))`) or loop over `tf.range(n)`:
    one loop op, whatever `n`. Parameters with an `input_signature` are tensors and left
    alone, and so are loops over a static shape (`range(x.shape[0])`)."""
    if fn.called:
        return  # what the caller passes decides, and the caller is checked
    for node in fn.walk():
        if isinstance(node, gast.For) and isinstance(node.iter, gast.Call) \
                and fn.is_builtin(node.iter.func, "range") \
                and not _lengths_of_parameters(fn, node.iter):
            names = _parameters_in(fn, node.iter)
            if names:
                yield (node.iter, "`%s` of parameter `%s` drives a Python loop: a Python "
                                  "number unrolls it into the graph and retraces for each "
                                  "new value" % (source(node.iter), names[0]),
                       "loop over tf.range(%s), or pass %s as a tensor"
                       % (", ".join(source(a) for a in node.iter.args), names[0]))
        elif isinstance(node, (gast.While, gast.For)):
            looked_at = node.test if isinstance(node, gast.While) else node.iter
            for call in _lengths_of_parameters(fn, looked_at):
                name = _parameters_in(fn, call.args[0])[0]
                yield (call, "`%s` of parameter `%s` drives a Python loop: it is unrolled "
                             "into the graph and retraces for each new length"
                       % (source(call), name),
                       "loop over tf.range(tf.shape(%s)[0]), or iterate a tf.data.Dataset"
                       % name)


def _lengths_of_parameters(fn, node):
    """The `len(...)` calls in `node` of an expression that reads a parameter."""
    return [call for call in gast.walk(node)
            if isinstance(call, gast.Call) and fn.is_builtin(call.func, "len")
            and call.args and _parameters_in(fn, call.args[0])]


def _loop_variables(loop):
    names = {n.id for n in gast.walk(loop.target) if isinstance(n, gast.Name)} \
        if isinstance(loop, gast.For) else set()
    for stmt in loop.body:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                names.add(node.id)
    return names


def _kept_for_later(fn: ConvertedFunction, loop: gast.AST, closure: gast.AST) -> bool:
    """False when the closure is called at once, or is an argument of a call that uses it
    at once (`tf.cond`, `map`, ...); True when it is stored (assigned, appended, put in a
    container, returned) to be called after the iteration. A nested def, and a lambda
    given a name (`f = lambda: ...`), are judged by the uses of that name in the loop."""
    parent = fn.module.parents.get(closure)
    name = _name_given(closure, parent)
    if name is not None:
        uses = [n for stmt in loop.body for n in gast.walk(stmt)
                if isinstance(n, gast.Name) and n.id == name
                and isinstance(n.ctx, gast.Load)]
        return not uses or any(_kept_for_later(fn, loop, use) for use in uses)
    if isinstance(parent, gast.Call) and closure is parent.func:
        return False
    if isinstance(parent, gast.Call):
        func = parent.func
        return isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS
    if isinstance(parent, gast.keyword):
        return False
    return True


def _name_given(closure: gast.AST, parent: gast.AST | None) -> str | None:
    """The one local name a def or a lambda is bound to (`f = lambda: ...`), if any."""
    if isinstance(closure, gast.FunctionDef):
        return closure.name
    if isinstance(parent, gast.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], gast.Name):
        return parent.targets[0].id
    return None


def _free_reads(closure):
    params = set(_closure_parameters(closure))
    body = closure.body if isinstance(closure.body, list) else [closure.body]
    return {n.id for stmt in body for n in gast.walk(stmt)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} - params


def _closure_parameters(closure):
    args = closure.args
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    return names


@rule("AG302", "closure-over-loop-variable", "a lambda that closes over a loop variable")
def closure_over_loop_variable(fn):
    """A lambda (or nested def) made in a loop and kept for later reads the loop variable
    when it is called, not when it was made: every one of them sees the last iteration's
    value. Bind the current value as a default (`lambda x, i=i: x * i`) or pass it as an
    argument. A lambda handed straight to a call that runs it at once (`tf.cond(p, lambda:
    i, ...)`) is fine and left alone."""
    for loop in fn.walk():
        if not isinstance(loop, (gast.For, gast.While)):
            continue
        variables = _loop_variables(loop)
        for stmt in loop.body:
            for closure in gast.walk(stmt):
                if not isinstance(closure, (gast.Lambda, gast.FunctionDef)):
                    continue
                captured = sorted(_free_reads(closure) & variables)
                if captured and _kept_for_later(fn, loop, closure):
                    name = captured[0]
                    yield (closure, "this %s reads loop variable `%s` when it is called, so "
                                    "it sees the last iteration's value"
                           % ("lambda" if isinstance(closure, gast.Lambda) else "function",
                              name),
                           "bind the current value: lambda ..., %s=%s: ..." % (name, name))

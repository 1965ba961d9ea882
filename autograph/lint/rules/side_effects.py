"""Python side effects: they run while a Function traces, not on the calls that reuse the
trace (the guide's "Executing Python side effects" and "Changing Python global and free
variables")."""

import gast

from autograph.lint.rule import rule
from autograph.lint.scope import ConvertedFunction, root_name, text_of
from autograph.pyct import unparsing

# Methods that change a list, dict or set in place.
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear",
                              "update", "setdefault", "popitem", "add", "discard", "sort",
                              "reverse"})
# Reads that give Python values even for a tensor: printing them while tracing is right.
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "name", "ndim", "__name__"})


def source(node: gast.AST) -> str:
    """The source text of an expression, on one line."""
    return " ".join(unparsing.unparse(gast.gast_to_ast(node)).split())


def may_be_tensor(fn: ConvertedFunction, node: gast.AST) -> bool:
    """False when `node` is certainly a Python value while tracing (a constant, a shape, a
    dtype, a length); True when it may hold a tensor."""
    if isinstance(node, gast.Constant):
        return False
    if isinstance(node, gast.JoinedStr):
        return any(may_be_tensor(fn, v.value) for v in node.values
                   if isinstance(v, gast.FormattedValue))
    if isinstance(node, gast.Attribute) and node.attr in _STATIC_ATTRIBUTES:
        return False
    if isinstance(node, gast.Call) and fn.is_builtin(node.func, "len", "type", "isinstance"):
        return False
    if isinstance(node, gast.Name):
        return node.id not in fn.module.imported and node.id not in fn.module.definitions \
            and not _module_constant(fn, node.id) and node.id not in _python_loop_names(fn)
    if isinstance(node, (gast.Tuple, gast.List, gast.Set)):
        return any(may_be_tensor(fn, e) for e in node.elts)
    if isinstance(node, gast.Starred):
        return may_be_tensor(fn, node.value)
    return True


def _module_constant(fn: ConvertedFunction, name: str) -> bool:
    """True for a global (not bound in the function) assigned only constants."""
    if name in fn.local_names:
        return False
    bindings = fn.module.bindings.get(name)
    if not bindings:
        return False
    for node in bindings:
        assign = fn.module.parents.get(node)
        if not (isinstance(assign, gast.Assign) and isinstance(assign.value, gast.Constant)):
            return False
    return True


def _python_loop_names(fn: ConvertedFunction) -> set[str]:
    """Names bound only as targets of `for` loops over Python data (`range` of constants,
    literal lists, tuples, strings and dicts, their `.items()`, `enumerate`/`zip` of such):
    the compiler keeps those loops as Python, so each name is a Python value."""
    bound: dict[str, bool] = {}
    for node in fn.walk():
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            loop = _loop_binding(fn, node)
            python = loop is not None and _python_data(fn, loop.iter)
            bound[node.id] = bound.get(node.id, True) and python
    return {name for name, python in bound.items() if python and name not in fn.params}


def _plain(fn: ConvertedFunction, node: gast.AST) -> bool:
    """True for a constant, a static property (`x.shape`), the length of one, a module
    constant, or a tuple or list of those (no loop variables: this is what decides them)."""
    if isinstance(node, (gast.Tuple, gast.List, gast.Set)):
        return all(_plain(fn, e) for e in node.elts)
    if isinstance(node, gast.Name):
        return _module_constant(fn, node.id)
    if isinstance(node, gast.UnaryOp):
        return _plain(fn, node.operand)
    if isinstance(node, gast.Call):  # len(x) of a tensor is a tensor in converted code
        return fn.is_builtin(node.func, "len") and len(node.args) == 1 \
            and _plain(fn, node.args[0])
    return isinstance(node, (gast.Constant, gast.Attribute)) and not may_be_tensor(fn, node)


def _loop_binding(fn, name_node):
    """The `for` whose target holds `name_node`, or None."""
    child = name_node
    for ancestor in fn.ancestors(name_node):
        if isinstance(ancestor, gast.For):
            return ancestor if child is ancestor.target else None
        if not isinstance(ancestor, (gast.Tuple, gast.List, gast.Starred)):
            return None
        child = ancestor
    return None


def _python_data(fn: ConvertedFunction, node: gast.AST) -> bool:
    """True for an iterable that is certainly Python data while tracing."""
    if isinstance(node, (gast.List, gast.Tuple, gast.Set)):
        return all(_plain(fn, e) for e in node.elts)
    if isinstance(node, gast.Dict):
        return all(k is not None and _plain(fn, k) for k in node.keys) \
            and all(_plain(fn, v) for v in node.values)
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, gast.Call) and not node.keywords:
        if fn.is_builtin(node.func, "range"):
            return all(_plain(fn, a) for a in node.args)
        if fn.is_builtin(node.func, "enumerate", "zip", "reversed", "sorted"):
            return all(_python_data(fn, a) for a in node.args)
        if isinstance(node.func, gast.Attribute) and not node.args \
                and node.func.attr in ("items", "keys", "values"):
            return _python_data(fn, node.func.value)
    return False


def _announces_tracing(call: gast.Call) -> bool:
    """True when the print's first argument says it reports tracing ("Tracing with", x):
    the guide's way to see when a Function traces, which is what such a print shows."""
    first = call.args[0] if call.args else None
    if isinstance(first, gast.JoinedStr) and first.values:
        first = first.values[0]
    return isinstance(first, gast.Constant) and isinstance(first.value, str) \
        and "trac" in first.value.lower()


@rule("AG101", "print-of-tensor", "print() of a value that may be a tensor")
def print_of_tensor(fn):
    """A Python `print` runs while the Function traces, not on the calls that reuse the
    trace, and shows a tensor as a symbolic placeholder, not its value. Use
    `tf.print(...)`, which prints on every call. A print whose first argument says it
    reports tracing (`print("Tracing with", x)`) is left alone: showing when tracing
    happens is what it is for."""
    for node in fn.walk():
        if isinstance(node, gast.Call) and fn.is_builtin(node.func, "print") \
                and not _announces_tracing(node):
            shown = [a for a in node.args if may_be_tensor(fn, a)]
            if shown:
                yield (node, "print() of `%s` runs only while tracing and shows a symbolic "
                             "tensor, not its value" % source(shown[0]),
                       "tf.print(%s) prints on every call" % ", ".join(
                           source(a) for a in node.args))


def _guarded(fn: ConvertedFunction, node: gast.AST, target: str) -> bool:
    """True when an `if` around `node` tests `target` (or what it belongs to): the
    create-once idiom `if self.v is None: self.v = ...`, `if not state: state.append(...)`,
    which changes the state on the first trace only, on purpose."""
    while isinstance(target, gast.Subscript):  # `cache[k] = ...` under `if k not in cache`
        target = target.value
    text = text_of(target)
    for ancestor in fn.ancestors(node):
        if isinstance(ancestor, gast.If) and text is not None \
                and text in {text_of(n) for n in gast.walk(ancestor.test)}:
            return True
    return False


def _mutated_objects(fn):
    """(node, the expression of the outer object it changes, how) for each change."""
    for node in fn.walk():
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in MUTATING_METHODS \
                and fn.is_outer(root_name(node.func.value)) \
                and not fn.module.qualified(node.func.value):
            yield node, node.func.value, "." + node.func.attr + "()"
        elif isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete)):
            targets = node.targets if isinstance(node, (gast.Assign, gast.Delete)) \
                else [node.target]
            value = getattr(node, "value", None)
            if fn.module.is_call_of(value, "tf.Variable"):
                continue  # AG201's concern
            for target in targets:
                for element in (target.elts if isinstance(target, gast.Tuple) else [target]):
                    if isinstance(element, (gast.Attribute, gast.Subscript)) \
                            and fn.is_outer(root_name(element)):
                        yield node, element, "assignment" if not isinstance(
                            node, gast.Delete) else "del"


@rule("AG102", "outer-state-mutation",
      "a change to a list, dict, set or object that lives outside the function")
def outer_state_mutation(fn):
    """Appending to a list, setting a dict key or an attribute of an object the function
    did not create (a global, a closure variable, a parameter's object) happens once,
    while tracing; the calls that reuse the trace do not repeat it, and a tensor stored
    there leaks out of the graph. Return the value instead, or keep the state in a
    `tf.Variable` (`.assign`) or a `tf.TensorArray`. Changes under an `if` that tests the
    same state (`if self.v is None: self.v = tf.Variable(...)`) are the create-once idiom
    and are left alone."""
    for node, target, how in _mutated_objects(fn):
        if _guarded(fn, node, target):
            continue
        yield (node, "%s of `%s`, which lives outside the function, happens only while "
                     "tracing, not on every call" % (how, source(target)),
               "return the value, or keep it in a tf.Variable (.assign) or a tf.TensorArray")


@rule("AG103", "global-assignment", "an assignment to a `global` or `nonlocal` name")
def global_assignment(fn):
    """Assigning a name declared `global` (or `nonlocal`) happens only while tracing, and a
    tensor assigned there leaks out of the graph: outside, it is a symbolic tensor with no
    value (`.numpy()` raises), and another Function that reads it fails. Return the value
    instead (a Function may return several), or keep it in a `tf.Variable`."""
    names = fn.declared_global
    for node in fn.walk():
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) \
                and node.id in names:
            yield (node, "assigning global `%s` happens only while tracing; a tensor stored "
                         "there leaks out of the graph" % node.id,
                   "return %s from the function (or assign it to a tf.Variable)" % node.id)


def _python_iterators(module):
    """Module-level names bound to a Python iterator: `iter(<Python data>)`, a generator
    expression, or a call of a generator function of the module."""
    generators = {name for name, defs in module.definitions.items()
                  if any(isinstance(n, (gast.Yield, gast.YieldFrom))
                         for d in defs for n in gast.walk(d))}
    found = set()
    for name, nodes in module.bindings.items():
        for node in nodes:
            assign = module.parents.get(node)
            if isinstance(assign, gast.Assign) and _is_python_iterator(module, assign.value,
                                                                       generators):
                found.add(name)
    return found, generators


def _is_python_iterator(module, value, generators):
    if isinstance(value, gast.GeneratorExp):
        return True
    if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Name):
        return False
    if value.func.id in generators:
        return True
    if value.func.id == "iter" and value.args:
        data = value.args[0]
        return isinstance(data, (gast.List, gast.Tuple, gast.Set, gast.Dict, gast.ListComp,
                                 gast.Constant)) or (isinstance(data, gast.Call) and
                                                     isinstance(data.func, gast.Name) and
                                                     data.func.id == "range")
    return False


def _passed_python_iterator(fn, param, iterators, generators):
    """True when a call of the Function in the module passes a Python iterator as
    parameter `param`."""
    for call in fn.calls():
        value = fn.argument(call, param)
        if (isinstance(value, gast.Name) and value.id in iterators) or \
                _is_python_iterator(fn.module, value, generators):
            return True
    return False


@rule("AG104", "next-of-python-iterator", "next() of a Python iterator")
def next_of_python_iterator(fn):
    """`next()` of a Python iterator (over a list, a range, a generator) advances it while
    tracing only: every call that reuses the trace sees the first value again. Iterate a
    `tf.data.Dataset` instead (`iterator = iter(dataset)`), whose `next` runs in the graph.
    Found when the iterator is a module-level name, or a parameter that a call in the same
    file passes a Python iterator."""
    iterators, generators = fn.module.memo("python_iterators", _python_iterators)
    for node in fn.walk():
        if not (isinstance(node, gast.Call) and fn.is_builtin(node.func, "next")
                and node.args and isinstance(node.args[0], gast.Name)):
            continue
        name = node.args[0].id
        if name in fn.params:
            python = name not in fn.rebound and _passed_python_iterator(fn, name, iterators,
                                                                       generators)
        else:
            python = name not in fn.local_names and name in iterators
        if python:
            yield (node, "next(%s) of a Python iterator advances it only while tracing; "
                         "later calls see the same value" % name,
                   "iterate a tf.data.Dataset: iter(tf.data.Dataset.from_tensor_slices(...))")

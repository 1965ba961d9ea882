"""Tensors used as Python values, and TensorArray results thrown away."""

import gast

from autograph.lint.rule import rule
from autograph.lint.rules.side_effects import source
from autograph.lint.scope import ConvertedFunction, text_of

_ARRAY_UPDATES = frozenset({"write", "scatter", "unstack", "split"})
# tf functions whose result is not a tensor (or is a Python value while tracing).
_NOT_TENSORS = frozenset({"tf.TensorSpec", "tf.function", "tf.Variable", "tf.TensorArray",
                          "tf.print", "tf.py_function"})


def _tensor_arrays(module):
    """The texts (`states`, `self.states`) that hold a TensorArray: assigned a
    `tf.TensorArray(...)` or the result of an update of one, in the whole module."""
    found = set()
    assignments = [n for n in gast.walk(module.tree) if isinstance(n, gast.Assign)]
    changed = True
    while changed:
        changed = False
        for node in assignments:
            value = node.value
            is_array = module.is_call_of(value, "tf.TensorArray") or (
                isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
                and value.func.attr in _ARRAY_UPDATES and text_of(value.func.value) in found)
            if is_array:
                for target in node.targets:
                    text = text_of(target)
                    if text and text not in found:
                        found.add(text)
                        changed = True
    return found


@rule("AG401", "discarded-tensor-array-write", "the result of TensorArray.write discarded")
def discarded_tensor_array_write(fn):
    """`TensorArray.write` (and `scatter`, `unstack`, `split`) returns a new array and
    leaves the one it is called on unchanged, so a call whose result is dropped does
    nothing. Assign the result back: `states = states.write(i, x)`."""
    arrays = fn.module.memo("tensor_arrays", _tensor_arrays)
    for node in fn.walk():
        if isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            func = node.value.func
            if isinstance(func, gast.Attribute) and func.attr in _ARRAY_UPDATES \
                    and text_of(func.value) in arrays:
                array = text_of(func.value)
                yield (node, "the result of `%s.%s(...)` is discarded: it returns the "
                             "updated array and leaves `%s` unchanged" % (array, func.attr,
                                                                          array),
                       "%s = %s" % (array, source(node.value)))


@rule("AG402", "numpy-in-function", ".numpy() called in a Function")
def numpy_in_function(fn):
    """`.numpy()` needs a value, and while a Function traces its tensors are symbolic: it
    raises `AttributeError` (on a tensor captured from outside, it freezes that value into
    the graph). Use the tensor itself (tensor ops and converted `if`/`for` accept it), or
    `tf.print` to see it on every call."""
    for node in fn.walk():
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr == "numpy" and not node.args and not node.keywords \
                and not fn.module.qualified(node.func.value):
            yield (node, "`%s` has no value while the Function traces (a symbolic tensor "
                         "raises AttributeError)" % source(node),
                   "use %s as a tensor, or tf.print(%s) to see it"
                   % (source(node.func.value), source(node.func.value)))


def _tensor_locals(fn):
    """Names the function binds only to the results of tf calls or tensor arithmetic."""
    bound: dict[str, list[gast.AST]] = {}
    simple = set()
    for node in fn.walk():
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            bound.setdefault(node.targets[0].id, []).append(node.value)
            simple.add(node.targets[0])
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) \
                and node not in simple:
            bound.setdefault(node.id, []).append(None)  # bound some other way
    tensors = set(fn.tensor_params - fn.rebound)
    changed = True
    while changed:
        changed = False
        for name, values in bound.items():
            if name not in tensors and values and \
                    all(v is not None and _is_tensor(fn, v, tensors) for v in values):
                tensors.add(name)
                changed = True
    return tensors


def _is_tensor(fn: ConvertedFunction, node: gast.AST, tensors: set[str]) -> bool:
    if isinstance(node, gast.Call):
        name = fn.module.qualified(node.func)
        if not name:
            return False
        return name.startswith("tf.") and name not in _NOT_TENSORS \
            and not name.startswith(("tf.data.", "tf.dtypes.", "tf.config."))
    if isinstance(node, gast.Name):
        return node.id in tensors
    if isinstance(node, gast.BinOp):
        return _is_tensor(fn, node.left, tensors) or _is_tensor(fn, node.right, tensors)
    if isinstance(node, gast.UnaryOp):
        return _is_tensor(fn, node.operand, tensors)
    if isinstance(node, gast.Subscript):
        return _is_tensor(fn, node.value, tensors)
    return False


@rule("AG403", "python-number-of-tensor", "float() or int() of a tensor")
def python_number_of_tensor(fn):
    """`float(t)` or `int(t)` of a tensor has no Python value while tracing: in converted
    code it becomes a cast that gives a tensor (never a Python number), and in code left
    unconverted it raises. Say what you mean with `tf.cast(t, tf.float32)`, or compute the
    Python number outside the Function."""
    tensors = _tensor_locals(fn)
    for node in fn.walk():
        if isinstance(node, gast.Call) and fn.is_builtin(node.func, "float", "int") \
                and len(node.args) == 1 and _is_tensor(fn, node.args[0], tensors):
            dtype = "tf.float32" if node.func.id == "float" else "tf.int32"
            yield (node, "`%s` of a tensor is not a Python number while tracing (converted, "
                         "it is a cast to a tensor)" % source(node),
                   "tf.cast(%s, %s)" % (source(node.args[0]), dtype))

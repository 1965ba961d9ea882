"""Retracing caused by Python numbers passed where a tensor would do (the guide's "Cast
Python arguments to Tensors to reduce retracing")."""

import gast

from autograph.lint.rule import rule


def _tensor_uses(fn):
    """Parameters (not rebound, without an input signature) passed straight to tf functions
    as their first argument (`tf.range(n)`, `tf.cast(n, ...)`) and never as another one:
    used as tensors, so a tensor argument would serve every value. Later arguments are
    often static ones that a tensor cannot give (an `axis`, a `depth`, a `num`), and with
    them a new trace per value is what the code needs."""
    first: set[str] = set()
    other: set[str] = set()
    for node in fn.walk():
        if isinstance(node, gast.Call):
            name = fn.module.qualified(node.func)
            if name and name.startswith("tf.") and name not in ("tf.print", "tf.function"):
                passed = node.args + [k.value for k in node.keywords]
                for position, arg in enumerate(passed):
                    if fn.is_parameter_name(arg) and arg.id not in fn.rebound \
                            and arg.id not in fn.tensor_params:
                        (first if position == 0 and node.args else other).add(arg.id)
    return first - other


def _number(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


@rule("AG701", "retrace-per-python-number",
      "calls that pass different Python numbers where a tensor would do")
def retrace_per_python_number(fn):
    """Every new Python number passed to a Function traces it again (a number is part of
    the cache key), even when the function only hands it to tensor ops
    (`tf.range(num_steps)`), where the graph would be the same. Found at the second call in
    the file that passes a different number for such a parameter. Pass a tensor
    (`train(tf.constant(20))`): one trace serves every value."""
    params = [p for p in fn.params if p in _tensor_uses(fn)]
    for param in params:
        seen: dict[int | float, gast.Call] = {}
        for call in fn.calls():
            value = _number(fn.argument(call, param))
            if value is None:
                continue
            if seen and value not in seen:
                yield (call, "`%s` is called with %s=%r after %s=%r: each Python number "
                             "traces the Function again" % (fn.name, param, value, param,
                                                            next(iter(seen))),
                       "pass a tensor: %s=tf.constant(%r)" % (param, value))
                break
            seen[value] = call

"""Variables created in a Function (the guide's "Creating tf.Variables")."""

import gast

from autograph.lint.rule import rule


@rule("AG201", "variable-created-every-trace", "tf.Variable(...) created unconditionally")
def variable_created_every_trace(fn):
    """A Function may create variables on its first trace only: a `tf.Variable(...)` in
    its body with no `if` around it is created again by every later trace, which raises
    `ValueError` (and, run eagerly, makes a new variable per call). Create the variable
    once outside the function (at module level, or in `__init__`), or guard its creation:
    `if self.v is None: self.v = tf.Variable(...)`."""
    for node in fn.walk():
        if fn.module.is_call_of(node, "tf.Variable") and not any(
                isinstance(a, (gast.If, gast.IfExp)) for a in fn.ancestors(node)):
            yield (node, "tf.Variable(...) is created on every trace; a Function may create "
                         "variables on its first trace only (a later one raises ValueError)",
                   "create it once outside the function, or under "
                   "`if self.v is None: self.v = tf.Variable(...)`")

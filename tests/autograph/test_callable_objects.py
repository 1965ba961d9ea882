"""Converted code that calls an object whose class defines `__call__` in Python converts that
method (a tensor `if` in it is staged), as a call of the method itself would be; `explain`
says which."""

import autograph
import autograph.tf as tf


class Gate:
    def __call__(self, x):
        if x > 0:
            return x
        return -x


class Scale(tf.Module):
    @tf.function
    def __call__(self, x):
        return x * 2.0


gate = Gate()
scale = Scale()


@tf.function
def gated(x):
    return gate(x) + 1.0


def test_the_call_method_of_a_called_object_is_converted():
    assert float(gated(tf.constant(-2.0)).numpy()) == 3.0
    assert float(gated(tf.constant(4.0)).numpy()) == 5.0


def test_explain_says_why_objects_were_converted_or_traced():
    def calls_both(x):
        return gate(x) + scale(x)

    report = autograph.explain(calls_both, tf.TensorSpec([], tf.float32))
    why = {row.function: (row.converted, row.reason) for row in report.calls}
    assert why["Gate instance"] == (True, "the user's code")
    assert why["Scale instance"][1].startswith("a tf.function")
    assert [r.staged_as for r in report.statements if r.construct == "if"] == ["StatelessIf"]

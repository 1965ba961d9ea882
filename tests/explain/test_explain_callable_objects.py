"""`autograph.explain` of a callable object explains what calling it runs."""

import pytest

import autograph
import autograph.tf as tf


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        if tf.reduce_sum(x) > 0:
            x = x * self.w
        return x


class Plain:
    def __call__(self, x):
        return x + 1 if x > 0 else x


def test_a_module_whose_call_is_a_function_is_explained_with_its_input_signature():
    report = autograph.explain(Scale())
    assert report.function_name == "__call__"
    assert [r.staged_as for r in report.statements] == ["StatelessIf"]


def test_a_plain_callable_object_is_explained_through_its_call_method():
    report = autograph.explain(Plain(), tf.TensorSpec([], tf.float32))
    assert [r.construct for r in report.statements] == ["conditional expression"]


def test_a_concrete_function_is_refused_with_what_to_pass_instead():
    @tf.function
    def double(x):
        return x * 2.0

    trace = double.get_concrete_function(tf.TensorSpec([], tf.float32))
    with pytest.raises(TypeError, match="takes the Function .* not one of its traces"):
        autograph.explain(trace)

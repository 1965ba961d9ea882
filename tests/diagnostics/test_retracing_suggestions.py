"""The change a RetracingWarning suggests is one the user can paste for the call they wrote."""

import pytest

import autograph
import autograph.tf as tf


def _warning_text(calls):
    with pytest.warns(autograph.RetracingWarning) as seen:
        calls()
    texts = [str(w.message) for w in seen if issubclass(w.category, autograph.RetracingWarning)]
    assert len(texts) == 1
    return texts[0]


def test_a_keyword_only_python_number_is_passed_by_keyword_in_the_suggestion():
    @tf.function
    def f(x, *, step=1):
        return x * step

    def calls():
        for step in range(6):
            f(tf.constant(1.0), step=step)

    assert "f(x, step=tf.constant(step))" in _warning_text(calls)


def test_a_changing_dtype_suggests_a_cast_not_reduce_retracing():
    @tf.function
    def f(x):
        return x

    def calls():
        for dtype in [tf.float32, tf.int32, tf.float64, tf.int64, tf.bool]:
            f(tf.zeros([2], dtype))

    text = _warning_text(calls)
    assert "Keys seen for `x`: float32 (2,), int32 (2,), float64 (2,), int64 (2,), bool (2,)." \
        in text
    assert "tf.cast(x, tf.float32)" in text
    assert "reduce_retracing" not in text


def test_shapes_beside_a_python_argument_suggest_reduce_retracing_without_or():
    @tf.function
    def f(x, training):
        return x if training else -x

    def calls():
        for n in range(1, 7):
            f(tf.ones([n]), True)

    text = _warning_text(calls)
    assert "Fix: decorate it with reduce_retracing=True" in text
    assert "input_signature" not in text

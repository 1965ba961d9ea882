"""tf.debugging.assert_shapes: named dimensions shared across tensors, checked at once where
the shapes are known (ValueError) and when the graph runs where they are not."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime import errors


def test_consistent_shapes_pass_eagerly():
    tf.debugging.assert_shapes([
        (tf.ones([2, 3]), ("N", "D")),
        (tf.ones([2]), ("N",)),
        (tf.ones([4, 2, 3]), ("...", "N", 3)),
        (tf.ones([5]), (None,)),
        (tf.constant(1.0), ()),
    ])


@pytest.mark.parametrize("shapes, problem", [
    ([(tf.ones([2, 3]), ("N", "D")), (tf.ones([3]), ("N",))],
     r"tensor 1 .* must equal tensor 0 .*\('N'\), got 3 \(expected 2\)"),
    ([(tf.ones([2, 3]), ("N",))], r"has shape \(2, 3\), which does not have 1 dimensions"),
    ([(tf.ones([2, 3]), (2, 4))], "must be 4, got 3"),
    ([(tf.ones([3]), ("...", 1, 3))], "does not have at least 2 dimensions"),
])
def test_known_mismatches_raise_value_error_at_once(shapes, problem):
    with pytest.raises(ValueError, match=problem):
        tf.debugging.assert_shapes(shapes)


def test_bad_shape_descriptions_are_refused():
    with pytest.raises(ValueError, match="'...' may only lead a shape"):
        tf.debugging.assert_shapes([(tf.ones([3]), (3, "..."))])
    with pytest.raises(TypeError, match="is not an int, a name or None"):
        tf.debugging.assert_shapes([(tf.ones([3]), (3.5,))])


SIGNATURE = [tf.TensorSpec([None, None], tf.float32), tf.TensorSpec([None], tf.float32),
             tf.TensorSpec(None, tf.float32)]


@tf.function(input_signature=SIGNATURE)
def _checked(a, b, c):
    tf.debugging.assert_shapes([(a, ("N", "D")), (b, ("N",)), (c, ("...", "D"))],
                               message="inputs")
    return a


def test_unknown_dimensions_are_checked_when_the_graph_runs():
    ok = _checked(np.ones((2, 3), np.float32), np.ones(2, np.float32),
                  np.ones((5, 3), np.float32))
    assert ok.shape == (2, 3)
    with pytest.raises(errors.InvalidArgumentError, match=r"inputs: tensor 1 .*\('N'\)"):
        _checked(np.ones((2, 3), np.float32), np.ones(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(errors.InvalidArgumentError, match=r"tensor 2 .*\('D'\)"):
        _checked(np.ones((2, 3), np.float32), np.ones(2, np.float32),
                 np.ones((1, 4), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="must have rank at least 1"):
        _checked(np.ones((2, 3), np.float32), np.ones(2, np.float32), np.float32(1.0))

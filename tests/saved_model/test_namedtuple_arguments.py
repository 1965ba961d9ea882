"""A loaded function traced with a namedtuple argument accepts the caller's namedtuple of
the same name and fields (the loader rebuilds the class, so it cannot be the same one)."""

import collections

import pytest

import autograph.tf as tf

Point = collections.namedtuple("Point", ["x", "y"])


@tf.function
def weighted(p, w):
    return p.x * w + p.y


def test_a_namedtuple_argument_matches_after_load(tmp_path):
    weighted(Point(tf.constant(3.0), tf.constant(1.0)), tf.constant(2.0))
    tf.saved_model.save(weighted, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    out = loaded(Point(tf.constant(4.0), tf.constant(1.0)), tf.constant(2.0))
    assert float(out.numpy()) == 9.0
    other = collections.namedtuple("Point", ["y", "x"])
    with pytest.raises(TypeError, match="match none of its saved signatures"):
        loaded(other(tf.constant(4.0), tf.constant(1.0)), tf.constant(2.0))

"""Summary ops in saved models: a loaded function writes only to the writer its caller made
default (a saved model names no log directory of its own), and a function that captured a
writer while traced cannot be saved."""

import os

import pytest

import autograph.tf as tf
from runtime.saved_model import NotSaveableError
from tests.summary.events import values


class Logging(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def __call__(self, x):
        tf.summary.scalar("x", x, step=7)
        return x + 1.0


def test_a_model_that_writes_summaries_is_refused_unless_file_output_is_allowed(tmp_path):
    tf.saved_model.save(Logging(), str(tmp_path / "model"))
    with pytest.raises(tf.saved_model.SavedModelError, match="WriteSummary"):
        tf.saved_model.load(str(tmp_path / "model"))


def test_a_loaded_model_writes_its_summaries_to_the_callers_default_writer(tmp_path):
    tf.saved_model.save(Logging(), str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"), allow_file_output=True)
    assert loaded(tf.constant(1.0)).numpy() == 2.0  # no default writer: nothing written
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    with writer.as_default():
        loaded(tf.constant(3.0))
    writer.close()
    assert [(s, float(v)) for s, v in values(tmp_path / "logs", "x")] == [(7, 3.0)]
    assert sorted(os.listdir(tmp_path)) == ["logs", "model"]


def test_a_function_holding_the_writer_it_made_default_cannot_be_saved(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))

    class Captured(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def __call__(self, x):
            with writer.as_default():
                tf.summary.scalar("x", x, step=0)
            return x

    with pytest.raises(NotSaveableError, match=r"WriteSummary.*writes summaries to the writer "
                                               r"of .*logs, made default while the function "
                                               r"was traced"):
        tf.saved_model.save(Captured(), str(tmp_path / "model"))
    assert not (tmp_path / "model").exists()
    writer.close()

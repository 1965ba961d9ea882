"""Event files as the summary writer writes them, read back with the project's own parser
(no TensorBoard needed): the file's name and first event, buffering and flushing, closing,
and the tensors each summary kind stores."""

import os
import re
import socket

import numpy as np
import pytest

import autograph.tf as tf
from runtime.ops.summary_ops import histogram_buckets
from runtime.summary import png
from tests.summary.events import decode_png, event_files, read_events, values


def test_writer_creates_its_logdir_and_one_event_file_named_as_tensorflow_names_it(tmp_path):
    logdir = tmp_path / "a" / "b"
    writer = tf.summary.create_file_writer(logdir)  # a path object too
    assert isinstance(writer, tf.summary.SummaryWriter)
    (name,) = os.listdir(logdir)
    assert writer.path == str(logdir / name)
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.%s\.%d\.\d+\.v2"
                        % (re.escape(socket.gethostname()), os.getpid()), name)
    writer.close()


def test_the_first_event_is_the_file_version_written_at_once(tmp_path):
    tf.summary.create_file_writer(str(tmp_path))
    (event,) = read_events(event_files(tmp_path)[0])
    assert event["file_version"] == "brain.Event:2" and event["wall_time"] > 1e9


def test_events_wait_in_memory_until_flush(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("loss", 1.0, step=1)
        assert values(tmp_path, "loss") == []
        tf.summary.flush(writer)
        assert [(s, float(v)) for s, v in values(tmp_path, "loss")] == [(1, 1.0)]
    writer.close()


def test_more_events_than_max_queue_are_written_without_flush(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=2)
    with writer.as_default():
        for step in range(3):
            tf.summary.scalar("x", float(step), step=step)
        assert [s for s, _ in values(tmp_path, "x")] == [0, 1, 2]
    writer.close()


def test_flush_millis_zero_writes_every_event_as_it_comes(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), flush_millis=0)
    with writer.as_default():
        tf.summary.scalar("x", 2.0, step=5)
        assert [s for s, _ in values(tmp_path, "x")] == [5]
    writer.close()


def test_leaving_as_default_flushes_and_close_writes_the_rest(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("x", 1.0, step=1)
    assert len(values(tmp_path, "x")) == 1
    writer.set_as_default()
    tf.summary.scalar("x", 2.0, step=2)
    writer.close()
    assert [s for s, _ in values(tmp_path, "x")] == [1, 2]
    with pytest.raises(tf.errors.FailedPreconditionError, match="is closed"):
        tf.summary.scalar("x", 3.0, step=3)
    tf.summary.create_noop_writer().set_as_default()


def test_a_collected_writer_writes_what_it_queued(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("x", 1.0, step=1)
    writer.write_event(2, summary=b"")
    del writer
    assert len(read_events(event_files(tmp_path)[0])) == 3


def test_scalar_stores_a_float32_scalar_for_the_scalars_plugin(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        tf.summary.scalar("loss", tf.constant(3, tf.int32), step=7, description="the loss")
    event = read_events(event_files(tmp_path)[0])[1]
    (value,) = event["values"]
    assert (event["step"], value["tag"], value["plugin"], value["dtype"], value["shape"]) == (
        7, "loss", "scalars", 1, ())
    assert np.frombuffer(value["content"], np.float32)[0] == 3.0


def test_histogram_buckets_follow_tensorboard():
    data = np.array([0.0, 1.0, 1.0, 2.5, 10.0])
    buckets = histogram_buckets(data, 4)
    np.testing.assert_allclose(buckets[:, 0], [0, 2.5, 5, 7.5])
    np.testing.assert_allclose(buckets[:, 1], [2.5, 5, 7.5, 10])
    np.testing.assert_array_equal(buckets[:, 2], [3, 1, 0, 1])
    same = histogram_buckets(np.full(6, 2.0), 3)
    np.testing.assert_array_equal(same, [[2, 2, 0], [2, 2, 0], [2, 2, 6]])
    assert histogram_buckets(np.array([]), 30).shape == (30, 3)
    assert not histogram_buckets(np.array([]), 30).any()


def test_histogram_stores_30_float64_buckets_by_default(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        tf.summary.histogram("w", tf.range(100), step=0)
    ((_, buckets),) = values(tmp_path, "w")
    assert buckets.dtype == np.float64 and buckets.shape == (30, 3)
    assert buckets[:, 2].sum() == 100


def test_text_stores_the_string_tensor(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        tf.summary.text("notes", tf.constant(["a", "**b**"]), step=2)
    ((step, text),) = values(tmp_path, "notes")
    assert step == 2 and list(text) == [b"a", b"**b**"]


def test_png_encoding_round_trips_every_channel_count():
    rng = np.random.default_rng(0)
    for channels in (1, 2, 3, 4):
        image = rng.integers(0, 256, (5, 7, channels), dtype=np.uint8)
        np.testing.assert_array_equal(decode_png(png.encode(image)), image)
    with pytest.raises(ValueError, match="uint8 array"):
        png.encode(np.zeros((2, 2, 5), np.uint8))


def test_image_stores_width_height_and_up_to_max_outputs_pngs(tmp_path):
    images = np.random.default_rng(1).random((4, 3, 5, 3)).astype(np.float32)
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        tf.summary.image("pictures", images, step=0, max_outputs=2)
    ((_, stored),) = values(tmp_path, "pictures")
    assert list(stored[:2]) == [b"5", b"3"] and len(stored) == 4
    expected = np.clip(images * 255.5, 0, 255).astype(np.uint8)
    for i in range(2):
        np.testing.assert_array_equal(decode_png(stored[2 + i]), expected[i])


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.summary.scalar("x", [1.0, 2.0], step=0), ValueError, "must be a scalar"),
    (lambda: tf.summary.scalar("x", "a", step=0), TypeError, "real numbers"),
    (lambda: tf.summary.text("x", 1.0, step=0), TypeError, "must be strings"),
    (lambda: tf.summary.image("x", np.zeros((2, 2, 2)), step=0), ValueError, "channels"),
    (lambda: tf.summary.histogram("x", [1.0], step=0, buckets=-1), ValueError, ">= 0"),
    (lambda: tf.summary.scalar(3, 1.0, step=0), TypeError, "must be a str"),
    (lambda: tf.summary.histogram("x", [1.0, np.nan], step=0), tf.errors.InvalidArgumentError,
     "NaN or infinity"),
    (lambda: tf.summary.trace_on(profiler=True), NotImplementedError, "profiling"),
])
def test_bad_summary_arguments_are_refused(tmp_path, call, error, message):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        with pytest.raises(error, match=message):
            call()

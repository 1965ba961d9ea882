"""TensorBoard's own reader (`plugin_event_accumulator.EventAccumulator`) loads the event
files written here: every summary kind, eagerly and from a Function over several steps, with
its tag, step, plugin and value; `record_if`, nested default writers, the default step, and
the graph of `trace_export`."""

import pytest

import autograph.tf as tf
from tests.summary.events import decode_png

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.plugin_event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")


def _load(logdir):
    accumulator = event_accumulator.EventAccumulator(str(logdir))
    accumulator.Reload()
    return accumulator


def _series(accumulator, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto))
            for e in accumulator.Tensors(tag)]


def _write_all_kinds(step, x):
    tf.summary.scalar("loss", x * 2.0, step=step)
    tf.summary.histogram("weights", tf.range(10.0) + x, step=step)
    tf.summary.text("note", tf.constant(["*x*", "y"]), step=step)
    tf.summary.image("picture", tf.fill([1, 2, 3, 3], x / 4.0), step=step)


def _check_all_kinds(logdir, steps):
    accumulator = _load(logdir)
    assert set(accumulator.Tags()["tensors"]) == {"loss", "weights", "note", "picture"}
    plugins = {tag: accumulator.SummaryMetadata(tag).plugin_data.plugin_name
               for tag in ("loss", "weights", "note", "picture")}
    assert plugins == {"loss": "scalars", "weights": "histograms", "note": "text",
                       "picture": "images"}
    loss = _series(accumulator, "loss")
    assert [s for s, _ in loss] == steps
    assert [float(v) for _, v in loss] == [2.0 * s for s in steps]
    for step, buckets in _series(accumulator, "weights"):
        assert buckets.shape == (30, 3) and buckets[:, 2].sum() == 10
        assert buckets[0, 0] == step and buckets[-1, 1] == step + 9
    assert [list(v) for _, v in _series(accumulator, "note")] == [[b"*x*", b"y"]] * len(steps)
    for step, stored in _series(accumulator, "picture"):
        assert list(stored[:2]) == [b"3", b"2"]
        pixels = decode_png(stored[2])
        assert pixels.shape == (2, 3, 3) and (pixels == int(step / 4.0 * 255.5)).all()


def test_every_kind_written_eagerly_is_read_by_tensorboard(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            _write_all_kinds(step, tf.constant(float(step)))
    writer.close()
    _check_all_kinds(tmp_path, [0, 1, 2])


def test_every_kind_written_from_a_function_is_written_on_every_call(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def train_step(step, x):
        with writer.as_default():
            _write_all_kinds(step, x)
        return x

    for step in range(4):
        train_step(tf.constant(step, tf.int64), tf.constant(float(step)))
    assert train_step.experimental_get_tracing_count() == 1
    writer.close()
    _check_all_kinds(tmp_path, [0, 1, 2, 3])


def test_a_function_traced_without_a_writer_writes_to_the_one_default_when_it_runs(tmp_path):
    @tf.function
    def log(x):
        return tf.summary.scalar("x", x)

    assert not log(tf.constant(1.0)).numpy()  # no writer: nothing written, False
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=5):
        assert log(tf.constant(2.0)).numpy()
    writer.close()
    assert [(s, float(v)) for s, v in _series(_load(tmp_path), "x")] == [(5, 2.0)]


def test_the_default_step_is_a_variable_read_when_the_summary_runs(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    assert tf.summary.experimental.get_step() is step
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def train(x):
        tf.summary.scalar("x", x)
        step.assign_add(1)

    with writer.as_default():
        for i in range(3):
            train(tf.constant(float(i)))
    writer.close()
    assert [(s, float(v)) for s, v in _series(_load(tmp_path), "x")] == [
        (0, 0.0), (1, 1.0), (2, 2.0)]


def test_record_if_decides_when_each_summary_runs(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def every_other(x):
        with tf.summary.record_if(lambda: step % 2 == 0):
            tf.summary.scalar("staged", x, step=step)
        step.assign_add(1)

    @tf.function
    def plain(x):
        return tf.summary.scalar("outside", x, step=step)

    with writer.as_default():
        for i in range(4):
            every_other(tf.constant(float(i)))
        with tf.summary.record_if(False):
            assert not plain(tf.constant(1.0)).numpy()
            assert not tf.summary.scalar("eager", 1.0, step=0).numpy()
        with tf.summary.record_if(lambda: step >= 4):
            assert plain(tf.constant(2.0)).numpy()
    writer.close()
    accumulator = _load(tmp_path)
    assert [s for s, _ in _series(accumulator, "staged")] == [0, 2]
    assert [float(v) for _, v in _series(accumulator, "outside")] == [2.0]
    assert "eager" not in accumulator.Tags()["tensors"]


def test_nested_default_writers_each_get_their_summaries(tmp_path):
    outer = tf.summary.create_file_writer(str(tmp_path / "outer"))
    inner = tf.summary.create_file_writer(str(tmp_path / "inner"))
    with outer.as_default(step=1):
        tf.summary.scalar("a", 1.0)
        with inner.as_default(step=2):
            tf.summary.scalar("b", 2.0)
        tf.summary.scalar("c", 3.0)
    assert tf.summary.experimental.get_step() is None
    outer.close()
    inner.close()
    assert sorted(_load(tmp_path / "outer").Tags()["tensors"]) == ["a", "c"]
    assert _series(_load(tmp_path / "inner"), "b")[0][0] == 2
    assert [s for s, _ in _series(_load(tmp_path / "outer"), "c")] == [1]


def test_no_step_anywhere_is_an_error_naming_set_step(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="set_step"):
            tf.summary.scalar("x", 1.0)


def test_trace_export_writes_the_graph_of_the_functions_called(tmp_path):
    @tf.function
    def affine(x):
        return tf.matmul(x, tf.ones([2, 2])) + 1.0

    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=False)
    affine(tf.ones([1, 2]))
    affine(tf.ones([1, 2]))
    with writer.as_default():
        tf.summary.trace_export("affine_trace", step=3)
    writer.close()
    accumulator = _load(tmp_path)
    graph = accumulator.Graph()
    ops = {n.name: n.op for n in graph.node}
    assert ops["affine/x"] == "Placeholder" and "MatMul" in ops.values()
    matmul = next(n for n in graph.node if n.op == "MatMul")
    assert matmul.input[0] == "affine/x"
    assert [d.size for d in matmul.attr["_output_shapes"].list.shape[0].dim] == [1, 2]
    with pytest.raises(ValueError, match="tracing is not on"):
        tf.summary.trace_export("again", step=4)


def test_trace_off_stops_collecting(tmp_path):
    @tf.function
    def f(x):
        return x + 1

    tf.summary.trace_on()
    tf.summary.trace_off()
    f(tf.constant(1))
    with pytest.raises(ValueError, match="tracing is not on"):
        tf.summary.trace_export("f", step=0)


def test_trace_export_writes_the_graph_of_a_function_called_before_tracing_began(tmp_path):
    @tf.function
    def double(x):
        return x * 2.0

    for _ in range(3):  # (its trace has a cached call by now)
        double(tf.ones([2]))
    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=False)
    double(tf.ones([2]))
    with writer.as_default():
        tf.summary.trace_export("double_trace", step=1)
    writer.close()
    ops = [n.op for n in _load(tmp_path).Graph().node]
    assert "Mul" in ops

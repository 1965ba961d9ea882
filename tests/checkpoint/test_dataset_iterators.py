"""A dataset iterator in a checkpoint: saving records its position (the state of each stage
of its pipeline, as tensors), restoring rewinds it there; a pipeline whose position is Python
state refuses to be saved; a checkpoint's iterator state is untrusted input."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.checkpoint import bundle


def _python(element):
    """An element as Python values (lists for arrays, bytes for strings)."""
    def value(tensor):
        array = tensor.numpy()
        return array.tolist() if hasattr(array, "tolist") else array
    return tf.nest.map_structure(value, element)


def _values(iterator, n):
    """The next `n` elements, as Python values."""
    return [_python(next(iterator)) for _ in range(n)]


def _rest(iterator):
    """The elements left, as Python values."""
    return [_python(element) for element in iterator]


PIPELINES = {
    "range": lambda: tf.data.Dataset.range(20),
    "range_with_start_and_step": lambda: tf.data.Dataset.range(3, 40, 4),
    "from_tensor_slices": lambda: tf.data.Dataset.from_tensor_slices(
        {"a": np.arange(12), "b": np.arange(12.0) * 2}),
    "from_tensors_repeated": lambda: tf.data.Dataset.from_tensors([1, 2]).repeat(9),
    "map_filter_batch": lambda: tf.data.Dataset.range(50).map(lambda x: x * 3).filter(
        lambda x: x % 2 == 0).batch(4),
    "batch_with_remainder": lambda: tf.data.Dataset.range(23).batch(3),
    "take_and_skip": lambda: tf.data.Dataset.range(100).skip(7).take(15),
    "repeat": lambda: tf.data.Dataset.range(4).repeat(5),
    "repeat_forever_then_take": lambda: tf.data.Dataset.range(3).repeat().take(17),
    "shuffle_with_a_seed": lambda: tf.data.Dataset.range(30).shuffle(8, seed=3),
    "shuffle_repeated_reshuffles": lambda: tf.data.Dataset.range(6).shuffle(
        4, seed=1).repeat(4),
    "shuffle_without_a_seed": lambda: tf.data.Dataset.range(25).shuffle(10).batch(2),
    "zip_and_enumerate": lambda: tf.data.Dataset.zip(
        (tf.data.Dataset.range(10), tf.data.Dataset.range(10, 30, 2))).enumerate(),
    "concatenate": lambda: tf.data.Dataset.range(4).concatenate(
        tf.data.Dataset.range(10, 16)),
    "prefetch": lambda: tf.data.Dataset.range(9).prefetch(2),
    "unbatch": lambda: tf.data.Dataset.range(30).batch(4).unbatch().batch(3),
    "take_while": lambda: tf.data.Dataset.range(30).take_while(lambda x: x < 20),
    "scan": lambda: tf.data.Dataset.range(20).scan(
        tf.constant(0, tf.int64), lambda total, x: (total + x, total * 2)),
    "padded_batch": lambda: tf.data.Dataset.range(1, 25).map(
        lambda n: tf.fill([n], n)).padded_batch(3),
    "strings": lambda: tf.data.Dataset.from_tensor_slices(
        [b"a", b"bc", b"def", b"g"]).shuffle(3, seed=2).repeat(3),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("at", [0, 1, 6])
def test_restoring_an_iterator_rewinds_it_to_where_it_was_saved(tmp_path, name, at):
    iterator = iter(PIPELINES[name]())
    ckpt = tf.train.Checkpoint(iterator=iterator)
    _values(iterator, at)
    path = ckpt.write(str(tmp_path / "ck"))
    expected = _rest(iterator)
    ckpt.read(path).assert_consumed()
    assert _rest(iterator) == expected
    # and into another iterator over a dataset built alike
    other = iter(PIPELINES[name]())
    tf.train.Checkpoint(iterator=other).read(path).assert_consumed()
    assert _rest(other) == expected


def test_a_text_line_iterator_restores_its_file_and_line(tmp_path):
    paths = []
    for i, text in enumerate([b"a\nbb\r\nccc\n", b"", b"d\ne"]):
        paths.append(str(tmp_path / ("%d.txt" % i)))
        with open(paths[-1], "wb") as f:
            f.write(text)
    lines = [b"a", b"bb", b"ccc", b"d", b"e"]
    for at in range(len(lines) + 1):
        iterator = iter(tf.data.TextLineDataset(paths))
        ckpt = tf.train.Checkpoint(iterator=iterator)
        assert _values(iterator, at) == lines[:at]
        path = ckpt.write(str(tmp_path / "ck"))
        _rest(iterator)
        ckpt.read(path)
        assert _rest(iterator) == lines[at:]


def test_a_text_line_offset_beyond_its_file_is_refused(tmp_path):
    text = tmp_path / "lines.txt"
    text.write_bytes(b"one\ntwo\n")
    iterator = iter(tf.data.TextLineDataset(str(text)))
    next(iterator)
    path = tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))
    text.write_bytes(b"1\n")  # the file changed since: the offset is past its end
    with pytest.raises(tf.errors.DataLossError, match=r"dataset/offset is 4, out of its "
                                                      r"range \[0, 2\]"):
        tf.train.Checkpoint(iterator=iter(tf.data.TextLineDataset(str(text)))).read(path)


def test_a_seeded_pipeline_restored_continues_as_a_fresh_run_does(tmp_path):
    def pipeline():
        return tf.data.Dataset.range(40).shuffle(6, seed=5).map(lambda x: x * 2).batch(3)

    fresh = _rest(iter(pipeline()))
    iterator = iter(pipeline())
    ckpt = tf.train.Checkpoint(iterator=iterator)
    first = _values(iterator, 4)
    path = ckpt.write(str(tmp_path / "ck"))
    _values(iterator, 3)
    ckpt.read(path)
    assert first + _rest(iterator) == fresh


def test_the_manager_saves_and_restores_an_iterator_with_a_step(tmp_path):
    # The tf.data guide's example.
    iterator = iter(tf.data.Dataset.range(20))
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "run"), max_to_keep=3)
    assert _values(iterator, 5) == [0, 1, 2, 3, 4]
    manager.save()
    assert _values(iterator, 5) == [5, 6, 7, 8, 9]
    ckpt.restore(manager.latest_checkpoint)
    assert _values(iterator, 5) == [5, 6, 7, 8, 9]


def test_the_position_is_saved_as_tensors_under_iterator_state_keys(tmp_path):
    iterator = iter(tf.data.Dataset.range(10).skip(2).take(5))
    next(iterator)
    path = tf.train.Checkpoint(it=iterator).write(str(tmp_path / "ck"))
    reader = tf.train.load_checkpoint(path)
    prefix = "it/.ATTRIBUTES/ITERATOR_STATE/"
    assert int(reader.get_tensor(prefix + "dataset/taken")) == 1
    assert int(reader.get_tensor(prefix + "dataset/input/skipped")) == 1
    assert int(reader.get_tensor(prefix + "dataset/input/input/next")) == 3
    assert int(reader.get_tensor(prefix + "peeked/count")) == 0


def test_an_exhausted_iterator_restores_as_exhausted(tmp_path):
    iterator = iter(tf.data.Dataset.range(3))
    ckpt = tf.train.Checkpoint(iterator=iterator)
    assert _rest(iterator) == [0, 1, 2]
    path = ckpt.write(str(tmp_path / "ck"))
    restored = iter(tf.data.Dataset.range(3))
    tf.train.Checkpoint(iterator=restored).read(path)
    assert _rest(restored) == []


def test_an_iterator_over_from_generator_cannot_be_saved(tmp_path):
    dataset = tf.data.Dataset.from_generator(lambda: iter([1, 2, 3]),
                                             output_signature=tf.TensorSpec((), tf.int32))
    iterator = iter(dataset.map(lambda x: x + 1))
    next(iterator)
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="Dataset.from_generator keeps its position in a Python "
                             "generator.*PyFunc is stateful"):
        tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))
    assert not (tmp_path / "ck.index").exists()


def test_an_iterator_over_a_map_calling_python_cannot_be_saved(tmp_path):
    def double(x):
        return tf.py_function(lambda v: v * 2, [x], tf.int64)

    iterator = iter(tf.data.Dataset.range(5).map(double))
    next(iterator)
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="the function given to Dataset.map calls Python"):
        tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))


def test_an_iterator_through_a_stage_that_saves_no_position_names_it(tmp_path):
    iterator = iter(tf.data.Dataset.range(6).unique())
    next(iterator)
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match=r"its pipeline.s Unique stage \(_UniqueDataset\) keeps no position"):
        tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))


def _tampered(tmp_path, key, value):
    """A checkpoint of an iterator over range(20) taken after 5 elements, with the value
    under `key` (below the iterator's state) replaced by `value` (None: removed)."""
    iterator = iter(tf.data.Dataset.range(20))
    _values(iterator, 5)
    prefix = tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))
    reader = bundle.BundleReader(prefix)
    target = "iterator/.ATTRIBUTES/ITERATOR_STATE/" + key
    tensors = []
    for name in sorted(reader.entries):
        stored = bundle.DTYPES[reader.entries[name].dtype][0]
        array = reader.tensor(name)
        if name == target:
            if value is None:
                continue
            array = np.asarray(value)
            stored = "string" if array.dtype == object else array.dtype.name
        tensors.append((name, stored, array))
    bundle.write(prefix, tensors)
    return prefix


@pytest.mark.parametrize("key, value, error, message", [
    ("dataset/next", np.int64(21), tf.errors.DataLossError,
     r"dataset/next is 21, out of its range \[0, 20\]"),
    ("dataset/next", np.int64(-1), tf.errors.DataLossError, r"dataset/next is -1, out of"),
    ("dataset/next", np.int32(3), tf.errors.DataLossError,
     r"dataset/next is a int32 array of shape \(\), not an int64 scalar"),
    ("dataset/next", np.array([3, 4], np.int64), tf.errors.DataLossError,
     "not an int64 scalar"),
    ("peeked/count", np.int64(2), tf.errors.DataLossError, "peeked/count is 2, out of"),
    ("dataset/next", None, tf.errors.NotFoundError, "ITERATOR_STATE/dataset/next not found"),
])
def test_a_tampered_iterator_state_is_refused_naming_the_value(tmp_path, key, value, error,
                                                               message):
    prefix = _tampered(tmp_path, key, value)
    iterator = iter(tf.data.Dataset.range(20))
    assert _values(iterator, 2) == [0, 1]
    with pytest.raises(error, match=message):
        tf.train.Checkpoint(iterator=iterator).read(prefix)
    assert _values(iterator, 2) == [2, 3]  # nothing changed


def test_a_state_saved_from_another_pipeline_is_refused(tmp_path):
    iterator = iter(tf.data.Dataset.range(20).take(10))
    _values(iterator, 3)
    path = tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))
    other = iter(tf.data.Dataset.range(20))
    with pytest.raises(tf.errors.DataLossError, match="saved from an iterator over another"):
        tf.train.Checkpoint(iterator=other).read(path)
    assert _values(other, 1) == [0]


def test_a_tampered_shuffle_buffer_element_is_refused(tmp_path):
    iterator = iter(tf.data.Dataset.range(20).shuffle(5, seed=1))
    _values(iterator, 2)
    prefix = tf.train.Checkpoint(iterator=iterator).write(str(tmp_path / "ck"))
    reader = bundle.BundleReader(prefix)
    target = "iterator/.ATTRIBUTES/ITERATOR_STATE/dataset/buffer/0/0"
    tensors = [(name, bundle.DTYPES[reader.entries[name].dtype][0],
                np.float32(1.5) if name == target else reader.tensor(name))
               for name in sorted(reader.entries)]
    tensors = [(n, "float32" if n == target else d, a) for n, d, a in tensors]
    bundle.write(prefix, tensors)
    with pytest.raises(tf.errors.DataLossError, match="buffer/0/0 is float32, not int64"):
        tf.train.Checkpoint(iterator=iter(tf.data.Dataset.range(20).shuffle(5, seed=1))
                            ).read(prefix)


def test_an_iterator_advanced_by_a_function_saves_its_position(tmp_path):
    iterator = iter(tf.data.Dataset.range(10).map(lambda x: x * 10))

    @tf.function
    def first_over(it, limit):
        for x in it:  # one While op: IteratorHasNext, then IteratorGetNext, per element
            if x > limit:
                return x
        return tf.constant(-1, tf.int64)

    assert int(first_over(iterator, tf.constant(25, tf.int64))) == 30
    ckpt = tf.train.Checkpoint(iterator=iterator)
    path = ckpt.write(str(tmp_path / "ck"))
    expected = _rest(iterator)
    ckpt.read(path)
    assert _rest(iterator) == expected == [40, 50, 60, 70, 80, 90]

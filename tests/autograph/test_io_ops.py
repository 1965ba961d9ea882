"""tf.print (io_ops.print_), against the runtime alone: tensors formatted as
TensorFlow prints them, long ones summarized; separators, end and the output stream;
containers of tensors; in a graph, a print on every call."""

import collections
import io
import sys

import pytest

from runtime import variables
from runtime.function import function
from runtime.ops import array_ops, io_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings


def test_print_formats_tensors_like_tensorflow(capsys):
    io_ops.print_("x:", array_ops.constant([1, 2, 3]), array_ops.constant(2.5),
                  array_ops.constant([True, False]),
                  array_ops.constant("s"), 7)
    assert capsys.readouterr().err == "x: [1 2 3] 2.5 [1 0] s 7\n"


def test_print_summarizes_long_tensors(capsys):
    io_ops.print_(array_ops.range(10))
    io_ops.print_(array_ops.range(10), summarize=-1)
    io_ops.print_(array_ops.range(10), summarize=2)
    assert capsys.readouterr().err.splitlines() == [
        "[0 1 2 ... 7 8 9]", "[0 1 2 3 4 5 6 7 8 9]", "[0 1 ... 8 9]"]


def test_print_matrix_and_float_formatting(capsys):
    io_ops.print_(array_ops.constant([[1.0, 2.5], [3.0, 0.1]]))
    assert capsys.readouterr().err == "[[1 2.5]\n [3 0.1]]\n"


def test_print_separator_end_and_stream(capsys):
    io_ops.print_(array_ops.constant(1), array_ops.constant(2), sep=", ", end="!\n",
                  output_stream=sys.stdout)
    captured = capsys.readouterr()
    assert captured.out == "1, 2!\n"
    assert captured.err == ""


def test_print_to_a_file_object():
    stream = io.StringIO()
    io_ops.print_("value", array_ops.constant([4, 5]), output_stream=stream)
    assert stream.getvalue() == "value [4 5]\n"


def test_print_in_a_graph_runs_on_every_call(capsys):
    @function
    def f(x):
        print("tracing")
        io_ops.print_("value:", x)
        return x

    f(array_ops.constant(1))
    f(array_ops.constant(2))
    captured = capsys.readouterr()
    assert captured.out == "tracing\n"
    assert captured.err == "value: 1\nvalue: 2\n"


def test_print_of_containers_shows_their_tensors_values():
    stream = io.StringIO()
    point = collections.namedtuple("Point", "x y")
    io_ops.print_([array_ops.constant(1), array_ops.constant(2)],
                  {"b": array_ops.constant(1), "a": [array_ops.constant([3, 4]), "s"]},
                  (variables.Variable(2.5),), point(1, array_ops.constant(2)), [1, 2],
                  output_stream=stream)
    assert stream.getvalue() == (
        "[1, 2] {'b': 1, 'a': [[3 4], 's']} (2.5,) Point(x=1, y=2) [1, 2]\n")


def test_print_of_containers_in_a_graph_shows_the_values_of_each_call():
    stream = io.StringIO()

    @function
    def f(x):
        io_ops.print_("v:", [x, x + 1], {"a": x}, output_stream=stream)

    f(array_ops.constant(1))
    f(array_ops.constant(5))
    assert stream.getvalue() == "v: [1, 2] {'a': 1}\nv: [5, 6] {'a': 5}\n"
    assert f.experimental_get_tracing_count() == 1


def test_print_returns_none_eagerly():
    stream = io.StringIO()
    assert io_ops.print_("a", output_stream=stream) is None

"""A symbolic tensor that leaked out of one traced function (through a list, a global...) is
unusable elsewhere; the error names the line that made it and the line that used it."""

import re

import numpy as np
import pytest

from runtime.function import function
from runtime.ops import math_ops

leaked = []


def _make(x):
    y = math_ops.multiply(x, np.float32(2.0))  # the making line
    leaked.append(y)
    return y


def _use(x):
    return math_ops.add(x, leaked[-1])  # the using line


def _line(f, marker):
    lines, first = __import__("inspect").getsourcelines(f)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def test_a_leaked_tensor_read_by_another_function_names_where_it_was_made_and_used():
    function(_make)(np.float32(1.0))
    with pytest.raises(TypeError) as raised:
        function(_use)(np.float32(1.0))
    message = str(raised.value)
    made = "%s:%d in _make" % (__file__, _line(_make, "the making line"))
    used = "%s:%d in _use" % (__file__, _line(_use, "the using line"))
    assert re.search(r"mul\w*:0, made at %s \(`y = math_ops.multiply" % re.escape(made),
                     message), message
    assert "used at %s (`return math_ops.add(x, leaked[-1])" % used in message


def test_a_leaked_tensor_returned_as_it_is_says_so():
    function(_make)(np.float32(1.0))
    with pytest.raises(TypeError, match="returned by the function"):
        function(lambda: leaked[-1])()


def test_a_leaked_tensor_passed_as_an_argument_names_where_it_was_made():
    function(_make)(np.float32(1.0))
    with pytest.raises(TypeError, match=r"made at .*test_leaked_tensors\.py:%d in _make"
                                        % _line(_make, "the making line")):
        function(lambda t: t)(leaked[-1])

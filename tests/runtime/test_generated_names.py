"""Names in the executor's generated source: a function's name of any text (a keyword such
as `lambda`, other characters) becomes a plain identifier, and an attribute name that is not
one reaches the kernel through a dict constant, never as text of the source."""

import keyword

import numpy as np
import pytest

from runtime import executor
from runtime.function import function
from runtime.ops import array_ops, math_ops


@pytest.mark.parametrize("name", ["lambda", "class", "if", "None", "True", "x²", "a-b", "9",
                                  "", "f(x):\n    pass\nimport os\ndef g"])
def test_a_function_named_like_a_keyword_or_anything_traces_and_runs(name):
    f = function(lambda x: math_ops.add(x, np.float32(1.0)), name=name)
    assert f(np.float32(1.0)).numpy() == 2.0
    source = f.get_concrete_function(np.float32(1.0)).executor_source
    defined = source.split("(")[0][len("def "):]
    assert defined.isidentifier() and not keyword.iskeyword(defined)


@pytest.mark.parametrize("text, name", [("lambda", "f_lambda"), ("f", "f"), ("x²", "x_"),
                                        ("", "f_"), ("2d", "f_2d"), ("a b", "a_b")])
def test_python_name_maps_any_text_to_a_plain_identifier(text, name):
    assert executor.python_name(text) == name


def test_an_attribute_name_that_is_not_an_identifier_never_enters_the_source(tmp_path):
    marker = tmp_path / "payload_ran"
    payload = ") if __import__('pathlib').Path(%r).touch() or 1 else 0; _ = dict(zz" % (
        str(marker))
    f = function(lambda x: array_ops.zeros_like(x))
    cf = f.get_concrete_function(np.zeros(2, np.float32))
    node = next(n for n in cf.graph.nodes if n.op.name == "ZerosLike")
    node.attrs = dict(node.attrs, **{payload: 1})
    compiled = executor.compile_graph(cf.graph, cf.inputs, cf.outputs, "f")
    assert payload not in compiled.source
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        compiled.run(np.zeros(2, np.float32))
    assert not marker.exists()

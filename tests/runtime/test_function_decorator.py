"""`runtime.function.function`: the runtime's decorator form of Function (no conversion)."""

import warnings

import pytest

from runtime import backends, errors
from runtime.function import Function, FunctionOptions, function
from runtime.ops import array_ops, reduction_ops
from runtime.signature import TensorSpec


def _positive(x):
    if reduction_ops.reduce_sum(x) > 0:  # Python control flow on a tensor: needs conversion
        return x
    return -x


def test_bare_and_called_forms_both_make_a_function():
    @function
    def bare(x):
        return x * 2

    @function()
    def called(x):
        return x * 3

    assert isinstance(bare, Function) and isinstance(called, Function)
    assert bare(array_ops.constant(2)).numpy() == 4
    assert called(array_ops.constant(2)).numpy() == 6


def test_the_options_reach_the_function():
    f = function(lambda x: x + 1, input_signature=[TensorSpec([None], "int32")],
                 reduce_retracing=True, name="plus_one", jit_compile=True)
    assert f.input_signature == (TensorSpec([None], "int32"),)
    assert f.jit_compile is True
    assert f.__name__ == "<lambda>"
    assert "plus_one" in repr(f)
    with warnings.catch_warnings():  # jit_compile: compiled where a backend can, else warned
        warnings.simplefilter("ignore", backends.BackendFallbackWarning)
        assert f(array_ops.constant([1, 2])).numpy().tolist() == [2, 3]


def test_an_unknown_option_is_a_type_error_at_once():
    with pytest.raises(TypeError, match="experimental_relax_shapes"):
        function(experimental_relax_shapes=True)


def test_the_function_is_traced_as_written_without_conversion():
    with pytest.raises(errors.OperatorNotAllowedInGraphError):
        function(_positive)(array_ops.constant([1.0]))


def test_a_converter_given_as_an_option_is_applied():
    converted = []
    f = function(lambda x: x * 2, converter=lambda g: converted.append(g) or g)
    assert f(array_ops.constant(1)).numpy() == 2
    assert converted == [f.python_function]


@pytest.mark.parametrize("option, value, expected", [
    ("autograph", "yes", "autograph must be True or False, got 'yes'"),
    ("reduce_retracing", 1, "reduce_retracing must be True or False, got 1"),
    ("strict", None, "strict must be True or False, got None"),
    ("jit_compile", "xla", "jit_compile must be True or False or None, got 'xla'"),
    ("name", 3, "name must be a str or None, got 3"),
    ("converter", "convert", "converter must be callable or None, got 'convert'"),
    ("input_signature", TensorSpec([2]), "wrap it in a list"),
])
def test_a_bad_option_value_is_a_type_error_naming_the_option(option, value, expected):
    with pytest.raises(TypeError, match=expected):
        function(lambda x: x, **{option: value})
    with pytest.raises(TypeError, match=expected):
        Function(lambda x: x, **{option: value})


def test_a_bad_backend_is_a_value_error_naming_the_option_when_decorating():
    with pytest.raises(ValueError, match="backend must be one of"):
        function(backend="tpu")  # at the decorator, before any function is given


def test_the_options_are_one_record_that_a_methods_instances_share():
    options = FunctionOptions(reduce_retracing=True, name="scaled", strict=False)

    class Model:
        def __init__(self, scale):
            self.scale = scale

        @function(reduce_retracing=True, name="scaled")
        def apply(self, x):
            return x * self.scale

    assert Model.apply.options == options
    first, second = Model(2), Model(3)
    assert first.apply.options is Model.apply.options is second.apply.options
    assert first.apply(array_ops.constant(2)).numpy() == 4
    assert Function(lambda x: x, options=options).options is options
    with pytest.raises(TypeError, match="not both"):
        Function(lambda x: x, options=options, strict=True)

"""Graphs holding a user's Python callable: numpy_function is refused by the saved-model
writer with the op's own reason, not a generic attribute error; custom_gradient's grad_fn is
saved traced into a graph, never as code."""

import numpy as np
import pytest

from runtime import dtypes
from runtime.function import Function
from runtime.gradients.custom_gradient import custom_gradient
from runtime.gradients.tape import GradientTape
from runtime.ops import array_ops, math_ops
from runtime.ops.py_function_ops import numpy_function
from runtime.saved_model import NotSaveableError, load, save, schema
from runtime.signature import TensorSpec

SIGNATURE = [TensorSpec([None], dtypes.float32)]


@custom_gradient
def _doubled_gradient(x):
    return array_ops.identity(x), lambda dy: math_ops.multiply(dy, 2.0)


@pytest.mark.parametrize("stateful", [True, False])
def test_numpy_function_is_refused_naming_numpy_function(tmp_path, stateful):
    f = Function(lambda x: numpy_function(np.sin, [x], dtypes.float32, stateful=stateful),
                 input_signature=SIGNATURE, autograph=False)
    with pytest.raises(NotSaveableError, match=r"it runs a Python function \(numpy_function\)"):
        save(f, tmp_path / "m")


def test_custom_gradient_is_saved_as_its_gradient_traced_never_as_code(tmp_path):
    f = Function(lambda x: _doubled_gradient(x), input_signature=SIGNATURE, autograph=False)
    save(f, tmp_path / "m")
    saved = (tmp_path / "m" / schema.GRAPHS).read_text()
    assert '"op": "SavedCustomGradient"' in saved and '"op": "CustomGradient"' not in saved
    loaded = load(tmp_path / "m")
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = loaded(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])

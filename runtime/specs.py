"""Operand specs: the (dtype, static shape) pair an op's inference rule reads for each input
and returns for each output, the error the rule raises on operands it refuses, and how error
messages spell a list of specs.

This sits below graphs and ops alike: a graph infers a node's outputs with its op's rule, and
turns a `SpecError` into the user's TypeError or ValueError, without importing any op module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runtime import shape as shape_lib
from runtime.dtypes import DType

# A tensor's spec while shapes and dtypes are inferred: (dtype, static shape or None).
Spec = tuple[DType, Any]


class SpecError(Exception):
    """Raised by an op's `infer` rule: `kind` is 'dtype' or 'shape'. `kernel_message`: the
    text of TensorFlow's C++ kernel for the same problem, where its kernel checks it too:
    an eager call, which TensorFlow checks in the kernel, reports that text instead, with
    the name of the kernel TensorFlow wraps when it is not the op's (`kernel_name`) and the
    name TensorFlow's Python function passes, when it passes one (`called_name`; see
    `errors.eager_kernel_message`)."""

    def __init__(self, kind: str, message: str, kernel_message: str | None = None,
                 kernel_name: str | None = None, called_name: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.kernel_message = kernel_message
        self.kernel_name = kernel_name
        self.called_name = called_name


def describe_operands(specs: Iterable[Spec]) -> str:
    """'int32 (2, 3), float32 ()' for error messages."""
    return ", ".join("%s %s" % (d.name, shape_lib.to_string(s)) for d, s in specs)

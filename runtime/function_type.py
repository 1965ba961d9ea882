"""`FunctionType`: a trace's parameters, output and captures, written as TensorFlow writes
them (`ConcreteFunction.function_type`, `str(concrete_function)`,
`Function.pretty_printed_concrete_signatures`).

A tensor is its `TensorSpec(...)`, a Python value `Literal[value]`, a container
`List[...]`, `Tuple[...]` or `Dict[[key, type], ...]`; other specs (ragged, sparse,
datasets, variables) are their repr.
"""

from __future__ import annotations

import inspect
from typing import Any

from runtime import dtypes
from runtime.signature import SCALAR_TYPES, TensorSpec, part_name
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import Variable


class _TypeText:
    """One parameter's or the output's type, which `inspect.Signature` prints as its text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def type_text(value: Any, path: str | None = None) -> str:
    """The type TensorFlow writes for a traced argument or output `value`. A TensorSpec
    shows the name a TensorSpec given for the argument had, not the name the trace gave it
    after its place, `path` (see `signature.part_name`): that shows as None."""
    if isinstance(value, TensorSpec):
        name = None if value.name == path else value.name
        return repr(TensorSpec(value._shape, value.dtype, name))
    if isinstance(value, SymbolicTensor):
        return repr(TensorSpec(value._shape, value.dtype))
    if value is None or type(value) in SCALAR_TYPES:
        return "Literal[%r]" % (value,)
    if isinstance(value, (list, tuple)):
        items = ", ".join(type_text(v, None if path is None else part_name(path, i))
                          for i, v in enumerate(value))
        return ("List[%s]" if isinstance(value, list) else "Tuple[%s]") % items
    if isinstance(value, dict):
        return "Dict[%s]" % ", ".join(
            "[%r, %s]" % (k, type_text(v, None if path is None else part_name(path, k)))
            for k, v in value.items())
    return repr(value)


def _capture_text(external: Any) -> str:
    if isinstance(external, Variable):
        spec = TensorSpec((), dtypes.resource)
    elif isinstance(external, Tensor):
        spec = TensorSpec(external._shape_tuple(), external.dtype)
    else:
        return repr(external)
    return "%d: %r" % (id(external), spec)


class FunctionType(inspect.Signature):
    """The parameters of one trace, each annotated with its traced type, and its output type
    as the return annotation; `str()` is TensorFlow's one-line form, `pretty_printed()` the
    form `str(ConcreteFunction)` shows."""

    __slots__ = ("captures",)

    def __init__(self, parameters: list[inspect.Parameter], output: Any,
                 captures: list[Any]) -> None:
        super().__init__(parameters, return_annotation=_TypeText(type_text(output)))
        self.captures = captures

    @classmethod
    def of_trace(cls, params: list[tuple[str, Any, bool, Any]], traced_values: list[Any],
                 output: Any, captures: list[Any]) -> FunctionType:
        """The type of a trace whose parameters `params` ([(name, kind, has_default,
        default)]) took `traced_values`: *args become positional-only parameters
        `args_0`, `args_1`, ... (and those before them positional-only), **kwargs
        keyword-only ones, as in TensorFlow."""
        P = inspect.Parameter
        has_varargs = any(kind == P.VAR_POSITIONAL for _, kind, _, _ in params)
        parameters = []
        for (name, kind, _, _), value in zip(params, traced_values):
            if kind == P.VAR_POSITIONAL:
                parameters += [P(part_name(name, i), P.POSITIONAL_ONLY,
                                 annotation=_TypeText(type_text(v, part_name(name, i))))
                               for i, v in enumerate(value)]
            elif kind == P.VAR_KEYWORD:
                parameters += [P(key, P.KEYWORD_ONLY,
                                 annotation=_TypeText(type_text(v, part_name(None, key))))
                               for key, v in value.items()]
            else:
                if has_varargs and kind == P.POSITIONAL_OR_KEYWORD:
                    kind = P.POSITIONAL_ONLY
                parameters.append(P(name, kind, annotation=_TypeText(type_text(value, name))))
        return cls(parameters, output, captures)

    def pretty_printed(self) -> str:
        """"Input Parameters:", "Output Type:" and "Captures:", one item a line."""
        lines = ["Input Parameters:"]
        lines += ["  %s (%s): %r" % (p.name, p.kind.name, p.annotation)
                  for p in self.parameters.values()]
        lines += ["Output Type:", "  %r" % (self.return_annotation,), "Captures:"]
        lines += ["  " + _capture_text(c) for c in self.captures] or ["  None"]
        return "\n".join(lines)

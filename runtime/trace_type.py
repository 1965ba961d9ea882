"""Tracing types: how an object of a user's class tells a Function which calls share a trace.

An argument whose class defines `__tf_tracing_type__(context)` is keyed by the `TraceType`
that method returns (TensorFlow's protocol), instead of by its identity:

    class FruitType(TraceType):              # one trace per kind of fruit
        def __init__(self, fruit): self.kind, self.fruit = type(fruit), fruit
        def is_subtype_of(self, other): return self == other
        def most_specific_common_supertype(self, others):
            return self if all(self == o for o in others) else None
        def placeholder_value(self, placeholder_context): return self.fruit
        def __eq__(self, other): return type(other) is FruitType and other.kind is self.kind
        def __hash__(self): return hash(self.kind)

    class Fruit:
        def __tf_tracing_type__(self, context): return FruitType(self)

A call runs the first trace whose type its argument's type is a subtype of (`is_subtype_of`);
with `reduce_retracing`, a new trace is made for the most specific common supertype of the
call's type and an earlier trace's (`most_specific_common_supertype`), when there is one.
While tracing, the function sees the trace type's `placeholder_value` in the argument's
place. The key part is `(TRACED_AS, trace type)` (see runtime.signature).

A trace type stands for Python values only: one whose values carry tensors (`flatten()` not
empty) is refused when traced.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from runtime import errors

TRACED_AS = "traced_as"  # the tag of a key part made from a TraceType


class TracingContext:
    """What `__tf_tracing_type__` receives: the context of building one call's key
    (reserved, as in TensorFlow; it holds nothing)."""

    __slots__ = ()


class PlaceholderContext:
    """What `TraceType.placeholder_value` receives: the context of making one trace's
    placeholders (reserved, as in TensorFlow; it holds nothing)."""

    __slots__ = ()


class CastContext:
    """What `TraceType.cast` receives (reserved, as in TensorFlow; it holds nothing)."""

    __slots__ = ()


class TraceType(metaclass=abc.ABCMeta):
    """The type of an argument for a Function's tracing (TensorFlow's
    `tf.types.experimental.TraceType`): it decides which calls share a trace
    (`is_subtype_of`), how traces are generalised (`most_specific_common_supertype`) and
    what the traced function sees (`placeholder_value`). Instances must be hashable, and
    equal when they stand for the same calls."""

    @abc.abstractmethod
    def is_subtype_of(self, other: TraceType) -> bool:
        """True when an argument of this type can run a trace made for type `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: Sequence[TraceType]) -> TraceType | None:
        """The most specific type that this type and every one of `others` are subtypes of,
        or None when there is none."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context: Any) -> Any:
        """The value the traced function receives in place of an argument of this type."""

    def to_tensors(self, value: Any) -> list[Any]:
        """The tensors a value of this type carries: none by default."""
        del value
        return []

    def from_tensors(self, tensors: Iterator[Any]) -> Any:
        """A value of this type from the tensors `to_tensors` gives: by default the
        placeholder value (the type carries no tensors)."""
        del tensors
        return self.placeholder_value(PlaceholderContext())

    def flatten(self) -> list[Any]:
        """The specs of the tensors `to_tensors` gives: none by default."""
        return []

    def cast(self, value: Any, cast_context: Any) -> Any:
        """`value` as a value of this type: by default `value` itself."""
        del cast_context
        return value

    @abc.abstractmethod
    def __hash__(self) -> int:
        """Equal trace types hash alike (they are parts of a Function's cache keys)."""

    @abc.abstractmethod
    def __eq__(self, other: object) -> bool:
        """True when `other` stands for the same calls."""


@runtime_checkable
class SupportsTracingProtocol(Protocol):
    """A class whose instances give their own TraceType (TensorFlow's
    `tf.types.experimental.SupportsTracingProtocol`)."""

    def __tf_tracing_type__(self, context: TracingContext) -> TraceType:
        """The trace type of this object."""


_CONTEXT = TracingContext()


def key_part(value: Any, method: Any) -> tuple[str, TraceType]:
    """The cache-key part of `value`, whose class's `__tf_tracing_type__` is `method`."""
    trace_type = method(value, _CONTEXT)
    if not isinstance(trace_type, TraceType):
        raise TypeError(
            "%s.__tf_tracing_type__ returned %r, not a tf.types.experimental.TraceType"
            % (type(value).__name__, trace_type))
    return (TRACED_AS, trace_type)


def is_key_part(part: Any) -> bool:
    """True when cache-key part `part` was made from a TraceType."""
    return type(part) is tuple and len(part) == 2 and part[0] == TRACED_AS


def traced_as(value: Any, general: TraceType) -> bool:
    """True when `value`'s trace type is a subtype of `general` (it can run that trace)."""
    method = getattr(type(value), "__tf_tracing_type__", None)
    return method is not None and bool(key_part(value, method)[1].is_subtype_of(general))


def placeholder(trace_type: TraceType, name: str) -> Any:
    """What the traced function receives for argument `name`, of type `trace_type`."""
    if trace_type.flatten():
        raise NotImplementedError(errors.with_user_location(
            "argument %r: its trace type %s carries tensors (flatten() is not empty); a "
            "trace type here stands for Python values only: pass the tensors as arguments "
            "of their own" % (name, type(trace_type).__name__)))
    return trace_type.placeholder_value(PlaceholderContext())

"""`Module`: a base class for objects that hold Variables (TensorFlow's `tf.Module`).

A Module finds what it holds by walking its attributes as TensorFlow does: attributes in
the order of their names, each attribute's value flattened (lists, tuples, dicts by key,
namedtuples), every object listed once; a module's own attributes come before those of
the modules it holds, which are walked next, in the order they were met:

    class Net(Module):                     Net().variables
        def __init__(self):                  -> (b, w, the layer's variables...)
            self.w = Variable(...)
            self.b = Variable(...)
            self.layer = Layer()
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from runtime import nest, scopes
from runtime.checkpoint import deferred
from runtime.variables import Variable

_CAMEL_BOUNDARY = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Method = TypeVar("Method", bound=Callable[..., Any])


def snake_case(name: str) -> str:
    """`name` written in snake case, as TensorFlow names a module after its class
    ('DenseLayer' -> 'dense_layer', 'MLP2' -> 'mlp2')."""
    return _CAMEL_BOUNDARY.sub(r"_\1", name).lower()


class Module:
    """A named container for Variables and other Modules (TensorFlow's `tf.Module`):
    `variables`, `trainable_variables`, `non_trainable_variables` and `submodules` find
    what its attributes hold, and `name_scope` names the graph nodes its methods add."""

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = snake_case(type(self).__name__)
        elif not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError("%r is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name)." % (name,))
        self._module_name = name
        self._module_scope = scopes.name_scope(name + "/")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if deferred._PENDING:  # a checkpoint restore waits for an attribute of some object
            deferred.attribute_set(self, name, value)

    @property
    def name(self) -> str:
        """The module's name (its class name in snake case by default)."""
        return self._module_name

    @property
    def name_scope(self) -> scopes.name_scope:
        """The name scope of this module: `with module.name_scope:` names the nodes added
        in the block '<name>/...'."""
        return self._module_scope

    @property
    def variables(self) -> tuple[Variable, ...]:
        """The Variables this module and the modules it holds hold, in TensorFlow's order."""
        return tuple(self._flatten(lambda value: isinstance(value, Variable)))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The trainable Variables among `variables`."""
        return tuple(self._flatten(
            lambda value: isinstance(value, Variable) and value.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The Variables among `variables` that are not trainable."""
        return tuple(self._flatten(
            lambda value: isinstance(value, Variable) and not value.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every Module this module holds, directly or through other modules."""
        return tuple(self._flatten(lambda value: isinstance(value, Module)))

    @classmethod
    def with_name_scope(cls, method: Method) -> Method:
        """Decorates a method so that each call runs in the module's `name_scope`."""
        @functools.wraps(method)
        def in_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return in_scope  # type: ignore[return-value]

    def _flatten(self, wanted: Callable[[Any], bool]) -> Iterator[Any]:
        """What `wanted` accepts among the values reachable from this module (see the
        module docstring for the order), each once."""
        return _walk(self, wanted, {id(self)})


def _walk(module: Module, wanted: Callable[[Any], bool], seen: set[int]) -> Iterator[Any]:
    held = []
    attributes = vars(module)
    for key in sorted(attributes):
        for leaf in nest.flatten(attributes[key], expand_composites=False):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if wanted(leaf):
                yield leaf
            if isinstance(leaf, Module):
                held.append(leaf)
    for inner in held:  # a module's own attributes first, then the modules it holds
        yield from _walk(inner, wanted, seen)

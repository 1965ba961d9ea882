"""The protocol shared by composite tensors (SparseTensor, RaggedTensor) and their specs.

A composite tensor is a value made of component tensors plus structure. It is a nested
value for `runtime.nest` (see its module docstring), so everything that flattens nested
values carries it as its components: Function arguments and results, loop variables and
branch results of staged `while`/`if`, `tf.cond`/`tf.while_loop`. A subclass provides
  * `_to_components()`: its component tensors (or nested composites), in order;
  * `_from_components(components)`: a value of its kind on new components;
  * `_spec_from_components(specs)`: its spec, from TensorSpecs of the components;
  * `_kind`: the hashable structure that must not change through a loop or between
    branches (component dtypes and shapes are checked and relaxed leaf by leaf).
A spec class (`SparseTensorSpec`) is a composite too, whose components are TensorSpecs:
so `input_signature` and `get_concrete_function` accept it, and it keys a trace exactly as
the values it describes do.
"""

from __future__ import annotations

from typing import Any, NoReturn

from runtime import errors, nest
from runtime.signature import TensorSpec


class CompositeTensor:
    """Base class of composite tensors and their specs (see the module docstring)."""

    __slots__ = ()
    # The trace key names this class: a spec keys a trace like the values it describes.
    _key_type: type | None = None

    def _to_components(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _from_components(self, components: list[Any]) -> Any:
        raise NotImplementedError

    def _spec_from_components(self, specs: list[Any]) -> Any:
        raise NotImplementedError

    @property
    def _kind(self) -> Any:
        raise NotImplementedError

    def invariant_leaf_shapes(self, shape: Any) -> list[Any]:
        """The static shape of each component tensor (in `nest.flatten` order) that a shape
        invariant `shape` of this composite's own (dense or ragged) shape allows: what a
        staged loop carries when `set_loop_options(shape_invariants=[(value, shape)])`."""
        raise NotImplementedError

    def _relax_component_keys(self, keys: tuple[Any, ...]) -> tuple[Any, ...]:
        """The components' cache-key parts with the sizes that do not select a trace (the
        number of stored values) relaxed to None; by default all kept."""
        return keys

    # -- runtime.nest protocol ---------------------------------------------------------------
    def _nest_components(self) -> tuple[Any, ...]:
        return self._to_components()

    def _nest_rebuild(self, components: list[Any]) -> Any:
        if components and all(isinstance(c, (TensorSpec, CompositeSpec)) for c in components):
            return self._spec_from_components(components)  # a trace's structured signature
        return self._from_components(components)

    def _nest_signature(self) -> Any:
        return self._kind

    def _trace_key(self, make_key: Any, feeds: list[Any] | None) -> tuple[Any, ...]:
        """This value's part of a call's cache key (see runtime.signature)."""
        keys = self._relax_component_keys(make_key(self._to_components(), feeds))
        return ("composite", self._key_type or type(self), self._kind, keys)

    # -- staged loops and conditionals (runtime.tensor_array's join protocol) ---------------
    def _entering_loop(self) -> Any:
        return self

    def _static_sizes(self) -> Any:
        return None

    def join(self, other: Any, name: str, where: tuple[str, str]) -> Any:
        """This value as the template of a variable that is `other` on the other path; its
        static facts all live in its components' shapes, which staging relaxes itself."""
        if type(other) is not type(self):
            raise TypeError("'%s' is a %s %s but %r %s" % (
                name, type(self).__name__, where[0], other, where[1]))
        return self


class CompositeSpec(CompositeTensor):
    """Base class of the specs of composite tensors: components are TensorSpecs."""

    __slots__ = ()

    @property
    def value_type(self) -> Any:
        """The class of the values this spec describes (TensorFlow's TypeSpec.value_type)."""
        return self._key_type

    def _spec_from_components(self, specs: list[Any]) -> Any:
        return self

    def is_compatible_with(self, value: Any) -> bool:
        """True when `value` is a composite this spec describes."""
        raise NotImplementedError


def relax_leading_dim(key: Any) -> Any:
    """A component's cache-key part with its first dimension (and, for a nested composite,
    that of each of its components) relaxed to None."""
    if isinstance(key, tuple) and len(key) == 4 and key[0] == "composite":
        return key[:3] + (tuple(relax_leading_dim(k) for k in key[3]),)
    dtype, shape = key
    if not shape:
        return key
    return (dtype, (None,) + tuple(shape[1:]))


def refuse(error_class: type[Exception], message: str) -> NoReturn:
    """Raises `error_class(message)` naming the user's line that led to it."""
    raise error_class(errors.with_user_location(message))


def register(cls: type) -> type:
    """Makes `cls` a nested value for runtime.nest; returns it."""
    return nest.register_composite(cls)

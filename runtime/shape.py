"""Static shapes: tuples of ints whose dimensions may be unknown (None), or unknown rank.

Inside the runtime a shape is a plain tuple (`(2, None)`) or None for an unknown rank: cheap
to build and compare. `TensorShape` is the user-facing view returned by `Tensor.shape`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# The runtime's static shape: a tuple of dimensions (None where unknown), or None.
Shape = tuple[int | None, ...] | None


def normalize(shape: Any) -> Shape:
    """Converts a user-given shape (None, list, tuple, TensorShape, int) to a tuple or None."""
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return shape.dims_tuple
    if isinstance(shape, int):
        return (shape,)
    dims: list[int | None] = []
    for d in shape:
        if d is None:
            dims.append(None)
        else:
            d = int(d)
            if d < -1:
                raise ValueError("invalid dimension %d in shape %r" % (d, shape))
            dims.append(None if d == -1 else d)
    return tuple(dims)


def is_compatible(spec_shape: Shape, shape: Shape) -> bool:
    """True when a value of static shape `shape` fits `spec_shape` (None matches anything)."""
    if spec_shape is None:
        return True
    if shape is None or len(spec_shape) != len(shape):
        return False
    for want, got in zip(spec_shape, shape):
        if want is not None and got is not None and want != got:
            return False
    return True


def is_subtype(shape: Shape, general: Shape) -> bool:
    """True when every value of `shape` also fits `general` (`general` is at least as loose)."""
    if general is None:
        return True
    if shape is None or len(shape) != len(general):
        return False
    return all(g is None or g == s for s, g in zip(shape, general))


def relax(a: Shape, b: Shape) -> Shape:
    """The most specific shape that both `a` and `b` fit: differing dims become None."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def broadcast(a: Shape, b: Shape) -> Shape:
    """Static numpy broadcasting of two shapes; raises ValueError when they cannot broadcast."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out: list[int | None] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None:
            out.append(y if y is not None else None)
        elif y is None:
            out.append(x)
        else:
            raise ValueError("dimensions %d and %d are not compatible" % (x, y))
    return tuple(out)


def num_elements(shape: Shape) -> int | None:
    """The number of elements, or None when any dimension is unknown."""
    if shape is None:
        return None
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def to_string(shape: Shape) -> str:
    """TensorFlow's spelling: '(2, None)', '()', or '<unknown>'."""
    if shape is None:
        return "<unknown>"
    if len(shape) == 1:
        return "(%s,)" % (shape[0],)
    return "(%s)" % ", ".join(str(d) for d in shape)


def kernel_string(shape: Any) -> str:
    """The spelling of TensorFlow's kernel messages: '[2,?,3]', '[]'."""
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape)


class TensorShape:
    """The static shape of a tensor: known, partially known (None dims) or of unknown rank."""

    __slots__ = ("dims_tuple",)

    def __init__(self, dims: Any) -> None:
        self.dims_tuple = normalize(dims)

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when unknown."""
        return None if self.dims_tuple is None else len(self.dims_tuple)

    ndims = rank

    @property
    def dims(self) -> list[int | None] | None:
        """The dimensions as a list (None entries for unknown ones), or None for unknown rank."""
        return None if self.dims_tuple is None else list(self.dims_tuple)

    def as_list(self) -> list[int | None]:
        """The dimensions as a list; raises ValueError when the rank is unknown."""
        if self.dims_tuple is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape")
        return list(self.dims_tuple)

    def is_fully_defined(self) -> bool:
        """True when the rank and every dimension are known."""
        return self.dims_tuple is not None and None not in self.dims_tuple

    def is_compatible_with(self, other: Any) -> bool:
        """True when some value could have both shapes."""
        dims = normalize(other)
        if self.dims_tuple is None or dims is None:
            return True
        return is_compatible(self.dims_tuple, dims)

    def num_elements(self) -> int | None:
        """The number of elements, or None when not fully defined."""
        return num_elements(self.dims_tuple)

    def __len__(self) -> int:
        if self.dims_tuple is None:
            raise ValueError("cannot take the length of a shape with unknown rank")
        return len(self.dims_tuple)

    def __iter__(self) -> Iterator[int | None]:
        if self.dims_tuple is None:
            raise ValueError("cannot iterate over a shape with unknown rank")
        return iter(self.dims_tuple)

    def __getitem__(self, index: int | slice) -> Any:
        if self.dims_tuple is None:
            return None if not isinstance(index, slice) else TensorShape(None)
        if isinstance(index, slice):
            return TensorShape(self.dims_tuple[index])
        return self.dims_tuple[index]

    def __eq__(self, other: object) -> bool:
        try:
            return self.dims_tuple == normalize(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dims_tuple)

    def __repr__(self) -> str:
        if self.dims_tuple is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % (list(self.dims_tuple),)

    def __str__(self) -> str:
        return to_string(self.dims_tuple)

"""Nested structures (lists, tuples, namedtuples, dicts, `attrs` classes) flattened to
leaves and rebuilt: the home of `tf.nest`'s semantics.

Dicts flatten in sorted key order, as TensorFlow's `tf.nest` does, so that two dicts with
the same keys always flatten alike; an `attrs` instance flattens in field order. Everything
else (None, strings, tensors, numbers) is a leaf.

Composite values (a `TensorArray`) are nested too: a class registered with
`register_composite` is a value made of component values (its tensors: a TensorArray's
one handle) plus static metadata. It provides
  * `_nest_components()`: the component values, in order (themselves leaves or nested);
  * `_nest_rebuild(components)`: a value of the same kind and metadata on new components;
  * `_nest_signature()`: the hashable part of the metadata that `structure_signature`
    compares (what must not change through a loop or between branches).
So staged control flow carries a composite through its ops as its tensors, and rebuilds it.
The runtime's own calls descend into composites (`expand_composites=True`, the default
here); `tf.nest`'s functions default to treating them as leaves, as TensorFlow's do.
"""

import collections
from typing import Any, Hashable, Protocol, Sequence


class _Composite(Protocol):
    """What a class registered with `register_composite` provides."""

    def _nest_components(self) -> Sequence[Any]: ...

    def _nest_rebuild(self, components: list[Any]) -> Any: ...

    def _nest_signature(self) -> Hashable: ...


_CONTAINERS = (list, tuple, dict)
_NESTED: tuple[type, ...] = _CONTAINERS
_COMPOSITES: tuple[type[_Composite], ...] = ()
# type -> whether it is an `attrs` class (looked up once per type)
_ATTRS_CLASSES: dict[type, bool] = {}


def register_composite(cls):
    """Makes instances of `cls` nested values (see the module docstring); returns `cls`."""
    global _NESTED, _COMPOSITES
    if cls not in _COMPOSITES:
        _COMPOSITES = _COMPOSITES + (cls,)
        _NESTED = _CONTAINERS + _COMPOSITES
    return cls


def is_composite(value):
    """True for instances of the registered composite classes."""
    return isinstance(value, _COMPOSITES)


def _is_attrs(value):
    known = _ATTRS_CLASSES.get(type(value))
    if known is None:
        cls = type(value)
        known = _ATTRS_CLASSES[cls] = isinstance(getattr(cls, "__attrs_attrs__", None), tuple)
    return known


def is_nested(value, expand_composites=True):
    """True for the containers (and, with `expand_composites`, the composites) this module
    descends into."""
    if isinstance(value, _NESTED):
        return expand_composites or not isinstance(value, _COMPOSITES)
    known = _ATTRS_CLASSES.get(type(value))
    return _is_attrs(value) if known is None else known


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _attrs_fields(value):
    return [field.name for field in type(value).__attrs_attrs__]


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def _children(value):
    if type(value) is list or type(value) is tuple:
        return value
    if isinstance(value, dict):
        return [value[k] for k in _sorted_keys(value)]
    if isinstance(value, _COMPOSITES):
        return list(value._nest_components())
    if isinstance(value, _CONTAINERS):
        return list(value)
    return [getattr(value, name) for name in _attrs_fields(value)]


def flatten(structure, expand_composites=True):
    """The leaves of `structure`, depth first (a leaf alone gives `[leaf]`)."""
    if not is_nested(structure, expand_composites):
        return [structure]
    out: list[Any] = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(structure, out, expand_composites=True):
    attrs_classes = _ATTRS_CLASSES
    for child in _children(structure):
        if isinstance(child, _NESTED):
            if expand_composites or not isinstance(child, _COMPOSITES):
                _flatten_into(child, out, expand_composites)
                continue
        elif attrs_classes.get(type(child)) or type(child) not in attrs_classes and \
                _is_attrs(child):
            _flatten_into(child, out, expand_composites)
            continue
        out.append(child)


def _rebuild(template, children):
    if isinstance(template, _COMPOSITES):
        return template._nest_rebuild(list(children))
    if isinstance(template, dict):
        keys = _sorted_keys(template)
        rebuilt = dict(zip(keys, children))
        if type(template) is dict:
            return {k: rebuilt[k] for k in template}
        if isinstance(template, collections.defaultdict):
            return type(template)(template.default_factory, ((k, rebuilt[k]) for k in template))
        return type(template)((k, rebuilt[k]) for k in template)
    if not isinstance(template, _CONTAINERS):
        return type(template)(*children)  # an attrs class, fields in order
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children) if type(template) is tuple else type(template)(children)
    return list(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=True):
    """Rebuilds `structure` with its leaves replaced, in order, by the items of
    `flat_sequence` (a list or tuple; an iterator is read into a list)."""
    if hasattr(flat_sequence, "__next__"):
        flat_sequence = list(flat_sequence)
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError("Attempted to pack value:\n  %s\ninto a structure, but found "
                        "incompatible type `%s` instead: flat_sequence must be a list"
                        % (_short(flat_sequence), type(flat_sequence).__name__))
    flat = flat_sequence
    position = [0]

    def build(template):
        if not is_nested(template, expand_composites):
            index = position[0]
            position[0] += 1
            return flat[index] if index < len(flat) else None
        return _rebuild(template, [build(child) for child in _children(template)])

    result = build(structure)
    if position[0] != len(flat):
        raise ValueError("Could not pack sequence: the structure has %d leaves but %d values "
                         "were given. Structure: %s, flat_sequence: %s"
                         % (position[0], len(flat), _short(structure), _short(flat)))
    return result


def _short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def map_structure(func, *structures, check_types=True, expand_composites=True):
    """`func` applied to matching leaves of `structures` (which must have the same nested
    structure, see `assert_same_structure`), in the first structure's containers."""
    if not callable(func):
        raise TypeError("func must be callable, got: %r" % (func,))
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types, expand_composites)
    flats = [flatten(s, expand_composites) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)],
                            expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=True):
    """Raises unless `nest1` and `nest2` nest alike: ValueError for a different nesting,
    length or set of dict keys; TypeError (with `check_types`) for containers of different
    types (a list against a tuple, two namedtuple classes). Leaves may differ."""
    problem = _difference(nest1, nest2, check_types, expand_composites)
    if problem is None:
        return
    error_class, detail = problem
    if error_class is TypeError:
        raise TypeError(detail)
    raise ValueError("The two structures don't have the same nested structure.\n\n"
                     "First structure: %s\n\nSecond structure: %s\n\nMore specifically: %s"
                     % (_short(nest1), _short(nest2), detail))


def _difference(a, b, check_types, expand_composites):
    """(error class, what differs first) between the nesting of `a` and `b`, or None."""
    a_nested, b_nested = is_nested(a, expand_composites), is_nested(b, expand_composites)
    if a_nested != b_nested:
        leaf, other = (b, a) if a_nested else (a, b)
        return ValueError, ("Substructure \"%s\" is a sequence, while substructure \"%s\" "
                            "is not" % (_short(other), _short(leaf)))
    if not a_nested:
        return None
    if check_types and not _same_kind(a, b):
        return TypeError, ("The two structures don't have the same sequence type. First "
                           "structure has type %s, while second structure has type %s."
                           % (type(a), type(b)))
    if isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b):
        return ValueError, ("The two dictionaries don't have the same set of keys. First "
                            "structure has keys %s, while second structure has keys %s."
                            % (_sorted_keys(a), _sorted_keys(b)))
    if isinstance(a, _COMPOSITES) and isinstance(b, _COMPOSITES) and \
            a._nest_signature() != b._nest_signature():
        return TypeError, "%r and %r are composites of different kinds" % (a, b)
    a_children, b_children = _children(a), _children(b)
    if len(a_children) != len(b_children):
        return ValueError, ("Substructure \"%s\" has length %d, while substructure \"%s\" "
                            "has length %d" % (_short(a), len(a_children), _short(b),
                                               len(b_children)))
    for x, y in zip(a_children, b_children):
        problem = _difference(x, y, check_types, expand_composites)
        if problem is not None:
            return problem
    return None


def _same_kind(a, b):
    """Same container type, where any two dicts (or mappings) count as one kind, as in
    TensorFlow; two namedtuples count as one kind when their names and fields agree."""
    if isinstance(a, dict) and isinstance(b, dict):
        return True
    if type(a) is type(b):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields
    return False


def structure_signature(structure):
    """A hashable description of the containers (not the leaves) of `structure`."""
    if not is_nested(structure):
        return None
    if isinstance(structure, dict):
        keys = _sorted_keys(structure)
        return (type(structure), tuple(keys),
                tuple(structure_signature(structure[k]) for k in keys))
    children = _children(structure)
    head = structure._nest_signature() if isinstance(structure, _COMPOSITES) else len(children)
    return (type(structure), head, tuple(structure_signature(child) for child in children))


def map_composites(func, structure, *others):
    """`structure` with each composite replaced by `func(composite, *matching composites of
    others)`; the others must have the same structure signature. Containers are rebuilt only
    around a replaced composite, so a structure without one comes back as it is."""
    if isinstance(structure, _COMPOSITES):
        return func(structure, *others)
    if not isinstance(structure, _CONTAINERS):
        return structure
    children = _children(structure)
    other_children = [_children(o) for o in others]
    new = [map_composites(func, child, *[oc[i] for oc in other_children])
           for i, child in enumerate(children)]
    if all(a is b for a, b in zip(new, children)):
        return structure
    return _rebuild(structure, new)


def same_container_type(value, traced):
    """Whether `value` has the container type of `traced`: the same type, or namedtuples of
    the same name and fields (a loaded function's namedtuple class is rebuilt by the loader,
    so the caller's class cannot be the same object)."""
    if type(value) is type(traced):
        return True
    fields = getattr(type(traced), "_fields", None)
    return isinstance(traced, tuple) and isinstance(value, tuple) and fields is not None \
        and getattr(type(value), "_fields", None) == fields \
        and type(value).__name__ == type(traced).__name__

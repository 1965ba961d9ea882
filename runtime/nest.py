"""Nested structures (lists, tuples, namedtuples, dicts) flattened to leaves and rebuilt.

Dicts flatten in sorted key order, as TensorFlow's `tf.nest` does, so that two dicts with
the same keys always flatten alike.

Composite values (a `TensorArray`) are nested too: a class registered with
`register_composite` is a value made of component values (its tensors: a TensorArray's
one handle) plus static metadata. It provides
  * `_nest_components()`: the component values, in order (themselves leaves or nested);
  * `_nest_rebuild(components)`: a value of the same kind and metadata on new components;
  * `_nest_signature()`: the hashable part of the metadata that `structure_signature`
    compares (what must not change through a loop or between branches).
So staged control flow carries a composite through its ops as its tensors, and rebuilds it.
"""

_CONTAINERS = (list, tuple, dict)
_NESTED = _CONTAINERS
_COMPOSITES = ()


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


def is_nested(value):
    """True for the containers and composites this module descends into."""
    return isinstance(value, _NESTED)


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in _sorted_keys(value)]
    if isinstance(value, _COMPOSITES):
        return list(value._nest_components())
    return list(value)


def flatten(structure):
    """The leaves of `structure`, depth first."""
    if not is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(structure, out):
    for child in _children(structure):
        if is_nested(child):
            _flatten_into(child, out)
        else:
            out.append(child)


def _rebuild(template, children):
    if isinstance(template, _COMPOSITES):
        return template._nest_rebuild(list(children))
    if isinstance(template, dict):
        keys = _sorted_keys(template)
        rebuilt = dict(zip(keys, children))
        if type(template) is dict:
            return {k: rebuilt[k] for k in template}
        return type(template)((k, rebuilt[k]) for k in template)
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children) if type(template) is tuple else type(template)(children)
    return list(children)


def pack_sequence_as(structure, flat):
    """Rebuilds `structure` with its leaves replaced, in order, by the items of `flat`."""
    flat = list(flat)
    position = [0]

    def build(template):
        if not is_nested(template):
            if position[0] >= len(flat):
                raise ValueError("structure has more leaves than the %d values given"
                                 % len(flat))
            leaf = flat[position[0]]
            position[0] += 1
            return leaf
        return _rebuild(template, [build(child) for child in _children(template)])

    result = build(structure)
    if position[0] != len(flat):
        raise ValueError("structure has %d leaves but %d values were given"
                         % (position[0], len(flat)))
    return result


def map_structure(func, *structures):
    """Applies `func` to matching leaves of `structures` and rebuilds the first's shape."""
    flats = [flatten(s) for s in structures]
    for other in flats[1:]:
        if len(other) != len(flats[0]):
            raise ValueError("structures do not match: %d vs %d leaves"
                             % (len(flats[0]), len(other)))
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


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

"""`tf.nest`: TensorFlow's functions on nested structures, over runtime.nest.

As in TensorFlow, composite values (a TensorArray) are leaves unless
`expand_composites=True`; dicts flatten in sorted key order; namedtuples and `attrs`
classes are structures.
"""

from runtime import nest as _nest


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first; a leaf (None included) gives `[leaf]`."""
    return _nest.flatten(structure, expand_composites)


def is_nested(seq):
    """True for lists, tuples, namedtuples, dicts and `attrs` instances."""
    return _nest.is_nested(seq, expand_composites=False)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`structure` rebuilt with its leaves replaced, in order, by `flat_sequence`'s items;
    ValueError when their numbers differ, TypeError when `flat_sequence` is not a list."""
    return _nest.pack_sequence_as(structure, flat_sequence, expand_composites)


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """`func` applied to matching leaves of the structures (which must nest alike, see
    `assert_same_structure`), rebuilt in the first structure's containers."""
    return _nest.map_structure(func, *structure, check_types=check_types,
                               expand_composites=expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError unless the two structures nest alike (same lengths and dict
    keys), and TypeError, with `check_types`, when their container types differ."""
    _nest.assert_same_structure(nest1, nest2, check_types, expand_composites)

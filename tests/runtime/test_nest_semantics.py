"""tf.nest's semantics in runtime.nest: attrs classes, assert_same_structure and its errors,
composites as leaves or structures, and flatten/pack round trips (hypothesis)."""

import collections

import attr
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime import dtypes, nest
from runtime.tensor_array import TensorArray

Point = collections.namedtuple("Point", "x y")
OtherPoint = collections.namedtuple("OtherPoint", "x y")


@attr.s
class Pair:
    first = attr.ib()
    second = attr.ib()


def test_attrs_instances_flatten_in_field_order_and_rebuild():
    value = Pair(second=[3, 4], first={"b": 2, "a": 1})
    assert nest.flatten(value) == [1, 2, 3, 4]
    rebuilt = nest.pack_sequence_as(value, [10, 20, 30, 40])
    assert isinstance(rebuilt, Pair)
    assert rebuilt == Pair({"b": 20, "a": 10}, [30, 40])
    assert nest.is_nested(value)


def test_none_and_strings_are_leaves():
    assert nest.flatten(None) == [None]
    assert nest.flatten([None, "ab", b"c"]) == [None, "ab", b"c"]
    assert not nest.is_nested("ab")


def test_defaultdict_is_rebuilt_with_its_factory():
    value = collections.defaultdict(list, {"b": 1, "a": 2})
    rebuilt = nest.map_structure(lambda v: v * 10, value)
    assert type(rebuilt) is collections.defaultdict and rebuilt.default_factory is list
    assert dict(rebuilt) == {"b": 10, "a": 20}


def test_assert_same_structure_accepts_different_leaves():
    nest.assert_same_structure({"a": [1, (2, 3)]}, {"a": ["x", ("y", None)]})


def test_assert_same_structure_reports_a_different_nesting():
    with pytest.raises(ValueError, match="don't have the same nested structure") as info:
        nest.assert_same_structure([1, [2, 3]], [1, 2])
    assert "First structure: [1, [2, 3]]" in str(info.value)
    assert "is a sequence, while substructure" in str(info.value)


def test_assert_same_structure_reports_a_different_length():
    with pytest.raises(ValueError, match="has length 2, while substructure"):
        nest.assert_same_structure((1, 2), (1, 2, 3))


def test_assert_same_structure_reports_different_dict_keys():
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        nest.assert_same_structure({"a": 1}, {"b": 1})


def test_assert_same_structure_checks_container_types_unless_told_not_to():
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_same_structure([1, 2], (1, 2))
    nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_same_structure(Point(1, 2), OtherPoint(1, 2))
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))


def test_map_structure_over_several_structures_checks_them():
    assert nest.map_structure(lambda a, b: a * b, Point(1, 2), Point(3, 4)) == Point(3, 8)
    with pytest.raises(TypeError, match="same sequence type"):
        nest.map_structure(lambda a, b: a, [1], (1,))
    assert nest.map_structure(lambda a, b: a, [1], (1,), check_types=False) == [1]
    with pytest.raises(ValueError, match="at least one structure"):
        nest.map_structure(lambda: 0)


def test_pack_sequence_as_needs_a_list():
    with pytest.raises(TypeError, match="flat_sequence must be a list"):
        nest.pack_sequence_as([1], 5)
    with pytest.raises(TypeError, match="flat_sequence must be a list"):
        nest.pack_sequence_as([1], "a")
    assert nest.pack_sequence_as([1, (2,)], iter([3, 4])) == [3, (4,)]


def test_composites_are_leaves_unless_expanded():
    ta = TensorArray(dtypes.float32, size=2)
    assert nest.flatten([ta], expand_composites=False) == [ta]
    assert nest.flatten([ta]) == [ta.handle]
    assert not nest.is_nested(ta, expand_composites=False)
    rebuilt = nest.map_structure(lambda t: t, {"ta": ta}, expand_composites=False)
    assert rebuilt["ta"] is ta


class Marked:
    """A leaf wrapped by map_structure (a plain object: not a structure)."""

    def __init__(self, leaf):
        self.leaf = leaf

    def __eq__(self, other):
        return isinstance(other, Marked) and other.leaf == self.leaf


leaves = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.floats(allow_nan=False))
structures = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=2), children, max_size=3),
        st.builds(Point, children, children),
        st.builds(Pair, children, children)),
    max_leaves=12)


@pytest.mark.property
@given(structures)
def test_pack_sequence_as_inverts_flatten(structure):
    flat = nest.flatten(structure)
    rebuilt = nest.pack_sequence_as(structure, flat)
    assert rebuilt == structure
    nest.assert_same_structure(structure, rebuilt)
    assert nest.flatten(rebuilt) == flat


@pytest.mark.property
@given(structures)
def test_map_structure_keeps_the_structure_and_maps_every_leaf(structure):
    marked = nest.map_structure(Marked, structure)
    nest.assert_same_structure(structure, marked)
    assert nest.flatten(marked) == [Marked(leaf) for leaf in nest.flatten(structure)]


@pytest.mark.property
@given(structures, st.integers(min_value=1, max_value=3))
def test_pack_sequence_as_refuses_the_wrong_number_of_values(structure, extra):
    flat = nest.flatten(structure)
    with pytest.raises(ValueError, match="Could not pack sequence"):
        nest.pack_sequence_as(structure, flat + [0] * extra)

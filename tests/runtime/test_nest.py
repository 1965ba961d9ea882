"""Nested structures: flattening order, rebuilding with the original container types."""

import collections

import pytest

from runtime import nest

Point = collections.namedtuple("Point", "x y")


class MyTuple(tuple):
    pass


def test_leaves_are_not_nested():
    for leaf in (1, 2.5, "abc", b"xy", None, object()):
        assert not nest.is_nested(leaf)
        assert nest.flatten(leaf) == [leaf]


def test_containers_are_nested():
    for value in ([], (), {}, [1], (1,), {"a": 1}, Point(1, 2)):
        assert nest.is_nested(value)


def test_flatten_is_depth_first():
    assert nest.flatten([1, [2, (3, 4)], 5, [[6]]]) == [1, 2, 3, 4, 5, 6]


def test_flatten_orders_dict_values_by_sorted_key():
    assert nest.flatten({"b": 1, "a": 2, "c": 3}) == [2, 1, 3]
    assert nest.flatten([{"z": 1, "y": (2, 3)}, 4]) == [2, 3, 1, 4]


def test_two_dicts_with_the_same_keys_flatten_alike_whatever_the_insertion_order():
    assert nest.flatten({"a": 1, "b": 2}) == nest.flatten({"b": 2, "a": 1})


def test_flatten_namedtuple_in_field_order():
    assert nest.flatten(Point(x=[1, 2], y=3)) == [1, 2, 3]


def test_flatten_dict_with_unorderable_keys_does_not_fail():
    flat = nest.flatten({1: "one", "a": "letter"})
    assert sorted(flat) == ["letter", "one"]


def test_empty_containers_have_no_leaves():
    assert nest.flatten([]) == []
    assert nest.flatten({"a": [], "b": ()}) == []


def test_pack_sequence_as_round_trips_and_keeps_types():
    structure = {"b": [1, (2, 3)], "a": Point(4, {"k": 5})}
    flat = nest.flatten(structure)
    rebuilt = nest.pack_sequence_as(structure, flat)
    assert rebuilt == structure
    assert isinstance(rebuilt["a"], Point)
    assert isinstance(rebuilt["b"], list)
    assert isinstance(rebuilt["b"][1], tuple)


def test_pack_sequence_as_keeps_dict_insertion_order():
    rebuilt = nest.pack_sequence_as({"b": 0, "a": 0}, [10, 20])
    assert list(rebuilt) == ["b", "a"]
    assert rebuilt == {"a": 10, "b": 20}


def test_pack_sequence_as_keeps_ordered_dict_and_tuple_subclasses():
    od = collections.OrderedDict([("y", 1), ("x", 2)])
    rebuilt = nest.pack_sequence_as(od, ["X", "Y"])
    assert type(rebuilt) is collections.OrderedDict
    assert list(rebuilt.items()) == [("y", "Y"), ("x", "X")]
    rebuilt = nest.pack_sequence_as(MyTuple((1, 2)), [3, 4])
    assert type(rebuilt) is MyTuple
    assert rebuilt == (3, 4)


def test_pack_sequence_as_a_leaf_structure():
    assert nest.pack_sequence_as(0, ["only"]) == "only"


@pytest.mark.parametrize("flat", [[1], [1, 2, 3, 4]])
def test_pack_sequence_as_rejects_the_wrong_number_of_leaves(flat):
    # TensorFlow's nest raises ValueError for too few and for too many values alike.
    with pytest.raises(ValueError):
        nest.pack_sequence_as([0, (0, 0)], flat)


def test_pack_sequence_as_reports_the_leaf_counts():
    with pytest.raises(ValueError, match="has 3 leaves but 4 values"):
        nest.pack_sequence_as([0, (0, 0)], [1, 2, 3, 4])


def test_map_structure_applies_to_matching_leaves():
    result = nest.map_structure(lambda a, b: a + b, {"a": [1, 2], "b": 3},
                                {"a": [10, 20], "b": 30})
    assert result == {"a": [11, 22], "b": 33}


def test_map_structure_rejects_structures_with_different_leaf_counts():
    with pytest.raises(ValueError, match="same nested structure"):
        nest.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])


def test_structure_signature_distinguishes_containers_not_leaves():
    assert nest.structure_signature([1, 2]) == nest.structure_signature(["a", "b"])
    assert nest.structure_signature([1, 2]) != nest.structure_signature((1, 2))
    assert nest.structure_signature([1, 2]) != nest.structure_signature([1, 2, 3])
    assert nest.structure_signature({"a": 1}) != nest.structure_signature({"b": 1})
    assert nest.structure_signature(Point(1, 2)) != nest.structure_signature((1, 2))
    assert nest.structure_signature(5) is None


def test_structure_signature_is_hashable_and_ignores_leaf_values():
    first = nest.structure_signature({"a": [1, (2, {"b": 3})]})
    second = nest.structure_signature({"a": [5, (6, {"b": 7})]})
    assert first == second and hash(first) == hash(second)
    assert nest.structure_signature({"a": [1]}) != nest.structure_signature({"a": (1,)})

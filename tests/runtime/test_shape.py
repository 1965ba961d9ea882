"""Static shapes: normalisation, compatibility, relaxation, broadcasting and TensorShape."""

import numpy as np
import pytest

from runtime import shape as shape_lib
from runtime.ops import array_ops
from runtime.shape import TensorShape

# -- normalize ----------------------------------------------------------------------------

@pytest.mark.parametrize("given, expected", [
    (None, None),
    ([], ()),
    ((), ()),
    (3, (3,)),
    ([2, 3], (2, 3)),
    ((2, None), (2, None)),
    ([-1, 4], (None, 4)),
    ([np.int64(5)], (5,)),
    (TensorShape([1, None]), (1, None)),
    (TensorShape(None), None),
])
def test_normalize_accepts_every_user_spelling(given, expected):
    assert shape_lib.normalize(given) == expected


def test_normalize_returns_plain_int_dimensions():
    dims = shape_lib.normalize([np.int32(2), np.int64(3)])
    assert all(type(d) is int for d in dims)


def test_normalize_rejects_negative_dimensions_below_minus_one():
    with pytest.raises(ValueError, match="-2"):
        shape_lib.normalize([2, -2])


# -- compatibility, subtyping, relaxation -------------------------------------------------

@pytest.mark.parametrize("spec, shape, expected", [
    (None, (1, 2), True),
    ((None,), (7,), True),
    ((None,), (7, 1), False),
    ((2, None), (2, 9), True),
    ((2, None), (3, 9), False),
    ((2,), None, False),
    ((), (), True),
    ((), (1,), False),
    ((2,), (None,), True),
])
def test_is_compatible(spec, shape, expected):
    assert shape_lib.is_compatible(spec, shape) is expected


@pytest.mark.parametrize("shape, general, expected", [
    ((2, 3), (None, 3), True),
    ((2, 3), (2, 3), True),
    ((None, 3), (2, 3), False),
    ((2, 3), None, True),
    (None, (2,), False),
    ((2,), (None, None), False),
])
def test_is_subtype_is_one_directional(shape, general, expected):
    assert shape_lib.is_subtype(shape, general) is expected


@pytest.mark.parametrize("a, b, expected", [
    ((2, 3), (2, 3), (2, 3)),
    ((2, 3), (4, 3), (None, 3)),
    ((1,), (2,), (None,)),
    ((2,), (2, 3), None),
    (None, (2,), None),
    ((), (), ()),
])
def test_relax_turns_differing_dims_into_none(a, b, expected):
    assert shape_lib.relax(a, b) == expected


# -- broadcasting ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [
    ((2, 3), (3,)),
    ((2, 1), (1, 4)),
    ((), (5, 2)),
    ((4, 1, 3), (2, 1)),
    ((1,), (1,)),
    ((0, 3), (1, 3)),
])
def test_broadcast_agrees_with_numpy(a, b):
    expected = np.broadcast_shapes(a, b)
    assert shape_lib.broadcast(a, b) == expected
    assert shape_lib.broadcast(b, a) == expected


@pytest.mark.parametrize("a, b, expected", [
    ((None, 3), (2, 3), (2, 3)),
    ((None,), (1,), (None,)),
    ((None,), (None,), (None,)),
    ((None, 1), (4,), (None, 4)),
    ((2,), None, None),
])
def test_broadcast_with_unknown_dims(a, b, expected):
    assert shape_lib.broadcast(a, b) == expected


@pytest.mark.parametrize("a, b", [((2,), (3,)), ((2, 3), (3, 2)), ((4, 2), (3, 1, 3))])
def test_broadcast_rejects_incompatible_shapes(a, b):
    with pytest.raises(ValueError, match="not compatible"):
        shape_lib.broadcast(a, b)


@pytest.mark.parametrize("shape, expected", [
    ((), 1), ((2, 3), 6), ((0, 5), 0), ((2, None), None), (None, None)])
def test_num_elements(shape, expected):
    assert shape_lib.num_elements(shape) == expected


@pytest.mark.parametrize("shape, text", [
    ((), "()"), ((3,), "(3,)"), ((2, None), "(2, None)"), ((None,), "(None,)"),
    (None, "<unknown>")])
def test_to_string_uses_tensorflow_spelling(shape, text):
    assert shape_lib.to_string(shape) == text


# -- TensorShape ----------------------------------------------------------------------------

def test_tensor_shape_rank_dims_and_as_list():
    s = TensorShape([2, None, 4])
    assert s.rank == 3
    assert s.ndims == 3
    assert s.dims == [2, None, 4]
    assert s.as_list() == [2, None, 4]


def test_unknown_rank_shape():
    s = TensorShape(None)
    assert s.rank is None
    assert s.dims is None
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    with pytest.raises(ValueError):
        s.as_list()
    with pytest.raises(ValueError):
        len(s)
    with pytest.raises(ValueError):
        iter(s)


def test_fully_defined_only_when_every_dim_is_known():
    assert TensorShape([2, 3]).is_fully_defined()
    assert TensorShape([]).is_fully_defined()
    assert not TensorShape([2, None]).is_fully_defined()


def test_is_compatible_with_treats_unknowns_as_wildcards():
    assert TensorShape([2, None]).is_compatible_with([2, 5])
    assert TensorShape([None, None]).is_compatible_with(TensorShape([1, 2]))
    assert TensorShape(None).is_compatible_with([1, 2, 3])
    assert TensorShape([1, 2]).is_compatible_with(None)
    assert not TensorShape([2, None]).is_compatible_with([3, 5])
    assert not TensorShape([2]).is_compatible_with([2, 1])


def test_len_iter_and_indexing():
    s = TensorShape([4, None, 6])
    assert len(s) == 3
    assert list(s) == [4, None, 6]
    assert s[0] == 4
    assert s[-1] == 6
    assert s[1] is None
    assert s[1:] == TensorShape([None, 6])
    assert isinstance(s[1:], TensorShape)


def test_indexing_an_unknown_rank_shape():
    s = TensorShape(None)
    assert s[0] is None
    assert s[1:] == TensorShape(None)


def test_equality_with_lists_tuples_and_shapes():
    s = TensorShape([2, 3])
    assert s == [2, 3]
    assert s == (2, 3)
    assert s == TensorShape((2, 3))
    assert s != [3, 2]
    assert s != TensorShape(None)
    assert hash(s) == hash(TensorShape([2, 3]))


def test_num_elements_of_tensor_shape():
    assert TensorShape([2, 3, 4]).num_elements() == 24
    assert TensorShape([]).num_elements() == 1
    assert TensorShape([2, None]).num_elements() is None


def test_repr_and_str():
    assert repr(TensorShape([2, None])) == "TensorShape([2, None])"
    assert repr(TensorShape(None)) == "TensorShape(None)"
    assert str(TensorShape([2, None])) == "(2, None)"
    assert str(TensorShape([5])) == "(5,)"
    assert str(TensorShape([])) == "()"
    assert str(TensorShape(None)) == "<unknown>"


def test_facade_tensor_shape_is_the_runtime_class():
    assert shape_lib.TensorShape is TensorShape


def test_tensor_shape_attribute_of_eager_tensor():
    t = array_ops.constant(np.zeros((2, 3), np.float32))
    assert isinstance(t.shape, TensorShape)
    assert t.shape == (2, 3)
    assert t.shape.as_list() == [2, 3]
    assert t.get_shape() == [2, 3]

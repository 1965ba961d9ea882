"""Element types: names, numpy storage, categories, limits and lookup rules."""

import pickle

import numpy as np
import pytest

from runtime import dtypes


@pytest.mark.parametrize("name, expected", [
    ("float32", dtypes.float32),
    ("float64", dtypes.float64),
    ("int32", dtypes.int32),
    ("int64", dtypes.int64),
    ("bool", dtypes.bool_),
    ("string", dtypes.string),
    ("float", dtypes.float32),
    ("double", dtypes.float64),
    ("int", dtypes.int32),
])
def test_as_dtype_looks_up_names_and_aliases(name, expected):
    assert dtypes.as_dtype(name) is expected


@pytest.mark.parametrize("np_type, expected", [
    (np.float32, dtypes.float32),
    (np.float64, dtypes.float64),
    (np.int32, dtypes.int32),
    (np.int64, dtypes.int64),
    (np.bool_, dtypes.bool_),
    (np.dtype("float64"), dtypes.float64),
    (np.dtype("S4"), dtypes.string),
    (np.dtype("U4"), dtypes.string),
    (np.dtype(object), dtypes.string),
])
def test_as_dtype_maps_numpy_types(np_type, expected):
    assert dtypes.as_dtype(np_type) is expected


@pytest.mark.parametrize("py_type, expected", [
    (float, dtypes.float32),
    (int, dtypes.int32),
    (bool, dtypes.bool_),
    (str, dtypes.string),
    (bytes, dtypes.string),
])
def test_as_dtype_maps_python_types_like_tensorflow(py_type, expected):
    assert dtypes.as_dtype(py_type) is expected


def test_as_dtype_returns_a_dtype_unchanged():
    assert dtypes.as_dtype(dtypes.int64) is dtypes.int64


@pytest.mark.parametrize("bad", ["qint8", "complex32", np.longdouble, np.clongdouble, 99])
def test_as_dtype_rejects_unsupported_types_with_type_error(bad):
    with pytest.raises(TypeError, match="unsupported dtype"):
        dtypes.as_dtype(bad)


def test_unsupported_dtype_error_lists_the_supported_names():
    with pytest.raises(TypeError) as info:
        dtypes.as_dtype("qint8")
    for name in ("float32", "float64", "int32", "int64", "bool", "string", "uint8",
                 "bfloat16", "complex64"):
        assert name in str(info.value)


@pytest.mark.parametrize("dtype, floating, integer, boolean, numeric", [
    (dtypes.float32, True, False, False, True),
    (dtypes.float64, True, False, False, True),
    (dtypes.int32, False, True, False, True),
    (dtypes.int64, False, True, False, True),
    (dtypes.bool_, False, False, True, False),
    (dtypes.string, False, False, False, False),
])
def test_category_predicates(dtype, floating, integer, boolean, numeric):
    assert dtype.is_floating is floating
    assert dtype.is_integer is integer
    assert dtype.is_bool is boolean
    assert dtype.is_numeric is numeric


@pytest.mark.parametrize("dtype, np_type", [
    (dtypes.float32, np.float32),
    (dtypes.float64, np.float64),
    (dtypes.int32, np.int32),
    (dtypes.int64, np.int64),
    (dtypes.bool_, np.bool_),
])
def test_numpy_storage_type(dtype, np_type):
    assert dtype.as_numpy_dtype is np_type
    assert dtype.np_dtype == np.dtype(np_type)


def test_string_tensors_are_stored_as_object_arrays():
    assert dtypes.string.np_dtype == np.dtype(object)


def test_integer_limits_match_numpy():
    assert dtypes.int32.min == -2**31
    assert dtypes.int32.max == 2**31 - 1
    assert dtypes.int64.min == -2**63
    assert dtypes.int64.max == 2**63 - 1


def test_float_limits_match_numpy():
    assert dtypes.float32.max == np.finfo(np.float32).max
    assert dtypes.float64.min == np.finfo(np.float64).min


@pytest.mark.parametrize("dtype", [dtypes.bool_, dtypes.string])
def test_non_numeric_types_have_no_range(dtype):
    with pytest.raises(TypeError, match="no numeric range"):
        dtype.max


def test_repr_and_str_follow_tensorflow():
    assert repr(dtypes.float32) == "tf.float32"
    assert str(dtypes.int64) == "<dtype: 'int64'>"
    assert str(dtypes.bool_) == "<dtype: 'bool'>"


@pytest.mark.parametrize("dtype", dtypes.ALL)
def test_pickling_preserves_identity(dtype):
    assert pickle.loads(pickle.dumps(dtype)) is dtype


@pytest.mark.parametrize("np_dtype, expected", [
    (np.dtype(np.int64), dtypes.int64),
    (np.dtype(np.int32), dtypes.int32),
    (np.dtype(np.float64), dtypes.float64),
    (np.dtype(np.float32), dtypes.float32),
    (np.dtype(np.bool_), dtypes.bool_),
    (np.dtype("S3"), dtypes.string),
    (np.dtype(np.int8), dtypes.int8),
    (np.dtype(np.uint64), dtypes.uint64),
    (np.dtype(np.float16), dtypes.float16),
    (np.dtype(np.complex64), dtypes.complex64),
    (np.dtype(">f4"), dtypes.float32),
])
def test_from_numpy_keeps_precision(np_dtype, expected):
    assert dtypes.from_numpy(np_dtype) is expected


def test_from_numpy_rejects_types_tensorflow_lacks():
    with pytest.raises(TypeError, match="has no tensor dtype"):
        dtypes.from_numpy(np.dtype(np.longdouble))


def test_facade_exports_the_same_dtype_objects():
    assert dtypes.float32 is dtypes.float32
    assert dtypes.float64 is dtypes.float64
    assert dtypes.double is dtypes.float64
    assert dtypes.int32 is dtypes.int32
    assert dtypes.int64 is dtypes.int64
    assert dtypes.bool_ is dtypes.bool_
    assert dtypes.string is dtypes.string
    assert dtypes.float32 is dtypes.float32
    assert dtypes.int64 is dtypes.int64
    assert dtypes.bool_ is dtypes.bool_
    assert dtypes.as_dtype("int32") is dtypes.int32


def test_dtype_name_attribute():
    assert [d.name for d in dtypes.ALL] == [
        "float32", "float64", "int32", "int64", "bool", "string", "float16", "bfloat16",
        "int8", "int16", "uint8", "uint16", "uint32", "uint64", "complex64", "complex128"]

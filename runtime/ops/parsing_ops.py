"""tf.io.parse_example / parse_single_example: serialized tf.train.Example records
(runtime.io.example) parsed into the tensors their features describe.

`FixedLenFeature(shape, dtype, default_value)` gives a dense tensor per record;
`VarLenFeature(dtype)` gives the components of a SparseTensor (indices, values,
dense_shape; runtime.composite.parsing wraps them). The ParseExample op runs on the host.
"""

from typing import Any

import numpy as np

from runtime import dtypes
from runtime import shape as shape_lib
from runtime.io import example as example_lib
from runtime.ops.common import SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute, register

OPS = {}

_KINDS = {dtypes.int64: "int64_list", dtypes.float32: "float_list", dtypes.string: "bytes_list"}
_KIND_NAMES = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class FixedLenFeature:
    """A feature with `shape` values of `dtype` (int64, float32 or string) in every record;
    a record without it takes `default_value` (None: the feature is required)."""

    def __init__(self, shape, dtype, default_value=None):
        self.shape = tuple(shape_lib.normalize(shape) or ())
        if any(d is None or d < 0 for d in self.shape):
            raise ValueError("FixedLenFeature: the shape must be fully known, got %r"
                             % (shape,))
        self.dtype = _feature_dtype(dtype)
        self.default_value = default_value

    def __repr__(self):
        return "FixedLenFeature(shape=%s, dtype=%s, default_value=%r)" % (
            list(self.shape), self.dtype.name, self.default_value)


class VarLenFeature:
    """A feature with any number of values of `dtype` per record: parsed as a
    SparseTensor."""

    def __init__(self, dtype):
        self.dtype = _feature_dtype(dtype)

    def __repr__(self):
        return "VarLenFeature(dtype=%s)" % self.dtype.name


def _feature_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _KINDS:
        raise ValueError("an Example feature holds int64, float32 or string values, got %s"
                         % dtype.name)
    return dtype


def _values(features, key, dtype, where):
    """The values of feature `key` of one record's features, checked against `dtype`
    (None when the record lacks it)."""
    if key not in features:
        return None
    kind, values = features[key]
    if kind is None:
        return []
    if kind != _KINDS[dtype]:
        raise ValueError("%s: Key: %s.  Data types don't match. Data type: %s but expected "
                         "type: %s" % (where, key, _KIND_NAMES[kind],
                                       _KIND_NAMES[_KINDS[dtype]]))
    return values


def _parse_kernel(serialized, *defaults, sparse_keys, sparse_types, dense_keys, dense_types,
                  dense_shapes, single):
    records = np.reshape(serialized, [-1])
    parsed = [example_lib.decode(r, "Example %d" % i) for i, r in enumerate(records)]
    outputs = []
    for key, dtype in zip(sparse_keys, sparse_types):
        rows = [_values(f, key, dtype, "Example %d" % i) or [] for i, f in enumerate(parsed)]
        indices = [[i, j] for i, row in enumerate(rows) for j in range(len(row))]
        values = np.empty(len(indices), dtype=dtype.np_dtype)
        values[:] = [v for row in rows for v in row] if dtype is not dtypes.string else \
            _objects([v for row in rows for v in row])
        width = max((len(r) for r in rows), default=0)
        idx = np.asarray(indices, dtype=np.int64).reshape(-1, 2)
        if single:
            outputs += [idx[:, 1:], values, np.asarray([width], np.int64)]
        else:
            outputs += [idx, values, np.asarray([len(rows), width], np.int64)]
    for key, dtype, shape, default in zip(dense_keys, dense_types, dense_shapes, defaults):
        size = int(np.prod(shape)) if shape else 1
        column = np.empty((len(parsed),) + tuple(shape), dtype=dtype.np_dtype)
        for i, f in enumerate(parsed):
            values = _values(f, key, dtype, "Example %d" % i)
            if values is None:
                if np.size(default) == 0:
                    raise ValueError("Example %d: Feature: %s (data type: %s) is required but "
                                     "could not be found." % (i, key, dtype.name))
                column[i] = np.broadcast_to(default, shape)
                continue
            if len(values) != size:
                raise ValueError("Example %d: Key: %s.  Can't parse serialized Example: "
                                 "the feature has %d values where its shape %s needs %d"
                                 % (i, key, len(values), list(shape), size))
            column[i] = np.reshape(_objects(values) if dtype is dtypes.string else
                                   np.asarray(values, dtype.np_dtype), shape)
        outputs.append(column[0] if single else column)
    return tuple(outputs) if len(outputs) != 1 else outputs[0]  # one output: itself


def _objects(items):
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _parse_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "serialized")
    single = attrs["single"]
    if shape is not None and len(shape) != (0 if single else 1):
        raise SpecError("shape", "serialized must be a %s" % (
            "scalar string (parse_single_example)" if single else
            "vector of strings (parse_example)"))
    batch = None if single or shape is None else shape[0]
    out = []
    for t in attrs["sparse_types"]:
        out += [(dtypes.int64, (None, 1 if single else 2)), (t, (None,)),
                (dtypes.int64, (1 if single else 2,))]
    for t, s in zip(attrs["dense_types"], attrs["dense_shapes"]):
        out.append((t, tuple(s) if single else (batch,) + tuple(s)))
    return out


OPS["ParseExample"] = register("ParseExample", _parse_kernel, _parse_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               traits=("host_only", "may_raise"))


def parse_components(serialized, features, single):
    """The parsed features: {key: tensor} for FixedLenFeatures and {key: (indices, values,
    dense_shape)} for VarLenFeatures."""
    if not isinstance(features, dict) or not features:
        raise TypeError("parse_example: features must be a non-empty dict of "
                        "FixedLenFeature/VarLenFeature, got %r" % (features,))
    sparse = sorted(k for k, f in features.items() if isinstance(f, VarLenFeature))
    dense = sorted(k for k, f in features.items() if isinstance(f, FixedLenFeature))
    others = [k for k in features if k not in sparse and k not in dense]
    if others:
        raise TypeError("parse_example: feature %r is %r; FixedLenFeature and VarLenFeature "
                        "are supported" % (others[0], features[others[0]]))
    defaults = []
    for k in dense:
        f = features[k]
        if f.default_value is None:
            defaults.append(convert_to_tensor(np.zeros([0], f.dtype.np_dtype)
                                              if f.dtype is not dtypes.string else
                                              np.zeros([0], object), dtype=f.dtype))
        else:
            d = convert_to_tensor(f.default_value, dtype=f.dtype)
            if d.shape.rank not in (0, None) and tuple(d.shape.as_list()) != f.shape:
                raise ValueError("parse_example: the default of %r has shape %s, not the "
                                 "feature's %s" % (k, d.shape.as_list(), list(f.shape)))
            defaults.append(d)
    attrs = {"sparse_keys": tuple(sparse),
             "sparse_types": tuple(features[k].dtype for k in sparse),
             "dense_keys": tuple(dense),
             "dense_types": tuple(features[k].dtype for k in dense),
             "dense_shapes": tuple(features[k].shape for k in dense),
             "single": bool(single)}
    outs = execute(OPS["ParseExample"], [convert_to_tensor(serialized)] + defaults, attrs)
    result: dict[Any, Any] = {}
    for i, k in enumerate(sparse):
        result[k] = tuple(outs[3 * i:3 * i + 3])
    for i, k in enumerate(dense):
        result[k] = outs[3 * len(sparse) + i]
    return result

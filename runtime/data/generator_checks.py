"""`Dataset.from_generator`: the declared element structure, and the checks and
conversions of what the generator yields against it (errors name the element and the
component that does not match).
"""

import numpy as np

from runtime import dtypes, errors
from runtime import shape as shape_lib
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.data.structure import is_sortable, path_text, spec_text
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, to_numpy


def python_arg(value):
    """A generator argument as the generator gets it: a Python object, not a 0-d array."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 and \
        value.dtype == object else value


def check_spec(value, path):
    """`value`, a leaf of `output_signature`, when it is a TensorSpec or a
    SparseTensorSpec."""
    if not isinstance(value, (TensorSpec, SparseTensorSpec)):
        raise TypeError("from_generator: output_signature must hold tf.TensorSpec objects, "
                        "got %r at %s" % (value, path_text(path)))
    return value


def specs_from_types(types, shapes, path=()):
    """The TensorSpecs for an `output_types` structure and its `output_shapes`."""
    if isinstance(types, list):
        types = tuple(types)
    if isinstance(types, dict):
        if shapes is not None and (not isinstance(shapes, dict) or set(shapes) != set(types)):
            raise TypeError("from_generator: output_shapes %r does not match the structure of "
                            "output_types %r" % (shapes, types))
        rebuilt = {k: specs_from_types(types[k], None if shapes is None else shapes[k],
                                        path + (k,)) for k in types}
        return rebuilt if type(types) is dict else type(types)(rebuilt)
    if isinstance(types, tuple):
        if shapes is not None and (not isinstance(shapes, (tuple, list)) or
                                   len(shapes) != len(types)):
            raise TypeError("from_generator: output_shapes %r does not match the structure of "
                            "output_types %r" % (shapes, types))
        items = [specs_from_types(t, None if shapes is None else shapes[i], path + (i,))
                 for i, t in enumerate(types)]
        return type(types)(*items) if hasattr(type(types), "_fields") else tuple(items)
    try:
        dtype = dtypes.as_dtype(types)
    except TypeError as e:
        raise TypeError("from_generator: output_types at %s: %s" % (path_text(path), e)) \
            from None
    return TensorSpec(shapes, dtype)


def convert_element(value, spec, path, index, element, out):
    """Appends the components of a generated `value` (matching `spec`) to `out`."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            _structure_error(index, element, spec)
        for k in (sorted(spec) if is_sortable(spec) else sorted(spec, key=repr)):
            convert_element(value[k], spec[k], path + (k,), index, element, out)
        return
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            _structure_error(index, element, spec)
        for i, (v, s) in enumerate(zip(value, spec)):
            convert_element(v, s, path + (i,), index, element, out)
        return
    if isinstance(spec, SparseTensorSpec):
        out.extend(_convert_sparse(value, spec, path, index, element))
        return
    out.append(_convert_component(value, spec, path, index, element))


def _convert_sparse(value, spec, path, index, element):
    """The three components of a yielded SparseTensor, checked against `spec`."""
    if not isinstance(value, SparseTensor) or not isinstance(value.values, EagerTensor):
        raise errors.InvalidArgumentError(
            "from_generator: %s is a %s where a SparseTensor was expected"
            % (_where(index, element, path), type(value).__name__), "IteratorGetNext")
    rank = None if spec._shape is None else len(spec._shape)
    indices, values, dense_shape = (c.numpy() for c in value._to_components())
    values = _convert_component(values, TensorSpec([None], spec.dtype), path, index, element)
    if not shape_lib.is_compatible(spec._shape, tuple(dense_shape.tolist())):
        raise errors.InvalidArgumentError(
            "from_generator: %s has dense shape %s where %s was expected"
            % (_where(index, element, path), dense_shape.tolist(),
               shape_lib.to_string(spec._shape)), "IteratorGetNext")
    return [np.reshape(indices, (-1, len(dense_shape) if rank is None else rank)), values,
            dense_shape]


def _where(index, element, path):
    text = "element %d (%r) yielded by the generator" % (index, element)
    if path:
        text += ", component %s," % path_text(path)
    return text


def _structure_error(index, element, spec):
    raise errors.InvalidArgumentError(
        "from_generator: %s does not match the expected structure %s"
        % (_where(index, element, ()), spec_text(spec)), "IteratorGetNext")


_KINDS_INTO = {"float": "biuf", "int": "biu", "bool": "b", "string": "SUO"}


def _convert_component(value, spec, path, index, element):
    dtype = spec.dtype
    if isinstance(value, EagerTensor):
        value = value._value
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in _KINDS_INTO[dtype.kind]:
            raise errors.InvalidArgumentError(
                "from_generator: %s has dtype %s where %s was expected"
                % (_where(index, element, path), value.dtype, dtype.name), "IteratorGetNext")
        if dtype is dtypes.string:
            array = to_numpy(value, dtype)[0]
        else:
            array = np.asarray(value, dtype=dtype.np_dtype)
    else:
        try:
            array = to_numpy(value, dtype)[0]
        except TypeError as e:
            raise errors.InvalidArgumentError(
                "from_generator: %s could not be converted to %s: %s"
                % (_where(index, element, path), dtype.name, e), "IteratorGetNext") from None
    if not shape_lib.is_compatible(spec._shape, array.shape):
        raise errors.InvalidArgumentError(
            "from_generator: %s has shape %s where %s was expected"
            % (_where(index, element, path), shape_lib.to_string(array.shape),
               shape_lib.to_string(spec._shape)), "IteratorGetNext")
    return array

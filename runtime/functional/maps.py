"""TensorFlow's higher-order functions over the first dimension of tensors: `map_fn`,
`scan`, `foldl`, `foldr` and `vectorized_map`.

Each is one loop, built on `tf.while_loop` (runtime.functional.control_flow): the elements are
read from TensorArrays unstacked from `elems`, and the per-step results written to
TensorArrays stacked at the end. Eagerly the loop runs in Python on eager tensors (a
GradientTape records its ops); inside a trace it is one While op whatever the number of
elements, and gradients flow through it as through any staged loop.

    tf.scan(lambda acc, x: acc + x, elems)      # elems = [1, 2, 3]  ->  [1, 3, 6]

`elems` may be a nested structure of tensors with the same first dimension; `fn` receives
one slice of each, in that structure. Inside a trace `fn` is converted by the converter of
the Function being traced (as TensorFlow converts it with AutoGraph), so that `if` and
loops on tensors in `fn` are staged.
"""

from typing import Any

from runtime import context, dtypes, nest, subgraphs
from runtime import shape as shape_lib
from runtime.composite.base import CompositeTensor
from runtime.composite.ragged import RaggedTensor
from runtime.data.element_functions import convert
from runtime.functional import control_flow
from runtime.operators import staging
from runtime.ops import array_ops, common, math_ops
from runtime.signature import TensorSpec
from runtime.tensor import Tensor
from runtime.tensor_array import TensorArray


class _Elems:
    """The leaves of `elems` flattened and checked: tensors unstacked into TensorArrays,
    RaggedTensors read row by row (a row is a dense tensor, as TensorFlow's map_fn gives)."""

    def __init__(self, elems, what):
        self.structure = elems
        self.flat = [_leaf(t, what) for t in nest.flatten(elems, expand_composites=False)]
        if not self.flat:
            staging.fail(ValueError, "%s needs at least one tensor in elems" % what)
        self.has_rows = any(isinstance(t, RaggedTensor) for t in self.flat)
        for t in self.flat:
            shape = t._shape_tuple()
            if shape is not None and len(shape) == 0:
                staging.fail(ValueError, "%s: elems must be 1+ dimensional tensors, not "
                             "scalars (got a %s scalar)" % (what, t.dtype.name))
        self.length = self._length(what)
        self.arrays = [t if isinstance(t, RaggedTensor) else
                       TensorArray(t.dtype, size=self.length, element_shape=_rest(t)).unstack(t)
                       for t in self.flat]

    def _length(self, what):
        known = {n for n in map(_first_dimension, self.flat) if n is not None}
        if len(known) > 1:
            staging.fail(ValueError, "%s: all tensors in elems must have the same first "
                         "dimension, got %s" % (what, " and ".join(str(n) for n in sorted(known))))
        if known:
            return common.convert_to_tensor(known.pop(), dtype=dtypes.int32)
        first = self.flat[0]
        if isinstance(first, RaggedTensor):
            return math_ops.cast(first.nrows(), dtypes.int32)
        return array_ops.shape(first)[0]

    def element(self, index):
        """Element `index` of every leaf, in the structure of `elems`."""
        return nest.pack_sequence_as(
            self.structure,
            [rows[index] if isinstance(rows, RaggedTensor) else rows.read(index)
             for rows in self.arrays], expand_composites=False)

    def require_dense_rows(self, what):
        """Refuses elems holding a RaggedTensor whose rows are ragged themselves (ragged
        rank above 1) where the result's signature would be taken from elems."""
        if any(isinstance(t, RaggedTensor) and t.ragged_rank > 1 for t in self.flat):
            staging.fail(TypeError, "%s over a RaggedTensor of ragged rank above 1 needs "
                         "fn_output_signature (its rows are RaggedTensors)" % what)

    def require_dense(self, what, needed):
        """Refuses elems holding a RaggedTensor where the result's signature would be taken
        from elems (it has to be given: `needed`)."""
        if self.has_rows:
            staging.fail(TypeError, "%s over a RaggedTensor needs %s (its rows are dense "
                         "tensors of varying lengths, not slices of elems)" % (what, needed))

    def dtypes(self):
        """Specs with the dtypes of `elems` and any shape: `map_fn`'s default signature
        (as TensorFlow's, which takes only the structure and dtypes of `elems`); a
        RaggedTensor whose rows are dense gives `_RaggedRows`: fn returns one row of a
        RaggedTensor of its dtype."""
        return [_RaggedRows(t.dtype) if isinstance(t, RaggedTensor) else
                TensorSpec(None, t.dtype) for t in self.flat]


class _RaggedRows:
    """A result leaf collected as the rows of a RaggedTensor (`map_fn` over a RaggedTensor
    without `fn_output_signature`): each row (rank 1 or more, of `dtype`) written to a
    TensorArray of varying lengths, and its length to another; the result is their concat
    split by those lengths, as TensorFlow's map_fn assembles it."""

    def __init__(self, dtype):
        self.dtype = dtype
        self._shape = None

    def __repr__(self):
        return "a row of a %s RaggedTensor" % self.dtype.name

    def arrays(self, length):
        """(the rows' TensorArray, their lengths' TensorArray)."""
        return (TensorArray(self.dtype, size=length, infer_shape=False),
                TensorArray(dtypes.int64, size=length, element_shape=()))

    def write(self, arrays, index, row, what):
        """`arrays` with `row` (a dense tensor returned by fn) written at `index`."""
        shape = row._shape_tuple()
        if shape is not None and len(shape) == 0:
            staging.fail(ValueError, "%s over a RaggedTensor: fn returned a scalar where a "
                         "row of the ragged result (rank 1 or more) is expected; give "
                         "fn_output_signature for other results" % what)
        rows, lengths = arrays
        length = math_ops.cast(array_ops.shape(row)[0], dtypes.int64)
        return rows.write(index, row), lengths.write(index, length)

    def result(self, arrays):
        """The RaggedTensor of the rows written."""
        rows, lengths = arrays
        return RaggedTensor.from_row_lengths(rows.concat(), lengths.stack())


def _leaf(value: Any, what: str) -> Tensor | RaggedTensor:
    """One leaf of elems: a tensor, or a composite read by rows (a RaggedTensor)."""
    if isinstance(value, CompositeTensor):
        if not isinstance(value, RaggedTensor):  # the composite that has rows
            staging.fail(TypeError, "%s: elems may not hold a %s (it has no rows to map "
                         "over); convert it to a dense tensor first"
                         % (what, type(value).__name__))
        return value
    return common.convert_to_tensor(value)


def _first_dimension(leaf: Tensor | RaggedTensor) -> int | None:
    shape = leaf._shape_tuple()
    return None if shape is None else shape[0]


def _rest(tensor):
    shape = tensor._shape_tuple()
    return None if shape is None else shape[1:]


def _as_spec(signature, what):
    if isinstance(signature, TensorSpec):
        return signature
    try:
        return TensorSpec(None, dtypes.as_dtype(signature))
    except (TypeError, ValueError, KeyError):
        staging.fail(TypeError, "%s: fn_output_signature must hold dtypes or TensorSpecs, "
                     "got %r" % (what, signature))


def _check_leaf(value, spec, what, role):
    """`value` (one leaf of fn's result) as a tensor of the spec's dtype and shape."""
    if isinstance(value, Tensor):
        tensor = value
    else:
        tensor = common.convert_to_tensor(value, dtype_hint=spec.dtype)
    if tensor.dtype is not spec.dtype:
        staging.fail(TypeError, "%s: fn returned a %s tensor where %s says %s"
                     % (what, tensor.dtype.name, role, spec.dtype.name))
    if not shape_lib.is_compatible(spec._shape, tensor._shape_tuple()):
        staging.fail(ValueError, "%s: fn returned a tensor of shape %s where %s says %s"
                     % (what, shape_lib.to_string(tensor._shape_tuple()), role,
                        shape_lib.to_string(spec._shape)))
    return tensor


def _flat_result(structure, value, specs, what, role):
    try:
        nest.assert_same_structure(structure, value, check_types=False)
    except (ValueError, TypeError) as e:
        staging.fail(type(e), "%s: fn's result does not match the structure of %s: %s"
                     % (what, role, e))
    return [_check_leaf(v, s, what, role) for v, s in zip(nest.flatten(value), specs)]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each slice of `elems` along the first dimension; the results stacked.

    The results have the structure and dtypes of `fn_output_signature` (dtypes or
    TensorSpecs, possibly nested; `dtype` is its older name), or of `elems` when neither is
    given. Zero-length `elems` give zero-length results."""
    what = "map_fn"
    fn = converted(fn)
    elements = _Elems(elems, what)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        elements.require_dense_rows(what)
        out_structure, out_specs = elems, elements.dtypes()
    else:
        out_structure = signature
        out_specs = [_as_spec(s, what) for s in nest.flatten(signature)]
    role = "fn_output_signature" if signature is not None else "elems"
    if any(isinstance(spec, _RaggedRows) for spec in out_specs):
        return _map_to_rows(fn, elements, out_structure, out_specs, what, back_prop)
    arrays = [_output_array(spec, elements.length, infer_shape) for spec in out_specs]

    def body(i, arrays):
        result = fn(elements.element(i))
        flat = _flat_result(out_structure, result, out_specs, what, role)
        return i + 1, [ta.write(i, v) for ta, v in zip(arrays, flat)]

    _, arrays = control_flow.while_loop(lambda i, _: i < elements.length, body,
                                      (_zero(), arrays))
    if _empty(elements.length) and not all(_fully_known(ta.element_shape) for ta in arrays):
        # fn never ran: trace it to learn the shape of the zero rows
        traced = _traced_signature(fn, elements)
        _flat_result(out_structure, nest.map_structure(_zeros_of, traced), out_specs, what,
                     role)
        arrays = [_output_array(t, elements.length, infer_shape) for t in nest.flatten(traced)]
    return _results(out_structure, [ta.stack() for ta in arrays], back_prop)


def _map_to_rows(fn, elements, structure, specs, what, back_prop):
    """map_fn over elems holding RaggedTensors, without fn_output_signature: fn's result
    for a ragged leaf is a row of a ragged result, for a dense leaf a slice of a stacked
    one."""
    structure = nest.pack_sequence_as(structure, specs, expand_composites=False)
    arrays = [spec.arrays(elements.length) if isinstance(spec, _RaggedRows) else
              _output_array(spec, elements.length, True) for spec in specs]

    def body(i, arrays):
        result = fn(elements.element(i))
        flat = _flat_result(structure, result, specs, what, "elems")
        return i + 1, [spec.write(ta, i, v, what) if isinstance(spec, _RaggedRows)
                       else ta.write(i, v) for spec, ta, v in zip(specs, arrays, flat)]

    _, arrays = control_flow.while_loop(lambda i, _: i < elements.length, body,
                                        (_zero(), arrays))
    flat = [spec.result(ta) if isinstance(spec, _RaggedRows) else ta.stack()
            for spec, ta in zip(specs, arrays)]
    return _results(structure, flat, back_prop)


def _results(structure, flat, back_prop):
    """The results in `structure`; with `back_prop=False` (TensorFlow's deprecated switch)
    no gradient flows back through them."""
    if not back_prop:
        flat = [array_ops.stop_gradient(t) for t in flat]
    return nest.pack_sequence_as(structure, list(flat))


def converted(fn):
    """`fn` as the Function being traced converts the functions it hands to the runtime
    (unchanged outside a trace, where it runs on eager tensors as written)."""
    if context.current_graph() is None:
        return fn
    return convert(fn)


def _zero():
    return common.convert_to_tensor(0, dtype=dtypes.int32)


def _output_array(spec, length, infer_shape):
    return TensorArray(spec.dtype, size=length, element_shape=spec._shape,
                       infer_shape=infer_shape)


def _accumulate(fn, elems, initializer, reverse, collect, what):
    """The loop behind scan and the folds: `acc = fn(acc, x)` over the elements (from the
    last with `reverse`), starting from `initializer` or else from the first element
    visited. Returns (final acc, TensorArrays of the accs per element or None)."""
    fn = converted(fn)
    elements = _Elems(elems, what)
    length = elements.length
    last = length - 1
    if initializer is None:
        elements.require_dense(what, "an initializer")
        _require_nonempty(length, what)
        start = elements.element(last if reverse else 0)
        first_step = 1
    else:
        start = initializer
        first_step = 0
    acc_structure = start
    acc_flat = [common.convert_to_tensor(t) for t in nest.flatten(start)]
    acc_specs = [TensorSpec(None, t.dtype) for t in acc_flat]
    arrays = None
    if collect:
        arrays = [_output_array(TensorSpec(t._shape_tuple(), t.dtype), length, True)
                  for t in acc_flat]
        if initializer is None:
            arrays = [ta.write(last if reverse else 0, t) for ta, t in zip(arrays, acc_flat)]

    def body(step, acc, arrays):
        index = last - step if reverse else step
        value = fn(nest.pack_sequence_as(acc_structure, acc), elements.element(index))
        flat = _flat_result(acc_structure, value, acc_specs, what, "the accumulator")
        if arrays is not None:
            arrays = [ta.write(index, v) for ta, v in zip(arrays, flat)]
        return step + 1, flat, arrays

    def fold_body(step, acc):
        return body(step, acc, None)[:2]

    start_step = _zero() + first_step
    if collect:
        final = control_flow.while_loop(lambda step, *_: step < length, body,
                                      (start_step, acc_flat, arrays))
    else:
        final = control_flow.while_loop(lambda step, *_: step < length, fold_body,
                                      (start_step, acc_flat))
    return nest.pack_sequence_as(acc_structure, final[1]), (final[2] if collect else None)


def _empty(length):
    """True when `length` is known (eager, or static) to be 0."""
    value = common.constant_value(length)
    return value is not None and int(value) == 0


def _fully_known(shape):
    return shape.rank is not None and None not in shape.as_list()


def _require_nonempty(length, what):
    if _empty(length):
        staging.fail(ValueError, "%s: elems has no elements and no initializer was given" % what)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The accumulators `acc = fn(acc, x)` for each slice `x` of `elems`, stacked.

    `acc` starts as `initializer` or, without one, as the first slice (which is then the
    first result). With `reverse`, the slices are visited from the last, and result `i`
    still belongs to slice `i`."""
    _, arrays = _accumulate(fn, elems, initializer, bool(reverse), True, "scan")
    structure = initializer if initializer is not None else elems
    return _results(structure, [ta.stack() for ta in arrays], back_prop)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The last accumulator of `acc = fn(acc, x)` over the slices of `elems`, first to last
    (`acc` starts as `initializer`, or as the first slice)."""
    final = _accumulate(fn, elems, initializer, False, False, "foldl")[0]
    return _results(final, nest.flatten(final), back_prop)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """As `foldl`, visiting the slices from last to first (`acc` starts as `initializer`,
    or as the last slice)."""
    final = _accumulate(fn, elems, initializer, True, False, "foldr")[0]
    return _results(final, nest.flatten(final), back_prop)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` applied to each slice of `elems`, the results stacked (TensorFlow's parallel
    map), with the results' structure and dtypes those of `fn`'s result. Nothing is
    vectorised: eagerly `fn` runs once per slice, and inside a trace the map is one loop
    (`map_fn`, its result signature found by tracing `fn` once on its own); so
    `fallback_to_while_loop` and `warn` are accepted for compatibility only."""
    fn = converted(fn)
    elements = _Elems(elems, "vectorized_map")
    if not staging.is_symbolic(elements.flat[0]):
        count = int(common.constant_value(elements.length))
        if count == 0:
            staging.fail(ValueError, "vectorized_map: elems has no elements, so the "
                         "result's structure is unknown (use map_fn with fn_output_signature)")
        results = [fn(elements.element(i)) for i in range(count)]
        return nest.map_structure(lambda *slices: common.stack(list(slices)), *results)
    return map_fn(fn, elems, fn_output_signature=_traced_signature(fn, elements))


def _traced_signature(fn, elements):
    """The specs of `fn`'s result (nested as it is), traced on its own on placeholders
    for one element of each of `elements`' tensors (`fn`'s trace-time Python side effects
    run once more)."""
    elements.require_dense("vectorized_map", "map_fn with fn_output_signature")
    specs = [(t.dtype, _rest(t)) for t in elements.flat]
    fn = fn if context.current_graph() is not None else convert(fn)
    _, result = subgraphs.trace_subgraph(
        "map_signature", lambda *ph: fn(nest.pack_sequence_as(elements.structure, list(ph))),
        specs)
    return nest.map_structure(_spec_of, result)


def _zeros_of(spec):
    """Zeros standing for a traced result (its shape's unknown dimensions as 0)."""
    return array_ops.zeros([d or 0 for d in spec._shape or ()], spec.dtype)


def _spec_of(value):
    tensor = common.convert_to_tensor(value)
    return TensorSpec(tensor._shape_tuple(), tensor.dtype)

"""TensorFlow's multi-way branches: `switch_case` (on an integer index) and `case` (on a
list of predicates), built on `tf.cond` (runtime.functional.control_flow).

A Python or eager index (or predicate) picks the branch in Python: only that branch runs.
A symbolic one stages a chain of If ops, each choosing between one branch and the rest:

    switch_case(i, [f0, f1, f2])   ->   cond(i == 0, f0, lambda: cond(i == 1, f1, f2))

so every branch is traced once, and gradients flow through the If ops as through `tf.cond`.
"""

from runtime import dtypes
from runtime.functional import control_flow
from runtime.functional.maps import converted
from runtime.operators import staging
from runtime.ops import common, io_ops, math_ops, reduction_ops


def _branches(branch_fns):
    """The branch functions by index 0..n-1 from a list of callables, a list of
    (index, callable) pairs or a dict {index: callable}."""
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    else:
        branch_fns = list(branch_fns)
        if all(callable(fn) for fn in branch_fns):
            pairs = list(enumerate(branch_fns))
        else:
            pairs = branch_fns
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and callable(pair[1])):
            staging.fail(TypeError, "switch_case: branch_fns must be a list of callables, a "
                         "list of (int, callable) pairs or a dict of them, got %r" % (pair,))
        if not isinstance(pair[0], int) or isinstance(pair[0], bool):
            staging.fail(TypeError, "switch_case: branch indices must be ints, got %r"
                         % (pair[0],))
    keys = sorted(key for key, _ in pairs)
    if not pairs:
        staging.fail(ValueError, "switch_case: branch_fns must not be empty")
    if keys != list(range(len(pairs))):
        staging.fail(ValueError, "switch_case: branch indices must form the range [0, %d), "
                     "got %s" % (len(pairs), keys))
    return [converted(fn) for _, fn in sorted(pairs, key=lambda pair: pair[0])]


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of `branch_fns[branch_index]()`; an index outside [0, len(branch_fns))
    runs `default` (the last branch when `default` is None).

    `branch_fns` is a list of callables, a list of (int, callable) pairs or a dict
    {int: callable}, the indices 0..n-1. Every branch must return the same structure of
    tensors of the same dtypes (as `tf.cond`'s branches)."""
    fns = _branches(branch_fns)
    if default is not None and not callable(default):
        staging.fail(TypeError, "switch_case: default must be callable, got %r" % (default,))
    fallback = converted(default) if default is not None else fns[-1]
    index = staging.as_condition(branch_index)
    if not staging.is_symbolic(index):
        value = common.convert_to_tensor(index)
        _require_int_scalar(value)
        position = int(value.numpy())
        return fns[position]() if 0 <= position < len(fns) else fallback()
    _require_int_scalar(index)
    chosen = fns if default is not None else fns[:-1]

    def pick(position):
        if position == len(chosen):
            return fallback()
        return control_flow.cond(math_ops.equal(index, position), chosen[position],
                               lambda: pick(position + 1))
    return pick(0)


def _require_int_scalar(index):
    if index.dtype not in (dtypes.int32, dtypes.int64):
        staging.fail(TypeError, "switch_case: branch_index must be an int32 or int64 tensor, "
                     "got %s" % index.dtype.name)
    if index._shape_tuple() not in ((), None):
        staging.fail(ValueError, "switch_case: branch_index must be a scalar, got shape %s"
                     % (list(index._shape_tuple()),))


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the function paired with the first true predicate, else `default()`.

    `pred_fn_pairs` is a list of (bool scalar, callable) pairs. With `exclusive`, more
    than one true predicate is an InvalidArgumentError. Without `default`, the last pair's
    function is the default, and it is an InvalidArgumentError when no predicate holds."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    if not pairs:
        staging.fail(ValueError, "case: pred_fn_pairs must not be empty")
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and callable(pair[1])):
            staging.fail(TypeError, "case: pred_fn_pairs must be (predicate, callable) pairs, "
                         "got %r" % (pair,))
    if default is not None and not callable(default):
        staging.fail(TypeError, "case: default must be callable, got %r" % (default,))
    preds = [_predicate(pred) for pred, _ in pairs]
    fns = [converted(fn) for _, fn in pairs]
    default = converted(default) if default is not None else None
    if exclusive and len(preds) > 1:
        _check_at_most_one(preds)
    if default is None:
        _check_any(preds)
        preds, fns, default = preds[:-1], fns[:-1], fns[-1]

    def pick(position):
        if position == len(preds):
            return default()
        return control_flow.cond(preds[position], fns[position], lambda: pick(position + 1))
    return pick(0)


def _predicate(pred):
    pred = staging.as_condition(pred)
    if isinstance(pred, (bool, int)) or not staging.is_symbolic(pred) and not hasattr(
            pred, "dtype"):
        return bool(pred)
    pred = common.convert_to_tensor(pred)
    if pred.dtype is not dtypes.bool_ or pred._shape_tuple() not in ((), None):
        staging.fail(TypeError, "case: each predicate must be a scalar bool, got a %s tensor "
                     "of shape %s" % (pred.dtype.name, pred._shape_tuple()))
    return pred


def _as_bools(preds):
    return reduction_ops.reduce_sum(math_ops.cast(
        common.stack([common.convert_to_tensor(p) for p in preds]), dtypes.int32))


def _check_at_most_one(preds):
    count = _as_bools(preds)
    io_ops.assert_that(count <= 1, [count], "case: exclusive=True, but more than one "
                       "predicate is true; count of true predicates")


def _check_any(preds):
    count = _as_bools(preds)
    io_ops.assert_that(count >= 1, [], "case: none of the predicates is true and no default "
                       "was given")

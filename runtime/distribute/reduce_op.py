"""`tf.distribute.ReduceOp`: how the values of several replicas combine into one."""

import enum

import numpy as np

from runtime.ops import common, math_ops
from runtime.variables import VariableAggregation


class ReduceOp(enum.Enum):
    """SUM adds the replicas' values; MEAN averages them."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp of a VariableAggregation (SUM or MEAN); ValueError for others."""
        if aggregation is VariableAggregation.SUM:
            return ReduceOp.SUM
        if aggregation is VariableAggregation.MEAN:
            return ReduceOp.MEAN
        raise ValueError("Could not convert from `tf.VariableAggregation` %s to "
                         "`tf.distribute.ReduceOp` type" % (aggregation,))


def as_reduce_op(value):
    """`value` (a ReduceOp, or its name such as "SUM" or "mean") as a ReduceOp."""
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str) and value.upper() in ReduceOp.__members__:
        return ReduceOp[value.upper()]
    raise ValueError("reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or 'SUM', "
                     "'MEAN'), got %r" % (value,))


def combine(reduce_op, values):
    """The tensor that `reduce_op` makes of `values` (one tensor per replica, same shape)."""
    reduce_op = as_reduce_op(reduce_op)
    tensors = [common.convert_to_tensor(v) for v in values]
    total = tensors[0] if len(tensors) == 1 else math_ops.add_n(tensors)
    if reduce_op is ReduceOp.MEAN and len(tensors) > 1:
        count = common.convert_to_tensor(np.asarray(len(tensors), total.dtype.np_dtype))
        return total // count if total.dtype.is_integer else total / count
    return total

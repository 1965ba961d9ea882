"""Elementwise ops applied to composite tensors (a RaggedTensor): the small dispatch that
lets `tf.math.exp(rt)`, `rt + 1` and `tf.add(rt, rt)` work.

A composite class registered here provides
  * `_elementwise_unary(api, *args, **kwargs)`: `api` applied to its stored values;
  * `_elementwise_binary(api, x, y, **kwargs)`: `api` applied to the values of the operands,
    one of which is an instance of the class (the other a composite of the same partitioning,
    or a dense tensor or Python value that broadcasts against the values).
The elementwise APIs of runtime.ops.math_ops check `TYPES` first: one set lookup per call.
"""

TYPES: set[type] = set()


def register_elementwise(cls: type) -> type:
    """Routes the elementwise ops on instances of `cls` to its methods; returns `cls`."""
    TYPES.add(cls)
    return cls


def unary(api, x, *args, **kwargs):
    """`api(x, ...)` for a composite `x`."""
    return x._elementwise_unary(api, *args, **kwargs)


def binary(api, x, y, **kwargs):
    """`api(x, y, ...)` where `x` or `y` is a composite."""
    composite = x if type(x) in TYPES else y
    return composite._elementwise_binary(api, x, y, **kwargs)

"""Gradients of the TensorArray ops: how gradient arrays add up and start from zero (their
rules are declared with the ops, in runtime/tensor_array/ops.py and grad_ops.py).

The gradient of a TensorArray handle is another handle: a *gradient array* of the same
size whose element i is the gradient of element i (an unwritten element is zero). So a
handle's gradient flows through loops and branches like any loop variable, and gradients
of one handle are summed element by element (`TensorArrayGradAdd`).

    op                                  gradient
    write(h, i, v) -> h'                dv = G'[i], dh = G' with element i cleared
    read(h, i) -> v                     dh = an array like h holding g at i
    stack(h) -> values                  dh = an array like h holding the rows of g
    concat(h) -> values                 dh = an array like h holding g split at h's lengths
    unstack(h, values) -> h'            dvalues = G'[0..n) stacked, dh = G' with those cleared
    gather(h, indices) -> values        dh = an array like h with g[k] added at indices[k]
    scatter(h, indices, values) -> h'   dvalues = G'[indices] stacked, dh = G' with those cleared

Each gradient is one small op (runtime/tensor_array/grad_ops.py; zeros stand in for
unwritten elements of a gradient array), with the array's run-time `TensorArrayValue` as its
value.
"""


from runtime.gradients.backprop import register_adder, register_value_rules, register_zeros
from runtime.ops.registry import execute1
from runtime.tensor_array.grad_ops import (
    ZEROS_LIKE,
    add_arrays,
    add_gradient_arrays,
    zeros_like_array,
)
from runtime.tensor_array.value import TensorArrayValue


def zeros_like_handle(handle):
    """A gradient array of zeros for TensorArray handle `handle`."""
    return execute1(ZEROS_LIKE, [handle])


register_adder("variant", add_gradient_arrays)
register_zeros("variant", zeros_like_handle)
register_value_rules(TensorArrayValue, zeros_like_array, add_arrays)

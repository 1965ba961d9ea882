"""The op library: every op is declared in a module of this package, with all its rules.

Importing the package registers the ops of the tensor API (the TensorArray ops included,
declared in runtime/tensor_array/ops.py) and installs tensor operators; the modules declaring
the ops of calls (call_ops), staged control flow (control_flow_ops), variables
(variable_ops) and gradients (gradient_ops) are imported by the runtime modules that build
those ops.
"""

from runtime.ops import (
    array_ops,
    check_ops,
    collective_ops,
    concat_split_ops,
    construction_ops,
    conv_ops,
    cumulative_ops,
    data_ops,
    dependency_ops,
    einsum_ops,
    fft_ops,
    image_ops,
    io_ops,
    layout_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    norm_ops,
    parsing_ops,
    py_function_ops,
    random_ops,
    reduction_ops,
    registry,
    reshape_ops,
    scatter_ops,
    segment_ops,
    selection_ops,
    slicing,
    sort_ops,
    string_ops,
    summary_ops,
    tensor_operators,
    while_grad_ops,
)
from runtime.tensor_array import ops as tensor_array_ops

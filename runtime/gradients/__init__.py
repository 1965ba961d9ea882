"""Automatic differentiation: `GradientTape` and the gradient rule of every op.

Each op declares its gradient decision where it is declared (runtime/ops); most rules live
here, written with the ops API, and are named by their op's declaration ('module:rule'):
  math_grads          arithmetic, reductions, matmul, softmax
  array_grads         reshaping, joining, slicing, gathering, variable reads
  control_flow_grads  If and While (a WhileGrad op replays the loop and runs its body's VJP)
  function_grads      PartitionedCall and eager Function calls (a gradient function per trace)
  tensor_array_grads  TensorArray ops (a handle's gradient is a TensorArray of gradients)
  py_function_grads   py_function (the Python function's own tape, kept from its run)
  custom_gradient     tf.custom_gradient (the CustomGradient op calls the user's grad_fn)
  while_grad_grads    WhileGrad (second-order gradients through loops)
  residuals           forward values a gradient is fed instead of computing them again
  backprop            the one reverse-mode algorithm, over eager records or graph nodes
  inliner             re-emits a forward graph's nodes into a gradient graph, on demand
  tape                GradientTape
"""

from runtime.gradients import (
    array_grads,
    control_flow_grads,
    custom_gradient,
    function_grads,
    math_grads,
    py_function_grads,
    tensor_array_grads,
    while_grad_grads,
)
from runtime.gradients.tape import GradientTape, UnconnectedGradients

__all__ = ["GradientTape", "UnconnectedGradients"]

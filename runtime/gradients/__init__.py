"""Automatic differentiation: `GradientTape` and the gradient rule of every op.

Importing the package declares the rules (`op.grad` in the op registry, one per op):
  grad_ops            helper ops the rules use (SumToShape, ReduceGrad, ...), with their rules
  math_grads          arithmetic, reductions, matmul, softmax
  array_grads         reshaping, joining, slicing, gathering, variable reads
  control_flow_grads  If and While (a WhileGrad op replays the loop and runs its body's VJP)
  function_grads      PartitionedCall and eager Function calls (a gradient function per trace)
  tensor_array_grads  TensorArray ops (a handle's gradient is a TensorArray of gradients)
  py_function_grads   py_function (the Python function's own tape, kept from its run)
  while_grad_grads    WhileGrad (second-order gradients through loops)
  residuals           forward values a gradient is fed instead of computing them again
  backprop            the one reverse-mode algorithm, over eager records or graph nodes
  tape                GradientTape
"""

from runtime.gradients import grad_ops  # noqa: F401
from runtime.gradients import math_grads, array_grads  # noqa: F401
from runtime.gradients import control_flow_grads, function_grads  # noqa: F401
from runtime.gradients import tensor_array_grads, py_function_grads  # noqa: F401
from runtime.gradients import while_grad_grads  # noqa: F401
from runtime.gradients.tape import GradientTape, UnconnectedGradients

__all__ = ["GradientTape", "UnconnectedGradients"]

"""Automatic differentiation: `GradientTape` and the machinery behind the ops' gradient rules.

Each op declares its gradient where it is declared (runtime/ops), most with the rule itself
beside the op. The rules here are written with machinery of this package, which reads ops by
their traits and never imports an op module that imports it; their ops reference them
directly:
  control_flow_grads  If and While (an If's gradient is an If, added with the builder
                      control_flow_ops passes in; a WhileGrad op, runtime/ops/while_grad_ops.py,
                      replays the loop and runs its body's VJP)
  function_grads      PartitionedCall and eager Function calls (a gradient function per trace)
  py_function_grads   py_function (the Python function's own tape, kept from its run)
  custom_gradient     tf.custom_gradient (its CustomGradient op's rule calls the user's grad_fn)
  residuals           forward values a gradient is fed instead of computing them again
  backprop            the one reverse-mode algorithm, over eager records or graph nodes
  inliner             re-emits a forward graph's nodes into a gradient graph, on demand
  tape                GradientTape
The TensorArray gradients (how gradient arrays add up and start from zero) are registered
with backprop by runtime/tensor_array/grads.py, imported here.
"""

from runtime.gradients import (
    control_flow_grads,
    custom_gradient,
    function_grads,
    py_function_grads,
)
from runtime.gradients.tape import GradientTape, UnconnectedGradients
from runtime.tensor_array import grads as tensor_array_grads

__all__ = ["GradientTape", "UnconnectedGradients"]

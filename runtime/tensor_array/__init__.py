"""TensorArray, every part of it in one package: the user-facing `tf.TensorArray` and the
machinery behind it, from the run-time value up.

  value             the run-time value of a TensorArray handle (a persistent array of numpy
                    values), read by the ops, the compiled backends and saved models
  ops               the TensorArray ops (declared with all their rules) and their API
  numba_lowerings   the numba rules of the ops: a TensorArray as a preallocated buffer
  grad_ops          the ops that compute TensorArray gradients
  grads             how gradient arrays add up and start from zero (registered with the
                    gradient machinery when runtime.gradients is imported)
  array             the `TensorArray` class and the joins of its metadata in staged loops

The lists that loops on tensors append to, carried as TensorArrays, are converted-code
concepts and stay with the operators (runtime/operators/staged_lists.py, loop_lists.py).
"""

from runtime.tensor_array.array import (
    TensorArray,
    _int32,
    entering_loop,
    join,
    join_shapes,
    static_sizes,
)

"""Composite tensors: values made of several component tensors, carried through Functions
and staged control flow as their components (see runtime.composite.base).

sparse: SparseTensor, SparseTensorSpec and the tf.sparse operations; ragged: RaggedTensor,
RaggedTensorSpec and tf.ragged.constant; ragged_functions: the other tf.ragged functions, and
the TensorFlow ops (reductions, concat, gather, ...) on RaggedTensor operands.
"""

from runtime.composite import ragged, ragged_functions, sparse
from runtime.composite.base import CompositeSpec, CompositeTensor
from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec

__all__ = ["ragged", "ragged_functions", "sparse", "CompositeSpec", "CompositeTensor",
           "RaggedTensor", "RaggedTensorSpec", "SparseTensor", "SparseTensorSpec"]

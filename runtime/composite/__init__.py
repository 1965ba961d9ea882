"""Composite tensors: values made of several component tensors, carried through Functions
and staged control flow as their components (see runtime.composite.base).

sparse: SparseTensor, SparseTensorSpec and the tf.sparse operations; ragged: RaggedTensor,
RaggedTensorSpec and tf.ragged.constant.
"""

from runtime.composite import ragged, sparse
from runtime.composite.base import CompositeSpec, CompositeTensor
from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec

__all__ = ["ragged", "sparse", "CompositeSpec", "CompositeTensor", "RaggedTensor",
           "RaggedTensorSpec", "SparseTensor", "SparseTensorSpec"]

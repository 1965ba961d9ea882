"""The composite-tensor names of the `autograph.tf` facade: `tf.SparseTensor`, `tf.sparse`,
`tf.RaggedTensor`, `tf.ragged` and their specs (runtime.composite implements them)."""

import types as _types

from runtime.composite import ragged as _ragged
from runtime.composite import sparse as _sparse

SparseTensor = _sparse.SparseTensor
SparseTensorSpec = _sparse.SparseTensorSpec
RaggedTensor = _ragged.RaggedTensor
RaggedTensorSpec = _ragged.RaggedTensorSpec


def _namespace(name, doc, **members):
    module = _types.ModuleType("autograph.tf." + name, doc)
    module.__dict__.update(members)
    return module


sparse = _namespace(
    "sparse", "Sparse tensors: coordinates and values of the stored elements.",
    SparseTensor=SparseTensor, to_dense=_sparse.to_dense, from_dense=_sparse.from_dense,
    add=_sparse.add, reduce_sum=_sparse.reduce_sum,
    sparse_dense_matmul=_sparse.sparse_dense_matmul)

ragged = _namespace(
    "ragged", "Ragged tensors: rows of different lengths.", constant=_ragged.constant,
    RaggedTensorSpec=RaggedTensorSpec)

"""The numpy runtime: tensors, one op registry, graphs, tracing and the graph executor.

It executes what the compiler (the `autograph` package) emits and knows nothing about
Python syntax trees. Importing it registers every op.
"""

from runtime import (
           dtypes,
           errors,
           ops,  # registers ops, installs tensor operators
)
from runtime.function import ConcreteFunction, Function, function
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.variables import Variable

__all__ = ["dtypes", "errors", "ConcreteFunction", "Function", "function", "TensorSpec",
           "EagerTensor", "SymbolicTensor", "Tensor", "Variable"]

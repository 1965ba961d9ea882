"""The op library. Importing this package registers every op and installs tensor operators."""

from runtime.ops import registry  # noqa: F401
from runtime.ops import array_ops, io_ops, math_ops, nn_random_ops  # noqa: F401
from runtime.ops import data_ops  # noqa: F401
from runtime.ops import operators  # noqa: F401
from runtime.ops import tensor_array_ops  # noqa: F401

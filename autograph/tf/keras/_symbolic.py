"""Keras tensors: the symbolic values of the functional API, and the record of each layer
call made on them.

    x = tf.keras.Input(shape=(4,))          # a KerasTensor of shape (None, 4)
    h = tf.keras.layers.Dense(8)(x)         # a Node: Dense called on x; h its output

A layer called on Keras tensors computes no values: it traces its call once on
placeholders of the inputs' shapes and dtypes (building its weights, as a first call
does), and returns Keras tensors of the traced outputs' shapes, each remembering the
Node that made it. A functional `Model` later replays the Nodes on real tensors.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import autograph as _autograph
from runtime import dtypes as _dtypes
from runtime import nest
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.signature import TensorSpec

_TENSOR_NAMES = itertools.count(1)


class KerasTensor:
    """A symbolic input or output of the functional API: a shape (the batch dimension
    usually None), a dtype and the Node that made it (None for a bare placeholder)."""

    def __init__(self, shape: tuple[int | None, ...], dtype: Any = "float32",
                 name: str | None = None, node: Node | None = None, index: int = 0,
                 sparse: bool = False) -> None:
        self.shape = tuple(shape)
        self.sparse = bool(sparse)  # stands for a SparseTensor
        self.dtype = _dtypes.as_dtype(dtype)
        self.name = name or "keras_tensor_%d" % next(_TENSOR_NAMES)
        self.node = node
        self.index = index  # the position of this tensor among its node's outputs

    def __repr__(self) -> str:
        return "<KerasTensor shape=%s, dtype=%s, sparse=%s, ragged=False, name=%s>" % (
            shape_text(self.shape), self.dtype.name, self.sparse, self.name)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def __bool__(self) -> bool:
        raise TypeError("A KerasTensor is symbolic: it has no value to use as a Python bool "
                        "(it is an input or output of the functional API, not data)")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "A KerasTensor (%s) is symbolic: it can not be converted to a numpy array or "
            "passed to a TensorFlow function. Call Keras layers on it (or wrap the "
            "computation in a `tf.keras.layers.Layer`)" % self.name)

    # arithmetic on Keras tensors records a call of an operator layer, as Keras does
    def __add__(self, other: Any) -> Any:
        return _operator("add", lambda a, b: a + b)(self, other)

    def __radd__(self, other: Any) -> Any:
        return _operator("add", lambda a, b: b + a)(self, other)

    def __sub__(self, other: Any) -> Any:
        return _operator("subtract", lambda a, b: a - b)(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _operator("subtract", lambda a, b: b - a)(self, other)

    def __mul__(self, other: Any) -> Any:
        return _operator("multiply", lambda a, b: a * b)(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _operator("multiply", lambda a, b: b * a)(self, other)

    def __truediv__(self, other: Any) -> Any:
        return _operator("divide", lambda a, b: a / b)(self, other)

    def __neg__(self) -> Any:
        return _operator("negative", lambda a, _: -a)(self, None)


class Node:
    """One call of a layer on Keras tensors: the arguments as given (Keras tensors among
    them), the Keras tensors among them in order, and the outputs' structure."""

    def __init__(self, layer: Any, call_args: tuple[Any, tuple[Any, ...], dict[str, Any]],
                 outputs: Any) -> None:
        self.layer = layer
        self.call_args = call_args
        self.input_tensors = [leaf for leaf in nest.flatten(call_args, expand_composites=False)
                              if isinstance(leaf, KerasTensor)]
        self.outputs = outputs
        self.output_tensors = [leaf for leaf in nest.flatten(outputs, expand_composites=False)
                               if isinstance(leaf, KerasTensor)]
        inbound = layer.__dict__.setdefault("_inbound_nodes", [])
        self.index_in_layer = len(inbound)  # the 0 in Keras's "dense[0][0]"
        inbound.append(self)


def any_symbolic(structure: Any) -> bool:
    """Whether `structure` (arguments of a call) holds a Keras tensor."""
    return any(isinstance(leaf, KerasTensor)
               for leaf in nest.flatten(structure, expand_composites=False))


def shape_text(shape: Any) -> str:
    """A shape as Keras prints it: `(None, 4)`, `(3,)`, `()`."""
    if shape is None:
        return "?"
    dims = ["None" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def call_symbolically(layer: Any, inputs: Any, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> Any:
    """`layer(inputs, *args, **kwargs)` on Keras tensors: traces the call once on
    placeholders (building the layer) and returns Keras tensors of the outputs' shapes."""
    call_args = (inputs, tuple(args), dict(kwargs))
    flat = nest.flatten(call_args, expand_composites=False)
    positions = [i for i, leaf in enumerate(flat) if isinstance(leaf, KerasTensor)]
    specs = [(SparseTensorSpec if flat[i].sparse else TensorSpec)(flat[i].shape, flat[i].dtype)
             for i in positions]

    def replay(*tensors: Any) -> Any:
        values = list(flat)
        for position, tensor in zip(positions, tensors):
            values[position] = tensor
        x, more, named = nest.pack_sequence_as(call_args, values)
        return layer(x, *more, **named)

    traced = _autograph.function(replay, autograph=False).get_concrete_function(*specs)
    layer.built = True
    layer._clear_losses()  # what `add_loss` got on placeholders is no loss of any data
    counter = itertools.count()

    def to_keras(tensor: Any) -> Any:
        if not hasattr(tensor, "shape") or not hasattr(tensor, "dtype"):
            return tensor
        return KerasTensor(tuple(tensor.shape), tensor.dtype, index=next(counter),
                           sparse=isinstance(tensor, SparseTensor))

    outputs = nest.map_structure(to_keras, traced.structured_outputs)
    node = Node(layer, call_args, outputs)
    for tensor in node.output_tensors:
        tensor.node = node
    return outputs


_OPERATOR_LAYER: list[Callable[[str, Callable[[Any, Any], Any]], Any]] = []


def set_operator_layer(make: Callable[[str, Callable[[Any, Any], Any]], Any]) -> None:
    """Say how to make the layer that applies one operator to Keras tensors (the layers
    package, which this module may not import, defines it)."""
    _OPERATOR_LAYER[:] = [make]


def _operator(name: str, compute: Callable[[Any, Any], Any]) -> Any:
    return _OPERATOR_LAYER[0](name, compute)

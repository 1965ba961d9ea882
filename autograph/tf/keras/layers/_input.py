"""`Input` and `InputLayer`: where a functional model starts.

    x = tf.keras.Input(shape=(28, 28, 1))     # a KerasTensor of shape (None, 28, 28, 1)

`Input` makes an InputLayer, whose only output is that Keras tensor; a functional model
lists the InputLayer among its layers and feeds it the model's input.
"""

from __future__ import annotations

from typing import Any

from autograph.tf.keras._symbolic import KerasTensor, Node
from autograph.tf.keras.layers._layer import Layer


class InputLayer(Layer):
    """The layer behind `Input`: it holds the input's shape and passes values through."""

    def __init__(self, shape: Any = None, batch_size: int | None = None, dtype: Any = None,
                 batch_shape: Any = None, name: str | None = None, sparse: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            batch_shape = (batch_size,) + tuple(shape)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self.sparse = bool(sparse)
        self.built = True
        output = KerasTensor(self.batch_shape, self.dtype, name=self.name, sparse=self.sparse)
        self.output = output
        output.node = Node(self, (output, (), {}), output)
        output.node.input_tensors = []  # an input node reads nothing

    def call(self, inputs: Any) -> Any:
        """The input, unchanged."""
        return inputs


def Input(shape: Any = None, batch_size: int | None = None, dtype: Any = None,
          sparse: bool | None = None, batch_shape: Any = None, name: str | None = None,
          tensor: Any = None, optional: bool = False) -> KerasTensor:
    """A Keras tensor standing for a model input of `shape` (without the batch
    dimension): `tf.keras.Input(shape=(28, 28, 1))`; `sparse=True` for a SparseTensor
    input."""
    if tensor is not None:
        raise NotImplementedError("tf.keras.Input(tensor=...) is not supported")
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype,
                       batch_shape=batch_shape, name=name, sparse=bool(sparse))
    return layer.output

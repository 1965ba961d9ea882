"""`tf.keras.models`: `Model`, `Sequential` (a stack of layers called in order), and
whole-model saving in `.keras` files (`load_model`, `save_model`).

    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.build((None, 4))      # or let the first call build it
    model.summary()

`build(input_shape)` traces the stack once on a placeholder of that shape (a throwaway
Function), so each layer makes its weights and the summary knows every output shape
without running the model on data.
"""

import os as _os
from typing import Any as _Any

from autograph.tf.keras import _model
from autograph.tf.keras import saving as _saving
from autograph.tf.keras._model import Model
from autograph.tf.keras._symbolic import KerasTensor as _KerasTensor
from autograph.tf.keras.layers._input import InputLayer as _InputLayer
from autograph.tf.keras.layers._layer import Layer as _Layer
from autograph.tf.keras.layers._layer import _accepts
from autograph.tf.keras.layers._layer import call_with_mask as _call_with_mask


class Sequential(Model):
    """A linear stack of layers: calling it calls each layer on the previous one's output
    (`training=` is passed to the layers that take it)."""

    def __init__(self, layers: list[_Layer] | None = None, trainable: bool = True,
                 name: str | None = None) -> None:
        super().__init__(trainable=trainable, name=name)
        self._declared_input: tuple[int | None, ...] | None = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: _Layer) -> None:
        """Append `layer` to the stack; a first layer given `input_shape=`, or a
        `tf.keras.Input(shape)` added first, builds the model."""
        if isinstance(layer, _KerasTensor) and layer.node is not None:
            layer = layer.node.layer
        if isinstance(layer, _InputLayer):
            if self._layers or self._declared_input is not None:
                raise ValueError("An Input (or _InputLayer) can only be the first layer of "
                                 "a Sequential model")
            self._declared_input = layer.batch_shape
            return
        if not isinstance(layer, _Layer):
            raise TypeError("Only instances of `keras.Layer` can be added to a Sequential "
                            "model. Received: %r (of type %s)" % (layer, type(layer).__name__))
        if any(existing.name == layer.name for existing in self._layers):
            raise ValueError("All layers added to a Sequential model should have unique "
                             "names. Name '%s' is already the name of a layer in this "
                             "model." % layer.name)
        self._layers.append(layer)
        self.built = False
        first = self._declared_input or self._layers[0]._input_shape_arg
        if first is not None:
            self.build(first)

    def pop(self) -> _Layer:
        """Remove and return the last layer."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        return self._layers.pop()

    def call(self, inputs: _Any, training: _Any = None) -> _Any:
        """Each layer's output fed to the next (with its mask, when a layer makes one)."""
        outputs, mask = inputs, None
        for layer in self._layers:
            kwargs = {}
            if training is not None and _accepts(layer.call, "training"):
                kwargs["training"] = training
            outputs, mask = _call_with_mask(layer, outputs, mask, kwargs)
            shape = getattr(outputs, "shape", None)
            if shape is not None:
                layer._summary_shape = (None,) + tuple(shape)[1:] if len(shape) else ()
        return outputs

    def __call__(self, inputs: _Any, *args: _Any, **kwargs: _Any) -> _Any:
        self.built = True
        return super().__call__(inputs, *args, **kwargs)


_model.set_sequential_class(Sequential)


def load_model(filepath: str | _os.PathLike[str], custom_objects: _Any = None,
               compile: bool = True, safe_mode: bool = True) -> Model:  # noqa: A002
    """The model a `.keras` file holds (see `tf.keras.saving.load_model`)."""
    return _saving.load_model(filepath, custom_objects=custom_objects, compile=compile,
                             safe_mode=safe_mode)


def save_model(model: Model, filepath: str | _os.PathLike[str], overwrite: bool = True,
               **kwargs: _Any) -> None:
    """`model.save(filepath)`: the model in a `.keras` file (see `tf.keras.saving`)."""
    model.save(filepath, overwrite=overwrite, **kwargs)


__all__ = ["Model", "Sequential", "load_model", "save_model"]

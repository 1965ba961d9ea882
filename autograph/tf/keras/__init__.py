"""`tf.keras`: the part of Keras that TensorFlow's guides use, built on the project's own
`tf.Module`, Variables and Functions, with Keras 3's names, arguments and defaults."""

from autograph.tf.keras import (
    _functional,  # noqa: F401 (Model(inputs, outputs) makes its class)
    activations,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
    saving,
    utils,
)
from autograph.tf.keras._model import Model
from autograph.tf.keras._symbolic import KerasTensor
from autograph.tf.keras.layers import Input, InputLayer
from autograph.tf.keras.models import Sequential

__all__ = ["Input", "InputLayer", "KerasTensor", "Model", "Sequential", "activations",
           "callbacks", "initializers", "layers", "losses", "metrics", "models",
           "optimizers", "regularizers", "saving", "utils"]

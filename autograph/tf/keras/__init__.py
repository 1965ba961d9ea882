"""`tf.keras`: the part of Keras that TensorFlow's guides use, built on the project's own
`tf.Module`, Variables and Functions, with Keras 3's names, arguments and defaults."""

from autograph.tf.keras import (
    activations,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    utils,
)
from autograph.tf.keras.models import Sequential

__all__ = ["Sequential", "activations", "initializers", "layers", "losses", "metrics",
           "models", "optimizers", "utils"]

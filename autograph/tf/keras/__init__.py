"""`tf.keras`: the part of Keras that TensorFlow's guides use, built on the project's own
`tf.Module`, Variables and Functions, with Keras 3's names, arguments and defaults."""

from autograph.tf.keras import (
    activations,
    initializers,
    layers,
    losses,
    metrics,
    optimizers,
    utils,
)

__all__ = ["activations", "initializers", "layers", "losses", "metrics", "optimizers",
           "utils"]

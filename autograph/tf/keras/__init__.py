"""`tf.keras`: the part of Keras that TensorFlow's guides use, built on the project's own
`tf.Module`, Variables and Functions, with Keras 3's names, arguments and defaults."""

from autograph.tf.keras import losses, metrics, optimizers

__all__ = ["losses", "metrics", "optimizers"]

"""`tf.keras.optimizers`: SGD, Adam, AdamW, RMSprop and Adagrad, with learning rate
schedules (`tf.keras.optimizers.schedules`)."""

from autograph.tf.keras.optimizers import schedules
from autograph.tf.keras.optimizers._algorithms import SGD, Adagrad, Adam, AdamW, RMSprop
from autograph.tf.keras.optimizers._optimizer import Optimizer

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "schedules"]

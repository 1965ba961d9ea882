"""`tf.keras.layers`: Keras's layers, built on the project's tf.Module and Variables."""

from autograph.tf.keras.layers._conv import (
    AveragePooling2D,
    Conv1D,
    Conv2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    MaxPooling2D,
)
from autograph.tf.keras.layers._core import (
    Activation,
    Add,
    Concatenate,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Lambda,
    Reshape,
)
from autograph.tf.keras.layers._input import Input, InputLayer
from autograph.tf.keras.layers._layer import Layer
from autograph.tf.keras.layers._normalization import BatchNormalization, LayerNormalization
from autograph.tf.keras.layers._recurrent import GRU, LSTM, SimpleRNN

__all__ = ["Activation", "Add", "AveragePooling2D", "BatchNormalization", "Concatenate",
           "Conv1D", "Conv2D", "Dense", "Dropout", "Embedding", "Flatten", "GRU", "LSTM",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "Input", "InputLayer", "Lambda",
           "Layer", "LayerNormalization", "MaxPooling2D", "Reshape", "SimpleRNN"]


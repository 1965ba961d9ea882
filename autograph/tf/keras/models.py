"""`tf.keras.models`: `Sequential`, a stack of layers called in order.

    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.build((None, 4))      # or let the first call build it
    model.summary()

`build(input_shape)` traces the stack once on a placeholder of that shape (a throwaway
Function), so each layer makes its weights and the summary knows every output shape
without running the model on data.
"""

import numpy as _np

import autograph as _autograph
from autograph.tf.keras.layers._layer import Layer as _Layer
from autograph.tf.keras.layers._layer import _accepts
from runtime import context as _context
from runtime.signature import TensorSpec as _TensorSpec


class Sequential(_Layer):
    """A linear stack of layers: calling it calls each layer on the previous one's output
    (`training=` is passed to the layers that take it)."""

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        """Append `layer` to the stack; a first layer given `input_shape=` builds the
        model."""
        if not isinstance(layer, _Layer):
            raise TypeError("Only instances of `keras.Layer` can be added to a Sequential "
                            "model. Received: %r (of type %s)" % (layer, type(layer).__name__))
        if any(existing.name == layer.name for existing in self._layers):
            raise ValueError("All layers added to a Sequential model should have unique "
                             "names. Name '%s' is already the name of a layer in this "
                             "model." % layer.name)
        self._layers.append(layer)
        self.built = False
        first = self._layers[0]._input_shape_arg
        if first is not None and len(self._layers) == 1:
            self.build(first)

    def pop(self):
        """Remove and return the last layer."""
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        return self._layers.pop()

    @property
    def layers(self):
        """The layers, in call order."""
        return list(self._layers)

    def build(self, input_shape=None):
        """Make every layer's weights for inputs of `input_shape` (a None batch
        dimension is fine), by tracing the stack once."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if not _context.executing_eagerly():
            self.built = True  # inside a trace, the call that follows builds the layers
            return
        spec = _TensorSpec(tuple(input_shape), dtype=self.dtype)
        _autograph.function(self.call, autograph=False).get_concrete_function(spec)
        self.built = True

    def call(self, inputs, training=None):
        """Each layer's output fed to the next."""
        outputs = inputs
        for layer in self._layers:
            if training is not None and _accepts(layer.call, "training"):
                outputs = layer(outputs, training=training)
            else:
                outputs = layer(outputs)
            shape = getattr(outputs, "shape", None)
            if shape is not None:
                layer._summary_shape = (None,) + tuple(shape)[1:] if len(shape) else ()
        return outputs

    def __call__(self, inputs, *args, **kwargs):
        self.built = True
        return super().__call__(inputs, *args, **kwargs)

    def summary(self, line_length=None, print_fn=None):
        """Print a table of the layers (name and type, output shape, parameter count)
        and the total, trainable and non-trainable parameter counts, as Keras does."""
        lines = _summary_lines(self, line_length or 84)
        for line in lines:
            (print_fn or print)(line)


def _wrap(text, width):
    lines, current = [], ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = word if not current else current + " " + word
    return lines + [current]


def _count(weights):
    return int(sum(_np.prod(w.shape.as_list(), dtype=_np.int64) for w in weights))


def _readable_size(count, dtype_bytes=4):
    size = float(count * dtype_bytes)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return "%.2f %s" % (size, unit)
        size /= 1024
    raise AssertionError("unreachable")


def _shape_text(shape):
    if shape is None:
        return "?"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def _summary_lines(model, width):
    columns = [int(width * 0.45), int(width * 0.84) - int(width * 0.45),
               width - int(width * 0.84)]
    header = ("Layer (type)", "Output Shape", "Param #")

    def row(cells, left, middle, right):
        # a cell too long for its column wraps at spaces onto further lines
        wrapped = [_wrap(cell, size - 2) for cell, size in zip(cells, columns)]
        lines = []
        for n in range(max(len(w) for w in wrapped)):
            texts = []
            for i, (parts, size) in enumerate(zip(wrapped, columns)):
                text = parts[n] if n < len(parts) else ""
                texts.append((" " + text).rjust(size - 1) + " " if i == 2
                             else (" " + text).ljust(size))
            lines.append(left + middle.join(texts) + right)
        return lines

    def rule(left, fill, middle, right):
        return left + middle.join(fill * size for size in columns) + right

    lines = ['Model: "%s"' % model.name, rule("┏", "━", "┳", "┓"),
             *row(header, "┃", "┃", "┃"), rule("┡", "━", "╇", "┩")]
    for i, layer in enumerate(model.layers):
        params = _count(layer.weights) if layer.built else 0
        cells = ("%s (%s)" % (layer.name, type(layer).__name__),
                 _shape_text(getattr(layer, "_summary_shape", None)),
                 "{:,}".format(params) if layer.built else "0 (unbuilt)")
        lines.extend(row(cells, "│", "│", "│"))
        if i < len(model.layers) - 1:
            lines.append(rule("├", "─", "┼", "┤"))
    lines.append(rule("└", "─", "┴", "┘"))
    total = _count(model.weights)
    trainable = _count(model.trainable_weights)
    for label, count in (("Total", total), ("Trainable", trainable),
                         ("Non-trainable", total - trainable)):
        lines.append(" %s params: {:,} (%s)".format(count) % (label, _readable_size(count)))
    return lines

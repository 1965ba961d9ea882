"""Keras's recurrent layers: SimpleRNN, LSTM and GRU, each a staged loop over time.

The input projection `x @ kernel + bias` is computed for every step at once; the loop
then carries the state through the steps, one `while_loop` (a single While op inside a
Function), writing each step's output to a TensorArray:

    t, state, outputs = 0, zeros, TensorArray(size=steps)
    while t < steps:
        output, state = cell(projected[t], state)
        outputs = outputs.write(t, output); t += 1
"""

from autograph.tf.keras import _tensors
from autograph.tf.keras import activations as _activations
from autograph.tf.keras import initializers as _initializers
from autograph.tf.keras.layers._layer import Layer
from runtime.functional import control_flow as _functional
from runtime.ops import array_ops as _array
from runtime.ops import layout_ops as _layout
from runtime.ops import linalg_ops as _linalg
from runtime.ops import math_ops as _math
from runtime.ops import reshape_ops as _reshape
from runtime.ops import selection_ops as _select
from runtime.tensor_array import TensorArray


class _RNN(Layer):
    """What the three recurrent layers share: arguments, weights, and the loop."""

    gates = 1  # the kernel's column blocks per unit

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", return_sequences=False, return_state=False,
                 go_backwards=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError("Received an invalid value for argument `units`, expected a "
                             "positive integer, got %r." % (units,))
        self.units = units
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.bias_initializer = bias_initializer
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards

    def _state_count(self):
        return 1

    def build(self, input_shape):
        """Make `kernel`, `recurrent_kernel` and `bias` for the inputs' feature size."""
        if input_shape.rank != 3 or input_shape[-1] is None:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected "
                             "ndim=3 (batch, timesteps, features), found shape %s"
                             % (self.name, input_shape))
        width = self.units * self.gates
        self.kernel = self.add_weight((int(input_shape[-1]), width), self.kernel_initializer,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight((self.units, width),
                                                self.recurrent_initializer,
                                                name="recurrent_kernel")
        self.bias = self._make_bias(width) if self.use_bias else None
        self.built = True

    def _make_bias(self, width):
        return self.add_weight((width,), self.bias_initializer, name="bias")

    def _projected_bias(self):
        return self.bias

    def call(self, inputs, initial_state=None, training=None, mask=None):
        """Run the cell over the time axis; the last output, or every output with
        `return_sequences`, followed by the final states with `return_state`. Given a
        `(batch, steps)` mask, a masked step keeps the states and repeats the previous
        output (zeros before the first real step), as Keras does."""
        inputs = _tensors.as_tensor(inputs, self.dtype)
        time_major = _reshape.transpose(inputs, [1, 0, 2])
        if mask is not None:
            mask = _reshape.transpose(_tensors.as_tensor(mask, "bool"), [1, 0])
        if self.go_backwards:
            time_major = _layout.reverse(time_major, [0])
            if mask is not None:
                mask = _layout.reverse(mask, [0])
        projected = _linalg.matmul(time_major, self.kernel)
        bias = self._projected_bias()
        if bias is not None:
            projected = projected + bias
        steps = inputs.shape[1]
        steps = _array.shape(inputs)[1] if steps is None else int(steps)
        zeros = _array.zeros_like(projected[0][:, :1]) * _array.zeros([1, self.units])
        if initial_state is None:
            states = [zeros] * self._state_count()
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) \
                else [initial_state]
            states = [_tensors.as_tensor(s, self.dtype) for s in states]
        outputs = TensorArray(self.dtype, size=steps)

        def more(t, outputs, last, *states):
            return _math.less(t, steps)

        def step(t, outputs, last, *states):
            output, new_states = self._cell(_select.gather(projected, t), list(states))
            if mask is not None:
                real = _reshape.expand_dims(_select.gather(mask, t), 1)
                output = _select.where(real, output, last)
                new_states = [_select.where(real, new, old)
                              for new, old in zip(new_states, states)]
            return (t + 1, outputs.write(t, output), output, *new_states)

        start = _array.constant(0, dtype="int32")
        _, outputs, last, *states = _functional.while_loop(
            more, step, (start, outputs, zeros, *states))
        if self.return_sequences:
            result = _reshape.transpose(outputs.stack(), [1, 0, 2])
        else:
            result = last
        if self.return_state:
            return [result] + list(states)
        return result

    def compute_mask(self, inputs, previous_mask=None):
        """The input's mask for every output step with `return_sequences`, else None
        (and None for each returned state)."""
        mask = previous_mask if self.return_sequences else None
        if self.return_state:
            return [mask] + [None] * self._state_count()
        return mask

    def _recurrent(self, h):
        return _linalg.matmul(h, self.recurrent_kernel)

    def _cell(self, x, states):
        """(output, new states) of one step on input `x`, in each recurrence's subclass."""
        raise NotImplementedError


class SimpleRNN(_RNN):
    """The fully connected recurrence `h = activation(x @ kernel + h @ recurrent_kernel +
    bias)`."""

    def _cell(self, x, states):
        h = self.activation(x + self._recurrent(states[0]))
        return h, [h]


class LSTM(_RNN):
    """Long short-term memory: gates `i, f, o = recurrent_activation(...)`, candidate
    `g = activation(...)`, `c = f * c + i * g`, `h = o * activation(c)`; the kernel's
    column blocks are i, f, c, o, and `unit_forget_bias` starts the forget bias at 1."""

    gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, return_sequences=False, return_state=False,
                 go_backwards=False, **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, return_sequences,
                         return_state, go_backwards, **kwargs)
        self.recurrent_activation = _activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    def _state_count(self):
        return 2

    def _make_bias(self, width):
        if not self.unit_forget_bias:
            return super()._make_bias(width)
        fill = _initializers.get(self.bias_initializer)

        def forget_gate_at_one(shape, dtype="float32"):
            value = fill(shape, dtype=dtype)
            value[self.units:2 * self.units] = 1.0
            return value

        return self.add_weight((width,), forget_gate_at_one, name="bias")

    def _cell(self, x, states):
        h, c = states
        z = x + self._recurrent(h)
        u = self.units
        i = self.recurrent_activation(z[:, :u])
        f = self.recurrent_activation(z[:, u:2 * u])
        g = self.activation(z[:, 2 * u:3 * u])
        o = self.recurrent_activation(z[:, 3 * u:])
        c = f * c + i * g
        h = o * self.activation(c)
        return h, [h, c]


class GRU(_RNN):
    """Gated recurrent unit, Keras 3's default `reset_after=True` form: with the input
    and recurrent projections split into update (z), reset (r) and candidate blocks,
    `z, r = recurrent_activation(x_zr + h_zr)`, `hh = activation(x_h + r * h_h)`,
    `h = z * h + (1 - z) * hh`; the bias has one row for the inputs and one for the
    recurrence. With `reset_after=False` the reset gate scales the state before its
    product, `hh = activation(x_h + (r * h) @ recurrent_kernel_h)`, and the bias is one
    row."""

    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 return_sequences=False, return_state=False, go_backwards=False,
                 reset_after=True, **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, return_sequences,
                         return_state, go_backwards, **kwargs)
        self.recurrent_activation = _activations.get(recurrent_activation)
        self.reset_after = reset_after

    def _make_bias(self, width):
        shape = (2, width) if self.reset_after else (width,)
        return self.add_weight(shape, self.bias_initializer, name="bias")

    def _projected_bias(self):
        if self.bias is None or not self.reset_after:
            return self.bias
        return self.bias[0]

    def _cell(self, x, states):
        h = states[0]
        u = self.units
        if not self.reset_after:
            # the reset gate applies to the state before its product with the kernel
            kernel = self.recurrent_kernel
            z = self.recurrent_activation(x[:, :u] + _linalg.matmul(h, kernel[:, :u]))
            r = self.recurrent_activation(x[:, u:2 * u] +
                                          _linalg.matmul(h, kernel[:, u:2 * u]))
            hh = self.activation(x[:, 2 * u:] + _linalg.matmul(r * h, kernel[:, 2 * u:]))
            h = z * h + (1.0 - z) * hh
            return h, [h]
        inner = self._recurrent(h)
        if self.bias is not None:
            inner = inner + self.bias[1]
        z = self.recurrent_activation(x[:, :u] + inner[:, :u])
        r = self.recurrent_activation(x[:, u:2 * u] + inner[:, u:2 * u])
        hh = self.activation(x[:, 2 * u:] + r * inner[:, 2 * u:])
        h = z * h + (1.0 - z) * hh
        return h, [h]

"""The Keras optimizer base class: the learning rate, gradient clipping, weight decay,
the `iterations` counter and slot variables made on the first `apply_gradients`.

The step of one update, as Keras 3 runs it:

    grads, vars = the pairs whose gradient is not None
    build(vars)                      # first call only: each algorithm's slot variables
    lr = schedule(iterations) or the learning_rate variable
    grads = clipped(grads)           # clipnorm / clipvalue / global_clipnorm
    var -= var * weight_decay * lr   # when weight_decay is set
    update_step(grad, var, lr)       # the algorithm (SGD, Adam, ...)
    iterations += 1

Variables are made with `tf.Variable`, so a Function that first meets an optimizer on a
later call fails as TensorFlow's does: its slots would be created on a non-first trace.
"""

import warnings
import weakref

import numpy as np

from autograph.tf.keras import _variables
from autograph.tf.keras.optimizers.schedules import LearningRateSchedule
from runtime.gradients import GradientTape
from runtime.module import Module
from runtime.ops import math_ops as _math
from runtime.ops import norm_ops as _norm
from runtime.variables import Variable


def _original(variable):
    # inside a trace, a variable passed as an argument is a stand-in for the original
    return getattr(variable, "original", variable)


class Optimizer(Module):
    """The base class of Keras optimizers (`tf.keras.optimizers.Optimizer`).

    Subclasses define `build(var_list)` (making slots with `add_variable_from_reference`)
    and `update_step(gradient, variable, learning_rate)`."""

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        if kwargs:
            raise TypeError("Argument(s) not recognized by the optimizer: %s"
                            % ", ".join(sorted(kwargs)))
        name = name or type(self).__name__.lower()
        super().__init__(name=name)
        clips = {"clipnorm": clipnorm, "clipvalue": clipvalue,
                 "global_clipnorm": global_clipnorm}
        if sum(value is not None for value in clips.values()) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                             "be set. Received: %s"
                             % ", ".join("%s=%r" % item for item in clips.items()))
        for option, value in clips.items():
            if value is not None and value < 0:
                raise ValueError("Argument `%s` must be non-negative. Received: %r"
                                 % (option, value))
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.built = False
        self._variables = []
        # id(model variable) -> (its position in the built var_list, a weak reference to it:
        # a variable made after another died may reuse its id)
        self._slot_index = {}
        self._iterations = self._new_variable(np.int64(0), "iteration")
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            self._learning_rate = self._new_variable(np.float32(learning_rate),
                                                     "learning_rate")

    # -- variables ----------------------------------------------------------------------------

    def _new_variable(self, initial_value, name):
        with _variables.name_scope(self, self.name):
            variable = _variables.make_variable(initial_value, name, trainable=False)
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name, initializer="zeros"):
        """A new non-trainable variable of `reference_variable`'s shape and dtype, filled
        with zeros (or with `initializer`, a number), named after it."""
        dtype = reference_variable.dtype.as_numpy_dtype
        fill = 0 if initializer == "zeros" else initializer
        value = np.full(reference_variable.shape.as_list(), fill, dtype=dtype)
        reference = _original(reference_variable)
        if isinstance(reference, _variables.KerasVariable):
            base = reference.path.replace("/", "_")
        else:  # a tf.Variable: its full name ('w:0' -> 'w_0'), as Keras names it
            base = reference.name.replace("/", "_").replace(":", "_")
        return self._new_variable(value, "%s_%s" % (base, name))

    @property
    def variables(self):
        """The optimizer's variables in the order it made them: `iterations`, the learning
        rate (unless a schedule), then the slots."""
        return list(self._variables)

    @property
    def iterations(self):
        """The number of updates applied so far (an int64 Variable)."""
        return self._iterations

    @property
    def learning_rate(self):
        """The learning rate of the next update (the schedule's value at `iterations`)."""
        return self._current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(self._learning_rate, Variable) and not (
                isinstance(value, LearningRateSchedule) or callable(value)):
            self._learning_rate.assign(value)
        else:
            raise TypeError("This optimizer was created with a %s learning rate; it can "
                            "not be set to %r" % (type(self._learning_rate).__name__, value))

    def _current_learning_rate(self):
        if isinstance(self._learning_rate, LearningRateSchedule):
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate.read_value()
        return self._learning_rate()

    def build(self, var_list):
        """Make the slot variables of `var_list` (subclasses add theirs, then call this)."""
        self._slot_index = {id(_original(v)): (i, weakref.ref(_original(v)))
                            for i, v in enumerate(var_list)}
        self.built = True

    def _slot(self, slots, variable):
        original = _original(variable)
        position, known = self._slot_index.get(id(original), (None, None))
        if known is None or known() is not original:
            raise KeyError(
                "The optimizer cannot recognize variable %s. This usually means you are "
                "trying to call the optimizer to update different parts of the model "
                "separately. Please call `optimizer.build(variables)` with the full list of "
                "trainable variables before the training loop." % variable.name)
        return slots[position]

    # -- updates ------------------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Apply one update from `(gradient, variable)` pairs; returns `iterations`."""
        pairs = [(g, v) for g, v in grads_and_vars]
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable. Variables: %s"
                             % [v.name for _, v in pairs])
        if len(kept) < len(pairs):
            warnings.warn("Gradients do not exist for variables %s when minimizing the loss."
                          % [v.name for g, v in pairs if g is None], UserWarning, stacklevel=2)
        grads = [g for g, _ in kept]
        variables = [v for _, v in kept]
        if not self.built:
            self.build(variables)
        learning_rate = self._current_learning_rate()
        grads = self._clip_gradients(grads)
        if self.weight_decay:
            for variable in variables:
                if self._decays(variable):
                    rate = _math.cast(learning_rate * self.weight_decay, variable.dtype)
                    variable.assign_sub(variable * rate)
        for grad, variable in zip(grads, variables):
            self.update_step(grad, variable, _math.cast(learning_rate, variable.dtype))
        self._iterations.assign_add(1)
        return self._iterations

    def _decays(self, variable):
        return True

    def _clip_gradients(self, grads):
        if self.clipnorm is not None:
            return [_norm.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            return [_math.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.global_clipnorm is not None:
            return list(_norm.clip_by_global_norm(grads, self.global_clipnorm)[0])
        return grads

    def update_step(self, gradient, variable, learning_rate):
        """Update `variable` from its gradient (each algorithm defines this)."""
        raise NotImplementedError("%s must define update_step" % type(self).__name__)

    def minimize(self, loss, var_list, tape=None):
        """Compute the gradients of `loss` with respect to `var_list` and apply them.

        `loss` is a zero-argument callable, or a tensor computed under `tape`;
        `var_list` a list of variables or a zero-argument callable returning one."""
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. "
                             "Received: loss=%r, tape=None." % (loss,))
        if callable(loss):
            tape = GradientTape()
            with tape:
                if not callable(var_list):
                    for variable in var_list:
                        tape.watch(variable)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def get_config(self):
        """The optimizer's constructor arguments, as a dict."""
        rate = self._learning_rate
        if isinstance(rate, Variable):
            rate = float(rate.numpy())
        return {"name": self.name, "learning_rate": rate, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "clipvalue": self.clipvalue,
                "global_clipnorm": self.global_clipnorm}

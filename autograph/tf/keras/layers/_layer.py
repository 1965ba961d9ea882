"""`Layer`: the Keras layer base class, on the project's `tf.Module`.

A layer makes its weights when it first sees an input, from that input's shape:

    class Linear(Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 4))
        def call(self, inputs):
            return tf.matmul(inputs, self.w)

    layer = Linear()
    layer(x)        # build(x.shape) on the first call, then call(x)

The weights are Variables; a layer first called inside a Function makes them on its
first trace (a later trace may not create variables, as TensorFlow's rule says).
"""

import collections
import inspect
import itertools
import re
import warnings

import numpy as np

from autograph.converted_call import converted_call
from autograph.tf.keras import _call_errors, _symbolic, _tensors, _variables
from autograph.tf.keras import initializers as _initializers
from autograph.tf.keras import regularizers as _regularizers
from autograph.user_code import is_library
from runtime import context as _context
from runtime import module as _module
from runtime import nest
from runtime import scopes as _scopes
from runtime.composite.base import CompositeTensor
from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math
from runtime.shape import TensorShape
from runtime.tensor import is_tensor as _is_tensor
from runtime.variables import Variable

_NAME_COUNTS: dict = {}
_POSITIONAL_TYPES = (np.ndarray, Variable, CompositeTensor, _symbolic.KerasTensor)
# attributes whose values a layer does not track: its own bookkeeping, and a link back
# to an enclosing object
_UNTRACKED = frozenset(["_outer", "_layers", "_weights", "_inbound_nodes", "_losses",
                        "_weight_regularizers"])
# the layer whose call is the outermost one now running (its call clears the losses that
# the previous call added, in it and in its sublayers, as Keras's call context does)
_ENTRY_CALL: list["Layer"] = []


def _keras_snake_case(name):
    """Keras's snake case of a class name: 'Conv2D' -> 'conv2d', 'SimpleRNN' ->
    'simple_rnn', 'BatchNormalization' -> 'batch_normalization'."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _unique_name(base):
    count = _NAME_COUNTS.setdefault(base, itertools.count())
    n = next(count)
    return base if n == 0 else "%s_%d" % (base, n)


class Layer(_module.Module):
    """The base class of Keras layers: `build(input_shape)` on the first call makes the
    weights (`add_weight`), `call(inputs, training=None)` computes the output."""

    # Keras's switch for a layer whose positional arguments may be numbers (an operator's)
    _allow_non_tensor_positional_args = False
    # whether the mask of this layer's input is also its output's (see compute_mask)
    supports_masking = False

    def __init__(self, trainable=True, name=None, dtype=None, activity_regularizer=None,
                 **kwargs):
        unknown = set(kwargs) - {"input_shape", "input_dim", "batch_input_shape"}
        if unknown:
            raise TypeError("Unrecognized keyword arguments passed to %s: %s"
                            % (type(self).__name__, sorted(unknown)))
        super().__init__(name=name or _unique_name(_keras_snake_case(type(self).__name__)))
        self.trainable = trainable
        self.dtype = dtype or "float32"
        self.built = False
        self._parent_path = None  # the path its scope opens under (see _variables)
        self._weights = []
        self._layers = []
        self._losses = []
        self._weight_regularizers = []
        self.activity_regularizer = _regularizers.get(activity_regularizer)
        shape = kwargs.get("input_shape")
        if shape is None and kwargs.get("input_dim") is not None:
            shape = (kwargs["input_dim"],)
        if kwargs.get("batch_input_shape") is not None:
            self._input_shape_arg: tuple | None = tuple(kwargs["batch_input_shape"])
        else:
            self._input_shape_arg = None if shape is None else (None,) + tuple(shape)

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name not in _UNTRACKED and "_layers" in self.__dict__:
            self._track(value)

    def _track(self, value):
        """Track the layers and Keras variables `value` holds (itself, or in a list, tuple
        or dict): their weights become this layer's. A plain tf.Variable is not a weight
        (Keras 3 tracks only its own variables: `add_weight`'s)."""
        leaves = (nest.flatten(value, expand_composites=False)
                  if isinstance(value, (list, tuple, dict)) else [value])
        for leaf in leaves:
            if isinstance(leaf, Layer) and leaf is not self and \
                    all(leaf is not known for known in self._layers):
                self._layers.append(leaf)
            elif isinstance(leaf, _variables.KerasVariable) and \
                    all(leaf is not w for w in self._weights):
                self._weights.append(leaf)

    def _track_containers(self):
        """Track what lists, tuples and dicts held in attributes gained since they were set
        (`self.blocks = []` and then `self.blocks.append(Dense(4))`)."""
        if "_layers" not in self.__dict__:
            return
        for name, value in list(vars(self).items()):
            if name not in _UNTRACKED and isinstance(value, (list, tuple, dict)):
                self._track(value)

    # -- weights ------------------------------------------------------------------------------

    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                   regularizer=None, constraint=None, name=None):
        """A new weight Variable of `shape`, filled by `initializer` (a name such as
        `"glorot_uniform"` or an initializer; floats default to glorot_uniform)."""
        shape = tuple(shape or ())
        dtype = dtype or self.dtype
        if initializer is None:
            initializer = "glorot_uniform" if "float" in str(dtype) else "zeros"
        value = _initializers.get(initializer)(shape, dtype=dtype)
        with _variables.name_scope(self, self.name, self.__dict__.get("_parent_path")):
            variable = _variables.make_variable(value, name or _unique_name("variable"),
                                                trainable=trainable, dtype=dtype)
        self._weights.append(variable)
        regularizer = _regularizers.get(regularizer)
        if regularizer is not None:
            self._weight_regularizers.append((variable, regularizer))
        return variable

    # -- losses -------------------------------------------------------------------------------

    def add_loss(self, loss):
        """Add a scalar tensor (or a list of them) to the losses of the current call
        (`call` uses it); `fit` adds the sum of `losses` to the compiled loss."""
        flat = nest.flatten(loss, expand_composites=False)
        for value in flat:
            if not _is_tensor(value):
                raise ValueError("`add_loss()` can only be called from inside `build()` or "
                                 "`call()`, on a tensor input. Received invalid value: %r"
                                 % (value,))
        self._losses.extend(flat)

    @property
    def losses(self):
        """The losses `add_loss` added in the latest call (this layer's, then its
        sublayers'), then the penalties of the regularized trainable weights."""
        found = list(self._losses)
        for layer in self._flatten_layers():
            found.extend(layer._losses)
        penalties = {}
        for layer in [self] + self._flatten_layers():
            for variable, regularizer in layer._weight_regularizers:
                penalties[id(variable)] = regularizer
        found.extend(penalties[id(v)](v) for v in self.trainable_weights
                     if id(v) in penalties)
        return found

    def _flatten_layers(self):
        """Every sublayer, nested ones too, each once, in Keras's order (depth first)."""
        self._track_containers()
        found, seen = [], set()
        pending = collections.deque(self._layers)
        while pending:
            layer = pending.popleft()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            found.append(layer)
            layer._track_containers()
            pending.extendleft(layer._layers)
        return found

    def _clear_losses(self):
        self._losses.clear()
        for layer in self._flatten_layers():
            layer._losses.clear()

    @property
    def weights(self):
        """Every weight: the trainable ones, then the non-trainable ones."""
        return self.trainable_weights + self.non_trainable_weights

    @property
    def trainable_weights(self):
        """The weights training updates: this layer's, then its sublayers' (none when
        `trainable` is False)."""
        self._track_containers()
        if not self.trainable:
            return []
        own = [w for w in self._weights if w.trainable]
        return own + [w for layer in self._layers for w in layer.trainable_weights]

    @property
    def non_trainable_weights(self):
        """The weights training leaves alone (all of them when `trainable` is False)."""
        self._track_containers()
        if not self.trainable:
            own = list(self._weights)
            return own + [w for layer in self._layers for w in layer.weights]
        own = [w for w in self._weights if not w.trainable]
        return own + [w for layer in self._layers for w in layer.non_trainable_weights]

    @property
    def trainable_variables(self):
        """The same as `trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """The same as `non_trainable_weights`."""
        return self.non_trainable_weights

    @property
    def variables(self):
        """The same as `weights`."""
        return self.weights

    def get_weights(self):
        """The weights' values, as numpy arrays."""
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        """Assign numpy arrays to the weights, in `weights` order."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError("You called `set_weights(weights)` on layer '%s' with a weight "
                             "list of length %d, but the layer was expecting %d weights."
                             % (self.name, len(weights), len(mine)))
        for variable, value in zip(mine, weights):
            if tuple(variable.shape.as_list()) != tuple(getattr(value, "shape", ())):
                raise ValueError("Layer %s weight shape %s is not compatible with provided "
                                 "weight shape %s." % (self.name, variable.shape,
                                                       getattr(value, "shape", ())))
            variable.assign(value)

    # -- calling ------------------------------------------------------------------------------

    def build(self, input_shape):
        """Make the weights for inputs of `input_shape` (layers with weights define it)."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation (each layer defines it)."""
        return inputs

    def __call__(self, inputs, *args, **kwargs):
        if not self._allow_non_tensor_positional_args:
            _check_positional_tensors((inputs,) + args)
        if _symbolic.any_symbolic((inputs, args, kwargs)):
            # the functional API: record the call on Keras tensors, compute no values
            return _symbolic.call_symbolically(self, inputs, args, kwargs)
        with self._name_scope():
            return self._build_and_call(inputs, args, kwargs)

    def _name_scope(self):
        """The layer's scope (Keras's): its weights' paths start with the path of the
        scope open where it first opened it, then its name."""
        if self.__dict__.get("_parent_path") is None:
            self._parent_path = _variables.current_path()
        return _variables.name_scope(self, self.name, self._parent_path)

    def _build_and_call(self, inputs, args, kwargs):
        if not self.built:
            self._build_input_shape = _input_shape(inputs)  # a .keras file's build_config
            self.build(self._build_input_shape)
            self.built = True
        if "training" in kwargs and not _accepts(self.call, "training"):
            kwargs.pop("training")
        if "mask" in kwargs and not _accepts(self.call, "mask"):
            kwargs.pop("mask")
        entry = not _ENTRY_CALL
        if entry:
            self._clear_losses()
            _ENTRY_CALL.append(self)
        try:
            try:
                outputs = self._call_in_scope(inputs, args, kwargs)
            except Exception as error:
                worded = _call_errors.worded_call_error(error, self, (inputs,) + tuple(args),
                                                        kwargs)
                if worded is None:
                    raise
                raise worded.with_traceback(error.__traceback__) from None
            if self.activity_regularizer is not None:
                self._add_activity_losses(outputs)
        finally:
            if entry:
                _ENTRY_CALL.pop()
        return outputs

    def _add_activity_losses(self, outputs):
        """The activity regularizer's penalty of each output, divided by the batch size
        (as Keras 3 divides it)."""
        for output in nest.flatten(outputs, expand_composites=False):
            if not _is_tensor(output):
                continue
            penalty = self.activity_regularizer(output)
            if output.shape.rank:
                batch = _math.cast(_array.shape(output)[0], penalty.dtype)
                penalty = _tensors.divide_no_nan(penalty, batch)
            self.add_loss(penalty)

    def _call_in_scope(self, inputs, args, kwargs):
        """`call` in the layer's name scope; in a trace, a `call` the user wrote is
        converted as TensorFlow's Keras converts it, so that its `if`/`for` over tensors
        are staged."""
        with _scopes.name_scope(self.name + "/"):
            if _context.executing_eagerly() or is_library(type(self).call):
                return self.call(inputs, *args, **kwargs)
            return converted_call(self.call, (inputs,) + tuple(args), kwargs)

    def compute_output_shape(self, input_shape):
        """The output shape for inputs of `input_shape` (by default the input's)."""
        return input_shape

    def compute_mask(self, inputs, previous_mask=None):
        """The mask of the output (which steps are real, not padding): the input's mask
        when the layer `supports_masking`, else None. Inside a Sequential or functional
        model each layer is given its input's mask (as `mask=`, when its `call` takes
        one); a tensor here carries no mask, so between layers called by hand it is
        passed explicitly (`lstm(x, mask=embedding.compute_mask(ids))`)."""
        return previous_mask if self.supports_masking else None

    def get_config(self):
        """The layer's constructor arguments, as a dict."""
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}


def _check_positional_tensors(positional):
    """Keras's rule: what a layer is given positionally is tensors (or arrays, or None);
    a number or string there (`layer([[2.0, 2.0]])`) must be passed by keyword."""
    for leaf in nest.flatten(positional, expand_composites=False):
        if leaf is None or isinstance(leaf, _POSITIONAL_TYPES) or _is_tensor(leaf):
            continue
        raise ValueError("Only input tensors may be passed as positional arguments. The "
                         "following argument value should be passed as a keyword argument: "
                         "%s (of type %s)" % (leaf, type(leaf)))


def call_with_mask(layer, inputs, mask, kwargs):
    """`layer(inputs, **kwargs)` inside a model, given the mask of `inputs` (passed as
    `mask=` when the layer's call takes it): (outputs, the outputs' mask)."""
    if mask is not None and _accepts(layer.call, "mask"):
        kwargs = dict(kwargs, mask=mask)
    elif mask is not None and not layer.supports_masking:
        warnings.warn("Layer '%s' (of type %s) was passed an input with a mask attached to "
                      "it. However, this layer does not support masking and will therefore "
                      "destroy the mask information. Downstream layers will not see the "
                      "mask." % (layer.name, type(layer).__name__), stacklevel=3)
    outputs = layer(inputs, **kwargs)
    return outputs, layer.compute_mask(inputs, mask)


def _accepts(method, argument):
    try:
        return argument in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return True


def _input_shape(inputs):
    """The shape `build` is given: a TensorShape, or a list (or dict, for inputs by
    name) of them for several inputs."""
    if isinstance(inputs, (list, tuple)):
        return [_input_shape(x) for x in inputs]
    if isinstance(inputs, dict):
        return {key: _input_shape(x) for key, x in inputs.items()}
    if isinstance(inputs, CompositeTensor):
        return TensorShape(getattr(inputs, "shape"))  # (sparse and ragged tensors have one)
    return TensorShape(_tensors.as_tensor(inputs, None).shape)

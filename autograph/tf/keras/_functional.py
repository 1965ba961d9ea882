"""The functional API's model: `Input` makes a Keras tensor (layers/_input.py), layers
called on Keras tensors record their calls (_symbolic.py), and `Model(inputs, outputs)`
replays the recorded calls on real tensors.

    inputs = tf.keras.Input(shape=(4,), name="features")
    hidden = tf.keras.layers.Dense(8, activation="relu")(inputs)
    outputs = tf.keras.layers.Dense(1)(hidden)
    model = tf.keras.Model(inputs, outputs)      # Functional, a Model
    model(x)                                     # Dense, then Dense, on x

The model's layers are ordered as Keras orders them: deepest (farthest from the outputs)
first, the input layers included; at equal depth in the order a walk back from the outputs
meets them.
"""

from __future__ import annotations

from typing import Any

from autograph.tf.keras import _model, _tensors
from autograph.tf.keras._model import Model
from autograph.tf.keras._symbolic import KerasTensor, Node
from autograph.tf.keras.layers._input import InputLayer
from autograph.tf.keras.layers._layer import _accepts, _unique_name, call_with_mask
from runtime import nest
from runtime.composite.sparse import SparseTensor


def _check_keras_tensors(structure: Any, what: str) -> list[KerasTensor]:
    flat = nest.flatten(structure, expand_composites=False)
    for value in flat:
        if not isinstance(value, KerasTensor):
            raise ValueError("All `%s` values must be KerasTensors (made by tf.keras.Input or "
                             "by calling a layer on one). Received: %s=%r including invalid "
                             "value %r of type %s" % (what, what, structure, value,
                                                      type(value).__name__))
    return flat


class Functional(Model):
    """A model made of layer calls on Keras tensors, from `inputs` to `outputs` (each a
    Keras tensor, or a list or dict of them)."""

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None,
                 trainable: bool = True, **kwargs: Any) -> None:
        super().__init__(name=name or _functional_name(), trainable=trainable, **kwargs)
        if isinstance(inputs, dict):
            inputs = dict(inputs)
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self.inputs = _check_keras_tensors(inputs, "inputs")
        self.outputs = _check_keras_tensors(outputs, "outputs")
        self._nodes, layers = _by_depth(_nodes_in_order(self.inputs, self.outputs),
                                        self.outputs)
        for layer in layers:
            if layer not in self._layers:
                self._layers.append(layer)
        self.built = True

    @property
    def input_shape(self) -> Any:
        """The inputs' shapes (one tuple for a single input)."""
        shapes = [t.shape for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        """The outputs' shapes (one tuple for a single output)."""
        shapes = [t.shape for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_names(self) -> list[str]:
        """The names of the layers that make the outputs."""
        return [t.node.layer.name for t in self.outputs if t.node is not None]

    def _output_names(self, y_pred: Any) -> list[str]:
        if isinstance(self._outputs_struct, dict):
            return sorted(self._outputs_struct)
        return self.output_names

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """The recorded layer calls replayed on `inputs` (structured as the model's
        inputs; a dict by input name works too), each layer given its input's mask when
        one was made (by an Embedding with mask_zero=True)."""
        values: dict[int, Any] = {}
        masks: dict[int, Any] = {}  # id(KerasTensor) -> its mask, where a layer made one
        for tensor, value in zip(self.inputs, self._flat_inputs(inputs)):
            values[id(tensor)] = (_tensors.as_sparse(value, tensor.dtype)
                                  if isinstance(value, SparseTensor)
                                  else _tensors.as_tensor(value, tensor.dtype))
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue
            x, args, kwargs = nest.map_structure(
                lambda v: values[id(v)] if isinstance(v, KerasTensor) else v, node.call_args)
            if training is not None and "training" not in kwargs and \
                    _accepts(node.layer.call, "training"):
                kwargs = dict(kwargs, training=training)
            given = [masks.get(id(t)) for t in node.input_tensors]
            if len(given) > 1 and any(m is not None for m in given):
                raise NotImplementedError(
                    "Layer '%s' takes several inputs, one of them masked (by an Embedding "
                    "with mask_zero=True): masks through merging layers are not supported; "
                    "pool or reduce each masked sequence first" % node.layer.name)
            if given and given[0] is not None and not args:
                result, mask = call_with_mask(node.layer, x, given[0], kwargs)
            else:
                result = node.layer(x, *args, **kwargs)
                mask = node.layer.compute_mask(x, None)
            flat = nest.flatten(result, expand_composites=False)
            flat_masks = mask if isinstance(mask, (list, tuple)) else [mask]
            for tensor, value, out_mask in zip(node.output_tensors, flat,
                                               list(flat_masks) + [None] * len(flat)):
                values[id(tensor)] = value
                if out_mask is not None:
                    masks[id(tensor)] = out_mask
        return nest.map_structure(lambda t: values[id(t)], self._outputs_struct)

    def _flat_inputs(self, inputs: Any) -> list[Any]:
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            by_name = {t.name: t for t in self.inputs}
            unknown = sorted(set(inputs) - set(by_name))
            if unknown:
                raise ValueError("The model's inputs are named %s; the dict given has keys "
                                 "%s" % (sorted(by_name), unknown))
            return [inputs[t.name] for t in self.inputs]
        if isinstance(self._inputs_struct, dict):
            return [inputs[key] for key in sorted(self._inputs_struct)]
        if len(self.inputs) > 1:
            flat = nest.flatten(inputs, expand_composites=False)
        elif isinstance(inputs, (list, tuple)) and inputs and \
                all(hasattr(item, "shape") for item in inputs):
            flat = list(inputs)  # tensors or arrays given as a list, one per input
        else:
            flat = [inputs]
        if len(flat) != len(self.inputs):
            raise ValueError("Model '%s' expects %d input(s), but it received %d input "
                             "tensors." % (self.name, len(self.inputs), len(flat)))
        return flat


def _functional_name() -> str:
    return _unique_name("functional")


_model.set_functional_class(Functional)  # what Model(inputs, outputs) makes


def _nodes_in_order(inputs: list[KerasTensor], outputs: list[KerasTensor]) -> list[Node]:
    """The nodes from the inputs to the outputs, each after the nodes it reads from (a
    depth-first walk back from each output, in order)."""
    ordered: list[Node] = []
    done: set[int] = set()
    input_ids = {id(t) for t in inputs}
    reached: set[int] = set()

    def visit(tensor: KerasTensor) -> None:
        node = tensor.node
        if id(tensor) in input_ids:
            reached.add(id(tensor))
            if node is not None and id(node) not in done:
                done.add(id(node))
                ordered.append(node)
            return
        if node is None or isinstance(node.layer, InputLayer):
            raise ValueError(
                "Graph disconnected: cannot find a value for tensor %r: it is not among the "
                "model's inputs %s; every path from the outputs must lead to them"
                % (tensor, [t.name for t in inputs]))
        if id(node) in done:
            return
        for source in node.input_tensors:
            visit(source)
        done.add(id(node))
        ordered.append(node)

    for output in outputs:
        visit(output)
    unused = [t.name for t in inputs if id(t) not in reached]
    if unused:
        raise ValueError("The model's inputs %s are not used to compute its outputs"
                         % unused)
    return ordered


def _by_depth(ordered: list[Node], outputs: list[KerasTensor]) -> tuple[list[Node], list[Any]]:
    """(the nodes, the layers) in Keras's order: by depth (the longest path to an output),
    deepest first, and at equal depth in the order a depth-first walk back from the
    outputs meets the layers. A node's depth orders the calls (a node is deeper than every
    node reading its outputs); a layer's, the deepest of its nodes', orders `model.layers`
    and so `model.weights`. `ordered`: each node after the nodes it reads from."""
    discovered: dict[int, int] = {}  # id(layer) -> when the walk back first meets it
    stack = [t.node for t in reversed(outputs) if t.node is not None]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        discovered.setdefault(id(node.layer), len(discovered))
        stack.extend(t.node for t in reversed(node.input_tensors) if t.node is not None)
    depth: dict[int, int] = {}  # id(node) -> depth
    layer_depth: dict[int, int] = {}
    for node in reversed(ordered):  # consumers before the nodes they read from
        d = max(depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
        depth[id(node)] = layer_depth[id(node.layer)] = d
        for source in node.input_tensors:
            if source.node is not None:
                depth[id(source.node)] = max(depth.get(id(source.node), 0), d + 1)
    nodes = sorted(ordered, key=lambda n: (-depth[id(n)], discovered.get(id(n.layer), -1)))
    layers: list[Any] = []
    for node in sorted(ordered, key=lambda n: (-layer_depth[id(n.layer)],
                                               discovered.get(id(n.layer), -1))):
        if all(node.layer is not known for known in layers):
            layers.append(node.layer)
    return nodes, layers

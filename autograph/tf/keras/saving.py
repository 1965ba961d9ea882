"""`tf.keras.saving`: whole models in Keras 3's `.keras` format.

    model.save("model.keras")
    restored = tf.keras.models.load_model("model.keras")

A `.keras` file is a zip archive of three members, the layout Keras 3 writes:

- `metadata.json`: the Keras version of the format and the date saved;
- `config.json`: the model's architecture as Keras configs (`{"module", "class_name",
  "config", "registered_name", "build_config", "compile_config"}`, each layer's
  constructor arguments, a functional model's layer calls as `inbound_nodes`);
- `model.weights.h5`: an HDF5 file with each layer's weights under
  `layers/<layer name>/vars/<index>` (in the layer's weight order).

Files written by Keras 3 load here, and files written here load in Keras, for the layers
this project has. Loading never runs code from the file: classes are looked up by name
among this project's Keras classes, `custom_objects` and classes registered with
`register_keras_serializable`; nothing is unpickled, and a Keras `Lambda` (Python
bytecode in the file) is refused.

HDF5 is read and written with h5py (the `keras` extra: `pip install autograph[keras]`),
imported only when a `.keras` file is saved or loaded.
"""


import datetime
import inspect
import io
import json
import os
import zipfile
from collections.abc import Callable as _Callable
from typing import Any as _Any

import numpy as np

from autograph.tf.keras import _functional, _model
from autograph.tf.keras import activations as _activations
from autograph.tf.keras import initializers as _initializers
from autograph.tf.keras import layers as _layers
from autograph.tf.keras import losses as _losses
from autograph.tf.keras import optimizers as _optimizers
from autograph.tf.keras import regularizers as _regularizers
from autograph.tf.keras._model import Model as _Model
from autograph.tf.keras._symbolic import KerasTensor as _KerasTensor
from autograph.tf.keras.layers import _core as _layers_core
from autograph.tf.keras.layers._layer import Layer as _Layer
from autograph.tf.keras.layers._layer import _keras_snake_case
from autograph.tf.keras.optimizers import schedules as _schedules
from runtime.checkpoint import files as _files
from runtime.io import untrusted_files as _untrusted_files

_FORMAT_VERSION = "3.15.1"  # the Keras version whose .keras layout these files follow
_CONFIG = "config.json"
_METADATA = "metadata.json"
_WEIGHTS = "model.weights.h5"
_REGISTERED: dict[str, type] = {}
_CONFIG_LIMIT_BYTES = 64 << 20  # a model's config.json: its layers' settings, never its weights
_DEFLATE_MAX_RATIO = 1032  # the most bytes deflate gives per compressed byte

# Keras constructor arguments this project has no counterpart for, and the value that
# means "not used" (a file may carry them at that value; any other value is refused)
_UNUSED_AT: dict[str, _Any] = {
    "kernel_regularizer": None, "bias_regularizer": None, "activity_regularizer": None,
    "kernel_constraint": None, "bias_constraint": None, "quantization_config": None,
    "lora_rank": None, "lora_alpha": None, "input_axes": None, "output_axes": None,
    "sparse": False, "ragged": False, "optional": False, "use_ema": False,
    "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
    "gradient_accumulation_steps": None, "embeddings_regularizer": None,
    "embeddings_constraint": None, "beta_regularizer": None, "gamma_regularizer": None,
    "beta_constraint": None, "gamma_constraint": None, "synchronized": False,
    "mask_zero": False, "weights": None, "renorm": False, "renorm_clipping": None,
    "renorm_momentum": 0.99, "rms_scaling": False, "groups": 1, "recurrent_regularizer": None,
    "recurrent_constraint": None, "dropout": 0.0, "recurrent_dropout": 0.0, "seed": None,
    "return_state": False, "go_backwards": False, "stateful": False, "unroll": False,
    "zero_output_for_mask": False, "data_format": "channels_last",
}


def register_keras_serializable(package: str = "Custom",
                                name: str | None = None) -> _Callable[[type], type]:
    """A class decorator that lets `load_model` find a custom layer or model by its
    registered name (`"package>Name"`), as Keras's decorator of that name does."""
    def register(cls: type) -> type:
        key = "%s>%s" % (package, name or cls.__name__)
        if key in _REGISTERED and _REGISTERED[key] is not cls:
            raise ValueError("%s has already been registered to %s" % (key, _REGISTERED[key]))
        _REGISTERED[key] = cls
        cls._registered_name = key  # type: ignore[attr-defined]
        return cls
    return register


def get_registered_name(cls: type) -> str:
    """The name `register_keras_serializable` gave `cls` (its class name if none)."""
    return str(getattr(cls, "_registered_name", cls.__name__))


class _Unreadable(ValueError):
    """A .keras file that is not one, or that holds what this project can not load."""


def _h5py(action: str) -> _Any:
    try:
        import h5py
    except ImportError:
        raise ImportError(
            "%s a .keras file needs h5py (the weights are stored in HDF5): install the "
            "'keras' extra, `pip install autograph[keras]`, or `pip install h5py`"
            % action) from None
    return h5py


# -- writing ---------------------------------------------------------------------------------

def save_model(model: _Model, filepath: str | os.PathLike[str], overwrite: bool = True,
               zipped: bool | None = None, **kwargs: _Any) -> None:
    """Write `model` (architecture, weights and compile arguments) to the `.keras`
    file `filepath`, as Keras 3 does."""
    path = os.fspath(filepath)
    if kwargs:
        raise TypeError("save_model() got unexpected keyword arguments %s" % sorted(kwargs))
    if zipped is False:
        raise NotImplementedError("save_model(zipped=False) is not supported")
    if not path.endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add a `.keras` extension to the "
            "filepath (model.save writes Keras 3's .keras format; for a TensorFlow "
            "checkpoint of the model use tf.train.Checkpoint(model=model).write(prefix)). "
            "Received: filepath=%s" % path)
    if not isinstance(model, _Model):
        raise TypeError("save_model expects a tf.keras Model; got %r" % (model,))
    if os.path.exists(path) and not overwrite:
        raise FileExistsError("%s already exists and overwrite=False" % path)
    if not model.built:
        raise ValueError("Model '%s' has not been built yet, so it has no weights to save: "
                         "call it on data or `build(input_shape)` first" % model.name)
    h5py = _h5py("Saving")
    config = serialize_keras_object(model)
    compile_config = _compile_config(model)
    if compile_config is not None:
        config["compile_config"] = compile_config
    weights = _weights_bytes(h5py, model, compile_config is not None)
    metadata = {"keras_version": _FORMAT_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    # written next to the target and renamed: a failure leaves no half-written file
    with _files.atomic_write(os.path.abspath(path)) as raw, zipfile.ZipFile(raw, "w") as archive:
        archive.writestr(_METADATA, json.dumps(metadata))
        archive.writestr(_CONFIG, json.dumps(config))
        archive.writestr(_WEIGHTS, weights)


def _weights_bytes(h5py: _Any, model: _Model, with_optimizer: bool) -> bytes:
    """The HDF5 file of `model`'s weights in Keras 3's layout, with its optimizer's state
    when `with_optimizer` and it has an optimizer."""
    weights = io.BytesIO()
    with h5py.File(weights, "w") as store:
        _write_weights(store, model)
        if with_optimizer and model.optimizer is not None:
            _write_optimizer(store, model)
    return weights.getvalue()


def serialize_keras_object(obj: _Any) -> _Any:
    """A Keras config of `obj` (a layer, model, initializer, optimizer or loss), or
    `obj` itself for plain values."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(item) for item in obj]
    if isinstance(obj, dict):
        return {key: serialize_keras_object(value) for key, value in obj.items()}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, _Layer):
        return _serialize_layer(obj)
    if callable(obj) and getattr(obj, "__name__", None) in _activations._BY_NAME:
        return obj.__name__
    if isinstance(obj, _initializers.Initializer):
        return _entry("keras.initializers", type(obj).__name__, obj.get_config())
    if isinstance(obj, _regularizers.Regularizer) and \
            type(obj).__module__ == _regularizers.__name__:
        return _entry("keras.regularizers", type(obj).__name__, obj.get_config())
    if isinstance(obj, _optimizers.Optimizer):
        return _entry("keras.optimizers", type(obj).__name__, _optimizer_config(obj))
    if isinstance(obj, _losses.Loss) and type(obj).__module__ == _losses.__name__:
        return _entry("keras.losses", type(obj).__name__, obj.get_config())
    raise TypeError("Cannot serialize %r (of type %s) to a Keras config: give it "
                    "`get_config()` (and register its class with "
                    "tf.keras.saving.register_keras_serializable)" % (obj, type(obj).__name__))


def _entry(module: str, class_name: str, config: _Any,
           registered_name: str | None = None) -> dict[str, _Any]:
    return {"module": module, "class_name": class_name,
            "config": serialize_keras_object(config), "registered_name": registered_name}


def _dtype_policy(dtype: _Any) -> dict[str, _Any]:
    return _entry("keras", "DTypePolicy", {"name": str(getattr(dtype, "name", dtype))})


def _is_library_class(cls: type) -> bool:
    return cls.__module__.startswith("autograph.tf.keras.")


def _serialize_layer(layer: _Layer) -> dict[str, _Any]:
    cls = type(layer)
    if isinstance(layer, _layers.InputLayer):
        return _entry("keras.layers", "InputLayer", {
            "batch_shape": list(layer.batch_shape), "dtype": str(layer.dtype),
            "sparse": layer.sparse, "ragged": False, "name": layer.name, "optional": False})
    if cls.__name__ in ("Sequential", "Functional") and _is_library_class(cls):
        return _model_entry(layer)
    if isinstance(layer, _layers_core.TensorOperator):
        raise TypeError("Cannot save layer '%s': a layer made by an operator on Keras "
                        "tensors (such as `x * 2.0`) holds a Python function; use a layer "
                        "(Add, Activation, a Layer subclass) instead" % layer.name)
    config = layer.get_config() if not _is_library_class(cls) else _library_config(layer)
    if _is_library_class(cls):
        config["dtype"] = _dtype_policy(layer.dtype)
        entry = _entry("keras.layers", cls.__name__, config)
    else:
        entry = _entry(cls.__module__, cls.__name__, config, get_registered_name(cls))
    shape = _built_input_shape(layer)
    if shape is not None:
        entry["build_config"] = {"input_shape": shape}
    return entry


def _library_config(layer: _Layer) -> dict[str, _Any]:
    """A library layer's constructor arguments, read back from its attributes."""
    config: dict[str, _Any] = {"name": layer.name, "trainable": layer.trainable}
    for cls in type(layer).__mro__:
        if cls is _Layer or not issubclass(cls, _Layer):
            break
        for parameter in list(inspect.signature(cls.__init__).parameters.values())[1:]:
            if parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL) or \
                    parameter.name in config or parameter.name in ("layers",):
                continue
            value = getattr(layer, parameter.name, parameter.default)
            if value is inspect.Parameter.empty:
                raise TypeError("Cannot save layer '%s': its argument %r is not kept as an "
                                "attribute" % (layer.name, parameter.name))
            config[parameter.name] = serialize_keras_object(value)
    return config


def _built_input_shape(layer: _Layer) -> _Any:
    nodes = layer.__dict__.get("_inbound_nodes") or []
    if nodes and not isinstance(layer, _layers.InputLayer):
        shapes = [list(t.shape) for t in nodes[0].input_tensors]
        return shapes[0] if len(shapes) == 1 else shapes
    return _shape_list(getattr(layer, "_build_input_shape", None))


def _shape_list(shape: _Any) -> _Any:
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        return shape.as_list() if shape.rank is not None else None
    if isinstance(shape, (list, tuple)) and any(
            isinstance(s, (list, tuple)) or hasattr(s, "as_list") for s in shape):
        return [_shape_list(s) for s in shape]
    return [None if d is None else int(d) for d in shape]


def _model_entry(model: _Any) -> dict[str, _Any]:
    if type(model).__name__ == "Sequential":
        layers = []
        if model._declared_input is not None:
            layers.append(_entry("keras.layers", "InputLayer", {
                "batch_shape": list(model._declared_input), "dtype": "float32",
                "sparse": False, "ragged": False, "name": "input_layer",
                "optional": False}))
        layers += [_serialize_layer(layer) for layer in model._layers]
        config = {"name": model.name, "trainable": model.trainable,
                  "dtype": _dtype_policy(model.dtype), "layers": layers}
        shape = _sequential_input_shape(model)
        if shape is not None:
            config["build_input_shape"] = shape
        entry = _entry("keras", "Sequential", config)
        if shape is not None:
            entry["build_config"] = {"input_shape": shape}
        return entry
    return _functional_entry(model)


def _sequential_input_shape(model: _Any) -> _Any:
    shape = model._declared_input or (model._layers[0]._input_shape_arg
                                      if model._layers else None)
    if shape is None:
        return _shape_list(getattr(model, "_build_input_shape", None))
    return list(shape)


def _functional_entry(model: _Any) -> dict[str, _Any]:
    for struct in (model._inputs_struct, model._outputs_struct):
        if isinstance(struct, dict) and not all(isinstance(value, _KerasTensor)
                                                for value in struct.values()):
            raise NotImplementedError("Saving a functional model whose inputs or outputs "
                                      "are a dict of nested structures is not supported")
    in_model = {id(node) for node in model._nodes}

    def node_index(node: _Any) -> int:
        own = [n for n in node.layer.__dict__.get("_inbound_nodes", []) if id(n) in in_model]
        return next(i for i, n in enumerate(own) if n is node)

    def history(tensor: _KerasTensor) -> list[_Any]:
        assert tensor.node is not None
        return [tensor.node.layer.name, node_index(tensor.node), tensor.index]

    def argument(value: _Any) -> _Any:
        if isinstance(value, _KerasTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": list(value.shape), "dtype": value.dtype.name,
                               "keras_history": history(value)}}
        if isinstance(value, (list, tuple)):
            return [argument(item) for item in value]
        if isinstance(value, dict):
            return {key: argument(item) for key, item in value.items()}
        return serialize_keras_object(value)

    layers = []
    for layer in model._layers:
        entry = _serialize_layer(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [] if isinstance(layer, _layers.InputLayer) else [
            {"args": argument([node.call_args[0], *node.call_args[1]]),
             "kwargs": argument(node.call_args[2])}
            for node in layer.__dict__.get("_inbound_nodes", []) if id(node) in in_model]
        layers.append(entry)

    def ends(tensors: list[_KerasTensor], struct: _Any) -> _Any:
        if isinstance(struct, dict):  # Keras writes a dict by name, in the model's order
            return {key: history(value) for key, value in struct.items()}
        found = [history(t) for t in tensors]
        return found[0] if len(found) == 1 and isinstance(struct, _KerasTensor) else found

    config = {"name": model.name, "trainable": model.trainable, "layers": layers,
              "input_layers": ends(model.inputs, model._inputs_struct),
              "output_layers": ends(model.outputs, model._outputs_struct)}
    entry = _entry("keras.src.models.functional", "Functional", config, "Functional")
    entry["build_config"] = {"input_shape": None}
    return entry


def _optimizer_config(optimizer: _Any) -> dict[str, _Any]:
    config = dict(optimizer.get_config())
    rate: _Any = config.get("learning_rate")
    if hasattr(rate, "get_config"):
        config["learning_rate"] = _entry("keras.optimizers.schedules", type(rate).__name__,
                                         rate.get_config())
    return config


def _compile_config(model: _Model) -> dict[str, _Any] | None:
    if not getattr(model, "compiled", False):
        return None
    given = model._compile_config or {}
    return {"optimizer": serialize_keras_object(model.optimizer),
            "loss": serialize_keras_object(given.get("loss")),
            "loss_weights": serialize_keras_object(given.get("loss_weights")),
            "metrics": serialize_keras_object(given.get("metrics")),
            "weighted_metrics": serialize_keras_object(given.get("weighted_metrics")),
            "run_eagerly": bool(model.run_eagerly),
            "steps_per_execution": 1, "jit_compile": False}


def _saveables(layer: _Layer, path: str) -> list[tuple[str, _Layer]]:
    """Every layer under `layer` with the HDF5 group its weights go in, walked as Keras
    walks them: a Sequential's or functional model's `layers` first, then the public
    attributes in name order (a layer at its attribute's name, a list or dict of layers
    at `<attribute>/<layer name>`), then the private ones; each layer once."""
    found: list[tuple[str, _Layer]] = []
    visited: set[int] = set()

    def join(base: str, name: str) -> str:
        return base + "/" + name if base else name

    def visit(obj: _Layer, where: str) -> None:
        if id(obj) in visited:
            return
        visited.add(id(obj))
        obj._track_containers()
        found.append((where, obj))
        attributes = {name: value for name, value in vars(obj).items()
                      if not name.startswith("__") and name not in _SKIPPED}
        children: list[tuple[str, _Any]] = []
        if isinstance(obj, _Model):
            if _is_library_class(type(obj)):
                children.append(("layers", obj.layers))
            else:
                attributes["layers"] = obj.layers  # a property, met in name order
        names = sorted(attributes, key=lambda name: "~" + name if name[0] == "_" else name)
        children += [(name, attributes[name]) for name in names]
        for name, child in children:
            if isinstance(child, _Layer):
                visit(child, join(where, name))
            elif isinstance(child, (list, tuple, dict)):
                visit_container(child, join(where, name), set())

    def visit_container(container: _Any, where: str, seen: set[int]) -> None:
        # items are named by class ("dense", "dense_1", nested lists "container"), not by
        # layer name: generated names differ between two instances of one model
        if id(container) in seen:
            return
        seen.add(id(container))
        used: dict[str, int] = {}
        items = container.values() if isinstance(container, dict) else container
        for item in items:
            if isinstance(item, _Layer):
                visit(item, join(where, _unique_in(_keras_snake_case(type(item).__name__),
                                                   used)))
            elif isinstance(item, (list, tuple, dict)):
                visit_container(item, join(where, _unique_in("container", used)), seen)

    visit(layer, path)
    return found


def _unique_in(name: str, used: dict[str, int]) -> str:
    if name in used:
        used[name] += 1
        return "%s_%d" % (name, used[name])
    used[name] = 0
    return name


# bookkeeping attributes of our layers that Keras's walk does not see
_SKIPPED = frozenset(["_layers", "_outer", "_inbound_nodes", "_nodes", "optimizer",
                      "_inputs_struct", "_outputs_struct", "inputs", "outputs"])


def _weights_in_cell(layer: _Layer) -> bool:
    """Whether Keras keeps this layer's weights in its `cell` (the recurrent layers,
    whose weights this project keeps on the layer itself)."""
    return isinstance(layer, (_layers.SimpleRNN, _layers.LSTM, _layers.GRU))


def _join(base: str, name: str) -> str:
    return base + "/" + name if base else name


def _vars_group(path: str) -> str:
    return path + "/vars" if path else "vars"


def _write_weights(store: _Any, model: _Layer) -> None:
    """Each layer's own weights under `<its path>/vars/<i>` (the model's at `vars`)."""
    for path, layer in _saveables(model, ""):
        if isinstance(layer, _layers.InputLayer):
            continue
        group = store.require_group(_vars_group(path))
        group.attrs["name"] = layer.name
        if _weights_in_cell(layer):
            group = store.require_group(_vars_group(_join(path, "cell")))
            group.attrs["name"] = "%s_cell" % _keras_snake_case(type(layer).__name__)
        for index, weight in enumerate(layer._weights):
            group.create_dataset(str(index), data=np.asarray(weight.numpy()))


def _write_optimizer(store: _Any, model: _Model) -> None:
    variables = _optimizer_variables(model.optimizer)
    if not variables:
        return
    group = store.require_group("optimizer/vars")
    group.attrs["name"] = model.optimizer.name
    for index, variable in enumerate(variables):
        group.create_dataset(str(index), data=np.asarray(variable.numpy()))


def _optimizer_variables(optimizer: _Any) -> list[_Any]:
    """The optimizer's variables in Keras's order: iterations, learning rate, then each
    model variable's slots (or [] when it has not made its slots yet)."""
    variables = getattr(optimizer, "variables", None)
    if callable(variables):
        variables = variables()
    return list(variables or [])


# -- reading ---------------------------------------------------------------------------------

def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, _Any] | None = None,
               compile: bool = True, safe_mode: bool = True) -> _Model:  # noqa: A002
    """The model a `.keras` file holds (Keras 3's or this project's), with its weights,
    compiled as it was saved when `compile=True`."""
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            "File format not supported: filepath=%s. tf.keras.models.load_model reads "
            "Keras 3's .keras files (legacy .h5 files and SavedModel folders are not "
            "supported; a TensorFlow checkpoint of a model is read with "
            "tf.train.Checkpoint(model=model).read(prefix))" % path)
    try:
        fd = _untrusted_files.open_regular(str(path))
    except _untrusted_files.RefusedFile as refused:
        if refused.missing:
            raise ValueError("File not found: filepath=%s. Please ensure the file is an "
                             "accessible `.keras` zip file." % path) from None
        raise ValueError("%s is not a .keras file: it %s" % (path, refused.reason)) from None
    h5py = _h5py("Loading")
    try:
        with os.fdopen(fd, "rb") as raw, zipfile.ZipFile(raw, "r") as archive:
            names = set(archive.namelist())
            missing = sorted({_CONFIG, _WEIGHTS} - names)
            if missing:
                raise _Unreadable("%s is not a .keras file: it lacks %s" % (path, missing))
            config = json.loads(_read_member(archive, _CONFIG, path, _CONFIG_LIMIT_BYTES)
                                .decode("utf-8"))
            weights = io.BytesIO(_read_member(archive, _WEIGHTS, path, None))
    except zipfile.BadZipFile as error:
        raise ValueError("%s is not a .keras file (a zip archive): %s" % (path, error)) \
            from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError("%s: its config.json is not valid JSON: %s" % (path, error)) \
            from None
    loader = _Loader(custom_objects or {}, safe_mode, path)
    model = loader.object(config, "model")
    if not isinstance(model, _Model):
        raise ValueError("%s holds a %s, not a Keras model" % (path, type(model).__name__))
    try:
        store = h5py.File(weights, "r")
    except OSError as error:
        raise ValueError("%s: its model.weights.h5 is not an HDF5 file: %s"
                         % (path, error)) from None
    with store:
        _read_weights(store, model, path)
        compile_config = config.get("compile_config") if compile else None
        if compile_config:
            model.compile(**loader.compile_arguments(compile_config))
            optimizer = _member(store, "optimizer", path)
            if optimizer is not None:
                _read_optimizer(optimizer, model, path)
    return model


def _read_member(archive: zipfile.ZipFile, name: str, path: str, limit: int | None) -> bytes:
    """Member `name` of a .keras archive, refused before a byte is inflated when it declares
    more than `limit` bytes, or more than deflate can make of its compressed bytes (a zip
    bomb); zipfile stops inflating at the declared size."""
    info = archive.getinfo(name)
    if limit is not None and info.file_size > limit:
        raise _Unreadable("%s: its %s declares %d bytes, more than the %d it may hold"
                          % (path, name, info.file_size, limit))
    if info.file_size > info.compress_size * _DEFLATE_MAX_RATIO + 1024:
        raise _Unreadable("%s: its %s declares %d bytes from %d compressed bytes, more than "
                          "compression can give" % (path, name, info.file_size,
                                                    info.compress_size))
    return archive.read(info)


class _Loader:
    """Turns Keras configs back into objects, looking classes up by name only."""

    def __init__(self, custom_objects: dict[str, _Any], safe_mode: bool, path: str) -> None:
        self.custom_objects = custom_objects
        self.safe_mode = safe_mode
        self.path = path

    def fail(self, message: str) -> _Unreadable:
        return _Unreadable("Cannot load %s: %s" % (self.path, message))

    def lookup(self, entry: dict[str, _Any], where: str) -> type:
        class_name = entry.get("class_name")
        registered = entry.get("registered_name")
        if class_name == "Lambda" or class_name == "__lambda__":
            raise self.fail(
                "%s is a Lambda layer, whose function is stored as Python bytecode; loading "
                "it would run code from the file, which this project never does "
                "(safe_mode). Rewrite the function as a layer subclass" % where)
        for key in (registered, class_name):
            if key and key in self.custom_objects:
                return self.custom_objects[key]
            if key and key in _REGISTERED:
                return _REGISTERED[key]
        module = str(entry.get("module") or "")
        known = _library_class(module, str(class_name))
        if known is None:
            raise self.fail(
                "%s: unknown class %r (module %r). A custom class must be passed in "
                "`custom_objects` or registered with "
                "tf.keras.saving.register_keras_serializable" % (where, class_name, module))
        return known

    def object(self, entry: _Any, where: str) -> _Any:
        if not isinstance(entry, dict) or "class_name" not in entry:
            raise self.fail("%s: expected a Keras config (a dict with 'class_name'), got %r"
                            % (where, entry))
        cls = self.lookup(entry, where)
        config = entry.get("config") or {}
        if not isinstance(config, dict):
            raise self.fail("%s: its 'config' is not a dict" % where)
        if cls.__name__ == "Sequential" and _is_library_class(cls):
            return self.sequential(config, entry)
        if cls.__name__ == "Functional" and _is_library_class(cls):
            return self.functional(config)
        if isinstance(cls, type) and issubclass(cls, _Layer):
            layer = self.layer(cls, config, where)
            build = (entry.get("build_config") or {}).get("input_shape")
            if build is not None and not layer.built and not _is_library_class(cls):
                layer.build(_shape(build))
                layer.built = True
            return layer
        return self.construct(cls, config, where)

    def construct(self, cls: _Any, config: dict[str, _Any], where: str) -> _Any:
        arguments = self.arguments(cls, config, where)
        if hasattr(cls, "from_config") and not _is_library_class(cls):
            return cls.from_config(arguments)
        try:
            return cls(**arguments)
        except (TypeError, ValueError) as error:
            raise self.fail("%s: %s(**config) failed: %s" % (where, cls.__name__, error)) \
                from None

    def arguments(self, cls: _Any, config: dict[str, _Any], where: str) -> dict[str, _Any]:
        """The config's values made objects, less the Keras options this project has no
        counterpart for (refused unless at their unused value)."""
        values = {key: self.value(value, "%s.%s" % (where, key))
                  for key, value in config.items()}
        if not _is_library_class(cls):
            return values
        accepted = set()
        for klass in cls.__mro__:
            if klass is object:
                break
            init = klass.__dict__.get("__init__")
            if init is not None:
                accepted |= set(inspect.signature(init).parameters)
        for key in list(values):
            if key in accepted:
                continue
            if key in _UNUSED_AT and _same(values[key], _UNUSED_AT[key]):
                del values[key]
                continue
            raise self.fail("%s: the Keras option %s=%r is not supported here"
                            % (where, key, config[key]))
        return values

    def value(self, value: _Any, where: str) -> _Any:
        if isinstance(value, dict) and value.get("class_name") == "DTypePolicy":
            return (value.get("config") or {}).get("name", "float32")
        if isinstance(value, dict) and "class_name" in value:
            return self.object(value, where)
        if isinstance(value, list):
            return [self.value(item, where) for item in value]
        return value

    def layer(self, cls: type, config: dict[str, _Any], where: str) -> _Any:
        if cls is _layers.InputLayer:
            arguments = self.arguments(cls, config, where)
            return _layers.Input(batch_shape=arguments.get("batch_shape"),
                                 dtype=arguments.get("dtype"), name=arguments.get("name"),
                                 sparse=bool(arguments.get("sparse"))
                                 ).node.layer  # type: ignore[union-attr]
        arguments = self.arguments(cls, config, where)
        for key in ("kernel_size", "strides", "dilation_rate", "pool_size", "target_shape"):
            if isinstance(arguments.get(key), list):
                arguments[key] = tuple(arguments[key])
        if hasattr(cls, "from_config") and not _is_library_class(cls):
            return cls.from_config(arguments)
        try:
            return cls(**arguments)
        except (TypeError, ValueError) as error:
            raise self.fail("%s: %s(**config) failed: %s" % (where, cls.__name__, error)) \
                from None

    def sequential(self, config: dict[str, _Any], entry: dict[str, _Any]) -> _Model:
        sequential: _Any = _model._SEQUENTIAL[0]
        model = sequential(name=config.get("name"), trainable=config.get("trainable", True))
        for index, layer_entry in enumerate(config.get("layers") or []):
            layer = self.object(layer_entry, "layer %d of %s" % (index, model.name))
            model.add(layer)
        shape = config.get("build_input_shape") or \
            (entry.get("build_config") or {}).get("input_shape")
        if not model.built and shape is not None:
            model.build(_shape(shape))
        return model

    def functional(self, config: dict[str, _Any]) -> _Model:
        layers: dict[str, _Any] = {}
        outputs: dict[tuple[str, int], _Any] = {}
        for layer_entry in config.get("layers") or []:
            name = str(layer_entry.get("name") or
                       (layer_entry.get("config") or {}).get("name"))
            layer = self.object(layer_entry, "layer %r" % name)
            layers[name] = layer
            if isinstance(layer, _layers.InputLayer):
                outputs[(name, 0)] = layer.output
                continue
            for index, node in enumerate(layer_entry.get("inbound_nodes") or []):
                args = self.tensors(node.get("args") or [], outputs, name)
                kwargs = self.tensors(node.get("kwargs") or {}, outputs, name)
                outputs[(name, index)] = layer(*args, **kwargs)

        def pick(spec: _Any) -> _Any:
            if isinstance(spec, list) and spec and isinstance(spec[0], str):
                produced = outputs.get((spec[0], int(spec[1])))
                if produced is None:
                    raise self.fail("the model's input or output %r is not made by any "
                                    "layer call in the file" % (spec,))
                if isinstance(produced, (list, tuple)):
                    return produced[int(spec[2])]
                return produced
            if isinstance(spec, dict):  # inputs or outputs by name
                return {str(key): pick(item) for key, item in spec.items()}
            if isinstance(spec, list) and spec:
                return [pick(item) for item in spec]
            raise self.fail("the model's inputs or outputs are given as %r, not as "
                            "[layer, call, index] entries" % (spec,))

        return _Model(pick(config.get("input_layers")), pick(config.get("output_layers")),
                     name=config.get("name"))

    def tensors(self, structure: _Any, outputs: dict[tuple[str, int], _Any], layer: str) -> _Any:
        if isinstance(structure, dict) and structure.get("class_name") == "__keras_tensor__":
            history = (structure.get("config") or {}).get("keras_history") or []
            if len(history) != 3:
                raise self.fail("layer %r: a malformed keras_history %r" % (layer, history))
            produced = outputs.get((history[0], int(history[1])))
            if produced is None:
                raise self.fail("layer %r reads the output of %r call %s, which no earlier "
                                "layer in the file makes" % (layer, history[0], history[1]))
            if isinstance(produced, (list, tuple)):
                return produced[int(history[2])]
            return produced
        if isinstance(structure, list):
            return [self.tensors(item, outputs, layer) for item in structure]
        if isinstance(structure, dict):
            return {key: self.tensors(item, outputs, layer)
                    for key, item in structure.items()}
        return structure

    def compile_arguments(self, config: dict[str, _Any]) -> dict[str, _Any]:
        optimizer = config.get("optimizer")
        arguments: dict[str, _Any] = {
            "optimizer": self.value(optimizer, "the optimizer") if optimizer else "rmsprop",
            "loss": self.value(config.get("loss"), "the loss"),
            "loss_weights": config.get("loss_weights"),
            "metrics": self.value(config.get("metrics"), "the metrics"),
            "weighted_metrics": self.value(config.get("weighted_metrics"),
                                           "the weighted metrics"),
        }
        return arguments


def _same(a: _Any, b: _Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _shape(shape: _Any) -> _Any:
    if isinstance(shape, list) and shape and isinstance(shape[0], list):
        return [tuple(s) for s in shape]
    return tuple(shape)


def _library_class(module: str, class_name: str) -> _Any:
    """This project's class for a Keras config's `module` and `class_name`."""
    if class_name in ("Sequential",) and module in ("keras", "keras.models",
                                                    "keras.src.models.sequential"):
        return _model._SEQUENTIAL[0]
    if class_name == "Functional" or (class_name == "Model" and "functional" in module):
        return _functional.Functional
    namespaces = {"keras.layers": _layers, "keras.initializers": _initializers,
                  "keras.optimizers": _optimizers, "keras.losses": _losses,
                  "keras.optimizers.schedules": _schedules,
                  "keras.regularizers": _regularizers}
    namespace = namespaces.get(module)
    if namespace is None:
        return None
    if class_name.startswith("_"):  # (a module's private helper, never a Keras class)
        return None
    found = getattr(namespace, class_name, None)
    return found if isinstance(found, type) else None


def _read_weights(store: _Any, model: _Layer, filepath: str) -> None:
    """Every layer's weights from the groups `_write_weights` (or Keras) wrote; all
    checked before any is assigned."""
    pending = []
    for path, layer in _saveables(model, ""):
        if not layer._weights:
            continue
        key = _vars_group(_join(path, "cell") if _weights_in_cell(layer) else path)
        group = _member(store, key, filepath)
        if group is None:
            raise ValueError("Cannot load %s: no weights for layer '%s' (group %s is "
                             "missing)" % (filepath, layer.name, key))
        if len(group) != len(layer._weights):
            raise ValueError("Cannot load %s: layer '%s' has %d weights but the file holds "
                             "%d" % (filepath, layer.name, len(layer._weights), len(group)))
        for index, weight in enumerate(layer._weights):
            what = "weight %s of layer '%s'" % (weight.name, layer.name)
            pending.append((weight, _stored_value(group, str(index), weight, what,
                                                  filepath)))
    for weight, value in pending:
        weight.assign(value)


def _read_optimizer(group: _Any, model: _Model, filepath: str) -> None:
    """Restore the optimizer's variables (iterations, learning rate, slots), building
    its slots for the model's trainable variables first, as Keras does."""
    stored = _member(group, "vars", filepath)
    if stored is None:
        return
    optimizer = model.optimizer
    if not optimizer.built:
        optimizer.build(model.trainable_variables)
    variables = _optimizer_variables(optimizer)
    if len(stored) != len(variables):  # (counted before any value is read)
        raise ValueError(
            "Cannot load %s: the optimizer state holds %d variables, the model's %s "
            "optimizer has %d" % (filepath, len(stored), type(optimizer).__name__,
                                  len(variables)))
    values = [_stored_value(stored, str(i), variable, "optimizer variable %d" % i, filepath)
              for i, variable in enumerate(variables)]
    for variable, value in zip(variables, values):
        variable.assign(value)


def _member(group: _Any, path: str, filepath: str) -> _Any:
    """The group or dataset at `path` ('a/b/c') under HDF5 group `group`, or None when it is
    missing. Only hard links are followed: a soft or external link (another file, which
    could be any path on this machine, a FIFO included) is refused before it is resolved;
    Keras writes none."""
    import h5py
    for part in path.split("/"):
        link = group.get(part, getlink=True) if isinstance(group, h5py.Group) else None
        if link is None:
            return None
        if not isinstance(link, h5py.HardLink):
            raise ValueError("Cannot load %s: its member %s is a %s, which is not read"
                             % (filepath, path, type(link).__name__))
        group = group[part]
    return group


def _stored_value(group: _Any, key: str, variable: _Any, what: str, filepath: str) -> _Any:
    """The numeric array stored as `key` of HDF5 group `group` for `variable`, its member,
    shape and dtype kind checked before its data is read (a file is untrusted input: every
    value is checked before any variable is assigned)."""
    stored: _Any = _member(group, key, filepath)  # (None when the member is missing)
    shape = getattr(stored, "shape", None)  # (a dataset's; a group has none)
    expected = tuple(variable.shape.as_list())
    if shape is None or expected != tuple(shape):
        raise ValueError("Cannot load %s: %s has shape %s but the file's is %s"
                         % (filepath, what, expected, shape))
    if stored.external or stored.is_virtual:  # (data in other files: never read)
        raise ValueError("Cannot load %s: %s keeps its data outside the file"
                         % (filepath, what))
    if getattr(stored.dtype, "kind", None) not in ("f", "i", "u", "b"):
        raise ValueError("Cannot load %s: %s is stored as %s, not as numbers"
                         % (filepath, what, stored.dtype))
    return np.asarray(stored)


def _save_weights_file(model: _Model, path: str, overwrite: bool = True) -> None:
    """`model.save_weights("<name>.weights.h5")`: the weights (and a built optimizer's
    state) in Keras 3's HDF5 layout, the layout of a .keras file's model.weights.h5."""
    if os.path.exists(path) and not overwrite:
        raise FileExistsError("%s already exists and overwrite=False" % path)
    _files.write_bytes(os.path.abspath(path), _weights_bytes(_h5py("Saving"), model, True))


def _load_weights_file(model: _Model, path: str) -> None:
    """`model.load_weights("<name>.weights.h5")`, read as untrusted input: every weight of
    the model from the file (shapes checked before data is read), and the optimizer's
    state when the file has it and the model is compiled."""
    try:
        fd = _untrusted_files.open_regular(path)
    except _untrusted_files.RefusedFile as refused:
        if refused.missing:
            raise FileNotFoundError("No such file: %s" % path) from None
        raise ValueError("%s is not a weights file: it %s" % (path, refused.reason)) \
            from None
    h5py = _h5py("Loading")
    # (h5py reads the open file as it needs: a file of any size is never read whole)
    with os.fdopen(fd, "rb") as raw:
        try:
            store = h5py.File(raw, "r")
        except OSError as error:
            raise ValueError("%s is not an HDF5 file: %s" % (path, error)) from None
        with store:
            _read_weights_and_optimizer(store, model, path)


def _read_weights_and_optimizer(store: _Any, model: _Model, path: str) -> None:
    """The model's weights, and its optimizer's state when the file has it and the model
    is compiled, from open HDF5 file `store`."""
    _read_weights(store, model, path)
    optimizer = _member(store, "optimizer", path)
    if optimizer is not None and model.optimizer is not None:
        _read_optimizer(optimizer, model, path)


_model.set_model_saver(save_model)  # what Model.save calls
_model.set_weights_file_io(_save_weights_file, _load_weights_file)  # .weights.h5 files

__all__ = ["get_registered_name", "load_model", "register_keras_serializable",
           "save_model", "serialize_keras_object"]

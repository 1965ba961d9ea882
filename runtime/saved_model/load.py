"""`load(path)`: a saved model's object tree rebuilt, its functions runnable without the
source that traced them.

Loading reads JSON and `.npz` arrays (no pickle), checks every file against the manifest's
SHA-256 and every field against the format, rebuilds each graph through the op registry and
compiles it with the executor, as a trace would be: nothing in the folder is executed. Any
problem raises SavedModelError naming the file and what is wrong.
"""

from __future__ import annotations

import os
from typing import Any

from runtime import errors, nest, tracebacks
from runtime.concrete_function import ConcreteFunction
from runtime.saved_model import attrs as attr_codec
from runtime.saved_model import files, graph_decode, schema
from runtime.saved_model.errors import SavedModelError
from runtime.saved_model.schema import Reader
from runtime.saved_model.values import ArrayStore
from runtime.variables import Variable


def load(path: str | os.PathLike[str], allow_file_output: bool = False) -> Any:
    """Loads the saved model in folder `path`: the saved object (a `LoadedObject`, whose
    attributes are its saved functions, variables and sub-objects), with `.signatures`.

    The folder is untrusted input (docs/saved_model.md, "Threat model"): a model whose
    functions write files (`tf.print` to a 'file://' path) is refused unless
    `allow_file_output` is True."""
    path = os.fspath(path)
    try:
        return _load(path, allow_file_output)
    except RecursionError:
        raise SavedModelError(os.path.join(path, schema.GRAPHS), "objects, graphs or calls "
                              "nested too deeply to rebuild") from None
    except MemoryError:
        raise SavedModelError(path, "not enough memory to load the model") from None


def _load(path: str, allow_file_output: bool) -> Any:
    contents = _read_checked(path)
    graphs_path = os.path.join(path, schema.GRAPHS)
    r = Reader(graphs_path)
    data = r.obj(schema.loads(contents[schema.GRAPHS], graphs_path), "",
                 ("objects", "functions", "variables", "generators", "signatures"))
    constants = ArrayStore(os.path.join(path, schema.CONSTANTS), contents[schema.CONSTANTS])
    values = ArrayStore(os.path.join(path, schema.VARIABLES), contents[schema.VARIABLES])
    try:
        variables = [_variable(v, "variables[%d]" % i, r, values)
                     for i, v in enumerate(r.seq(data["variables"], "variables"))]
        generators = [graph_decode.decode_generator(g, "generators[%d]" % i, r)
                      for i, g in enumerate(r.seq(data["generators"], "generators"))]
        decoder = graph_decode.Decoder(r, r.obj(data["functions"], "functions"), constants,
                                       variables, generators, allow_file_output)
        for key in sorted(data["functions"]):
            decoder.function(key, "functions")
        root = _ObjectBuilder(r, data["objects"], decoder, variables).build()
        signatures = {}
        for name, key in sorted(r.obj(data["signatures"], "signatures").items()):
            signatures[name] = SignatureFunction(
                decoder.user_function(r.text(key, "signatures." + name), "signatures." + name))
    except (SavedModelError, RecursionError, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - a corrupt file must never escape as another error
        raise graph_decode.wrap_unexpected(graphs_path, e) from None
    decoder.forget_compiled()
    root.__dict__["signatures"] = signatures
    return root


def _read_checked(path: str) -> dict[str, bytes]:
    """The data files' contents, checked against the manifest."""
    manifest_path = os.path.join(path, schema.MANIFEST)
    if not os.path.isdir(path):
        raise SavedModelError(path, "not a folder (a saved model is the folder that save "
                                    "wrote)" if os.path.exists(path) else "no such folder")
    content = files.read_file(path, schema.MANIFEST, None)
    r = Reader(manifest_path)
    manifest = r.obj(schema.loads(content, manifest_path), "", ("format", "version", "files"))
    if manifest["format"] != schema.FORMAT_NAME:
        r.fail("format", "expected %r, found %r" % (schema.FORMAT_NAME, manifest["format"]))
    version = r.integer(manifest["version"], "version", minimum=1)
    if version > schema.FORMAT_VERSION:
        r.fail("version", "the folder was written in format version %d, newer than this "
                          "runtime reads (up to %d): load it with a newer version of autograph"
               % (version, schema.FORMAT_VERSION))
    listed = r.obj(manifest["files"], "files", schema.DATA_FILES)
    contents = {}
    for name in schema.DATA_FILES:
        entry = r.obj(listed[name], "files." + name, ("sha256", "bytes"))
        size = r.integer(entry["bytes"], "files.%s.bytes" % name)
        limit = schema.SIZE_LIMITS[name]
        if size > limit:
            r.fail("files.%s.bytes" % name, "%d bytes, more than the %d a saved model's %s "
                   "may hold" % (size, limit, name))
        data = files.read_file(path, name, size)
        if schema.digest(data) != r.text(entry["sha256"], "files.%s.sha256" % name):
            raise SavedModelError(os.path.join(path, name), "its SHA-256 differs from the "
                                  "manifest's: the file is corrupt or was changed after saving")
        contents[name] = data
    return contents


def _variable(data: Any, where: str, r: Reader, values: ArrayStore) -> Variable:
    data = r.obj(data, where, ("name", "dtype", "shape", "trainable", "value"))
    dtype = attr_codec.decode_dtype(data["dtype"], where + ".dtype", r)
    shape = attr_codec.decode_shape(data["shape"], where + ".shape", r)
    value = values.get(data["value"], where + ".value", r)
    if dtype.name == "resource" or value.dtype != dtype.np_dtype or not _fits(shape, value.shape):
        r.fail(where, "the value does not match the variable's dtype and shape")
    name = r.text(data["name"], where + ".name")
    variable = Variable(value, trainable=r.flag(data["trainable"], where + ".trainable"),
                        name=name[:-2] if name.endswith(":0") else name, dtype=dtype,
                        shape=shape)
    variable._value = value  # exactly the saved array (no conversion)
    return variable


def _fits(shape: Any, actual: tuple[int, ...]) -> bool:
    return shape is None or len(shape) == len(actual) and all(
        d is None or d == a for d, a in zip(shape, actual))


class LoadedObject:
    """A loaded object: its saved attributes (LoadedFunctions, Variables, other
    LoadedObjects, lists, tuples and dicts of them) and `signatures`. Calling it calls its
    saved `__call__` function, when it has one. Unless it has attributes of those names,
    `variables` and `trainable_variables` list the Variables it holds (as tf.Module's do)."""

    def __getattr__(self, name: str) -> Any:
        if name in ("variables", "trainable_variables"):
            found: list[Variable] = []
            _collect(self, found, set(), name == "trainable_variables")
            return tuple(found)
        raise AttributeError("the loaded object has no attribute %r (saved: %s)"
                             % (name, ", ".join(sorted(self.__dict__)) or "nothing"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError("the loaded object has no saved __call__ function")
        return call(*args, **kwargs)

    def __repr__(self) -> str:
        names = sorted(k for k in self.__dict__ if k != "signatures")
        return "<LoadedObject with %s>" % (", ".join(names) or "no attributes")


class LoadedFunction:
    """A saved Function: its saved traces, called by matching the arguments against each
    trace's signature (a loaded model cannot trace again)."""

    def __init__(self, concrete: list[ConcreteFunction]) -> None:
        self.concrete_functions = concrete
        self.__name__ = concrete[0].name if concrete else "function"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._call(args, kwargs)
        except Exception as e:
            tracebacks.filter_exception(e)
            raise

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        problems = []
        for cf in self.concrete_functions:
            try:
                feeds = cf.match_arguments(args, kwargs)
            except (TypeError, errors.InvalidArgumentError) as e:
                problems.append(str(e))
                continue
            return cf.call_with_feeds(feeds, args, kwargs)
        raise TypeError(
            "%s was called with arguments that match none of its saved signatures (a loaded "
            "function cannot trace again):\n  called with: %s\n  saved signatures:\n%s"
            % (self.__name__, _describe_call(args, kwargs), "\n".join(
                "    %s: %s\n      (%s)" % (cf.signature_text,
                                            cf.pretty_printed_signature(verbose=False), problem)
                for cf, problem in zip(self.concrete_functions, problems))))

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every saved trace's input parameters, output type and captures, as TensorFlow
        prints them (`verbose=False`: each trace's one-line function type)."""
        return ("\n\n" if verbose else "\n").join(
            cf.pretty_printed_signature(verbose) for cf in self.concrete_functions)

    def __repr__(self) -> str:
        return "<LoadedFunction %s: %d saved signatures>" % (self.__name__,
                                                             len(self.concrete_functions))


class SignatureFunction:
    """A serving signature (TensorFlow's convention): called with keyword arguments only,
    returns a dict of output tensors (`output_0`, ... unless the function returned a dict)."""

    def __init__(self, concrete: ConcreteFunction) -> None:
        self.concrete_function = concrete
        self.structured_input_signature = concrete.structured_input_signature
        self.structured_outputs = concrete.structured_outputs

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if args:
            raise TypeError("a signature function takes keyword arguments only (%s), got %d "
                            "positional" % (self.concrete_function.signature_text,
                                            len(args)))
        result = self.concrete_function(**kwargs)
        if isinstance(result, dict):
            return result
        return {"output_%d" % i: t for i, t in enumerate(nest.flatten(result))}

    def __repr__(self) -> str:
        return "<SignatureFunction %s>" % self.concrete_function.name


def _collect(value: Any, found: list[Variable], seen: set[int], trainable_only: bool) -> None:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Variable):
        if value.trainable or not trainable_only:
            found.append(value)
        return
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else [v for k, v in sorted(vars(value).items())
                                    if k != "signatures"] if isinstance(
        value, LoadedObject) else ()
    for item in items:
        _collect(item, found, seen, trainable_only)


def _describe_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [_describe(a) for a in args] + ["%s=%s" % (k, _describe(v))
                                            for k, v in kwargs.items()]
    return "(%s)" % ", ".join(parts)


def _describe(value: Any) -> str:
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is not None and shape is not None:
        return "%s %s" % (getattr(dtype, "name", dtype), tuple(shape))
    return repr(value)


class _ObjectBuilder:
    """Rebuilds the `objects` list of graphs.json into LoadedObjects."""

    def __init__(self, r: Reader, nodes: Any, decoder: graph_decode.Decoder,
                 variables: list[Variable]) -> None:
        self.r = r
        self.nodes = r.seq(nodes, "objects")
        self.decoder = decoder
        self.variables = variables
        self.built: dict[int, Any] = {}

    def build(self) -> Any:
        """The root object."""
        if not self.nodes:
            self.r.fail("objects", "no root object")
        root = self._get(0, "objects")
        if not isinstance(root, LoadedObject):
            wrapper = LoadedObject()
            if isinstance(root, LoadedFunction):
                wrapper.__dict__["__call__"] = root
            else:
                self.r.fail("objects[0]", "the root must be an object or a function")
            root = wrapper
        return root

    def _get(self, index: Any, where: str) -> Any:
        index = self.r.integer(index, where)
        if index >= len(self.nodes):
            self.r.fail(where, "no object %d" % index)
        if index in self.built:
            return self.built[index]
        at = "objects[%d]" % index
        node = self.r.obj(self.nodes[index], at)
        kind = self.r.text(node.get("kind"), at + ".kind")
        if kind == "variable":
            self.r.obj(node, at, ("kind", "variable"))
            i = self.r.integer(node["variable"], at + ".variable")
            if i >= len(self.variables):
                self.r.fail(at, "no variable %d" % i)
            self.built[index] = self.variables[i]
        elif kind == "function":
            self.r.obj(node, at, ("kind", "concrete"))
            keys = self.r.seq(node["concrete"], at + ".concrete")
            if not keys:
                self.r.fail(at + ".concrete", "a function needs at least one trace")
            self.built[index] = LoadedFunction([
                self.decoder.user_function(self.r.text(k, at + ".concrete"), at + ".concrete")
                for k in keys])
        elif kind in ("list", "tuple"):
            self.r.obj(node, at, ("kind", "items"))
            self.built[index] = None  # a cycle through a container is not saved
            items = [None if i is None else self._get(i, "%s.items" % at)
                     for i in self.r.seq(node["items"], at + ".items")]
            self.built[index] = items if kind == "list" else tuple(items)
        elif kind in ("object", "dict"):
            self.r.obj(node, at, ("kind", "children"))
            result: Any = LoadedObject() if kind == "object" else {}
            self.built[index] = result
            for name, child in sorted(self.r.obj(node["children"], at + ".children").items()):
                value = self._get(child, "%s.children.%s" % (at, name))
                if kind == "dict":
                    result[name] = value
                elif name == "signatures" or not name.isidentifier() and name != "__call__":
                    self.r.fail("%s.children" % at, "invalid attribute name %r" % name)
                elif name == "__call__" and not isinstance(value, LoadedFunction):
                    self.r.fail("%s.children.__call__" % at, "an object's __call__ must be a "
                                "saved function")
                else:
                    result.__dict__[name] = value
        else:
            self.r.fail(at + ".kind", "unknown object kind %r" % kind)
        return self.built[index]

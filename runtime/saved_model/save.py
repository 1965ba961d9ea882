"""`save(obj, path)`: an object's traced functions and variables written to a folder.

What is saved: for a Function, its traces (the one of its input_signature, else every trace
made so far); for a ConcreteFunction, itself; for any other object (a tf.Module), the objects
reachable through its attributes (and lists, tuples and dicts of them) that hold Functions
or Variables, with its Functions and Variables. The object tree is a list of nodes in
graphs.json (`objects`, the root first); the functions, variables and signatures are tables
that the nodes refer to.

The folder is written to a temporary folder beside it and renamed into place: a failure
leaves no partial folder. An existing target is replaced when it is empty or holds a saved
model (TensorFlow overwrites too); any other existing path is refused, so that a mistyped
path never deletes the user's files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import types
from typing import Any

from runtime.concrete_function import ConcreteFunction
from runtime.function import Function
from runtime.saved_model import schema, stablehlo
from runtime.saved_model.errors import NotSaveableError
from runtime.saved_model.graph_encode import Encoder
from runtime.saved_model.options import DEFAULT as DEFAULT_OPTIONS
from runtime.saved_model.options import SaveOptions
from runtime.variables import Variable

FORMATS = ("autograph", "stablehlo")
SERVING_DEFAULT = "serving_default"


def save(obj: Any, path: str | os.PathLike[str], signatures: Any = None,
         options: SaveOptions | None = None,
         format: str = "autograph") -> None:  # noqa: A002 - TF's name
    """Saves `obj` (a Function, ConcreteFunction or an object such as a tf.Module holding
    them and Variables) to the folder `path`; see the module docstring and
    docs/saved_model.md. `signatures`: a Function with an input_signature, a ConcreteFunction,
    or a dict {signature name: either}; by default the object's one function, when it has
    exactly one. `options`: a SaveOptions (runtime/saved_model/options.py).
    `format="stablehlo"` also writes each saved trace through `jax.export`
    (runtime.saved_model.stablehlo; needs JAX)."""
    if format not in FORMATS:
        raise ValueError("unknown saved model format %r: expected one of %s"
                         % (format, ", ".join(repr(f) for f in FORMATS)))
    if options is None:
        options = DEFAULT_OPTIONS
    elif not isinstance(options, SaveOptions):
        raise TypeError("save: options must be a tf.saved_model.SaveOptions, got %r"
                        % (options,))
    encoder = Encoder(options)
    files, saved_keys = _serialise(obj, signatures, encoder)
    if format == "stablehlo":
        files.update(stablehlo.export_files({key: encoder.traces[key] for key in saved_keys}))
    write_folder(os.fspath(path), files)


def _serialise(obj: Any, signatures: Any,
               encoder: Encoder) -> tuple[dict[str, bytes], list[str]]:
    """The folder's files, and the keys of the functions saved as the object's own (its
    methods and signatures, not the functions they call)."""
    walker = _ObjectWalker(encoder)
    if walker.walk(obj, "the saved object", root=True) is None:
        raise NotSaveableError("nothing to save in %r: it holds no traced Functions and no "
                               "Variables" % (obj,))
    signature_keys = _signatures(obj, signatures, walker, encoder)
    graphs = {"objects": walker.nodes, "functions": encoder.functions,
              "variables": encoder.variables, "generators": encoder.generators,
              "signatures": signature_keys}
    content = {schema.GRAPHS: schema.dumps(graphs),
               schema.CONSTANTS: encoder.constants.to_bytes(),
               schema.VARIABLES: encoder.variable_values.to_bytes()}
    manifest = {"format": schema.FORMAT_NAME, "version": schema.FORMAT_VERSION,
                "files": {name: {"sha256": schema.digest(data), "bytes": len(data)}
                          for name, data in content.items()}}
    content[schema.MANIFEST] = schema.dumps(manifest)
    saved = [key for node in walker.nodes if node.get("kind") == "function"
             for key in node["concrete"]]
    saved += [key for key in signature_keys.values() if key not in saved]
    return content, saved


# The node left where an object turned out to hold nothing saved (the nodes after it keep
# their indices); nothing refers to it.
_UNUSED = {"kind": "object", "children": {}}


class _ObjectWalker:
    """Walks the saved object's attributes into the `objects` node list."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self.nodes: list[dict[str, Any]] = []
        self.index: dict[int, int | None] = {}
        self.keep: list[Any] = []

    def walk(self, value: Any, where: str, root: bool = False) -> int | None:
        """The node index of `value`, or None when it holds nothing saved."""
        key = id(value)
        if key in self.index:
            return self.index[key]
        self.keep.append(value)
        if isinstance(value, Variable):
            return self._add(key, {"kind": "variable",
                                   "variable": self.encoder.variable(value)})
        if isinstance(value, (Function, ConcreteFunction)):
            traces = concrete_functions(value)
            if not traces:
                if root:
                    raise NotSaveableError(
                        "%s (%s) has no traces: give it an input_signature or call it once "
                        "before saving" % (where, getattr(value, "__name__", value)))
                self.index[key] = None
                return None
            keys = [self.encoder.function(cf) for cf in traces]
            return self._add(key, {"kind": "function", "concrete": keys})
        if isinstance(value, (list, tuple)):
            self.index[key] = None
            position = len(self.nodes)
            self.nodes.append({})
            items = [self.walk(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
            if all(i is None for i in items) and not root:
                self.nodes[position] = _UNUSED
                return None
            kind = "list" if isinstance(value, list) else "tuple"
            self.nodes[position] = {"kind": kind, "items": items}
            self.index[key] = position
            return position
        if isinstance(value, dict):
            return self._children(key, "dict", value.items(), where, root)
        if not _is_object(value):
            self.index[key] = None
            return None
        return self._children(key, "object", _attributes(value), where, root)

    def _add(self, key: int, node: dict[str, Any]) -> int:
        self.nodes.append(node)
        self.index[key] = len(self.nodes) - 1
        return len(self.nodes) - 1

    def _children(self, key: int, kind: str, items: Any, where: str, root: bool) -> int | None:
        self.index[key] = None  # while walking: a cycle back to it is left out
        position = len(self.nodes)
        self.nodes.append({})
        children = {}
        for name, child in items:
            if not isinstance(name, str):
                continue
            index = self.walk(child, "%s.%s" % (where, name))
            if index is not None:
                children[name] = index
        if not children and not root:
            self.nodes[position] = _UNUSED
            return None
        self.nodes[position] = {"kind": kind, "children": children}
        self.index[key] = position
        return position


def concrete_functions(fn: Any) -> list[ConcreteFunction]:
    """The traces of a Function (its input_signature's, else those made so far) or the
    ConcreteFunction itself."""
    if isinstance(fn, ConcreteFunction):
        return [fn]
    if fn.input_signature is not None:
        return [fn.get_concrete_function()]
    return list(fn._concrete)


def _is_object(value: Any) -> bool:
    if isinstance(value, (types.ModuleType, type, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType)):
        return False
    if type(value).__module__.split(".")[0] in ("runtime", "numpy", "builtins"):
        return False
    return hasattr(value, "__dict__")


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """An object's saved attributes: its instance attributes, and the Functions its class
    defines (bound to it)."""
    items = [(k, v) for k, v in vars(obj).items() if not k.startswith("__")]
    own = {k for k, _ in items}
    for klass in type(obj).__mro__:
        for name, value in vars(klass).items():
            if isinstance(value, Function) and name not in own and (
                    not name.startswith("__") or name == "__call__"):
                own.add(name)
                items.append((name, getattr(obj, name)))
    return sorted(items, key=lambda item: item[0])


def _signatures(obj: Any, signatures: Any, walker: _ObjectWalker,
                encoder: Encoder) -> dict[str, str]:
    if signatures is None:
        if isinstance(obj, (Function, ConcreteFunction)):
            candidates = [obj]
        else:
            candidates = [v for _, v in _attributes(obj) if isinstance(v, Function)] \
                if _is_object(obj) else []
        traces = [cf for c in candidates for cf in concrete_functions(c)]
        if len(candidates) != 1 or len(traces) != 1:
            return {}
        return {SERVING_DEFAULT: encoder.function(traces[0])}
    if not isinstance(signatures, dict):
        signatures = {SERVING_DEFAULT: signatures}
    result = {}
    for name, fn in signatures.items():
        if not isinstance(name, str) or not isinstance(fn, (Function, ConcreteFunction)):
            raise TypeError("signatures must map names to Functions or ConcreteFunctions, got "
                            "%r: %r" % (name, fn))
        traces = concrete_functions(fn)
        if len(traces) != 1:
            raise ValueError("signature %r: %r has %d traces; give it an input_signature or "
                             "pass one ConcreteFunction (f.get_concrete_function(...))"
                             % (name, fn, len(traces)))
        result[name] = encoder.function(traces[0])
    return result


def write_folder(path: str, files: dict[str, bytes]) -> None:
    """Writes `files` ({name: content}) as the folder `path`, atomically (see the module
    docstring)."""
    path = os.path.abspath(path)
    if os.path.lexists(path):
        if not os.path.isdir(path) or os.path.islink(path):
            raise FileExistsError("cannot save to %s: it exists and is not a folder" % path)
        if os.listdir(path) and not os.path.isfile(os.path.join(path, schema.MANIFEST)):
            raise FileExistsError("cannot save to %s: the folder is not empty and holds no "
                                  "saved model (%s); choose another path or empty it"
                                  % (path, schema.MANIFEST))
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    base = os.path.basename(path)
    temp: str | None = tempfile.mkdtemp(dir=parent, prefix=".%s." % base, suffix=".tmp")
    old: str | None = None
    try:
        assert temp is not None
        for name, content in files.items():
            with open(os.path.join(temp, name), "wb") as f:
                f.write(content)
        os.chmod(temp, 0o755)
        if os.path.lexists(path):
            old = tempfile.mkdtemp(dir=parent, prefix=".%s." % base, suffix=".old")
            os.rmdir(old)
            os.rename(path, old)
        try:
            os.rename(temp, path)
        except OSError:
            if old is not None:
                os.rename(old, path)
                old = None
            raise
        temp = None
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

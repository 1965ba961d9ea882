"""The arguments of the subcommands that trace a function (`autograph explain`,
`autograph graph`): the `FILE.py:FUNC` target and the `--arg` specs.

    --arg float32[None,3]   a TensorSpec: dtype, then the dimensions (None: unknown)
    --arg int32[]           a scalar TensorSpec
    --arg float32[?]        a TensorSpec of unknown rank
    --arg 3  --arg 2.5  --arg True  --arg "'text'"  --arg [1,2]
                            a Python literal (ast.literal_eval): traced as that value

One `--arg` per positional argument, in order. Loading the target imports FILE.py, which
runs its module-level code.
"""

import ast
import importlib.util
import os
import re
import sys
import traceback

from autograph.cli_common import CommandError, one_line
from runtime import dtypes
from runtime.signature import TensorSpec

_SPEC = re.compile(r"\A\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*\Z")
ARG_HELP = ("a positional argument of FUNC: a TensorSpec written DTYPE[DIMS] such as "
            "float32[None,3] or int32[] (None: a dimension known only at run time; "
            "float32[?]: unknown rank), or a Python literal such as 3, 2.5, True or [1, 2]; "
            "repeat once per argument")


def parse_arg(text):
    """The TensorSpec or Python value that `--arg text` stands for; CommandError naming the
    problem otherwise."""
    match = _SPEC.match(text)
    if match is None:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise CommandError(
                "--arg %s: not a tensor spec (DTYPE[DIMS], e.g. float32[None,3]) or a Python "
                "literal (e.g. 3, 2.5, True, [1, 2])" % text) from None
    name, dims = match.group(1), match.group(2).strip()
    try:
        dtype = dtypes.as_dtype(name)
    except (TypeError, ValueError, KeyError):
        dtype = None
    if dtype is None or dtype is dtypes.resource:
        raise CommandError("--arg %s: unknown dtype %r; use one of %s"
                           % (text, name, ", ".join(_DTYPE_NAMES)))
    if dims == "?":
        return TensorSpec(None, dtype)
    shape: list[int | None] = []
    for part in dims.split(",") if dims else []:
        part = part.strip()
        if part in ("None", "?", "-1"):
            shape.append(None)
        elif part.isdigit():
            shape.append(int(part))
        else:
            raise CommandError("--arg %s: bad dimension %r: a dimension is a size (3), or "
                               "None for one known only at run time" % (text, part))
    return TensorSpec(shape, dtype)


_DTYPE_NAMES = tuple(d.name for d in dtypes.ALL)


def load_target(target):
    """The function named by `FILE.py:FUNC` (FUNC may be dotted: `Class.method`,
    `model.__call__`), after importing FILE.py; CommandError when the file cannot be
    imported or names no such function."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CommandError("%s: expected FILE.py:FUNC, such as model.py:train_step" % target)
    if not os.path.isfile(path):
        raise CommandError("%s: no such file" % path)
    module = _import_file(path)
    value = module
    for part in name.split("."):
        if not part.isidentifier() or not hasattr(value, part):
            found = sorted(n for n, v in vars(module).items() if callable(v)
                           and not n.startswith("_") and
                           getattr(v, "__module__", None) == module.__name__)
            raise CommandError("%s has no function %s%s" % (
                path, name, " (it defines: %s)" % ", ".join(found) if found else ""))
        value = getattr(value, part)
    if not callable(value):
        raise CommandError("%s:%s is a %s, not a function" % (path, name,
                                                              type(value).__name__))
    return value


def _import_file(path):
    """Imports the Python file at `path` as a module of its own (its folder first on the
    import path, as `python FILE.py` would have it), writing no bytecode next to it."""
    name = "autograph_cli_target_" + re.sub(r"\W", "_", os.path.splitext(
        os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise CommandError("%s: cannot be imported as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    sys.modules[name] = module
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # no __pycache__ left in the user's folder
    argv = sys.argv
    sys.argv = [path]  # as `python FILE.py` gives it: not autograph's own arguments
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        del sys.modules[name]
        raise CommandError("%s:%s: syntax error: %s" % (path, e.lineno, e.msg)) from None
    except (Exception, SystemExit) as e:  # the user's module-level code failed, or exited
        del sys.modules[name]
        raise CommandError("importing %s failed%s: %s: %s" % (
            path, _where(e, path), type(e).__name__, one_line(e))) from None
    finally:
        sys.argv = argv
        sys.path.remove(folder)
        sys.dont_write_bytecode = writes_bytecode
    return module


def _where(error, path):
    """' at FILE:LINE', the innermost frame of the traceback in the imported file."""
    found = ""
    target = os.path.abspath(path)
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.abspath(frame.filename) == target:
            found = " at %s:%s" % (path, frame.lineno)
    return found

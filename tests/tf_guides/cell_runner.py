"""Runs a guide's code cells one after another, as a notebook would, and records what each shows.

Shared by the test (`test_guide_cells.py`, under `autograph.tf`) and by the tool that records
TensorFlow's outputs (`tools/record_expected.py`, under real TensorFlow): both sides run the
same code here, so that a difference in what they record is a difference in the library.
This module never imports TensorFlow; the caller says which module `import tensorflow as tf`
stands for.

What a cell shows, as Jupyter shows it:
- `stdout`: what it printed, from Python (`print`) and from native code writing to file
  descriptor 1;
- `stderr`: what it wrote to standard error, where TensorFlow's `tf.print` writes (from native
  code), without the log lines and Python warnings that are not the cell's own output;
- `value`: the `repr` of its last line when that line is an expression whose value is not None
  and the cell does not end with `;` (Jupyter's `Out[n]`);
- `error`: the name of the exception's class if the cell raised (the rest of the cell is not run,
  and the next cells still are, as a notebook's "run all" with errors allowed).

IPython's own syntax that a cell may use: a cell's common leading indentation is removed
(IPython does so), and a `%%writefile NAME` cell writes its body to NAME and prints
`Writing NAME`. Any other magic is refused (the extractor skips those cells).
"""

import ast
import contextlib
import io
import linecache
import os
import re
import sys
import tempfile
import textwrap
import warnings
from dataclasses import asdict, dataclass
from typing import Optional

TF_IMPORT = "import tensorflow as tf"

# Native log lines (absl/glog), not the cell's output: "I0000 00:00:1795.. port.cc:153] ...".
_LOG_LINE = re.compile(r"^([IWEF]\d{4} \d\d:\d\d:\d\d|WARNING: All log messages|WARNING:tensorflow:"
                       r"|WARNING:absl:|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")


@dataclass
class CellOutput:
    """What one cell showed: printed text, standard error, its value's repr, the error class."""
    stdout: str = ""
    stderr: str = ""
    value: Optional[str] = None
    error: Optional[str] = None

    def as_dict(self):
        """The record as a JSON-ready dict."""
        return asdict(self)


@contextlib.contextmanager
def _captured_fd(fd, sink):
    """Sends what native code writes to file descriptor `fd` into `sink` (a list of str)."""
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as temp:
        os.dup2(temp.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            temp.seek(0)
            sink.append(temp.read().decode("utf-8", "replace"))


def _without_log_lines(text):
    """`text` without native log lines and without Python's warning lines."""
    kept = [line for line in text.splitlines(keepends=True) if not _LOG_LINE.match(line)]
    return "".join(kept)


def _split_last_expression(tree):
    """(module of all statements but a trailing expression, that expression or None)."""
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        return tree, ast.Expression(last.value)
    return tree, None


def _write_file_cell(source, output):
    """Runs a `%%writefile NAME` cell: writes its body and says so, as IPython does."""
    first, _, body = source.partition("\n")
    name = first.split(maxsplit=1)[1].strip()
    verb = "Overwriting" if os.path.exists(name) else "Writing"
    with open(name, "w") as handle:
        handle.write(body)
    output.stdout = f"{verb} {name}\n"
    return output


def _register_source(source, filename):
    """Makes the cell's source readable by `inspect` (as IPython does), so that AutoGraph can
    convert the functions it defines."""
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)


def _execute(source, namespace, output, filename):
    """Runs the cell's statements, then evaluates its last expression for `output.value`."""
    _register_source(source, filename)
    tree = ast.parse(source, filename)
    shows_value = not source.rstrip().endswith(";")
    module, last = _split_last_expression(tree)
    exec(compile(module, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, filename, "eval"), namespace)
        if value is not None and shows_value:
            output.value = repr(value)


def run_cell(source, namespace, *, tf_import=TF_IMPORT, filename="<cell>"):
    """Runs one cell's `source` in `namespace` and returns its CellOutput.

    `tf_import` replaces the text `import tensorflow as tf` in the cell ("import autograph.tf
    as tf" under test). Python warnings are caught and dropped: they are not compared.
    """
    output = CellOutput()
    source = textwrap.dedent(source).replace(TF_IMPORT, tf_import)
    if source.startswith("%%writefile"):
        return _write_file_cell(source, output)
    printed, native_out, native_err = io.StringIO(), [], []
    written = io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _captured_fd(1, native_out), _captured_fd(2, native_err), \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(written):
            try:
                _execute(source, namespace, output, filename)
            except Exception as error:  # a cell's error is part of what it shows
                output.error = type(error).__name__
    output.stdout = printed.getvalue() + "".join(native_out)
    output.stderr = _without_log_lines(written.getvalue() + "".join(native_err))
    return output


PRELUDE_NAMES = ("tf", "np", "os", "pathlib", "math")


def new_namespace(tf):
    """A fresh namespace for a guide: `tf`, and the modules the guides' setup cells import
    beside packages the harness skips (numpy as np, os, pathlib, math); random seeds fixed."""
    import math
    import pathlib

    import numpy as np

    tf.random.set_seed(0)
    np.random.seed(0)
    return {"__name__": "__main__", "tf": tf, "np": np, "os": os, "pathlib": pathlib,
            "math": math}


def cell_filename(guide, index):
    """The file name a cell's code is registered under (a path that does not exist, as
    IPython's are)."""
    return f"/tf_guides/{guide}/cell_{index}.py"


def run_guide(guide, cells, namespace, *, tf_import=TF_IMPORT):
    """Runs every cell of a guide that is not skipped, in order; {index: CellOutput}.

    `cells` are the records of a `cells/<guide>.json` file.
    """
    outputs = {}
    for cell in cells:
        if not cell["skip"]:
            outputs[cell["index"]] = run_cell(cell["source"], namespace, tf_import=tf_import,
                                              filename=cell_filename(guide, cell["index"]))
    return outputs

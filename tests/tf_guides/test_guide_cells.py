"""TensorFlow's own guides, run cell by cell under `import autograph.tf as tf`, show what
TensorFlow shows.

`cells/<guide>.json` holds the code cells of a guide from github.com/tensorflow/docs (Apache
2.0; see the NOTICE line in each file, and `tools/extract_cells.py` for what is skipped and
why); `expected/<guide>.json` holds what TensorFlow 2.21 printed, wrote to standard error,
showed as a value and raised for each cell (`tools/record_expected.py`). Each guide runs here
once, in order, in a fresh working directory, with the same runner (`cell_runner.py`) and
TensorFlow's float32 exp and softmax digits (`autograph.config(float32_digits="tensorflow")`,
off by default because it is slower), and each
cell is one test comparing the four records exactly, after three normalisations, each for a
difference no library change can remove:
- memory addresses (`0x7f...`) are blanked;
- a class's module path is dropped (`<class '...sparse_tensor.SparseTensor'>` reads
  `<class 'SparseTensor'>`, `<keras...History object at 0x?>` reads `<History object at
  0x?>`): TensorFlow's modules are not ours;
- the "in user code:" block this project appends to an error's message (the user's file and
  line, by design) is removed, so that the message before it is compared with TensorFlow's;
- a Keras progress bar is compared as its last drawing, without its timings: Keras redraws it
  in place (`\r`, backspaces, ANSI colours) even into a file, so only the final text of each
  line is what a reader sees, and the seconds per step are the machine's, not the library's;
- a Python traceback a cell prints (the function guide's `assert_raises` does) is reduced to
  the class of its exception (of the last one, for chained exceptions): its frames name
  each library's own files, and an uncaught error is compared by class too.
For the cells in VALUE_FREE (values drawn at random, or derived from them, which no seed makes
equal across two libraries) numbers, whitespace and brackets are not compared either: the text
around them (shapes, dtypes, names) still is.

The cells that do not yet show what TensorFlow shows are in EXPECTED_FAILURES with the reason;
they are strict xfails, so that the list can only shrink.
"""

import json
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

import autograph
import autograph.tf as tf

from . import cell_runner

HERE = Path(__file__).resolve().parent
TF_IMPORT = "import autograph.tf as tf"

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CLASS_PATH = re.compile(r"<class '(?:[\w]+\.)+(\w+)'>")
_OBJECT_PATH = re.compile(r"<(?:\w+\.)+(\w+) object at ")
_USER_CODE = re.compile(r"\n\nin user code:\n(?:  .*\n?)+")
_TRACEBACK = "Traceback (most recent call last):"
_CHAINED = ("During handling of the above exception",
            "The above exception was the direct cause")
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::|$)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PROGRESS_TIMES = re.compile(r"^(\d+/\d+ ━+ )\d+s \d+(?:s|ms|us)/(step|sample)", re.M)
_VALUES = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|nan|inf|[\s\[\]]+")

# (guide, cell index) -> why its numbers cannot match TensorFlow's.
VALUE_FREE = {
    ("autodiff", 7): "gradient at random weights",
    ("basic_training_loops", 9): "training from random data",
    ("intro_to_modules", 5): "random weights",
    ("intro_to_modules", 7): "random weights",
    ("intro_to_modules", 15): "random weights",
    ("intro_to_modules", 23): "random weights",
    ("data", 13): "random integers",
    ("data", 26): "shuffled by TensorFlow's random generator",
    ("ragged_tensor", 20): "embedding of random weights",
    ("intro_to_graphs", 11): "random integers",
    ("intro_to_graphs", 12): "computed from random integers",
    ("intro_to_graphs", 14): "computed from random integers",
    ("function", 25): "tf.print of random values",
    ("function", 29): "random values",
    ("advanced_autodiff", 21): "float32 rounding of a Jacobian's sum over random weights",
    ("basic_training_loops", 12): "training from random data",
    ("intro_to_modules", 28): "random weights",
    ("intro_to_modules", 35): "random weights",
    ("sparse_tensor", 14): "random weights",
    ("ragged_tensor", 29): "training from random weights",
    ("ragged_tensor", 30): "predictions of random weights",
    ("ragged_tensor", 44): "predictions of random weights",
}

# (guide, cell index) -> why the cell does not show what TensorFlow shows yet.
EXPECTED_FAILURES = {
    ("function", 28): "by design: TensorFlow's 6th node is the NoOp its automatic control "
                      "dependencies add to join a function's stateful ops (ReduceDataset) as "
                      "control outputs; our graphs keep side effects in program order and have "
                      "no such node (a tf.print or assign graph is one node smaller too)",
}


def _guides():
    return sorted(path.stem for path in (HERE / "cells").glob("*.json"))


def _load(folder, guide):
    return json.loads((HERE / folder / f"{guide}.json").read_text())


@lru_cache(maxsize=None)
def _run(guide, work_dir):
    """Runs the guide once (the cells depend on each other); {index: output dict}."""
    start = os.getcwd()
    os.chdir(work_dir)
    autograph.config(float32_digits="tensorflow")
    # TensorFlow's prints were recorded on no terminal: an 80-column console (Keras's
    # summary narrows its table to it), whatever terminal runs the tests
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        cells = _load("cells", guide)["cells"]
        outputs = cell_runner.run_guide(guide, cells, cell_runner.new_namespace(tf),
                                        tf_import=TF_IMPORT)
    finally:
        autograph.config(float32_digits=None)
        os.chdir(start)
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return {index: output.as_dict() for index, output in outputs.items()}


def _tracebacks_to_classes(text):
    """Each printed traceback replaced by "Traceback: <exception class>"."""
    if _TRACEBACK not in text:
        return text
    head, *blocks = text.split(_TRACEBACK)
    kept = [head]
    for block in blocks:
        if any(phrase in block for phrase in _CHAINED):
            continue  # the exception the next traceback's was raised from: keep the last
        lines = block.split("\n")
        name = next((m.group(1) for line in lines[1:]
                     for m in [_EXCEPTION_LINE.match(line)] if m), "?")
        kept.append("Traceback: %s\n" % name.rsplit(".", 1)[-1])
    return "".join(kept)


def _final_progress_text(text):
    """Each line as a terminal leaves it (the text after its last carriage return, less
    backspaces and colours), with a progress bar's timings blanked."""
    if "\r" not in text and "━" not in text:
        return text
    lines = [_ANSI.sub("", line.rsplit("\r", 1)[-1]).replace("\b", "")
             for line in text.split("\n")]
    return _PROGRESS_TIMES.sub(r"\1?s ?/\2", "\n".join(lines))


def normalised(record, value_free):
    """The record after the module docstring's normalisations."""
    def clean(text):
        if text is None:
            return None
        text = _final_progress_text(text)
        text = _ADDRESS.sub("0x?", text)
        text = _CLASS_PATH.sub(r"<class '\1'>", text)
        text = _OBJECT_PATH.sub(r"<\1 object at ", text)
        text = _USER_CODE.sub("\n", text)
        text = _tracebacks_to_classes(text)
        return _VALUES.sub("", text) if value_free else text
    return {key: clean(text) for key, text in record.items()}


def _cases():
    for guide in _guides():
        for index in _load("expected", guide)["cells"]:
            key = (guide, int(index))
            marks = []
            if key in EXPECTED_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[key]))
            yield pytest.param(guide, int(index), marks=marks, id=f"{guide}-{index}")


@pytest.mark.parametrize("guide, index", list(_cases()))
def test_cell_shows_what_tensorflow_shows(guide, index, tmp_path_factory):
    work_dir = tmp_path_factory.getbasetemp() / f"tf_guide_{guide}"
    work_dir.mkdir(exist_ok=True)
    actual = _run(guide, str(work_dir))[index]
    expected = _load("expected", guide)["cells"][str(index)]
    value_free = (guide, index) in VALUE_FREE
    assert normalised(actual, value_free) == normalised(expected, value_free)

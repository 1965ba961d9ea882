"""CONTRIBUTING's worked example of adding an op is followed step by step, and works.

The example's code block names, for each step, a file and the lines to add there; those
lines are `sinh`'s own declaration, so each must appear in that file as written (the page is
current). The test copies `runtime/` and `autograph/` into a temporary folder, adds each
step's lines again right after the original (which may share its line with other rows)
with the op renamed (a throwaway op,
`Throwaway` / `tf.math.throwaway`), and checks in a fresh interpreter that the new op
passes the registry's checks, has a decision on both compiled backends (no `MISSING` cell
in their decision table), appears in the generated API reference, and computes.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
_STEP = re.compile(r"^# (\S+), (.+):$")


def example_steps():
    """[(file, lines to add)] of the worked example's first code block, in order."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text[text.index("### Worked example"):]
    block = section[section.index("```python\n") + len("```python\n"):]
    block = block[:block.index("```")]
    steps = []
    for line in block.splitlines():
        found = _STEP.match(line)
        if found:
            steps.append((found.group(1), []))
        elif line.strip():
            steps[-1][1].append(line)
    return [(path, "\n".join(lines) + "\n") for path, lines in steps]


def renamed(code):
    """`code` declaring the throwaway op instead of sinh (numpy's sinh still computes it)."""
    code = code.replace('"Sinh"', '"Throwaway"')
    code = re.sub(r"^sinh = ", "throwaway = ", code, flags=re.M)
    code = re.sub(r"^(\s+)sinh,$", r"\1throwaway,", code, flags=re.M)
    return code.replace("_math.sinh", "_math.throwaway")


# Run in the copy: the registry's and the backends' own checks, the generated reference, a
# value eagerly and in a Function, and a gradient.
_CHECKS = """
import importlib.util, json, sys
import numpy as np
import autograph
import autograph.tf as tf
from autograph.tools import api_reference
from runtime.backends import coverage
from runtime.ops import registry

def load(path):
    spec = importlib.util.spec_from_file_location(path.replace("/", "_")[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

checks = load("tests/runtime/test_registry.py")
for name in dir(checks):
    if name.startswith("test_every_op") or name.startswith("test_rules_are"):
        getattr(checks, name)()
load("tests/backends/test_selection.py").test_every_op_declares_a_lowering_or_host_only_for_each_backend()
op = registry.REGISTRY["Throwaway"]
x = tf.constant([0.5, -1.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.throwaway(x)
traced = autograph.function(lambda v: tf.math.throwaway(v) * 2.0)(x)
print(json.dumps({
    "cells": [coverage.cell(op, b) for b in ("numba", "jax")],
    "reference": "tf.math.throwaway" in api_reference.render(api_reference.facade_entries()),
    "value": y.numpy().tolist(), "traced": traced.numpy().tolist(),
    "gradient": tape.gradient(y, x).numpy().tolist(),
}))
"""


def test_the_worked_example_adds_an_op_that_passes_the_checks_docs_and_backends(tmp_path):
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("runtime", "autograph"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=ignore)
    for test in ("tests/runtime/test_registry.py", "tests/backends/test_selection.py"):
        (tmp_path / test).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / test, tmp_path / test)
    steps = example_steps()
    assert len(steps) == 5
    for path, code in steps:
        target = tmp_path / path
        source = target.read_text(encoding="utf-8")
        written = re.search(r"(?<![^\s])" + re.escape(code.strip()), source)
        assert written, "CONTRIBUTING's step for %s is not in the file as written" % path
        end = written.end()
        added = "\n" + renamed(code).rstrip("\n")
        target.write_text(source[:end] + added + source[end:], encoding="utf-8")

    run = subprocess.run([sys.executable, "-c", _CHECKS], cwd=tmp_path, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                         timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert "MISSING" not in result["cells"]
    assert result["reference"]
    x = np.float32([0.5, -1.0])
    np.testing.assert_allclose(result["value"], np.sinh(x), rtol=1e-6)
    np.testing.assert_allclose(result["traced"], 2 * np.sinh(x), rtol=1e-6)
    np.testing.assert_allclose(result["gradient"], np.cosh(x), rtol=1e-6)

"""Extracts the code cells of TensorFlow's guides into this folder's fixture files.

NOT run by the test suite. Run it by hand from the worktree root when the corpus changes:

    python tests/tf_guides/tools/extract_cells.py PATH/TO/tensorflow-docs [COMMIT]

where PATH is a git checkout (or bare repository) of github.com/tensorflow/docs. For each guide
in `GUIDES` it reads `site/en/guide/<guide>.ipynb` at COMMIT (default HEAD), keeps only the code
cells (never the prose), and writes `tests/tf_guides/cells/<guide>.json`: every code cell with
its source and, for a cell the harness does not run, the reason why. The guides are Apache 2.0
licensed (Copyright The TensorFlow Authors); each data file carries a NOTICE line saying so.

A cell is skipped when it needs what the project does not offer or the test machine lacks:
IPython magics and shell lines, downloads (Keras's datasets too), matplotlib and other
plotting or display packages, pip, TensorBoard, the profiler; and, transitively, a cell that
reads a name whose latest definition came from a skipped cell.
"""

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

GUIDES = (
    "basics",
    "tensor",
    "variable",
    "autodiff",
    "advanced_autodiff",
    "intro_to_modules",
    "basic_training_loops",
    "ragged_tensor",
    "sparse_tensor",
    "tensor_slicing",
    "data",
    "intro_to_graphs",
    "function",
)

NOTICE = (
    "Code cells extracted from github.com/tensorflow/docs, site/en/guide/{guide}.ipynb at commit "
    "{commit}. Copyright The TensorFlow Authors. Licensed under the Apache License, Version 2.0 "
    "(https://www.apache.org/licenses/LICENSE-2.0); only the code cells are kept, unmodified."
)

# (substring in the cell's source, reason): the first match skips the cell.
SKIP_MARKERS = (
    ("#@title Licensed under the Apache License", "license header"),
    ("docs_infra: no_execute", "marked no_execute by the guide"),
    ("matplotlib", "needs matplotlib"),
    ("plt.", "needs matplotlib"),
    ("get_file(", "needs a download"),
    ("keras.datasets", "needs a download (keras.datasets)"),
    ("ImageDataGenerator", "needs Keras's legacy image preprocessing, for downloaded images"),
    ("tensorflow_datasets", "needs a download (tensorflow_datasets)"),
    ("tfds.", "needs a download (tensorflow_datasets)"),
    ("urllib", "needs a download"),
    ("pip install", "needs pip"),
    ("tf.profiler", "needs TensorFlow's profiler"),
    ("IPython", "needs IPython display"),
    ("PIL", "needs PIL"),
    ("scipy", "needs scipy"),
    ("pandas", "needs pandas"),
    ("pd.", "needs pandas"),
    ("tensorflow_text", "needs tensorflow_text"),
    ("tf.py_function(func=parse_image", "needs downloaded images"),
    ("time.sleep", "timing-dependent"),
    ("timeit", "timing-dependent (and slow)"),
)

# (guide, cell index) -> why the cell shows what no other implementation would show alike.
BY_DESIGN = {
    ("intro_to_graphs", 5): "prints AutoGraph's generated code (ours differs by design)",
    ("intro_to_graphs", 6): "prints TensorFlow's GraphDef protobuf text",
    ("function", 26): "prints AutoGraph's generated code (ours differs by design)",
}


# Names the harness binds before a guide's first cell (cell_runner.PRELUDE_NAMES): the setup
# cells that import them beside a skipped package (matplotlib, pandas, pip) do not taint
# them.
PRELUDE_NAMES = ("tf", "np", "os", "pathlib", "math")


def magic_reason(source):
    """Why a cell with IPython syntax cannot run as Python, or None (`%%writefile` runs)."""
    if source.startswith("%%writefile"):
        return None
    for line in source.splitlines():
        if line.strip().startswith(("%", "!")):
            return "IPython magic or shell line"
    return None


def skip_reason(source):
    """Why the harness skips a cell, judged from its text alone, or None."""
    reason = magic_reason(source)
    if reason:
        return reason
    for marker, why in SKIP_MARKERS:
        if marker in source:
            return why
    return None


class _FirstUses(ast.NodeVisitor):
    """Walks a cell in evaluation order: the names it reads before binding them (`needs`) and
    the names it binds (`binds`). A function's or lambda's body reads globals when called;
    its own parameters and locals are not needs."""

    def __init__(self):
        self.needs, self.binds = set(), set()

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            if node.id not in self.binds:
                self.needs.add(node.id)
        else:
            self.binds.add(node.id)

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.visit(ast.Name(node.target.id, ast.Load()))
        self.visit(node.target)

    def visit_For(self, node):
        self.visit(node.iter)
        self.visit(node.target)
        for statement in node.body + node.orelse:
            self.visit(statement)

    def _visit_scope(self, node, params, body):
        inner = _FirstUses()
        inner.binds |= set(params)
        for statement in body:
            inner.visit(statement)
        self.needs |= inner.needs - self.binds

    def visit_FunctionDef(self, node):
        for expression in node.decorator_list + node.args.defaults:
            self.visit(expression)
        params = [a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs]
        params += [a.arg for a in (node.args.vararg, node.args.kwarg) if a]
        self.binds.add(node.name)
        self._visit_scope(node, params + [node.name], node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        params = [a.arg for a in node.args.args]
        params += [a.arg for a in (node.args.vararg, node.args.kwarg) if a]
        self._visit_scope(node, params, [ast.Expr(node.body)])

    def visit_ClassDef(self, node):
        for expression in node.bases + node.decorator_list:
            self.visit(expression)
        self.binds.add(node.name)
        self._visit_scope(node, [node.name], node.body)

    def visit_Import(self, node):
        for alias in node.names:
            self.binds.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_comprehension_like(self, node, elements):
        inner = _FirstUses()
        inner.binds |= self.binds
        for generator in node.generators:
            inner.visit(generator.iter)
            inner.visit(generator.target)
            for condition in generator.ifs:
                inner.visit(condition)
        for element in elements:
            inner.visit(element)
        self.needs |= inner.needs

    def visit_ListComp(self, node):
        self.visit_comprehension_like(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self.visit_comprehension_like(node, [node.key, node.value])


def names_of(source):
    """(names a cell binds, names it reads before binding them), or None if not Python."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    walker = _FirstUses()
    walker.visit(tree)
    return walker.binds, walker.needs


def mark_skips(guide, sources):
    """One skip reason (or None) per cell, with skips carried to the cells that depend on them."""
    tainted = {}  # name -> index of the skipped cell that last bound it
    reasons = []
    for index, source in enumerate(sources):
        reason = BY_DESIGN.get((guide, index)) or skip_reason(source)
        names = () if source.startswith("%%writefile") else names_of(source)
        if reason is None and names is None:
            reason = "not valid Python"
        if reason is None and names:
            needed = sorted(names[1] & tainted.keys())
            if needed:
                reason = f"uses {needed[0]!r} from skipped cell {tainted[needed[0]]}"
        for name in names[0] if names else ():
            if name in PRELUDE_NAMES:
                continue
            if reason is None:
                tainted.pop(name, None)
            else:
                tainted[name] = index
        reasons.append(reason)
    return reasons


def read_notebook(repo, commit, guide):
    """The notebook's JSON, read from the git repository without a work tree."""
    text = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:site/en/guide/{guide}.ipynb"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def main(argv):
    """Writes one cells file per guide; prints how many cells each keeps and skips."""
    repo = Path(argv[1])
    commit = argv[2] if len(argv) > 2 else "HEAD"
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", commit], check=True,
                            capture_output=True, text=True).stdout.strip()
    out_dir = Path(__file__).resolve().parent.parent / "cells"
    out_dir.mkdir(exist_ok=True)
    for guide in GUIDES:
        notebook = read_notebook(repo, commit, guide)
        sources = ["".join(cell["source"]) for cell in notebook["cells"]
                   if cell["cell_type"] == "code"]
        reasons = mark_skips(guide, sources)
        cells = [{"index": i, "source": s, "skip": r}
                 for i, (s, r) in enumerate(zip(sources, reasons))]
        data = {"NOTICE": NOTICE.format(guide=guide, commit=commit), "guide": guide,
                "cells": cells}
        path = out_dir / f"{guide}.json"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        skipped = sum(r is not None for r in reasons)
        print(f"{guide}: {len(cells) - skipped} cells kept, {skipped} skipped")


if __name__ == "__main__":
    main(sys.argv)

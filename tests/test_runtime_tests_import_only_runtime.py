"""The runtime is tested alone: no module under tests/runtime imports `autograph`.

Each file is parsed with `ast` (nothing is imported): every `import` and `from ... import`,
at module level or inside a function, and every `importlib.import_module("...")` /
`__import__("...")` call with a literal name, is checked. Tests that need the compiler or the
`autograph.tf` facade belong under tests/autograph (see CONTRIBUTING.md).
"""

import ast
import pathlib

import pytest

RUNTIME_TESTS = pathlib.Path(__file__).resolve().parent / "runtime"


def _is_compiler(module):
    """True for the compiler package and the compiler's tests."""
    return module.split(".")[0] == "autograph" or module.startswith("tests.autograph")


def compiler_imports(source, filename="<test>"):
    """(line, module) for each import of the compiler in `source`."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names = [base] + ["%s.%s" % (base, alias.name) for alias in node.names]
            names = names if not node.level else []  # relative: inside tests/runtime
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
                   or isinstance(node.func, ast.Name) and node.func.id in ("__import__",
                                                                           "import_module"))):
            names = [node.args[0].value]
        else:
            continue
        found.extend((node.lineno, name) for name in names if _is_compiler(name))
    return found


def _runtime_test_files():
    return sorted(RUNTIME_TESTS.rglob("*.py"))


def test_there_are_runtime_tests_to_check():
    assert len(_runtime_test_files()) > 10


@pytest.mark.parametrize("path", _runtime_test_files(), ids=lambda p: p.name)
def test_runtime_test_module_does_not_import_autograph(path):
    found = compiler_imports(path.read_text(), str(path))
    assert not found, "%s imports the compiler (%s): tests of the runtime import only `runtime` " \
        "(move a test that needs the compiler to tests/autograph)" % (
            path.name, ", ".join("line %d: %s" % hit for hit in found))


@pytest.mark.parametrize("source", [
    "import autograph",
    "import autograph.tf as tf",
    "from autograph import tf",
    "from autograph.pyct import parsing",
    "def test():\n    import autograph\n",
    "import importlib\nimportlib.import_module('autograph.tf')",
    "__import__('autograph')",
    "from tests.autograph import source_lines",
])
def test_every_form_of_import_is_found(source):
    assert compiler_imports(source)


@pytest.mark.parametrize("source", [
    "import runtime",
    "from runtime.function import function",
    "import numpy as np",
    "from . import helpers",
    "x = 'import autograph'",
    "def f(autograph=True):\n    return autograph\n",
])
def test_runtime_imports_and_mentions_are_not_flagged(source):
    assert compiler_imports(source) == []

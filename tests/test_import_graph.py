"""The project's import graph has no cycles, and project modules are imported at module level.

The graph is built from the sources with `ast` (nothing is imported): every module of
`autograph/` and `runtime/` (a package's `__init__` is the package's module) is a node, and each
import of a project module is an edge, whether it is written at module level or inside a
function. `from pkg import name` where `name` is a submodule of `pkg` imports that submodule.
Imports under `if TYPE_CHECKING:` count too: the type checker reads them, and a module that
names another's types depends on it as surely as one that calls it.
"""

import ast
import functools
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")
_OP_MODULES = ("runtime.ops", "runtime.tensor_array")  # the packages whose modules declare ops


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache  # parsed once per run: the tests only read it
def _modules():
    """Maps each project module's dotted name to its parsed source and whether it is a package."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            modules[_module_name(path)] = (tree, path.name == "__init__.py")
    return modules


def _is_project(name):
    return name.split(".")[0] in PACKAGES


def _resolve(module, is_package, node):
    """The absolute module a `from ... import` names, resolving relative levels."""
    if not node.level:
        return node.module
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imported(module, is_package, node, modules):
    """The project modules an import node imports."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if _is_project(alias.name)]
    target = _resolve(module, is_package, node)
    if not target or not _is_project(target):
        return []
    found = []
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        found.append(submodule if submodule in modules else target)
    return found


def _owner(name, modules):
    """The longest known module prefix of a dotted name (`a.b.c` may be module `a.b`)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


class _Collector(ast.NodeVisitor):
    """Collects imports, telling module-level ones from those inside a function."""

    def __init__(self):
        self.imports = []  # (node, inside_function)
        self._depth = 0

    def _function(self, node):
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node):
        self.imports.append((node, self._depth > 0))

    visit_ImportFrom = visit_Import


@functools.cache  # (as _modules)
def _graph():
    """Returns (edges, local_imports): module -> set of modules, and function-local imports."""
    modules = _modules()
    edges = {name: set() for name in modules}
    local_imports = []
    for module, (tree, is_package) in modules.items():
        collector = _Collector()
        collector.visit(tree)
        for node, inside_function in collector.imports:
            for name in _imported(module, is_package, node, modules):
                target = _owner(name, modules)
                if not target:
                    continue
                edges[module].add(target)
                if inside_function:
                    local_imports.append(f"{module}:{node.lineno} imports {target}")
    return edges, local_imports


def _strongly_connected(edges):
    """Tarjan's algorithm, iterative; returns the components as sorted tuples."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = [0]

    def visit(start):
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(tuple(sorted(component)))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return components


def _reachable(start, edges):
    """The modules `start` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for target in edges[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _cycles(edges):
    return {
        component
        for component in _strongly_connected(edges)
        if len(component) > 1 or component[0] in edges[component[0]]
    }


def _edges_within(component, edges):
    members = set(component)
    return sorted(f"{a} -> {b}" for a in component for b in sorted(edges[a]) if b in members)


def test_no_import_cycles():
    edges, _ = _graph()
    cycles = _cycles(edges)
    for cycle in sorted(cycles):
        print("cycle:", ", ".join(cycle))
        for edge in _edges_within(cycle, edges):
            print("   ", edge)
    assert not cycles, "import cycles:\n" + "\n".join(
        ", ".join(cycle) + "\n    " + "\n    ".join(_edges_within(cycle, edges))
        for cycle in sorted(cycles))


def test_project_modules_are_imported_at_module_level():
    _, local_imports = _graph()
    assert not local_imports, "function-local imports of project modules:\n" + "\n".join(
        local_imports
    )


def test_runtime_never_imports_autograph():
    edges, _ = _graph()
    offending = sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        if module.split(".")[0] == "runtime"
        for target in targets
        if target.split(".")[0] == "autograph"
    )
    assert not offending


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import runtime.ops.math_ops\n", {"runtime.ops.math_ops"}),
        ("from runtime.ops import math_ops\n", {"runtime.ops.math_ops"}),
        ("from runtime.ops.math_ops import add\n", {"runtime.ops.math_ops"}),
        ("from .ops import math_ops\n", {"runtime.ops.math_ops"}),
        ("from . import nest\n", {"runtime.nest"}),
        ("def f():\n    from runtime import nest\n", {"runtime.nest"}),
        ("if TYPE_CHECKING:\n    from runtime.graph import Graph\n", {"runtime.graph"}),
    ],
)
def test_graph_reads_every_import_form(source, expected):
    modules = _modules()
    collector = _Collector()
    collector.visit(ast.parse(source))
    found = set()
    for node, _ in collector.imports:
        names = _imported("runtime.executor", False, node, modules)
        found.update(_owner(name, modules) for name in names)
    assert found == expected


def test_the_syntax_tools_import_nothing_of_tensors_or_of_the_converters():
    """autograph.pyct (parsing, templates, codegen, analysis) knows only the syntax: it imports
    no runtime module and no autograph module outside itself, except the names that generated
    code reserves (runtime.reserved_names: constants shared with the runtime, which
    recognises them, and importing nothing)."""
    edges, _ = _graph()
    leaks = sorted(f"{module} imports {target}" for module, targets in edges.items()
                   if module.startswith("autograph.pyct") for target in targets
                   if not target.startswith("autograph.pyct") and
                   target != "runtime.reserved_names")
    assert not leaks, "\n".join(leaks)
    assert not edges.get("runtime.reserved_names")


def test_the_graph_layer_imports_no_op_module():
    """Graphs, their drawing, tensors and operand specs sit below the ops: they import no
    module of runtime/ops, not even the registry, directly or through another module (the
    op of placeholders is handed to the graph layer by the module that declares it)."""
    edges, _ = _graph()
    layer = ("runtime.graph", "runtime.graph_dot", "runtime.tensor", "runtime.specs")
    leaks = sorted(f"{module} reaches {target}" for module in layer
                   for target in _reachable(module, edges) if target.startswith("runtime.ops"))
    assert not leaks, "\n".join(leaks)


def test_the_lowering_vocabulary_sits_below_the_ops_and_the_backends():
    """runtime.lowering_api, read by op declarations and backends alike, imports no op
    module, no backend and neither numba nor jax."""
    edges, _ = _graph()
    imported = sorted(edges["runtime.lowering_api"])
    assert not [name for name in imported
                if name.startswith(("runtime.ops", "runtime.backends"))], imported
    source = (ROOT / "runtime" / "lowering_api.py").read_text()
    tree = ast.parse(source)
    libraries = {alias.name.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.Import) for alias in node.names}
    libraries |= {node.module.split(".")[0] for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module}
    assert not libraries & {"numba", "jax"}


def test_declaring_every_op_imports_neither_numba_nor_jax():
    """The ops' rules for the compiled backends are declared with the ops; the backends'
    libraries are imported only when a graph is lowered."""
    code = ("import sys, runtime.ops, runtime.data, runtime.gradients, runtime.backends.coverage\n"
            "print(sorted(m for m in ('numba', 'jax') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    assert result.stdout.strip() == "[]"


def test_op_modules_import_no_backend():
    """An op declares its rules for every backend with the lowering vocabulary
    (runtime.lowering_api) alone: no op module imports a backend module."""
    edges, _ = _graph()
    leaks = sorted(f"{module} imports {target}" for module, targets in edges.items()
                   if module.startswith(_OP_MODULES) for target in targets
                   if target.startswith("runtime.backends"))
    assert not leaks, "\n".join(leaks)


def test_backends_import_of_the_ops_only_the_registry_and_the_tensor_array_value():
    """A backend reads ops through the registry and the lowering vocabulary; it imports no
    op module, except the TensorArray's run-time value and numba buffers (how a folded
    TensorArray constant enters compiled code)."""
    allowed = {"runtime.ops.registry", "runtime.tensor_array.value",
               "runtime.tensor_array.numba_lowerings"}
    edges, _ = _graph()
    leaks = sorted(f"{module} imports {target}" for module, targets in edges.items()
                   if module.startswith("runtime.backends") for target in targets
                   if target.startswith(_OP_MODULES) and target not in allowed)
    assert not leaks, "\n".join(leaks)

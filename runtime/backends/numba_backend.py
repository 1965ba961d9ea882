"""The numba backend: a graph lowered to one numba-compiled function (CPU).

The lowering (runtime/backends/lowering.py, with the ops' "numba" and "array" rules) writes
Python in which `xp` is numpy, as numba compiles it:

  * rank-0 values are typed scalars (`np.int32(...)`), arrays stay arrays; every output is
    given its graph dtype (`fit`), so int32 arithmetic wraps like TensorFlow's where numba
    would widen to int64;
  * If and While become Python `if` / `while` statements;
  * array constants are parameters (the source does not depend on their values), scalar
    constants are typed literals;
  * checks the numpy executor makes (an integer division by zero, ...) raise inside the
    compiled code with a code number; the call (numba_call) raises the executor's error
    from a line that maps to the op, so the error names the op and the user's line as the
    executor's does;
  * the kernel releases the GIL while it runs, unless it is loop-free code on scalars
    (`NumbaLowerer.releases_gil`).

The generated module is written under the user cache folder (AUTOGRAPH_CACHE_DIR, else
$XDG_CACHE_HOME/autograph or ~/.cache/autograph), named by a hash of its source and of the
numba, numpy and Python versions, and compiled with `cache=True`: numba keeps the machine
code next to it, so a later process loads it instead of compiling again.

numba is imported here only, when a graph first asks for this backend.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import sys
import tempfile
from typing import Any

import numpy as np

from runtime import dtypes, errors, executor
from runtime import shape as shape_lib
from runtime.backends import (
    numba_call,
    numba_fusion,
    numba_handles,
    numba_host,
    numba_math,
)
from runtime.backends.lowering import Lowerer, Uses
from runtime.fast_call import FastCall
from runtime.lowering_api import HostCall, Unsupported, Value, shape_text
from runtime.tensor_array import numba_lowerings as tensor_array_lowerings
from runtime.tensor_array.value import variant
from runtime.variables import Variable

NAME = "numba"
_SCALAR_KINDS = ("int", "float", "complex", "bool")
# element types numba's compiled code has no arithmetic for: graphs holding them decline
# (listed in docs/backends.md by runtime.backends.coverage)
DTYPE_DECLINES = {
    "float16": "numba has no float16 arithmetic (half floats run on the numpy executor)",
    "bfloat16": "numba has no bfloat16 type (ml_dtypes.bfloat16 runs on the numpy executor)",
}


def _held(dtype: dtypes.DType) -> bool:
    """Whether numba's compiled code holds values of `dtype` (raises Unsupported, with the
    reason, for a numeric type numba cannot compute in)."""
    reason = DTYPE_DECLINES.get(dtype.name)
    if reason is not None:
        raise Unsupported(reason)
    return dtype.kind in _SCALAR_KINDS


def unavailable() -> str | None:
    """None when numba imports, else why not."""
    try:
        import numba  # noqa: F401
    except ImportError as e:
        return "numba is not installed (pip install 'autograph[numba]'): %s" % e
    return None


def cache_dir() -> pathlib.Path:
    """Where generated modules and numba's cache live."""
    root = os.environ.get("AUTOGRAPH_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
        root = os.path.join(base, "autograph")
    return pathlib.Path(root) / "numba"


def _dtype_name(dtype: dtypes.DType) -> str:
    return "bool_" if dtype is dtypes.bool_ else dtype.np_dtype.name


class NumbaLowerer(Lowerer):
    """Writes the body of the numba kernel."""

    name = NAME

    def __init__(self) -> None:
        super().__init__()
        self.extra_params: list[str] = []
        self.extra_values: list[Any] = []
        self.checks: list[tuple[Any, type[Exception], str]] = []  # (node, error, message)
        self.variables: list[Any] = []     # captured Variables, passed as buffers
        self.variable_params: list[str] = []
        self.written: set[int] = set()     # indices in `variables` of those assigned
        # Variables passed as arguments (their GraphVariables), the buffer of each passed as
        # its argument's parameter; the indices of those assigned
        self.argument_variables: list[Any] = []
        self.written_arguments: set[int] = set()
        self.tensor_arrays: list[Any] = []  # TensorArray buffers (tensor_array.numba_lowerings)
        self.handle_buffers: dict[str, Any] = {}  # a handle's name -> its buffer
        self._graphs: list[Any] = []       # the graphs being lowered, innermost last
        self.only_scalars = True           # no node makes an array (see releases_gil)
        self.modules: set[str] = set()     # the Python modules a rule's code names ("math")
        self.buffer_reads: set[int] = set()  # ids of the reads that need no copy
        self._uses: list[Uses] = []          # the graphs being lowered, innermost last

    def capture(self, capture: Any) -> Value:
        variable = capture.external
        if not isinstance(variable, Variable):
            raise Unsupported("captured %s" % type(variable).__name__)
        value = variable._value
        shape = variable._static_shape
        if value is None or shape is None or None in shape:
            raise Unsupported("a variable without a value or a fully known shape")
        if not _held(variable.dtype):
            raise Unsupported("a %s variable" % variable.dtype.name)
        for known, param in zip(self.variables, self.variable_params):
            if known is variable:  # captured again by a sub-graph: one buffer per variable
                resource = Value(param, dtypes.resource, None)
                resource.variable = variable  # type: ignore[attr-defined]
                return resource
        name = self.fresh("var")
        self.variables.append(variable)
        self.variable_params.append(name)
        resource = Value(name, dtypes.resource, None)
        resource.variable = variable  # type: ignore[attr-defined]
        return resource

    def argument_variable(self, name: str, variable: Any) -> Value:
        """The Value of parameter `name`, the buffer of the Variable passed as an argument
        for which the graph's GraphVariable `variable` stands."""
        shape = None if variable is None else variable._static_shape
        if shape is None or None in shape:
            raise Unsupported("a variable argument of a shape not fully known")
        if not _held(variable.dtype):
            raise Unsupported("a %s variable" % variable.dtype.name)
        self.argument_variables.append(variable)
        resource = Value(name, dtypes.resource, None)
        resource.variable = variable  # type: ignore[attr-defined]
        return resource

    def _buffer(self, resource: Value) -> Any:
        variable = getattr(resource, "variable", None)
        if variable is None:
            raise Unsupported("a variable passed as an argument")
        return variable

    def read_variable(self, resource: Value, snapshot: bool = True) -> str:
        """`buffer[()]` for a scalar; else a copy of the buffer (the kernel assigns a buffer in
        place), or the buffer itself where no assignment can come before the read's last use
        (`snapshot` false, or a read `buffer_reads` found)."""
        variable = self._buffer(resource)
        if variable._static_shape == ():
            return "%s[()]" % resource
        if not snapshot or id(self.node) in self.buffer_reads:
            return str(resource)
        return "%s.copy()" % resource

    def kernel_on_host(self, node: Any, ins: list[Value], outs: list[Value]) -> None:
        """The op's kernel called back through `numba.objmode` (see numba_host)."""
        numba_host.kernel_on_host(self, node, ins, outs)

    def host_call(self, call: HostCall, node: Any, ins: list[Value],
                  outs: list[Value]) -> None:
        """The host call an op declares, as numba_host writes it."""
        numba_host.HOST_CALLS[call](self, node, ins, outs)

    def write_variable(self, resource: Value, value: str) -> None:
        variable = self._buffer(resource)
        for i, v in enumerate(self.variables):
            if v is variable:
                self.written.add(i)
        for i, v in enumerate(self.argument_variables):
            if v is variable:
                self.written_arguments.add(i)
        shape = variable._static_shape
        if shape == ():
            self.line("%s[()] = %s" % (resource, value))
            return
        if shape is None or None in shape:  # (the executor lets such a variable's shape change)
            raise Unsupported("assigns a variable of shape %s" % shape_lib.to_string(shape))
        value_shape = getattr(value, "shape", None)
        rank = len(shape)
        if value_shape is None or len(value_shape) != rank:
            raise Unsupported("assigns a value of another rank to a variable")
        if tuple(value_shape) != tuple(shape):  # the executor's check, at run time
            self.check_values(
                " or ".join("%s.shape[%d] != %d" % (value, d, size)
                            for d, size in enumerate(shape)),
                errors.InvalidArgumentError,
                "cannot assign a value of shape %s to variable %s of shape %s" % (
                    shape_text(["%d"] * rank, ", "), variable.name.replace("%", "%%"),
                    shape_text([str(size) for size in shape], ", ")),
                tuple("%s.shape[%d]" % (value, d) for d in range(rank)))
        # (not `buffer[...] = value`: numba compiles a slice assignment for 0.2 s at each
        # site and 2.5 s the first time in a process)
        self.line("numba_math.assign(%s, %s)" % (resource, value))

    def lower_graph(self, graph: Any, fed: Any, outputs: Any) -> list[Value]:
        self._graphs.append(graph)
        try:
            return super().lower_graph(graph, fed, outputs)
        finally:
            self._graphs.pop()

    def lower_node(self, node: Any, ins: list[Value], names: dict[int, Value]) -> None:
        if any(t._shape != () or not _held(t.dtype) for t in node.outputs):
            self.only_scalars = False
        super().lower_node(node, ins, names)

    def releases_gil(self) -> bool:
        """Whether the kernel should let other threads run while it runs: unless it is
        loop-free code on scalars (done in nanoseconds, less than releasing the GIL costs).
        Fused elementwise runs, which bypass lower_node, are loops."""
        return not (self.only_scalars and not self.extra_values and not self.variables
                    and not self.argument_variables and not self.tensor_arrays and not any(
                        line.lstrip().startswith(("while ", "for ")) for line in self.lines))

    def lower_nodes(self, simplified: executor.Simplified, names: dict[int, Value],
                    outputs: Any) -> None:
        numba_handles.require_linear(self._graphs[-1], simplified, list(outputs))
        uses = Uses(simplified, list(outputs))
        if len(self._graphs) == 1:  # (the kernel's own graph, not a loop's or branch's)
            self.buffer_reads = reads_without_snapshot(simplified, uses)
        self._uses.append(uses)
        try:
            numba_fusion.lower_nodes(self, simplified, names, uses)
        finally:
            self._uses.pop()

    def used_only_by(self, tensor: Any, op_names: frozenset[str]) -> bool:
        """Whether every use of `tensor`, an output of the node being lowered, is by an op
        named in `op_names` (not when it is an output of its graph): a rule may then give
        those ops a value they accept that others do not (a strided view, for MatMul)."""
        users = self._uses[-1].users.get(id(tensor), [])
        return bool(users) and None not in users and all(
            node.op.name in op_names for node in users)

    def allocate_tensor_arrays(self) -> None:
        """Writes the allocation of each TensorArray buffer, now that its element is known."""
        for buffer in self.tensor_arrays:
            allocation = buffer.allocation()
            self.lines = [line.replace(buffer.token, allocation) for line in self.lines]

    def constant(self, value: Any, dtype: dtypes.DType, shape: Any) -> str:
        if dtype is variant:
            return tensor_array_lowerings.constant(self, value)
        if not _held(dtype):
            raise Unsupported("a %s constant" % dtype.name)
        if value.ndim == 0:
            return self.scalar_literal(value[()], dtype)
        name = self.fresh("k")
        self.extra_params.append(name)
        self.extra_values.append(np.ascontiguousarray(value, dtype.np_dtype))
        return name

    def scalar_literal(self, value: Any, dtype: dtypes.DType) -> str:
        """A typed scalar literal: `np.float32(0.5)`, `True`."""
        if dtype is dtypes.bool_:
            return repr(bool(value))
        if dtype.kind == "int":
            text = repr(int(value))
        elif dtype.kind == "complex":
            if not np.isfinite(value):
                raise Unsupported("a complex constant with an infinite or NaN part")
            text = repr(complex(value))
        else:
            number = float(value)
            if np.isnan(number):
                text = "np.nan"
            elif np.isinf(number):
                text = "np.inf" if number > 0 else "-np.inf"
            else:
                text = repr(number)
        return "np.%s(%s)" % (_dtype_name(dtype), text)

    def assign(self, out: Value, expr: str) -> None:
        if out.dtype is variant:  # a TensorArray handle: the same buffer under another name
            buffer = self.handle_buffers.get(str(expr))
            if buffer is None or self.handle_buffers.setdefault(str(out), buffer) is not buffer:
                raise Unsupported("a TensorArray handle that may stand for two arrays")
            self.line("%s = %s" % (out, expr))
            return
        if out.dtype is dtypes.resource:  # an iterator's handle (numba_host)
            numba_host.assign_handle(self, out, expr)
            return
        if not _held(out.dtype):
            raise Unsupported("a %s value" % out.dtype.name)
        if out.shape is None:
            raise Unsupported("a value of unknown rank")
        if out.rank0 and out.dtype is dtypes.bool_:
            self.line("%s = bool(%s)" % (out, expr))
        else:
            self.line("%s = fit(%s, np.%s)" % (out, expr, _dtype_name(out.dtype)))

    def cast(self, expr: str, dtype: dtypes.DType) -> str:
        if dtype is dtypes.bool_:
            return "(%s != 0)" % expr
        return expr  # `assign` fits the value to the output's dtype

    def check(self, failed: str, error: type[Exception], message: str) -> None:
        # the kernel raises the check's number, and the wrapper raises `error(message)`
        # from the check's line (see numba_call.raisers).
        self.check_values(failed, error, message, ())

    def check_broadcast(self, *operands: Value) -> None:
        """Checks, where a dimension is known only at run time, that `operands` broadcast
        together, failing with numpy's message, which the executor's kernel raises (numba's
        own ufuncs raise another ValueError, from its npyimpl.py)."""
        shapes = [v.shape for v in operands]
        if any(shape is None for shape in shapes):
            return
        known = [shape for shape in shapes if shape is not None]  # (all of them: for mypy)
        rank = max(len(shape) for shape in known)
        # each operand's dimensions aligned to the right: (text, known only at run time)
        dims = [[("1", False)] * (rank - len(shape)) + [
            (str(size), False) if size is not None else ("%s.shape[%d]" % (v, k), True)
            for k, size in enumerate(shape)] for v, shape in zip(operands, known)]
        failed = []
        for d in range(rank):
            spans = [own[d] for own in dims if own[d][0] != "1"]
            for i, (a, a_run_time) in enumerate(spans):
                for b, b_run_time in spans[i + 1:]:
                    if (a_run_time or b_run_time) and a != b:  # (a dim is its own size)
                        failed.append("(%s != %s%s%s)" % (
                            a, b, " and %s != 1" % a if a_run_time else "",
                            " and %s != 1" % b if b_run_time else ""))
        if not failed:
            return
        texts = " ".join(shape_text(["%d"] * len(shape)) for shape in known)
        self.check_values(" or ".join(failed), ValueError,
                          "operands could not be broadcast together with shapes %s " % texts,
                          tuple(text for own, shape in zip(dims, known)
                                for text, _ in own[rank - len(shape):]))

    def check_values(self, failed: str, error: type[Exception], message: str,
                     values: tuple[str, ...]) -> None:
        """`check`, with a message naming run-time values: `message % values`, `values`
        integer expressions (an index, say), `message` with a %d for each."""
        code = len(self.checks)
        self.checks.append((self.node, error, message))
        self.line("if %s:" % failed)
        with self.block():
            self.line("raise RuntimeError(%s)" % ", ".join(
                [repr("%s%d" % (numba_call.CHECK_PREFIX, code))]
                + ["np.int64(%s)" % v for v in values]))

    def literal(self, value: Any) -> str:
        text = super().literal(value)
        return text.replace("xp.", "np.", 1) if isinstance(value, dtypes.DType) else text


def compile(cf: Any) -> executor.CompiledGraph:  # noqa: A001 - the backend protocol's name
    """ConcreteFunction `cf` compiled with numba; raises Unsupported when it cannot be."""
    lowerer = NumbaLowerer()
    params = []
    fed: dict[int, Value] = {}
    argument_types = []
    for i, t in enumerate(cf.inputs):
        name = "in%d" % i
        if t.dtype is dtypes.resource:  # a Variable passed as an argument: its buffer
            resource = lowerer.argument_variable(name, cf.graph.argument_variables.get(id(t)))
            params.append(name)
            fed[id(t)] = resource
            variable = resource.variable  # type: ignore[attr-defined]
            argument_types.append((variable.dtype, len(variable._static_shape), True))
            continue
        if not _held(t.dtype):
            raise Unsupported("a %s argument" % t.dtype.name)
        if t._shape is None:
            raise Unsupported("an argument of unknown rank")
        params.append(name)
        fed[id(t)] = Value(name, t.dtype, t._shape)
        argument_types.append((t.dtype, len(t._shape), False))
    if any(t is None for t in cf.outputs):
        raise Unsupported("a None output")
    if any(t.dtype is variant for t in cf.outputs):
        raise Unsupported("a TensorArray output")
    results = lowerer.lower_graph(cf.graph, fed, cf.outputs)
    lowerer.allocate_tensor_arrays()
    # one output comes back bare: boxing a tuple costs as much as the call of a small kernel
    lowerer.line("return %s" % results[0] if len(results) == 1
                 else "return (%s)" % "".join(r + ", " for r in results))
    argument_types += [(dtypes.as_dtype(v.dtype), v.ndim, True) for v in lowerer.extra_values]
    argument_types += [(v.dtype, len(v._static_shape), True) for v in lowerer.variables]
    releases_gil = lowerer.releases_gil() or any(t._shape != () for t in cf.inputs)
    source = _module_source(params + lowerer.extra_params + lowerer.variable_params, lowerer,
                            releases_gil)
    module, path = _load(source)
    kernel = module.kernel
    try:
        signature = _signature(argument_types)
        numba_host.compile_kernel(kernel, signature)
    except Exception as e:  # numba's typing and lowering errors: the executor runs it
        raise Unsupported("numba could not compile it: %s" % _summary(e)) from None
    raise_functions, filename, line_nodes = numba_call.raisers(lowerer.checks, cf.name)
    variables = [(v, i in lowerer.written) for i, v in enumerate(lowerer.variables)]
    arguments = [(i in lowerer.written_arguments, v.dtype.np_dtype)
                 for i, v in enumerate(lowerer.argument_variables)]
    # The compiled overload's entry point skips numba's type dispatch (most of a cached
    # call's cost): the call passes exactly the signature's types (see numba_call).
    run, direct = numba_call.runner(
        kernel.overloads[tuple(signature)].entry_point, cf.name, cf.inputs, cf.outputs,
        lowerer.extra_values, lowerer.checks, raise_functions, variables, arguments,
        executor.outputs_holding_state(cf.graph, cf.outputs),
        host_calls=getattr(lowerer, "host_table", None) is not None)
    compiled = NumbaCompiledGraph(run, source, line_nodes, filename, path, direct)
    numba_host.bind(lowerer, raise_functions, compiled)
    return compiled


class NumbaCompiledGraph(executor.CompiledGraph):
    """A graph compiled by numba: the executor's CompiledGraph contract (`run(*feeds)`, the
    kernel module's `source`, error lines), the path of the kernel's module in the cache
    folder (`module_path`), and a direct cached call for a pure one-output kernel."""

    def __init__(self, run: Any, source: str, line_nodes: dict[int, Any], filename: str,
                 module_path: Any, direct: Any) -> None:
        super().__init__(run, source, line_nodes, filename)
        self.module_path = module_path
        self._direct = direct  # numba_call's maker of the direct call, or None

    def fast_call(self, general: Any) -> FastCall | None:
        """The cached call of a pure one-output kernel (no checks, variables or host calls):
        a FastCall whose run calls the kernel with a call's feeds and returns the eager
        tensor, in one Python frame; None for other kernels. It hands a call that raised to
        `general` (the concrete function's general run), which raises the error in the
        user's terms (see runtime.backends.numba_call)."""
        if self._direct is None:
            return None
        return FastCall(self._direct(general), direct=True)


def _summary(error: Exception) -> str:
    """The informative lines of a numba compile error, on one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith(("Failed in", "During:", "File ",
                                                           "^", "<source"))]
    return " ".join(kept[:3])[:300] or type(error).__name__


def _signature(argument_types: list[tuple[dtypes.DType, int, bool]]) -> Any:
    """numba's types of the kernel's parameters: (dtype, rank, always an array) each; a
    rank-0 argument is passed as a scalar, a rank-0 variable as a 0-d buffer."""
    import numba
    types = []
    for dtype, ndim, array in argument_types:
        scalar = numba.from_dtype(dtype.np_dtype)
        types.append(numba.types.Array(scalar, ndim, "C") if ndim or array else scalar)
    return tuple(types)


_HEADER = '''"""Generated by autograph's numba backend; safe to delete."""
%simport numpy as np
import numpy as xp
import numba
from runtime.backends.numba_host import host_call

from runtime.backends import numba_math
from runtime.backends.numba_math import fit

numba_math.register()  # numba_math %s


@numba.njit(cache=True, error_model="numpy", nogil=%s)
def kernel(%s):
'''


def _module_source(params: list[str], lowerer: NumbaLowerer, releases_gil: bool) -> str:
    # a module only some rules use is imported only by their kernels, so that the source of
    # every other kernel, and the numba cache it keys, stays the same
    imports = "".join(_import_lines(name) for name in sorted(lowerer.modules))
    header = _HEADER % (imports, numba_math.SOURCE_DIGEST, releases_gil, ", ".join(params))
    return header + "\n".join(lowerer.lines) + "\n"


# ops whose numba code always makes a new array of its output: a variable's buffer they read
# is not kept (MatMul, and arithmetic with at least one array operand)
_FRESH_OUTPUT_OPS = frozenset(["MatMul", "AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum",
                               "Minimum", "SquaredDifference"])
# the traits of the ops that may assign a variable
_MAY_ASSIGN = frozenset(["side_effects", "stateful", "host_only"])


def reads_without_snapshot(simplified: executor.Simplified, uses: Uses) -> set[int]:
    """The ids of the ReadVariableOp nodes of a graph whose value can be the variable's
    buffer itself rather than a copy of it: the value is not an output (numba_call would
    copy one anyway), every op using it makes a new array (`_FRESH_OUTPUT_OPS`), and no op
    that may assign a variable (one with side effects, or state other than a read) runs
    between the read and its last use. An MLP step reads each weight matrix twice a step;
    each copy cost as much as the bias update."""
    may_assign = [position for position, (node, _) in enumerate(simplified.nodes)
                  if node.op.name != "ReadVariableOp" and not _MAY_ASSIGN.isdisjoint(
                      node.op.traits)]
    found = set()
    for position, (node, _) in enumerate(simplified.nodes):
        if node.op.name != "ReadVariableOp":
            continue
        users = uses.users.get(id(node.outputs[0]))
        if not users or None in users or any(
                user.op.name not in _FRESH_OUTPUT_OPS for user in users):
            continue
        last = uses.last[id(node.outputs[0])]
        if not any(position < p < last for p in may_assign):
            found.add(id(node))
    return found


def _import_lines(name: str) -> str:
    """The kernel's import of module `name`. A helper module of this package (a `runtime.`
    name, numba_blas) must define `register()`, which makes its functions compilable by
    numba, and `SOURCE_DIGEST`, set by it: the kernel registers it, the digest on the line,
    so that a kernel using it is compiled again when the helper changes. (numba_math, which
    every kernel uses, is in the header itself.)"""
    if not name.startswith("runtime."):
        return "import %s\n" % name
    helper = importlib.import_module(name)
    helper.register()
    return "import %s\n%s.register()  # %s %s\n" % (name, name, name.rsplit(".", 1)[-1],
                                                     helper.SOURCE_DIGEST)


def _versions() -> str:
    import numba
    return "numba %s numpy %s python %s" % (numba.__version__, np.__version__,
                                             sys.version.split()[0])


def _load(source: str) -> tuple[Any, pathlib.Path]:
    """The module of `source`: already imported in this process, else written to the cache
    folder (once: numba's cache is keyed by the file) and imported."""
    digest = hashlib.sha256((_versions() + "\n" + source).encode()).hexdigest()[:24]
    name = "autograph_numba_%s" % digest
    module = sys.modules.get(name)
    folder = cache_dir()
    path = folder / (name + ".py")
    if module is not None:
        return module, path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            handle, temporary = tempfile.mkstemp(suffix=".tmp", dir=folder)
            with os.fdopen(handle, "w") as file:
                file.write(source)
            os.replace(temporary, path)
    except OSError as e:
        raise Unsupported("cannot write the generated module to %s: %s" % (folder, e)) \
            from None
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module, path

"""How a call reaches a numba kernel: the Python function that a ConcreteFunction runs.

A cached call is the hot path, so the function is generated for its graph's signature
(parameters one per fed value, no loops over them) and calls the kernel's compiled entry
point, which skips numba's type dispatch (most of what a dispatcher call costs):

    def run(in0, in1):
        if not in1.flags.c_contiguous:
            in1 = ascontiguousarray(in1)
        try:
            r = entry(in0[()], in1, k0)
        except Exception as e:
            fail(e)
            raise
        return (t0(r[0]), r[1])

  * a rank-0 value is passed as a scalar (`[()]`), an array as the C-contiguous array the
    entry point was compiled for (another layout is copied first);
  * the array constants (`k0`) follow the fed values;
  * numba returns a rank-0 output as a Python number: it is given its graph dtype again as
    a numpy scalar (`t0(...)` here, cheaper in practice: see `_as_numpy_scalar`), what the
    executor returns for one; a kernel with one output returns it bare (a tuple costs as
    much as the call);
  * a failed check (the kernel raises its code number) is raised again as the executor's
    error, from a line that maps to the check's op (see `raisers`);
  * an array output that may share memory with state (an array constant `k0` returned, or a
    view of one: `executor.outputs_holding_state`) is copied, as the executor does.

A kernel that reads or assigns variables also takes a buffer for each (see `_buffers`); a
Variable passed as an argument gives its buffer in its argument's place.

A pure kernel (no checks, no variables, no host calls) with one output also gets a direct
cached call (`runtime.fast_call`): `direct(general)` makes `fast(feeds)`, the same call taking
the feeds as the Function collected them and returning the eager tensor itself, in one frame
(the concrete function's run and its result packing are skipped); a kernel that raises hands
the call to `general`, the concrete function's run, which raises the error in the user's
terms (running a pure kernel twice changes nothing):

    def fast(feeds):
        in0, = feeds
        try:
            r = entry(in0[()], k0)
        except Exception:
            return general(feeds)
        t = new(EagerTensor)
        t._value = t0 * r
        t.dtype = d0
        return t
"""

from __future__ import annotations

import builtins
import itertools
import linecache
from typing import Any

import numpy as np

from runtime import dtypes, errors
from runtime.tensor import EagerTensor
from runtime.variables import updating

CHECK_PREFIX = "autograph check "
_counter = itertools.count()


def raisers(checks: list[tuple[Any, type[Exception], str]],
            name: str) -> tuple[list[Any], str, dict[int, Any]]:
    """One function per check (node, error class, message), `raise_<code>(error)`, compiled
    from source of its own whose `raise` line maps to the check's node (as the executor's
    generated lines do): the error raised again there names the op and the user's line.
    Returns the functions, the file name and the line map."""
    source = "".join("def raise_%d(error):\n    raise error\n" % i for i in range(len(checks)))
    filename = "<graph %s#%d (numba)>" % (name, next(_counter))
    namespace: dict[str, Any] = {}
    exec(builtins.compile(source, filename, "exec"), namespace)  # noqa: S102 - our own source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    line_nodes = {2 * i + 2: node for i, (node, _, _) in enumerate(checks)}
    return [namespace["raise_%d" % i] for i in range(len(checks))], filename, line_nodes


def _failure(checks: list[tuple[Any, type[Exception], str]], raise_functions: list[Any]) -> Any:
    """fail(error): when the kernel raised a check's code, raises that check's error (with
    the run-time values its message names) from the check's line; else returns."""
    table = [(raiser, error, message)
             for raiser, (_, error, message) in zip(raise_functions, checks)]

    def fail(error: Exception) -> None:
        text = error.args[0] if error.args else None
        if isinstance(text, str) and text.startswith(CHECK_PREFIX):
            raiser, error_class, message = table[int(text[len(CHECK_PREFIX):])]
            values = tuple(int(v) for v in error.args[1:])
            raiser(error_class(message % values if values else message))
    return fail


def runner(entry: Any, name: str, inputs: list[Any], outputs: list[Any], extra: list[Any],
           checks: list[tuple[Any, type[Exception], str]], raise_functions: list[Any],
           variables: list[tuple[Any, bool]], variable_arguments: list[tuple[bool, Any]],
           copied: list[bool], host_calls: bool = False) -> tuple[Any, Any]:
    """(run, direct) for the compiled `entry` point of the kernel of graph `name`:
    run(*feeds) -> the output values. The kernel's parameters are `inputs` (graph tensors; a
    Variable passed as an argument, a resource input, gives its buffer), the `extra` array
    constants, then a buffer for each of `variables` ((Variable, whether the kernel assigns
    it)); `variable_arguments`: for each Variable argument, whether the kernel assigns it and
    its numpy dtype; `outputs`: the graph tensors it returns, `copied`: whether each is
    returned as a copy; `host_calls`: the kernel calls back to Python. `direct(general)`
    makes the direct cached call of a pure one-output kernel (see the module docstring);
    `direct` is None for other kernels."""
    params = ["in%d" % i for i in range(len(inputs))]
    namespace: dict[str, Any] = {"entry": entry, "fail": _failure(checks, raise_functions),
                                 "ascontiguousarray": np.ascontiguousarray}
    lines = ["def run(%s):" % ", ".join(params)]
    arguments = []
    passed: list[str] = []  # the parameters receiving Variables
    for param, t in zip(params, inputs):
        if t.dtype is dtypes.resource:
            arguments.append("buffers[%d]" % (len(variables) + len(passed)))
            passed.append(param)
        elif t._shape == ():
            arguments.append("%s[()]" % param)
        else:
            lines += ["    if not %s.flags.c_contiguous:" % param,
                      "        %s = ascontiguousarray(%s)" % (param, param)]
            arguments.append(param)
    for i, value in enumerate(extra):
        namespace["k%d" % i] = value
        arguments.append("k%d" % i)
    arguments += ["buffers[%d]" % i for i in range(len(variables))]
    if variables or passed:
        namespace["take"], namespace["keep"] = _buffers(variables, variable_arguments)
        lines.append("    buffers = take(%s)" % ", ".join(passed))
    lines += ["    try:",
              "        r = entry(%s)" % ", ".join(arguments),
              "    except Exception as e:",
              "        fail(e)",
              "        raise"]
    if variables or passed:  # assignments made before a failure stay, as on the executor
        lines += ["    finally:",
                  "        keep(buffers%s)" % "".join(", " + p for p in passed)]
    results = []
    for i, t in enumerate(outputs):
        result = "r" if len(outputs) == 1 else "r[%d]" % i  # one output comes bare
        if t._shape == ():  # numba returns a Python number (an unknown rank never lowers)
            result = _as_numpy_scalar(result, t.dtype.np_dtype.type, "t%d" % i, namespace)
        elif copied[i]:
            result += ".copy()"
        results.append(result)
    body = lines[1:]  # (the call, shared by `fast`)
    if len(outputs) > 1 and results == ["r[%d]" % i for i in range(len(outputs))]:
        lines.append("    return r")
    else:
        lines.append("    return (%s)" % "".join(result + ", " for result in results))
    pure = len(outputs) == 1 and not (checks or variables or passed or host_calls)
    if pure:
        lines += _direct_lines(params, body, results[0], outputs[0], namespace)
    source = "\n".join(lines) + "\n"
    filename = "<graph %s#%d (numba call)>" % (name, next(_counter))
    exec(builtins.compile(source, filename, "exec"), namespace)  # noqa: S102 - our own source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return namespace["run"], namespace["direct"] if pure else None


def _direct_lines(params: list[str], body: list[str], result: str, output: Any,
                  namespace: dict[str, Any]) -> list[str]:
    """The source of `direct(general)`, which makes `fast(feeds)` (see the module docstring)
    from the lines of `run` that call the kernel (`body`, `r` its result) and the expression
    of its one `result`, for graph tensor `output`."""
    namespace.update(new=object.__new__, EagerTensor=EagerTensor, d0=output.dtype)
    lines = ["def direct(general):",
             "    def fast(feeds):",
             "        %s%s = feeds" % (", ".join(params), "," if len(params) == 1 else "")
             if params else ""]
    for line in body:
        if line == "    except Exception as e:":  # (a pure kernel has no check to raise)
            lines += ["        except Exception:", "            return general(feeds)"]
            break
        lines.append("    " + line)
    if output._shape != ():  # an array: numba's dtype is the graph's, else made so (as
        namespace.update(n0=output.dtype.np_dtype, asarray=np.asarray)  # make_eager)
        lines += ["        if r.dtype != n0:", "            r = asarray(r, n0)"]
    lines += ["        t = new(EagerTensor)",
              "        t._value = %s" % result,
              "        t.dtype = d0",
              "        return t",
              "    return fast"]
    return [line for line in lines if line]


def _as_numpy_scalar(expression: str, scalar_type: Any, name: str,
                     namespace: dict[str, Any]) -> str:
    """The expression of `expression`'s value (a Python number) as a `scalar_type` numpy
    scalar, with the names it uses (`name`...) put in `namespace`. Calling the type makes a
    0-d array first; the product with a numpy one is several times cheaper, and exact (the
    number is a value of the type) where numpy keeps the scalar's type (NEP 50, numpy 2)."""
    if scalar_type is np.bool_:
        namespace["true_"], namespace["false_"] = np.True_, np.False_
        return "(true_ if %s else false_)" % expression
    one = scalar_type(1)
    if type(one * one.item()) is scalar_type:
        namespace[name] = one
        return "%s * %s" % (name, expression)
    namespace[name] = scalar_type  # numpy 1 widens the product: the type's own constructor
    return "%s(%s)" % (name, expression)


def _buffers(variables: list[tuple[Any, bool]],
             arguments: list[tuple[bool, Any]]) -> tuple[Any, Any]:
    """(take, keep) for a kernel that reads or assigns `variables` (captured) and the
    Variables passed for its `arguments` ((whether it assigns it, numpy dtype) each):
    take(*passed) -> their values as buffers, the captured ones first, a fresh copy for one
    the kernel assigns; keep(buffers, *passed) makes each copy the variable's value after the
    call (so a tensor read earlier never changes). A Variable passed or captured twice gets
    one buffer, copied when any of its uses assigns it. From take to keep the kernel holds
    the update locks of the variables it assigns (runtime.variables.updating): a kernel
    updating them from another thread at the same time would lose this one's update."""
    table = [(v, written, v.dtype.np_dtype) for v, written in variables]

    def buffer_of(variable: Any, written: bool, np_dtype: Any) -> Any:
        value = variable._value
        if value is None:
            raise errors.FailedPreconditionError(
                "variable %s was read before it was initialised" % variable.name)
        if written or type(value) is not np.ndarray or value.dtype != np_dtype \
                or not value.flags.c_contiguous:  # a numpy scalar, say
            value = np.array(value, np_dtype, copy=True, order="C")  # keeps rank 0
        return value

    if not arguments:  # the common case, on every call: no identities to compare
        held = updating([v for v, written, _ in table if written])

        def take() -> list[Any]:
            held.__enter__()
            try:
                return [buffer_of(*entry) for entry in table]
            except BaseException:
                held.__exit__()
                raise

        def keep(buffers: list[Any]) -> None:
            try:
                for (variable, written, _), buffer in zip(table, buffers):
                    if written:
                        variable._value = buffer
            finally:
                held.__exit__()
        return take, keep

    def entries(passed: tuple[Any, ...]) -> list[tuple[Any, bool, Any]]:
        return table + [(v, written, d) for v, (written, d) in zip(passed, arguments)]

    def take_passed(*passed: Any) -> list[Any]:
        uses = entries(passed)
        written_by_id: dict[int, bool] = {}
        for variable, written, _ in uses:
            written_by_id[id(variable)] = written_by_id.get(id(variable), False) or written
        held = updating([variable for variable, written, _ in uses if written])
        held.__enter__()
        try:
            by_id: dict[int, Any] = {}
            buffers = []
            for variable, _, np_dtype in uses:
                if id(variable) not in by_id:
                    by_id[id(variable)] = buffer_of(variable, written_by_id[id(variable)],
                                                    np_dtype)
                buffers.append(by_id[id(variable)])
        except BaseException:
            held.__exit__()
            raise
        buffers.append(held)  # (keep releases it)
        return buffers

    def keep_passed(buffers: list[Any], *passed: Any) -> None:
        held = buffers.pop()
        try:
            for (variable, written, _), buffer in zip(entries(passed), buffers):
                if written:
                    variable._value = buffer
        finally:
            held.__exit__()
    return take_passed, keep_passed

"""The one op registry: every op declared once, read by eager execution, graph building,
shape inference, the executor and (later) gradients.

An op is an `OpDef`:
  * `kernel(*input_values, **attrs)` computes outputs from numpy values;
  * `infer(input_specs, attrs)` returns the output specs `[(dtype, shape), ...]` from the
    inputs' specs, raising `SpecError` for bad dtypes or shapes;
  * `grad` is the gradient rule (filled in by the gradients module);
  * `stateful` ops are never folded or merged; `side_effects` ops are never removed;
  * `emit(outs, ins, attrs, emitter)`, when given, writes the executor's Python for the op
    instead of a kernel call, or returns None for the kernel call. `outs` are the names to
    assign; `ins` are `executor.Operand`s: each input's expression (a str) with its `dtype`,
    static `shape` and, for a constant, `value`, so that the op can pick the fastest Python
    giving the kernel's results (`x % c` for integers and a non-zero constant `c`, numpy
    scalars for constants when every operand is rank 0, ...). `emitter.bind(value)` (or
    `emitter(value)`) names a value for the generated code;
  * `lower`, for control-flow ops, writes Python statements around their sub-graphs.

`execute(op, inputs, attrs)` is the single entry point: eagerly it validates and runs the
kernel; inside a trace it adds a node to the current graph.
"""

import numpy as np

from runtime import context
from runtime import errors
from runtime import shape as shape_lib
from runtime.tensor import EagerTensor, SymbolicTensor, make_eager

REGISTRY = {}
_EMPTY = {}
_tapes = context.tapes  # the recording GradientTapes: one check per eager op


class SpecError(Exception):
    """Raised by an op's `infer` rule: `kind` is 'dtype' or 'shape'."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


class OpDef:
    """The declaration of one op: kernel, inference rule, gradient slot and properties."""

    __slots__ = ("name", "kernel", "infer", "grad", "stateful", "side_effects", "emit",
                 "lower", "node_name", "doc")

    def __init__(self, name, kernel, infer, node_name, stateful, side_effects, emit, doc):
        self.name = name
        self.kernel = kernel
        self.infer = infer
        self.grad = None
        self.node_name = node_name
        self.stateful = stateful
        self.side_effects = side_effects
        self.emit = emit
        self.lower = None  # control flow: writes Python statements around sub-graphs
        self.doc = doc

    def __repr__(self):
        return "<OpDef %s>" % self.name


def register(name, kernel, infer, node_name=None, stateful=False, side_effects=False,
             emit=None, doc=None):
    """Declares op `name`; returns its OpDef. Each name may be declared only once."""
    if name in REGISTRY:
        raise ValueError("op %r is already registered" % name)
    op = OpDef(name, kernel, infer, node_name or name, stateful or side_effects,
               side_effects, emit, doc)
    REGISTRY[name] = op
    return op


def get(name):
    """The OpDef registered as `name`."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError("no op named %r is registered" % name) from None


def describe_operands(specs):
    """'int32 (2, 3), float32 ()' for error messages."""
    return ", ".join("%s %s" % (d.name, shape_lib.to_string(s)) for d, s in specs)


def execute(op, inputs, attrs=_EMPTY, name=None):
    """Runs `op` on `inputs` (tensors or resources): eagerly, or by adding a graph node.

    Returns the list of output tensors.
    """
    graph = context.current_graph() if context.building else None
    if graph is not None:
        return graph.add_op(op, inputs, attrs, name)
    values = []
    specs = []
    for t in inputs:
        if type(t) is EagerTensor:
            value = t._value
            values.append(value)
            specs.append((t.dtype, value.shape))
        elif isinstance(t, SymbolicTensor):
            raise TypeError(errors.with_user_location(
                "an op outside of the function building code is being passed a graph tensor "
                "(%s): a symbolic tensor leaked out of a traced function. Return it from the "
                "function instead." % t.name))
        else:  # variables and other resources
            values.append(t._eager_value())
            specs.append(t._spec())
    try:
        out_specs = op.infer(specs, attrs)
    except SpecError as e:
        raise errors.InvalidArgumentError(errors.with_user_location(
            "%s: %s (operands: %s)" % (op.name, e.message, describe_operands(specs))),
            op.name) from None
    try:
        result = op.kernel(*values, **attrs)
    except errors.OpError:
        raise
    except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError,
            OverflowError) as e:
        raise errors.InvalidArgumentError(errors.with_user_location(
            "%s failed: %s (operands: %s)" % (op.name, e, describe_operands(specs))),
            op.name) from None
    if len(out_specs) == 1:
        outputs = [make_eager(result, out_specs[0][0])]
    else:
        outputs = [make_eager(r, spec[0]) for r, spec in zip(result, out_specs)]
    if context._settings.get("check_numerics"):
        _check_numerics(op, outputs)
    if _tapes:  # GradientTapes are recording (runtime.gradients.tape)
        for tape in _tapes:
            tape._record(op, inputs, attrs, outputs)
    return outputs


def nonfinite_kind(value):
    """'NaN' or 'Inf' when a float value holds such elements, else None (check_numerics)."""
    if np.all(np.isfinite(value)):
        return None
    return "NaN" if np.any(np.isnan(value)) else "Inf"


def _check_numerics(op, outputs):
    for t in outputs:
        kind = nonfinite_kind(t._value) if t.dtype.is_floating else None
        if kind is not None:
            raise errors.InvalidArgumentError(errors.with_user_location(
                "check_numerics: %s produced %s values" % (op.name, kind)), op.name)


def execute1(op, inputs, attrs=_EMPTY, name=None):
    """`execute` for single-output ops: returns the one output tensor."""
    return execute(op, inputs, attrs, name)[0]


def np_result(value, dtype):
    """Casts a kernel's intermediate numpy result to `dtype`'s storage when it differs."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype == dtype.np_dtype:
        return value
    return np.asarray(value, dtype=dtype.np_dtype)

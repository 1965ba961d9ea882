"""Ops that print or check: `print`, assertions, the definedness check of converted code and
numeric checks.

All of them have side effects, so they run on every call of a traced function, in program
order, and the executor never removes them. Python functions as ops (`py_function`,
`numpy_function`) are in `py_function_ops`.
"""

import sys
from typing import Any

import numpy as np

from runtime import dtypes, errors, lowering_api
from runtime.ops import array_ops, attr_types, common, registry
from runtime.ops.registry import (
    KERNEL_CALL,
    NOT_DIFFERENTIABLE,
    execute,
    register,
)
from runtime.tensor import Tensor

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_ASSERT_DECLINES = {"array": lowering_api.unsupported(
    "assertions format their message on the host")}

OPS = {}

# -- print --------------------------------------------------------------------------------------


def _format_scalar(value, dtype):
    if dtype is dtypes.string:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if dtype.is_floating:
        short, long_ = (6, 9) if dtype is dtypes.float32 else (15, 17)
        text = "%.*g" % (short, value)
        if dtype.np_dtype.type(text) != value and not np.isnan(value):
            text = "%.*g" % (long_, value)
        return text
    if dtype.is_bool:
        return "1" if value else "0"
    return str(value)


def format_tensor_value(value, dtype, summarize=3, quote_strings=False):
    """TensorFlow's tf.print spelling of a value: '[1 2 ... 9]', nested brackets per rank;
    strings in double quotes with `quote_strings` (as tf.strings.format writes them)."""
    array = np.asarray(value)

    def render(a, depth):
        if not isinstance(a, np.ndarray) or a.ndim == 0:  # an object array's item is bytes
            text = _format_scalar(a[()] if isinstance(a, np.ndarray) else a, dtype)
            return '"%s"' % text if quote_strings and dtype is dtypes.string else text
        n = a.shape[0]
        if 0 <= summarize < n and n > 2 * summarize:
            items = [render(a[i], depth + 1) for i in range(summarize)] + ["..."] + [
                render(a[i], depth + 1) for i in range(n - summarize, n)]
        else:
            items = [render(a[i], depth + 1) for i in range(n)]
        if a.ndim == 1:
            return "[" + " ".join(items) + "]"
        return "[" + ("\n" + " " * (depth + 1)).join(items) + "]"

    return render(array, 0)


# numba and JAX call the kernel on the host, in the executor's order
_HOST_CALL = {"jax": lowering_api.KERNEL_ON_HOST, "numba": lowering_api.KERNEL_ON_HOST}


def _render_print(template, values, dtypes_, summarize):
    """The printed pieces: each piece's fragments joined, each None replaced by the next
    tensor's value."""
    value_iter = iter(zip(values, dtypes_))
    parts = []
    for fragments in template:
        parts.append("".join(format_tensor_value(*next(value_iter), summarize)
                             if fragment is None else fragment for fragment in fragments))
    return parts


# The declared type of PrintV2's `template`: per printed piece, its fragments (see
# `_template_piece`).
_PRINT_TEMPLATE = attr_types.sequence_of(attr_types.sequence_of(
    attr_types.optional(attr_types.STR)))


def _check_template(specs, attrs):
    """A loaded PrintV2 has a value for each place in its template, and a dtype for each."""
    places = sum(fragment is None for fragments in attrs["template"] for fragment in fragments)
    if not places == len(specs) == len(attrs["dtypes_"]):
        raise ValueError("the template has %d places for %d values of %d dtypes"
                         % (places, len(specs), len(attrs["dtypes_"])))


def _print_kernel(*values, template, dtypes_, sep, end, output_stream, summarize):
    text = sep.join(_render_print(template, values, dtypes_, summarize)) + end
    stream = sys.stderr if output_stream is None else output_stream
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError("output_stream strings must start with 'file://'")
        with open(stream[len("file://"):], "a") as f:
            f.write(text)
    else:
        stream.write(text)
    return ()


class StandardStream:
    """sys.stdout or sys.stderr, looked up when written to (a loaded saved model's print)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def write(self, text):
        """Writes `text` to the stream that is sys.<name> now."""
        getattr(sys, self.name).write(text)


def _encode_stream(stream):
    """A print's output stream as saved: None (stderr), a 'file://' path, 'stdout' or
    'stderr'; other stream objects cannot be saved."""
    if stream is None or isinstance(stream, str):
        return stream
    if isinstance(stream, StandardStream):
        return stream.name
    for name in ("stdout", "stderr"):
        if stream is getattr(sys, name) or stream is getattr(sys, "__%s__" % name):
            return name
    raise TypeError("its output stream %r is a Python object; only sys.stdout, sys.stderr and "
                    "'file://' paths can be saved" % (stream,))


def _decode_stream(data):
    if data is None or isinstance(data, str) and data.startswith("file://"):
        return data
    if data in ("stdout", "stderr"):
        return StandardStream(data)
    raise ValueError("output_stream must be null, 'stdout', 'stderr' or a 'file://' path, "
                     "got %r" % (data,))


def _printed_file(attrs):
    """The file a print appends to (its 'file://' stream), or None."""
    stream = attrs.get("output_stream")
    return stream[len("file://"):] if isinstance(stream, str) else None


OPS["PrintV2"] = register("PrintV2", _print_kernel, lambda specs, attrs: [],
                          grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                          traits=("side_effects", "host_only"),
                          lowerings=_HOST_CALL,
                          saving=registry.attr_codecs(output_stream=registry.AttrCodec(
                              _encode_stream, _decode_stream), file_output=_printed_file,
                              check=_check_template),
                          attr_types={"template": _PRINT_TEMPLATE})


class _Slot:
    """Stands for a tensor inside a printed container; its repr is a marker that splits the
    container's text into fragments around the tensor."""

    MARK = "\x00tensor\x00"

    def __repr__(self):
        return self.MARK


def _is_tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def _with_slots(value, tensors):
    """`value` with its tensors (collected into `tensors`) replaced by `_Slot`s, containers
    rebuilt with their own type and order (dicts keep insertion order, as `str` shows)."""
    if _is_tensor_like(value):
        tensors.append(common.convert_to_tensor(value))
        return _Slot()
    if isinstance(value, dict):
        return type(value)((k, _with_slots(v, tensors)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):  # a namedtuple
        return type(value)(*(_with_slots(v, tensors) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_with_slots(v, tensors) for v in value)
    return value


def _template_piece(value, tensors):
    """The fragments that print `value`: strings, and None where a tensor's value goes.
    A container prints as Python shows it, with its tensors' values in place (TF's spelling:
    `[1, [2 3]]`, `{'a': 1}`)."""
    if _is_tensor_like(value):
        tensors.append(common.convert_to_tensor(value))
        return (None,)
    print_parts = getattr(value, "_print_parts", None)
    if print_parts is not None:  # a composite tensor: text around its component tensors
        fragments: list[str | None] = []
        for part in print_parts():
            if isinstance(part, str):
                fragments.append(part)
            else:
                tensors.append(part)
                fragments.append(None)
        return tuple(fragments)
    text = str(_with_slots(value, tensors))
    fragments = []
    for i, chunk in enumerate(text.split(_Slot.MARK)):
        if i:
            fragments.append(None)
        if chunk:
            fragments.append(chunk)
    return tuple(fragments)


def print_(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):
    """Prints `inputs` every time it runs (eagerly now; in a graph, on each call), by default
    to stderr as TensorFlow does. Tensors print in TensorFlow's style ('[1 2 3]')."""
    tensors: list[Any] = []
    template = tuple(_template_piece(v, tensors) for v in inputs)
    attrs = {"template": template, "dtypes_": tuple(t.dtype for t in tensors), "sep": sep,
             "end": end, "output_stream": output_stream,
             "summarize": -1 if summarize is None else int(summarize)}
    execute(OPS["PrintV2"], tensors, attrs, name=name)


# -- assertions -------------------------------------------------------------------------------


def _assert_kernel(condition, *data, message, dtypes_, error_class):
    if not np.all(condition):
        details = "; ".join(format_tensor_value(v, d) for v, d in zip(data, dtypes_))
        raise error_class("%s%s" % (message, (": " + details) if details else ""))
    return ()


def _assert_infer(specs, attrs):
    common.require_kind(specs[0][0], {"bool"}, "condition")
    return []


# The exception classes an Assert may raise, by name: a saved model names one of these.
_ASSERT_ERRORS = {cls.__name__: cls for cls in (
    errors.InvalidArgumentError, errors.AssertionFailedError, errors.FailedPreconditionError,
    errors.OutOfRangeError, AssertionError, ValueError)}


def _encode_error_class(cls):
    name = getattr(cls, "__name__", "")
    if _ASSERT_ERRORS.get(name) is not cls:
        raise TypeError("it raises %r, which is not one of the exception classes a saved model "
                        "can name (%s)" % (cls, ", ".join(sorted(_ASSERT_ERRORS))))
    return name


def _decode_error_class(data):
    if not isinstance(data, str) or data not in _ASSERT_ERRORS:
        raise ValueError("error_class must be one of %s, got %r" % (sorted(_ASSERT_ERRORS),
                                                                   data))
    return _ASSERT_ERRORS[data]


def _assert_jax(lw, node, ins):
    """Assert: fails where the condition does not hold."""
    lw.fail_if(lw.jnp.logical_not(lw.jnp.all(ins[0])) if not lowering_api.is_concrete(ins[0])
               else not np.all(ins[0]))
    return []


OPS["Assert"] = register("Assert", _assert_kernel, _assert_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("side_effects",),
                         saving=registry.attr_codecs(error_class=registry.AttrCodec(
                             _encode_error_class, _decode_error_class)),
                         lowerings=dict(_ASSERT_DECLINES,
                                        jax=_assert_jax,
                                        numba=lowering_api.ASSERT_ON_HOST))


def assert_that(condition, data, message, name=None, error_class=errors.InvalidArgumentError,
                location=None):
    """Raises `error_class` (when it runs) unless every element of `condition` holds; the
    message names `location` (default: the user's line that called this)."""
    condition = common.convert_to_tensor(condition)
    data = [common.convert_to_tensor(d) for d in data]
    location = location or errors.user_location(2)
    full = message + (" (%s:%d)" % (location.filename, location.lineno) if location else "")
    execute(OPS["Assert"], [condition] + data,
            {"message": full, "dtypes_": tuple(d.dtype for d in data),
             "error_class": error_class}, name=name)


def _check_defined_kernel(defined, message):
    if not defined:
        raise errors.UndefinedValueError(message)
    return ()


def _check_defined_emit(outs, ins, attrs, emitter):
    return "if not %s: raise %s(%s)" % (ins[0], emitter(errors.UndefinedValueError),
                                         emitter(attrs["message"]))


def _check_defined_infer(specs, attrs):
    common.require_kind(specs[0][0], {"bool"}, "definedness flag")
    return []


def _check_defined_lowering(lowerer, node, ins, outs):
    lowerer.check("not %s" % ins[0], errors.UndefinedValueError, node.attrs["message"])


def _check_numerics_lowering(lowerer, node, ins, outs):
    x = ins[0]
    for kind, test in (("NaN", "xp.isnan"), ("Inf", "xp.isinf")):
        failed = "%s(%s)" % (test, x) if x.rank0 else "xp.any(%s(%s))" % (test, x)
        lowerer.check(failed, errors.InvalidArgumentError,
                      "%s: tensor had %s values" % (node.attrs["message"], kind))
    lowerer.assign(outs[0], x)


def _check_defined_jax(lw, node, ins):
    """CheckDefined: fails when the definedness flag is false."""
    flag = ins[0]
    lw.fail_if(np.logical_not(flag) if lowering_api.is_concrete(flag) else lw.jnp.logical_not(flag))
    return []


OPS["CheckDefined"] = register("CheckDefined", _check_defined_kernel, _check_defined_infer,
                               emit=_check_defined_emit,
                               grad=NOT_DIFFERENTIABLE, traits=("side_effects", "may_raise"),
                               lowerings={"array": _check_defined_lowering, "jax":
                                          _check_defined_jax})


def check_defined(defined, symbol_name, location=None):
    """Raises UndefinedValueError naming `symbol_name` (when it runs) unless the scalar bool
    `defined` holds: the run-time check of a read of a variable that may be unassigned."""
    where = " (%s:%d)" % (location.filename, location.lineno) if location else ""
    if "." in symbol_name or "[" in symbol_name:  # a key or attribute: `d['a']`, `s.v`
        message = ("'%s' is read before it is assigned a value%s: it is set only in some "
                   "branches or loop iterations (a loop must iterate at least once to "
                   "initialize it), and not on this run" % (symbol_name, where))
    else:
        message = ("local variable '%s' is used before it is assigned a value%s: it is "
                   "assigned only in some branches or loop iterations (a loop must iterate at "
                   "least once to initialize it), and not on this run" % (symbol_name, where))
    execute(OPS["CheckDefined"], [defined], {"message": message})


def _check_numerics_infer(specs, attrs):
    common.require_kind(specs[0][0], common.FLOAT)
    return [specs[0]]


def _check_numerics_kernel(x, message):
    kind = registry.nonfinite_kind(x)
    if kind is not None:
        raise errors.InvalidArgumentError("%s: tensor had %s values" % (message, kind))
    return x


OPS["CheckNumerics"] = register("CheckNumerics", _check_numerics_kernel, _check_numerics_infer,
                                grad=array_ops.identity_grad,
                                emit=KERNEL_CALL, traits=("side_effects", "may_raise", "view"),
                                lowerings={"array": _check_numerics_lowering})


def check_numerics(tensor, message, name=None):
    """`tensor`, raising InvalidArgumentError when it holds NaN or Inf values."""
    return execute(OPS["CheckNumerics"], [common.convert_to_tensor(tensor)],
                   {"message": message}, name=name)[0]

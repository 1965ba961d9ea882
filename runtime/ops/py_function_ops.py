"""Python functions as ops: `py_function` (EagerPyFunc), which runs a Python function on
eager tensors every time the op runs, with gradients through the tf ops it runs
(EagerPyFuncGrad, see runtime.gradients.py_function_grads), and `numpy_function` (PyFunc,
PyFuncStateless), which runs one on numpy arrays.

All of them but `numpy_function(stateful=False)` have side effects, so they run on every
call of a traced function, in program order, and the executor never removes them; compiled
backends call them back on the host.
"""

import functools
from typing import Any, cast

import numpy as np

from runtime import context, dtypes, errors, lowering_api
from runtime.gradients import py_function_grads
from runtime.ops import common, registry
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    register,
)
from runtime.tensor import EagerTensor, Tensor, make_eager

# numba and JAX call the kernel on the host, in the executor's order
_HOST_CALL = {"jax": lowering_api.KERNEL_ON_HOST, "numba": lowering_api.KERNEL_ON_HOST}

OPS = {}


# -- py_function ----------------------------------------------------------------------------------


def _py_function_infer(specs, attrs):
    return [(d, None) for d in attrs["Tout"]]


def _py_function_kernel(*values, func, Tout, in_dtypes, record=False, where=None):
    args = [EagerTensor(np.asarray(v) if not isinstance(v, (np.ndarray, np.generic)) else v, d)
            for v, d in zip(values, in_dtypes)]
    tape = None
    with context.eager_scope():  # the function runs eagerly, even inside a trace
        if record:  # may be differentiated: the function's own tape gives the gradient
            result, tape = py_function_grads.run_recorded(func, args)
        else:
            result = func(*args)
    if not Tout:
        return ()
    results = [result] if len(Tout) == 1 and not isinstance(result, (list, tuple)) else result
    if len(results) != len(Tout):
        raise ValueError("py_function's function returned %d values but Tout has %d"
                         % (len(results), len(Tout)))
    out = []
    for r, d in zip(results, Tout):
        if isinstance(r, Tensor):
            r = cast(Any, r).numpy()  # (a symbolic tensor has none: AttributeError)
        out.append(make_eager(np.asarray(r, dtype=d.np_dtype), d)._value)
    if tape is not None:
        out = py_function_grads.remember(out, tape, args, results)
    return tuple(out) if len(out) != 1 else out[0]


def _out_specs_infer(specs, attrs):
    return list(attrs["out_specs"])


# Runs the tape kept from a py_function's run backwards (runtime.gradients.py_function_grads).
PY_FUNCTION_GRAD_OP = register(
    "EagerPyFuncGrad", py_function_grads.py_function_grad_kernel,
    _out_specs_infer, grad=NO_GRADIENT, emit=KERNEL_CALL,
    traits=("side_effects", "host_only", "shares_state"),
    saving=registry.not_saveable("it runs a py_function's recorded Python gradient"),
    lowerings=lowering_api.GRADIENTS_ON_HOST)


def _py_function_grad(ctx, grads):
    """EagerPyFunc's gradient: one EagerPyFuncGrad op, which runs the tape kept from the
    run backwards."""
    attrs = ctx.attrs
    wanted = [j for j, need in enumerate(ctx.needed) if need]
    dy_indices = [i for i, (d, g) in enumerate(zip(attrs["Tout"], grads))
                  if d.kind == "float" and g is not None]
    result: list[Any] = [None] * len(ctx.needed)
    if not wanted or not dy_indices:
        return result
    first_float = next(i for i, d in enumerate(attrs["Tout"]) if d.kind == "float")
    key = ctx.output(first_float)
    dys = [grads[i] for i in dy_indices]
    out_specs = tuple((ctx.input_dtype(j), ctx.input_shape(j)) for j in wanted)
    outs = execute(PY_FUNCTION_GRAD_OP, [key] + dys,
                   {"func": attrs["func"], "dy_indices": tuple(dy_indices),
                    "wanted": tuple(wanted), "out_specs": out_specs,
                    "where": attrs.get("where")}, name="py_function_grad")
    for j, g in zip(wanted, outs):
        result[j] = g
    return result


OPS["EagerPyFunc"] = register("EagerPyFunc", _py_function_kernel, _py_function_infer,
                              grad=_py_function_grad,
                              emit=KERNEL_CALL,
                              traits=("side_effects", "host_only", "unrepeatable",
                                      "shares_state"),
                              lowerings={"jax": lowering_api.PY_FUNCTION_ON_HOST,
                                         "numba": lowering_api.PY_FUNCTION_ON_HOST},
                              saving=registry.not_saveable(
                                  "it runs a Python function (py_function)"))


def _as_decorator(api, api_name, func, inp, Tout, **options):
    """`api`'s decorator for `@api(Tout=...)` (func and inp not given): the decorated
    function's positional arguments become `inp`. None when `func` is given."""
    if func is not None:
        if inp is None:
            raise TypeError("%s(): missing argument `inp`, the list of the function's "
                            "arguments (needed unless %s is used as a decorator, with "
                            "func=None)" % (api_name, api_name))
        return None
    if Tout is None:
        raise TypeError("%s(): missing argument `Tout`; used as a decorator, give it by "
                        "name: @%s(Tout=...)" % (api_name, api_name))
    if inp is not None:
        raise TypeError("%s(): used as a decorator (func=None), it takes no `inp`: the "
                        "decorated function's arguments are its inputs" % api_name)

    def decorate(function):
        @functools.wraps(function)
        def call(*args):
            return api(function, list(args), Tout, **options)
        return call
    return decorate


def py_function(func=None, inp=None, Tout=None, name=None):
    """Runs the Python callable `func` on eager tensors every time the op runs.

    `Tout` is a dtype (one output), a list of dtypes, or None/[] (no outputs). Gradients flow
    through the tf ops `func` runs on its inputs (see runtime.gradients.py_function_grads).
    Without `func` and `inp` it is a decorator: `@py_function(Tout=tf.float32)`."""
    decorator = _as_decorator(py_function, "py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    tensors = [common.convert_to_tensor(x) for x in (inp or [])]
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    tout = () if Tout is None else (dtypes.as_dtype(Tout),) if single else tuple(
        dtypes.as_dtype(d) for d in Tout)
    # Recorded for a gradient where one may be taken: staged, or run while a tape records.
    record = bool(context.current_graph() is not None or context.tapes) and any(
        t.dtype.is_floating for t in tensors) and any(d.is_floating for d in tout)
    attrs = {"func": func, "Tout": tout, "in_dtypes": tuple(t.dtype for t in tensors),
             "record": record, "where": errors.user_location(2) if record else None}
    outputs = execute(OPS["EagerPyFunc"], tensors, attrs, name=name)
    if single:
        return outputs[0]
    if Tout is None:
        return None
    return list(outputs)


def _numpy_function_kernel(*values, func, Tout):
    with context.eager_scope():  # the function runs as Python, even inside a trace
        result = func(*[np.asarray(v) for v in values])
    if not Tout:
        return ()
    results = [result] if len(Tout) == 1 and not isinstance(result, (list, tuple)) else result
    if len(results) != len(Tout):
        raise ValueError("numpy_function's function returned %d values but Tout has %d"
                         % (len(results), len(Tout)))
    out = [np.asarray(cast(Any, r).numpy() if isinstance(r, Tensor) else r, dtype=d.np_dtype)
           for r, d in zip(results, Tout)]
    return tuple(out) if len(out) != 1 else out[0]


# TensorFlow's op names: the stateful op is never merged or removed; neither passes gradients.
_NUMPY_FUNCTION_NOT_SAVEABLE = registry.not_saveable(
    "it runs a Python function (numpy_function)")
OPS["PyFunc"] = register("PyFunc", _numpy_function_kernel, _py_function_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                         traits=("side_effects", "host_only", "unrepeatable", "shares_state"),
                         lowerings=_HOST_CALL,
                         saving=_NUMPY_FUNCTION_NOT_SAVEABLE)
# No backend calls a stateless one back: its results' shapes are known only at run time,
# which a host call declines, and one without results is dropped (it has no side effects).
OPS["PyFuncStateless"] = register("PyFuncStateless", _numpy_function_kernel,
                                  _py_function_infer, grad=NOT_DIFFERENTIABLE,
                                  emit=KERNEL_CALL,
                                  traits=("host_only", "no_fold", "shares_state"),
                                  saving=_NUMPY_FUNCTION_NOT_SAVEABLE)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Runs `func` on the numpy values of `inp` every time the op runs; its results (numpy
    arrays or Python values) become tensors of the dtypes `Tout` (a dtype, a list of them,
    or None/[] for no outputs). No gradient flows through it. With `stateful=False` equal
    calls may be merged or dropped when unused. Without `func` and `inp` it is a decorator:
    `@numpy_function(Tout=tf.float32)`."""
    decorator = _as_decorator(numpy_function, "numpy_function", func, inp, Tout,
                              stateful=stateful, name=name)
    if decorator is not None:
        return decorator
    tensors = [common.convert_to_tensor(x) for x in (inp or [])]
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    tout = () if Tout is None else (dtypes.as_dtype(Tout),) if single else tuple(
        dtypes.as_dtype(d) for d in Tout)
    op = OPS["PyFunc"] if stateful else OPS["PyFuncStateless"]
    outputs = execute(op, tensors, {"func": func, "Tout": tout}, name=name)
    if single:
        return outputs[0]
    if Tout is None:
        return None
    return list(outputs)

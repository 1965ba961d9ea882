"""The variable ops: a variable (runtime/variables.py) is a resource input, read and
assigned by these ops on every run."""

import numpy as np

from runtime import errors, lowering_api
from runtime import shape as shape_lib
from runtime.lowering_api import Unsupported, Value, VariableSlot
from runtime.ops.common import SpecError
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, register

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_VARIABLES_ON_HOST = {"array": lowering_api.unsupported("variables run on the numpy executor")}


def _read_lowering(lowerer, node, ins, outs):
    lowerer.assign(outs[0], lowerer.read_variable(ins[0]))


def _assign_lowering(combine):
    """AssignVariableOp and its add/sub forms: the variable's new value is also the output."""
    def rule(lowerer, node, ins, outs):
        value = ins[1]
        if combine is not None:  # (the read is consumed before the write: no snapshot)
            if outs[0].shape is not None and None not in outs[0].shape:
                # (numpy's check of `value + delta`: the output has the variable's shape)
                lowerer.check_broadcast(outs[0], ins[1])
            value = "%s %s %s" % (lowerer.read_variable(ins[0], snapshot=False), combine,
                                  value)
        lowerer.assign(outs[0], value)
        # (the value written, with the static shape the backend checks: the input itself,
        # else the combination's broadcast shape, not the output's, which is the variable's:
        # a delta known only at run time may broadcast the sum past the variable's shape)
        written = ins[1]
        if combine is not None:
            written = Value(outs[0], outs[0].dtype,
                            shape_lib.broadcast(outs[0].shape, ins[1].shape))
        lowerer.write_variable(ins[0], written)
    # (the add and sub forms check a broadcast with numba's check_values)
    return {"array": rule} if combine is None else {"numba": rule}


# -- JAX rules: a variable is a slot of the lowered function's state (`lw.state[slot.key]`)


def _slot_jax(node, value):
    if not isinstance(value, VariableSlot):
        raise Unsupported("reads a resource that is not a variable")
    return value


def _assign_jax(lw, node, slot, value):
    current = lw.state[slot.key]
    value = lw.jnp.asarray(value, slot.dtype.np_dtype)
    if np.shape(value) != np.shape(current):
        raise Unsupported("changes a variable's shape")
    lw.state[slot.key] = value
    lw.assigned.add(slot.key)
    lw.check_assignments()
    return [value]


def _assign_variable_jax(lw, node, ins):
    """AssignVariableOp."""
    return _assign_jax(lw, node, _slot_jax(node, ins[0]), ins[1])


def _assign_add_variable_jax(lw, node, ins):
    """AssignAddVariableOp."""
    slot = _slot_jax(node, ins[0])
    return _assign_jax(lw, node, slot, lw.jnp.add(lw.state[slot.key], ins[1]))


def _assign_sub_variable_jax(lw, node, ins):
    """AssignSubVariableOp."""
    slot = _slot_jax(node, ins[0])
    return _assign_jax(lw, node, slot, lw.jnp.subtract(lw.state[slot.key], ins[1]))


def _with_jax(lowerings, rule):
    """`lowerings` and, for JAX, `rule` (the variable is an input and an output of the
    compiled function: its value lives in the lowerer's `state`)."""
    return dict(lowerings, jax=rule)

OPS = {}


def _read_infer(specs, attrs):
    return [(attrs["dtype"], attrs["shape"])]


def _stored(variable):
    """The variable's value itself (its storage: never to be handed out)."""
    value = variable._value
    if value is None:
        raise errors.FailedPreconditionError(
            "variable %s was read before it was initialised" % variable.name)
    return value


def _read_kernel(variable, dtype, shape):
    """An eager read: a read-only view of the storage, so that nothing written into a
    tensor computed from it (a reshape, a slice) can change the variable; the public
    reads (`read_value`, `numpy`) copy it. Graphs read the storage itself, and copy a
    result that returns it (the `shares_state` trait)."""
    value = _stored(variable)
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value


def _read_variable_grad(ctx, grads):
    """The gradient of a read flows to the variable (its handle); a variable's gradient is
    the sum over its reads."""
    return [grads[0]]


def _read_variable_jax(lw, node, ins):
    """ReadVariableOp: the slot's current value."""
    return [lw.state[_slot_jax(node, ins[0]).key]]


OPS["ReadVariableOp"] = register(
    "ReadVariableOp", _read_kernel, _read_infer,
    traits=("stateful", "unrepeatable", "shares_state"),
    grad=_read_variable_grad,
    emit=lambda outs, ins, attrs, bind: "%s = %s._value" % (outs[0], ins[0]),
    lowerings=_with_jax({"array": _read_lowering}, _read_variable_jax))


def _assign_infer(specs, attrs):
    value_dtype, value_shape = specs[1]
    if value_dtype is not attrs["dtype"]:
        raise SpecError("dtype", "cannot assign a %s value to a %s variable"
                        % (value_dtype.name, attrs["dtype"].name))
    if not shape_lib.is_compatible(attrs["shape"], value_shape) and \
            not shape_lib.is_compatible(value_shape, attrs["shape"]):
        raise SpecError("shape", "cannot assign a value of shape %s to a variable of shape %s"
                        % (shape_lib.to_string(value_shape), shape_lib.to_string(attrs["shape"])))
    return [(attrs["dtype"], attrs["shape"])]


def _check_shape(variable, value):
    if variable._value is not None and np.shape(value) != np.shape(variable._value) \
            and variable._static_shape is not None and None not in variable._static_shape:
        raise errors.InvalidArgumentError(
            "cannot assign a value of shape %s to variable %s of shape %s"
            % (np.shape(value), variable.name, np.shape(variable._value)))


def _assign_kernel(variable, value, dtype, shape):
    if isinstance(value, np.ndarray):  # a copy: it may be the caller's array, changed later
        value = value.copy()
    with variable._lock:  # (the value may be on a device, which a store there races)
        _check_shape(variable, value)
        variable._value = value
    return value


def _update_kernel(combine):
    """The kernel of an update that combines the variable's value with the op's input: the
    read and the write hold the variable's lock, so concurrent updates are never lost."""
    def kernel(variable, delta, dtype, shape):
        with variable._lock:
            value = combine(_stored(variable), delta)
            _check_shape(variable, value)
            variable._value = value
        return value
    return kernel


_assign_add_kernel = _update_kernel(np.add)
_assign_sub_kernel = _update_kernel(np.subtract)


for _name, _kernel, _combine, _jax_rule in [
        ("AssignVariableOp", _assign_kernel, None, _assign_variable_jax),
        ("AssignAddVariableOp", _assign_add_kernel, "+", _assign_add_variable_jax),
        ("AssignSubVariableOp", _assign_sub_kernel, "-", _assign_sub_variable_jax)]:
    OPS[_name] = register(_name, _kernel, _assign_infer, grad=NOT_DIFFERENTIABLE,
                          emit=KERNEL_CALL,
                          traits=("side_effects", "unrepeatable", "shares_state"),
                          lowerings=_with_jax(_assign_lowering(_combine), _jax_rule))


def _init_once_kernel(variable, value):
    with variable._lock:  # two threads running the first call initialise it once
        if variable._value is None:
            variable._value = value
    return ()


OPS["InitializeVariableOnce"] = register(
    "InitializeVariableOnce", _init_once_kernel, lambda specs, attrs: [],
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("side_effects",),
    lowerings=_VARIABLES_ON_HOST)

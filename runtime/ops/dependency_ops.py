"""Ops about order and shape rather than values: `no_op`, `group`, `identity_n` and
`ensure_shape`.

`no_op()` and `group(...)` give, inside a trace, a graph node to name in
`control_dependencies` (group's node lists its inputs as control inputs, see
runtime.scopes); eagerly they do nothing and give None. `ensure_shape(x, shape)` is `x`,
checked to have a shape compatible with `shape`: while tracing against the static shape
(ValueError naming both shapes), and when the value is computed (an error that is both
an InvalidArgumentError and a ValueError, naming both shapes); the result's static shape
is refined by what `shape` knows.
"""

from runtime import context, errors, lowering_api, nest
from runtime import shape as shape_lib
from runtime.ops.array_ops import identity
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register
from runtime.scopes import control_dependencies

OPS = {}


class ShapeCheckError(errors.InvalidArgumentError, ValueError):
    """A value whose shape does not fit `ensure_shape`'s, found when it is computed."""


def _no_op_kernel():
    return ()


OPS["NoOp"] = register("NoOp", _no_op_kernel, lambda specs, attrs: [],
                       grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                       lowerings={"array": lowering_api.removed_before_lowering(
                           "it has no outputs and no side effects")},
                       doc="Does nothing; a node to name in control_dependencies.")


def _merged(expected, known):
    """The static shape that both `expected` and `known` describe (known dims from each)."""
    if expected is None:
        return known
    if known is None:
        return expected
    return tuple(k if e is None else e for e, k in zip(expected, known))


def _ensure_shape_infer(specs, attrs):
    (dtype, known), expected = specs[0], attrs["shape"]
    if known is not None and not shape_lib.is_compatible(expected, known):
        raise SpecError("shape", "the tensor's shape %s is not compatible with the expected "
                        "shape %s" % (shape_lib.to_string(known),
                                      shape_lib.to_string(expected)))
    return [(dtype, _merged(expected, known))]


def _ensure_shape_kernel(x, shape):
    if not shape_lib.is_compatible(shape, x.shape):
        raise ShapeCheckError("ensure_shape: the tensor's shape %s is not compatible with "
                              "the expected shape %s" % (shape_lib.to_string(x.shape),
                                                        shape_lib.to_string(shape)),
                              "EnsureShape")
    return x


def _ensure_shape_grad(ctx, grads):
    return [grads[0]]


def _ensure_shape_lowering(lowerer, node, ins, outs):
    # A compiled graph's inputs have the static shapes it was traced for: an input whose
    # shape is fully known and fits always passes the check.
    known = ins[0].shape
    if known is None or None in known or not shape_lib.is_compatible(node.attrs["shape"],
                                                                     known):
        raise lowering_api.Unsupported("a shape checked only at run time")
    lowerer.assign(outs[0], ins[0])


OPS["EnsureShape"] = register("EnsureShape", _ensure_shape_kernel, _ensure_shape_infer,
                              grad=_ensure_shape_grad, emit=KERNEL_CALL, traits=("view",),
                              lowerings={"array": _ensure_shape_lowering},
                              doc="Its input, checked against a shape when computed.")


def no_op(name=None):
    """Does nothing: inside a trace, the NoOp graph node (to name in control_dependencies);
    eagerly, None."""
    graph = context.current_graph()
    if graph is None:
        return None
    graph.add_op(OPS["NoOp"], [], {}, name)
    return graph.nodes[-1]


def group(*inputs, name=None):
    """One op that runs after all of `inputs` (tensors or ops, nested lists allowed):
    inside a trace a NoOp node with them as control inputs; eagerly, None."""
    with control_dependencies(nest.flatten(list(inputs))):
        return no_op(name or "group_deps")


def identity_n(input, name=None):  # noqa: A002 - TensorFlow's name
    """A list with one identity of each tensor of `input` (a list of tensors)."""
    return [identity(t) for t in input]


def ensure_shape(x, shape, name=None):
    """`x`, checked to have a shape compatible with `shape` (None dims match anything):
    ValueError while tracing when the static shape already disagrees, else an error that is
    both InvalidArgumentError and ValueError when the value is computed. The result's
    static shape has the dims `shape` knows."""
    x = convert_to_tensor(x)
    expected = shape_lib.normalize(shape)
    if context.current_graph() is None and \
            not shape_lib.is_compatible(expected, x._shape_tuple()):
        raise ShapeCheckError(errors.with_user_location(
            "ensure_shape: the tensor's shape %s is not compatible with the expected shape %s"
            % (shape_lib.to_string(x._shape_tuple()), shape_lib.to_string(expected))),
            "EnsureShape")
    return execute1(OPS["EnsureShape"], [x], {"shape": expected}, name)




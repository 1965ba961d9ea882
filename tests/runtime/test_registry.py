"""The op registry: every op is complete where it is declared."""

import ast
import pathlib
import re

import pytest

import runtime  # noqa: F401 - declares every op (the gradient rules included)
import runtime.data  # noqa: F401 - the dataset ops
from runtime.ops import registry
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, NOT_DIFFERENTIABLE

RUNTIME = pathlib.Path(registry.__file__).resolve().parents[1]


def test_every_op_declares_a_gradient_decision():
    """A rule, NOT_DIFFERENTIABLE or NO_GRADIENT: never left undecided."""
    undecided = []
    for name, op in registry.REGISTRY.items():
        decision = op.grad_decision
        if decision is NO_GRADIENT:
            assert op.grad is None
        elif decision is NOT_DIFFERENTIABLE or callable(decision):
            assert callable(op.grad), name
        else:
            undecided.append(name)
    assert undecided == []


# 'package.module:function': a rule named in a string instead of referenced
_NAMED_RULE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def test_every_kernel_gradient_and_lowering_is_referenced_directly():
    """No op names a rule in a string (If's and While's gradients included): a kernel and a
    gradient are functions, a lowering a function or a template (not 'module:rule')."""
    named = []
    for name, op in registry.REGISTRY.items():
        if not callable(op.kernel) or isinstance(op.grad_decision, str):
            named.append(name)
        named += ["%s (%s lowering)" % (name, backend) for backend, rule in op.lowerings.items()
                  if isinstance(rule, str) and _NAMED_RULE.fullmatch(rule)]
    assert named == []


@pytest.mark.parametrize("declaration, refused", [
    (dict(grad="runtime.gradients.control_flow_grads:while_grad"), "grad must be a rule"),
    (dict(kernel="numpy:abs"), "kernel must be a function"),
    (dict(lowerings={"numba": "runtime.ops.numba_lowerings:fill"}), "lowering must be"),
])
def test_a_rule_or_kernel_named_in_a_string_is_refused(declaration, refused):
    arguments = dict(kernel=abs, grad=NOT_DIFFERENTIABLE) | declaration
    with pytest.raises(TypeError, match=refused):
        registry.register("NamedInAString", arguments.pop("kernel"),
                          lambda specs, attrs: [specs[0]], emit=KERNEL_CALL, **arguments)
    assert "NamedInAString" not in registry.REGISTRY


def test_every_op_declares_an_emit_rule():
    """KERNEL_CALL, an expression rule, or statements(rule) for control flow."""
    undecided = []
    for name, op in registry.REGISTRY.items():
        decision = op.emit_decision
        if decision is KERNEL_CALL:
            assert op.emit is None and op.lower is None, name
            assert callable(op.kernel), name
        elif isinstance(decision, registry.Statements):
            assert op.lower is decision.rule and op.emit is None, name
        elif callable(decision):
            assert op.emit is decision and op.lower is None, name
        else:
            undecided.append(name)
    assert undecided == []


def test_every_op_has_known_traits_and_a_lowering_slot():
    for name, op in registry.REGISTRY.items():
        assert op.traits <= set(registry.TRAITS), name
        assert op.stateful == bool(op.traits & {"stateful", "side_effects"}), name
        assert isinstance(op.lowerings, dict), name


def test_a_declaration_without_decisions_is_refused():
    with pytest.raises(TypeError):
        registry.register("NoDecisions", abs, lambda specs, attrs: [specs[0]])
    with pytest.raises(TypeError, match="grad must be"):
        registry.register("BadGrad", abs, lambda specs, attrs: [specs[0]], grad=None,
                          emit=KERNEL_CALL)
    with pytest.raises(ValueError, match="unknown traits"):
        registry.register("BadTrait", abs, lambda specs, attrs: [specs[0]],
                          grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("pure",))
    assert not {"NoDecisions", "BadGrad", "BadTrait"} & set(registry.REGISTRY)


def test_a_registered_op_cannot_be_patched():
    op = registry.get("Tanh")
    for attr, value in [("grad_decision", NOT_DIFFERENTIABLE), ("emit", None),
                        ("kernel", abs), ("lower", None)]:
        with pytest.raises(AttributeError, match="complete where it is declared"):
            setattr(op, attr, value)


def _reads_op_name(expr):
    return any(isinstance(n, ast.Attribute) and n.attr == "name" and (
        isinstance(n.value, ast.Name) and n.value.id == "op" or
        isinstance(n.value, ast.Attribute) and n.value.attr == "op") for n in ast.walk(expr))


def test_no_op_name_is_compared_in_the_executor_or_constant_folding():
    """The graph passes read traits and declared rules, never test op names."""
    for path in [RUNTIME / "executor.py", RUNTIME / "ops" / "common.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and _reads_op_name(node):
                pytest.fail("%s:%d compares an op's name" % (path.name, node.lineno))


def test_no_fold_is_a_real_trait():
    """A `no_fold` op is never folded, even on constant inputs (it may still be merged)."""
    import numpy as np

    from runtime import executor
    from runtime.graph import Graph
    from runtime.ops import array_ops

    op = registry.register("TestNoFoldNeg", np.negative, lambda specs, attrs: [specs[0]],
                           grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("no_fold",))
    try:
        graph = Graph("no_fold")
        with graph.as_default():
            x = array_ops.constant(np.float32(2.0))
            y = registry.execute1(op, [x])
            z = registry.execute1(op, [x])
        simplified = executor.simplify(graph, [y, z])
        assert [node.op.name for node, _ in simplified.nodes] == ["TestNoFoldNeg"]
        compiled = executor.compile_graph(graph, [], [y, z])
        assert [float(v) for v in compiled.run()] == [-2.0, -2.0]
    finally:
        del registry.REGISTRY["TestNoFoldNeg"]

"""The declared types of op attributes (runtime/ops/attr_types.py): every attribute of every
registered op has one, and each type accepts what it says and nothing else."""

import numpy as np
import pytest

import runtime.ops  # noqa: F401 - registers the ops of the tensor API
from runtime import dtypes
from runtime.ops import (  # noqa: F401 - their ops too  # noqa: F401
    attr_types,
    call_ops,
    control_flow_ops,
    gradient_ops,
    registry,
    variable_ops,
)
from runtime.tensor_array import grad_ops  # noqa: F401 - the TensorArray gradient ops


def test_every_keyword_attribute_of_every_registered_op_has_a_declared_type():
    untyped = []
    for op in registry.REGISTRY.values():
        names = registry.keyword_attributes(op)
        if names is None:
            if op.saving.refusal is None:
                untyped.append("%s: takes any attribute but declares none" % op.name)
            continue
        untyped.extend("%s.%s" % (op.name, name) for name in sorted(names)
                       if registry.attribute_type(op, name) is None)
    assert untyped == []


def test_an_op_of_any_attribute_is_limited_to_those_it_declares():
    assert registry.declared_attributes(registry.get("Placeholder"), 0) == {"dtype", "shape"}
    assert registry.declared_attributes(registry.get("StatelessIf"), 1) == {
        "then", "else", "out_specs", "n_outputs", "residuals"}


def test_an_attribute_type_that_is_not_of_the_vocabulary_is_refused_at_register():
    with pytest.raises(TypeError, match="attribute 'axis' must be an AttrType"):
        registry.register("NotRegisteredTyped", lambda x, axis: x, lambda s, a: s[:1],
                          grad=registry.NO_GRADIENT, emit=registry.KERNEL_CALL,
                          attr_types={"axis": int})
    assert "NotRegisteredTyped" not in registry.REGISTRY


@pytest.mark.parametrize("attr_type, good, bad", [
    (attr_types.DTYPE, [dtypes.float32], ["float32", None, 1]),
    (attr_types.SHAPE, [None, (), (2, None), [0, 3]], [(-1,), (2.0,), "ab", (True,)]),
    (attr_types.INT, [0, -3, np.int64(2)], [True, 1.0, "1", None]),
    (attr_types.BOOL, [True, np.bool_(False)], [1, "true", None]),
    (attr_types.AXIS, [None, 1, -1, (0, 1), [2]], [1.5, "0", (0, "1"), (True,)]),
    (attr_types.INTS, [(), (1, 2), [3]], [None, 1, (1.0,)]),
    (attr_types.STR, ["", "SAME"], [b"x", None, 1]),
    (attr_types.SPECS, [(), ((dtypes.int32, ()), (dtypes.float32, None))],
     [((dtypes.int32,),), (("int32", ()),), ((dtypes.int32, (-2,)),)]),
    (attr_types.choice("SAME", "VALID"), ["SAME"], ["same", None, ["SAME"]]),
    (attr_types.optional(attr_types.INT), [None, 3], ["3", 3.0]),
    (attr_types.PLAIN, [(1, "a", {"k": [dtypes.int8, None]})], [(np.zeros(2),), (print,)]),
])
def test_each_attribute_type_accepts_its_values_and_names_what_it_refuses(attr_type, good, bad):
    assert [attr_type.problem(v) for v in good] == [None] * len(good)
    for value in bad:
        assert attr_type.problem(value).startswith("expected %s, found " % attr_type.name)


def test_names_used_alike_across_ops_have_their_conventional_type():
    assert attr_types.conventional_type("dtype") is attr_types.DTYPE
    assert attr_types.conventional_type("element_shape") is attr_types.SHAPE
    assert attr_types.conventional_type("sparse_dtypes") is attr_types.DTYPES
    assert attr_types.conventional_type("transpose_b") is attr_types.BOOL
    assert attr_types.conventional_type("x") is None

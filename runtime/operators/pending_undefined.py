"""Variables with no value before a loop on a tensor, as its body is traced.

A `PendingUndefined` learns its type where the body first assigns it; `with_flag` turns a
value that is undefined on some paths into the MaybeUndefined (value and definedness flag)
that staged conditionals and loops carry.
"""

import threading
from typing import Any

from runtime import context, dtypes, nest, subgraphs
from runtime.operators import undefined
from runtime.operators.staging import (
    describe,
    fail,
    is_compiler_symbol,
    placeholder_value,
    python_to_tensor,
)
from runtime.operators.undefined import MaybeUndefined, Undefined, UndefinedReturnValue
from runtime.ops import common
from runtime.tensor import Tensor


class PendingUndefined(Undefined):
    """A variable that has no value before a loop on a tensor, as the loop body being traced
    sees it: undefined in the first iteration, maybe assigned by an earlier one.

    Its type is learned where the body first gives it a value (a branch that assigns it, or
    the body's result): `materialize` then adds the loop-carried value and its definedness
    flag as inputs of the body graph, so the body is traced once. The loop starts them as
    zeros and False (or, in a loop nested in another such loop, as the enclosing loop's).
    The compiler's own symbols (a return value, read only once the return flag is set) get
    no flag: they start as zeros."""

    __slots__ = ("graph", "outer", "materialized", "initial", "flagged", "never_assigned")

    def __init__(self, symbol_name: str, graph: Any, outer: Any) -> None:
        super().__init__(symbol_name)
        self.graph = graph
        self.outer = outer
        self.materialized: Any = None  # a MaybeUndefined, or the value when not flagged
        self.initial: Any = None
        self.never_assigned = False  # known from a trial trace, see _learn_types
        self.flagged = not (is_compiler_symbol(symbol_name) or
                            isinstance(outer, UndefinedReturnValue))

    def materialize(self, template: Any) -> Any:
        """The loop-carried MaybeUndefined, typed like `template` the first time."""
        if self.materialized is None:
            name = self.symbol_name
            template = nest.map_structure(
                lambda leaf: leaf if isinstance(leaf, Tensor) else python_to_tensor(leaf, name),
                template)
            if isinstance(self.outer, PendingUndefined):
                self.initial = self.outer.materialize(template)
            else:
                with self.graph.outer.as_default():
                    self.initial = placeholder_value(name, template)
                    if self.flagged:
                        self.initial = MaybeUndefined(name, self.initial,
                                                      common.convert_to_tensor(False))
            label = subgraphs.clean_label(name)
            value = nest.map_structure(
                lambda t: self.graph.add_placeholder(label, t.dtype, t._shape), template)
            self.materialized = value
            if self.flagged:
                flag = self.graph.add_placeholder(label + "_defined", dtypes.bool_, ())
                self.materialized = MaybeUndefined(name, value, flag)
        return self.materialized

    def _read(self):
        if self.materialized is not None:
            return undefined.ld(self.materialized)
        self._fail()

    def _fail(self, *args, **kwargs):
        if self.materialized is not None:
            self.materialized._fail()
        if self.never_assigned or getattr(trial, "active", False) or (
                context.current_graph() is self.graph and
                not isinstance(self.outer, PendingUndefined)):
            # Read on every path of the body before it assigns the variable: the first
            # iteration raises, as Undefined does; the body raises whenever it runs. (In a
            # trial trace, see _learn_types, every such read is taken as raising.)
            Undefined._fail(self)
        # Elsewhere an earlier iteration may have assigned the variable.
        fail(UntypedRead, "%s is read in a loop on a tensor before the loop body assigns "
             "it, and it has no value before the loop: its type is not known where it is "
             "read. Assign it before the loop" % describe(self.symbol_name))


class UntypedRead(ValueError):
    """A loop body read a variable it assigns later, with no value before the loop, so of
    no known type yet (see _learn_types)."""


trial = threading.local()


def resolve_pending(value: Any) -> Any:
    """A materialized PendingUndefined as the MaybeUndefined it stands for."""
    if isinstance(value, PendingUndefined) and value.materialized is not None:
        return value.materialized
    return value


def with_flag(name: str, value: Any, other: Any, sub: Any) -> Any:
    """`value` from branch `sub` as a MaybeUndefined: an Undefined one as zeros shaped like
    `other` (the other branch's value) with the flag False (a loop variable that entered the
    loop undefined: its loop-carried value and flag), a defined one with the flag True."""
    if isinstance(value, MaybeUndefined):
        return value
    template = other.value if isinstance(other, MaybeUndefined) else other
    if isinstance(value, PendingUndefined):
        return value.materialize(template)
    if isinstance(value, Undefined):
        with sub.graph.as_default():
            return MaybeUndefined(name, placeholder_value(name, template), False)
    return MaybeUndefined(name, value, True)

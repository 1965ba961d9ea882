"""`ForwardAccumulator`: Jacobian-vector products (forward-mode derivatives), TensorFlow's
`tf.autodiff.ForwardAccumulator`.

    with ForwardAccumulator(primals=x, tangents=v) as acc:
        y = f(x)
    acc.jvp(y)                 # d f(x) / dx . v

The runtime's ops have reverse-mode rules only, so a product is found from them: the
vector-Jacobian product u -> u . J (the gradient of y with output gradient u) is linear in
u, and its gradient with respect to u, weighted by the tangents, is J . v. The accumulator
records like a persistent GradientTape watching the primals; `jvp` computes the first
gradient under a second tape watching u, then differentiates it (the gradient ops are
differentiable: every gradient rule is written with the ops API). Each `jvp` costs two
backward passes, eagerly and in traces alike.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Literal

from runtime import nest
from runtime.gradients.tape import GradientTape
from runtime.ops import array_ops
from runtime.ops.common import convert_to_tensor
from runtime.tensor import Tensor
from runtime.variables import Variable


class ForwardAccumulator:
    """Computes Jacobian-vector products of what is computed inside it from `primals`
    (tensors or variables, possibly nested) in the direction of `tangents` (the same
    structure)."""

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._primals = nest.flatten(primals)
        flat_tangents = nest.flatten(tangents)
        if len(flat_tangents) != len(self._primals):
            raise ValueError("ForwardAccumulator: tangents must have the structure of "
                             "primals (%d primals, %d tangents)"
                             % (len(self._primals), len(flat_tangents)))
        self._tangents: list[Tensor] = []
        for primal, tangent in zip(self._primals, flat_tangents):
            value = primal.read_value() if isinstance(primal, Variable) else primal
            tangent = convert_to_tensor(tangent, dtype_hint=value.dtype)
            if tangent.dtype is not value.dtype:
                raise ValueError("ForwardAccumulator: a tangent of dtype %s for a primal of "
                                 "dtype %s" % (tangent.dtype.name, value.dtype.name))
            self._tangents.append(tangent)
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)

    def __enter__(self) -> ForwardAccumulator:
        self._tape.__enter__()
        for primal in self._primals:
            self._tape.watch(primal)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc_value: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        return self._tape.__exit__(exc_type, exc_value, traceback)

    def jvp(self, primals: Any, unconnected_gradients: str = "none") -> Any:
        """The Jacobian-vector product of each of `primals` (tensors computed inside the
        accumulator, possibly nested): None for one that does not depend on the watched
        primals (zeros with `unconnected_gradients="zero"`)."""
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError("unconnected_gradients must be 'none' or 'zero', got %r"
                             % (unconnected_gradients,))
        results = [self._product(t, unconnected_gradients) for t in nest.flatten(primals)]
        return nest.pack_sequence_as(primals, results)

    def _product(self, target: Tensor | Variable, unconnected: str) -> Tensor | None:
        target = target.read_value() if isinstance(target, Variable) else target
        if target.dtype.kind != "float":
            return None
        direction = array_ops.zeros_like(target)  # any point: the product is linear in it
        with GradientTape(persistent=False) as outer:
            outer.watch(direction)
            grads = self._tape.gradient(target, self._primals, output_gradients=direction)
        pairs = [(g, t) for g, t in zip(grads, self._tangents) if g is not None]
        if pairs:
            product = outer.gradient([g for g, _ in pairs], direction,
                                     output_gradients=[t for _, t in pairs])
        else:
            product = None
        if product is None and unconnected == "zero":
            return array_ops.zeros_like(target)
        return product

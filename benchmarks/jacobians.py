"""Jacobian workloads: `GradientTape.jacobian` vectorised (`experimental_use_pfor=True`, the
default: one backward pass batched over every row) against its row-by-row form
(`experimental_use_pfor=False`: a While loop over the rows in a Function, one backward pass
per row eagerly).

`mlp_jacobian`: the Jacobian of a 2-layer tanh network's outputs (an 8x20 float64 batch of
logits from 8x16 inputs through 32 hidden units) with respect to its inputs: 160 rows, an
[8, 20, 8, 16] result, against the same Jacobian written by hand with numpy.
"""

import numpy as np

import autograph.tf as ag_tf
from benchmarks.workload import Target, Variant, Workload, traced_once

GROUP = "jacobians"

BATCH, FEATURES, HIDDEN, OUTPUTS = 8, 16, 32, 20


def _values():
    rng = np.random.RandomState(3)
    x = rng.standard_normal((BATCH, FEATURES))
    w1 = rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)
    w2 = rng.standard_normal((HIDDEN, OUTPUTS)) / np.sqrt(HIDDEN)
    return x, w1, w2


def _numpy_jacobian(w1, w2):
    def jacobian(x):
        slope = 1.0 - np.tanh(x @ w1) ** 2                        # [batch, hidden]
        per_example = np.einsum("ho,bh,ih->boi", w2, slope, w1)   # [batch, out, in]
        out = np.zeros((BATCH, OUTPUTS, BATCH, FEATURES))
        out[np.arange(BATCH), :, np.arange(BATCH), :] = per_example
        return out
    return jacobian


def _tape_jacobian(w1, w2, use_pfor):
    w1, w2 = ag_tf.constant(w1), ag_tf.constant(w2)

    def jacobian(x):
        with ag_tf.GradientTape() as tape:
            tape.watch(x)
            y = ag_tf.matmul(ag_tf.tanh(ag_tf.matmul(x, w1)), w2)
        return tape.jacobian(y, x, experimental_use_pfor=use_pfor)
    return jacobian


def _build_mlp_jacobian():
    x, w1, w2 = _values()
    tx = ag_tf.constant(x)
    vectorised = ag_tf.function(_tape_jacobian(w1, w2, True))
    looped = ag_tf.function(_tape_jacobian(w1, w2, False))
    return [
        Variant("numpy", _numpy_jacobian(w1, w2), (x,), note="the Jacobian by hand"),
        Variant("eager", _tape_jacobian(w1, w2, True), (tx,),
                note="GradientTape.jacobian eagerly, vectorised (the default)"),
        Variant("eager_rows", _tape_jacobian(w1, w2, False), (tx,),
                note="eagerly with experimental_use_pfor=False: a backward pass per row"),
        Variant("function", vectorised, (tx,), verify=traced_once(vectorised),
                note="in a cached autograph.tf.function, vectorised"),
        Variant("function_loop", looped, (tx,), verify=traced_once(looped),
                note="in a cached function with experimental_use_pfor=False: a While loop"),
    ]


MLP_JACOBIAN = Workload(
    name="mlp_jacobian",
    description="GradientTape.jacobian of a 2-layer tanh network's %dx%d outputs with "
                "respect to its %dx%d inputs (%d rows), float64." % (
                    BATCH, OUTPUTS, BATCH, FEATURES, BATCH * OUTPUTS),
    build=_build_mlp_jacobian,
    targets=[Target("eager_rows", "eager", at_least=5),
             Target("function_loop", "function", at_least=5),
             Target("function", "numpy")],
    rtol=1e-10, atol=1e-12,
    group=GROUP,
)

WORKLOADS = [MLP_JACOBIAN]

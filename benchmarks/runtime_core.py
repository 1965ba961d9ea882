"""Runtime core workloads: the cost of a cached Function call, of many small ops, of big ones.

Every workload writes its computation once, as a function of the ops it uses (`make_*`), and
instantiates it with numpy, with `autograph.tf` (eagerly and as a `tf.function`), and with
TensorFlow and JAX when they happen to be installed: all variants run exactly the same
sequence of operations on the same inputs.
"""

import operator

import numpy as np

import autograph.tf as ag_tf
from benchmarks.workload import (
    Target,
    Variant,
    Workload,
    compiled_variants,
    jax,
    jax_blocking,
    tensorflow,
    traced_once,
)

GROUP = "runtime_core"


# -- 1. cached call overhead -----------------------------------------------------------------


def _add_one(x):
    return x + 1


def _build_cached_call():
    value = np.array(1.0, dtype=np.float32)
    function = ag_tf.function(_add_one)
    variants = [
        # operator.add(x, 1) is exactly `x + 1`, without an extra Python frame around it.
        Variant("numpy", operator.add, (value, 1), note="x + 1 on a 0-d float32 ndarray"),
        Variant("numpy_hoisted", operator.add, (value, np.array(1.0, dtype=np.float32)),
                note="x + c, c a 0-d float32 array made once, as a traced graph holds it "
                     "(informational)"),
        Variant("numpy_scalar", operator.add, (np.float32(1.0), 1),
                note="x + 1 on an np.float32 scalar (informational)"),
        Variant("function", function, (ag_tf.constant(1.0),), verify=traced_once(function),
                note="cached autograph.tf.function"),
    ]
    variants += compiled_variants(lambda backend: ag_tf.function(_add_one, backend=backend),
                               (ag_tf.constant(1.0),))
    tf = tensorflow()
    if tf is not None:
        variants.append(Variant("tensorflow.function", tf.function(_add_one),
                                (tf.constant(1.0),), note="TensorFlow tf.function"))
    jax_module, jnp = jax()
    if jax_module is not None:
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(_add_one)),
                                (jnp.asarray(value),), note="jax.jit, result awaited"))
    return variants


CACHED_CALL = Workload(
    name="cached_call",
    description="Per-call overhead of a cached tf.function computing `x + 1` on a scalar "
                "float32 tensor, after the first (tracing) call, against numpy's own `x + 1` "
                "on a 0-d float32 array.",
    build=_build_cached_call,
    targets=[Target("function", "numpy", at_most=8.0),
             Target("function_numba", "numpy", at_most=3.0),
             Target("function", "numpy_hoisted"),
             Target("function", "numpy_scalar"),
             Target("function_numba", "jax.jit", at_most=1.0),
             Target("function_jax", "jax.jit", at_most=1.2)],
    group=GROUP,
)


# -- 2. a chain of 100 small elementwise ops --------------------------------------------------

CHAIN_LENGTH = 100  # ops per call: 10 rounds of the 10 ops below
CHAIN_SIZE = 16


def make_elementwise_chain(tanh, absolute, maximum, minimum, constant=None):
    """100 elementwise ops on `x`, with the given op implementations.

    Every op depends on the input (nothing can be folded to a constant), the values stay in
    (-1, 1) and the clamps never bind for inputs in [-2, 2], so the result stays sensitive to
    the input (a benchmark that converges to a constant could hide wrong work), and the chain
    is not chaotic, so float32 implementations agree to a few ulps.

    The scalars are Python floats, as one writes them; `constant`, when given, converts them
    once, up front (e.g. to 0-d float32 arrays: numpy's fastest form, which is also what a
    traced graph holds)."""
    c = constant or (lambda value: value)
    m1, a1, s1, lo, m2, s2, hi = (c(v) for v in (1.01, 0.1, 0.3, -0.9, 1.25, 0.05, 3.0))

    def elementwise_chain(x):
        for _ in range(10):
            x = x * m1 + a1             # 2 ops
            x = tanh(x)                 # 1
            x = absolute(x) - s1        # 2
            x = maximum(x, lo)          # 1
            x = x * m2 - s2             # 2
            x = minimum(x, hi)          # 1
            x = tanh(x)                 # 1
        return x
    return elementwise_chain


def _build_elementwise_chain():
    value = np.linspace(-2.0, 2.0, CHAIN_SIZE, dtype=np.float32)
    numpy_chain = make_elementwise_chain(np.tanh, np.abs, np.maximum, np.minimum)
    eager_chain = make_elementwise_chain(ag_tf.tanh, ag_tf.abs, ag_tf.maximum, ag_tf.minimum)
    function = ag_tf.function(
        make_elementwise_chain(ag_tf.tanh, ag_tf.abs, ag_tf.maximum, ag_tf.minimum))
    tensor = ag_tf.constant(value)
    variants = [
        Variant("numpy", numpy_chain, (value,), note="hand-written numpy"),
        Variant("numpy_hoisted", make_elementwise_chain(
            np.tanh, np.abs, np.maximum, np.minimum, lambda v: np.array(v, np.float32)),
            (value,), note="numpy, scalars converted to 0-d float32 arrays once (informational)"),
        Variant("eager", eager_chain, (tensor,), note="autograph.tf ops, eagerly"),
        Variant("function", function, (tensor,), verify=traced_once(function),
                note="cached autograph.tf.function"),
    ]
    variants += compiled_variants(
        lambda backend: ag_tf.function(make_elementwise_chain(
            ag_tf.tanh, ag_tf.abs, ag_tf.maximum, ag_tf.minimum), backend=backend), (tensor,))
    tf = tensorflow()
    if tf is not None:
        tf_chain = make_elementwise_chain(tf.tanh, tf.abs, tf.maximum, tf.minimum)
        tf_tensor = tf.constant(value)
        variants.append(Variant("tensorflow.eager", tf_chain, (tf_tensor,),
                                note="TensorFlow ops, eagerly"))
        variants.append(Variant("tensorflow.function", tf.function(tf_chain), (tf_tensor,),
                                note="TensorFlow tf.function"))
    jax_module, jnp = jax()
    if jax_module is not None:
        jax_chain = make_elementwise_chain(jnp.tanh, jnp.abs, jnp.maximum, jnp.minimum)
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(jax_chain)),
                                (jnp.asarray(value),), note="jax.jit, result awaited"))
    return variants


ELEMENTWISE_CHAIN = Workload(
    name="elementwise_chain",
    description="A chain of %d small elementwise ops (mul, add, sub, tanh, abs, maximum, "
                "minimum) on a [%d] float32 tensor: per-op dispatch cost, eagerly and inside "
                "a cached tf.function, against the same chain in numpy."
                % (CHAIN_LENGTH, CHAIN_SIZE),
    build=_build_elementwise_chain,
    targets=[Target("eager", "function", at_least=3.0),
             Target("function", "numpy", at_most=1.3),
             Target("function", "numpy_hoisted"),
             Target("function_numba", "jax.jit", at_most=1.0),
            Target("function_jax", "jax.jit", at_most=1.2)],
    rtol=1e-5, atol=1e-5,
    group=GROUP,
)


# -- 3. three chained 512x512 matmuls ---------------------------------------------------------

MATMUL_SIZE = 512


def make_matmul_chain(matmul):
    """x @ a @ b @ c, left to right (each product depends on the input)."""
    def matmul_chain(x, a, b, c):
        return matmul(matmul(matmul(x, a), b), c)
    return matmul_chain


def _build_matmul_chain():
    rng = np.random.RandomState(0)
    scale = np.float32(1.0 / np.sqrt(MATMUL_SIZE))  # keeps the products' entries O(1)
    values = tuple((rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE)) * scale).astype(np.float32)
                   for _ in range(4))
    function = ag_tf.function(make_matmul_chain(ag_tf.matmul))
    variants = [
        Variant("numpy", make_matmul_chain(np.matmul), values, note="hand-written numpy"),
        Variant("function", function, tuple(ag_tf.constant(v) for v in values),
                verify=traced_once(function), note="cached autograph.tf.function"),
    ]
    variants += compiled_variants(
        lambda backend: ag_tf.function(make_matmul_chain(ag_tf.matmul), backend=backend),
        tuple(ag_tf.constant(v) for v in values))
    tf = tensorflow()
    if tf is not None:
        variants.append(Variant("tensorflow.function", tf.function(make_matmul_chain(tf.matmul)),
                                tuple(tf.constant(v) for v in values),
                                note="TensorFlow tf.function"))
    jax_module, jnp = jax()
    if jax_module is not None:
        variants.append(Variant("jax.jit",
                                jax_blocking(jax_module.jit(make_matmul_chain(jnp.matmul))),
                                tuple(jnp.asarray(v) for v in values),
                                note="jax.jit, result awaited"))
    return variants


MATMUL_CHAIN = Workload(
    name="matmul_chain",
    description="Three chained %dx%d float32 matmuls (x @ a @ b @ c): with large kernels the "
                "Function's overhead must vanish against numpy's BLAS time."
                % (MATMUL_SIZE, MATMUL_SIZE),
    build=_build_matmul_chain,
    targets=[Target("function", "numpy", at_most=1.05), Target("function_numba", "numpy"),
             Target("function_jax", "jax.jit")],
    rtol=1e-4, atol=1e-4,
    group=GROUP,
)


WORKLOADS = [CACHED_CALL, ELEMENTWISE_CHAIN, MATMUL_CHAIN]

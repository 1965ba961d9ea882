"""Compiler workloads: converted loops over tensors, and the cost of converting and tracing.

The three loop workloads write their loop once, as a function of a namespace of ops called
`tf` (`make_*`), and instantiate it with `autograph.tf` (eagerly and as a `tf.function`), with
numpy (`NUMPY_OPS`: numpy int32/float32 scalars and arrays, the values the traced graph
computes on), with plain Python where that makes sense, and with TensorFlow when installed.
JAX cannot run a Python `while` on traced values, so its variants are the same loops written
with `lax.while_loop` / `lax.fori_loop`.

The last two workloads measure what a user waits for before the first result: converting and
tracing a ~40-line function (fresh `Function` every time), and `autograph.to_code`.
"""

import ast
import inspect
import textwrap
import types

import numpy as np

import autograph
import autograph.conversion as ag_conversion
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

GROUP = "compiler"


def _np_range(start, limit):
    return np.arange(start, limit, dtype=np.int32)


# Hand-written numpy: the loops below with `tf.` read as numpy. `tf.constant(0)` is an
# np.int32 scalar, like the int32 scalar tensor the graph holds.
NUMPY_OPS = types.SimpleNamespace(constant=np.int32, reduce_sum=np.sum, tanh=np.tanh,
                                  range=_np_range)
# Plain Python ints (informational: the fastest a CPython loop can be).
PYTHON_OPS = types.SimpleNamespace(constant=int, range=range)


def _loop_variants(make, numpy_args, tensor_args, python_args=None):
    """numpy (reference), python (if given), eager and function variants of `make(tf)`, plus
    tensorflow.function when TensorFlow is installed."""
    function = ag_tf.function(make(ag_tf))
    variants = [Variant("numpy", make(NUMPY_OPS), numpy_args, note="hand-written numpy")]
    if python_args is not None:
        python_loop = make(PYTHON_OPS)

        def python(*args):
            return np.int32(python_loop(*args))  # one conversion per call, for the check
        variants.append(Variant("python", python, python_args,
                                note="plain Python ints (informational)"))
    variants += [
        Variant("eager", make(ag_tf), tensor_args, note="autograph.tf ops, eagerly"),
        Variant("function", function, tensor_args, verify=traced_once(function),
                note="cached autograph.tf.function"),
    ]
    variants += compiled_variants(lambda backend: ag_tf.function(make(ag_tf), backend=backend),
                               tensor_args)
    tf = tensorflow()
    if tf is not None:
        variants.append(Variant("tensorflow.function", tf.function(make(tf)),
                                tuple(tf.constant(a) for a in numpy_args),
                                note="TensorFlow tf.function (autograph)"))
    return variants


def _loop_targets():
    return [Target("function", "numpy", at_most=1.5),
            Target("function_numba", "jax.jit", at_most=1.0),
            Target("function_jax", "jax.jit", at_most=1.2),
            Target("eager", "function")]


# -- 1. the guide's loop ----------------------------------------------------------------------

GUIDE_SIZE = 5
GUIDE_ITERATIONS = 36  # from ones([5]): tanh applied 36 times until the sum is <= 1


def make_guide_loop(tf):
    """The loop of the guide's AutoGraph section."""
    def guide_loop(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    return guide_loop


def _build_guide_loop():
    value = np.ones(GUIDE_SIZE, dtype=np.float32)
    variants = _loop_variants(make_guide_loop, (value,), (ag_tf.constant(value),))
    jax_module, jnp = jax()
    if jax_module is not None:
        lax = jax_module.lax

        def jax_guide_loop(x):
            return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(jax_guide_loop)),
                                (jnp.asarray(value),), note="lax.while_loop, result awaited"))
    return variants


GUIDE_LOOP = Workload(
    name="guide_loop",
    description="The guide's loop `while tf.reduce_sum(x) > 1: x = tf.tanh(x)` on x = "
                "ones([%d]) float32: %d iterations of a reduction, a comparison and a tanh."
                % (GUIDE_SIZE, GUIDE_ITERATIONS),
    build=_build_guide_loop,
    targets=_loop_targets(),
    rtol=1e-5, atol=1e-6,  # XLA's float32 tanh is an ulp or two from numpy's, 36 times
    group=GROUP,
)


# -- 2. a counter-driven while ----------------------------------------------------------------

COUNT = 1000


def make_counter_loop(tf):
    """Sums 0..n-1 with an explicit counter: a while loop of scalar int32 ops."""
    def counter_loop(n):
        i = tf.constant(0)
        s = tf.constant(0)
        while i < n:
            s += i
            i += 1
        return s
    return counter_loop


def _build_counter_loop():
    variants = _loop_variants(make_counter_loop, (np.int32(COUNT),),
                              (ag_tf.constant(COUNT),), python_args=(COUNT,))
    jax_module, jnp = jax()
    if jax_module is not None:
        lax = jax_module.lax

        def jax_counter_loop(n):
            def body(carry):
                i, s = carry
                return i + 1, s + i
            return lax.while_loop(lambda carry: carry[0] < n, body,
                                  (jnp.int32(0), jnp.int32(0)))[1]
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(jax_counter_loop)),
                                (jnp.int32(COUNT),), note="lax.while_loop, result awaited"))
    return variants


COUNTER_LOOP = Workload(
    name="counter_loop",
    description="`i = 0; s = 0; while i < n: s += i; i += 1` on int32 scalar tensors, "
                "n = %d: the per-iteration cost of a While op on scalars." % COUNT,
    build=_build_counter_loop,
    targets=_loop_targets(),
    group=GROUP,
)


# -- 3. fizzbuzz summed into a tensor ---------------------------------------------------------


def make_fizzbuzz_loop(tf):
    """Over i in 1..n: adds 100 for multiples of 15, 10 for other multiples of 3, 1 for other
    multiples of 5, and i itself otherwise (for n = 1000: 275,736)."""
    def fizzbuzz_loop(n):
        s = tf.constant(0)
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                s += 100
            elif i % 3 == 0:
                s += 10
            elif i % 5 == 0:
                s += 1
            else:
                s += i
        return s
    return fizzbuzz_loop


def _build_fizzbuzz_loop():
    variants = _loop_variants(make_fizzbuzz_loop, (np.int32(COUNT),),
                              (ag_tf.constant(COUNT),), python_args=(COUNT,))
    jax_module, jnp = jax()
    if jax_module is not None:
        lax = jax_module.lax

        def jax_fizzbuzz_loop(n):
            def body(i, s):
                return s + jnp.where(i % 15 == 0, 100, jnp.where(
                    i % 3 == 0, 10, jnp.where(i % 5 == 0, 1, i)))
            return lax.fori_loop(1, n + 1, body, jnp.int32(0))
        variants.append(Variant("jax.jit", jax_blocking(jax_module.jit(jax_fizzbuzz_loop)),
                                (jnp.int32(COUNT),),
                                note="lax.fori_loop with nested jnp.where, result awaited"))
    return variants


FIZZBUZZ_LOOP = Workload(
    name="fizzbuzz_loop",
    description="`for i in tf.range(1, n + 1)` with an if/elif/elif/else on `i %% 15`, "
                "`i %% 3`, `i %% 5` adding into an int32 scalar tensor, n = %d: a For loop "
                "with nested If ops." % COUNT,
    build=_build_fizzbuzz_loop,
    targets=_loop_targets(),
    group=GROUP,
)


# -- 4. convert + trace a ~40-line function ---------------------------------------------------

LONG_SIZE = 8
LONG_STEPS = 12


def make_long_function(tf):
    """About 40 lines of everyday control flow over tensors: a for loop with an if/elif/else
    and a break, a while loop, and a for loop with a continue."""
    def long_function(x, n):
        total = tf.zeros_like(x)
        scale = tf.constant(1.0)
        steps = tf.constant(0.0)
        for i in tf.range(n):
            if i % 3 == 0:
                total = total + x * scale
            elif i % 3 == 1:
                total = total - x * (scale * 0.5)
            else:
                total = tf.tanh(total) * 2.0
            scale = scale * 0.9
            steps += 1.0
            if tf.reduce_max(tf.abs(total)) > 12.0:
                break

        y = tf.abs(total) + 1.0
        halvings = tf.constant(0.0)
        while tf.reduce_sum(y) > 1.0:
            y = y * 0.5
            halvings += 1.0

        odd = tf.constant(0.0)
        acc = tf.zeros_like(x)
        for j in tf.range(n):
            if j % 2 == 0:
                continue
            acc = acc + tf.maximum(total, 0.0) * 0.25
            odd += 1.0
            if odd > 4.0:
                acc = tf.minimum(acc, 3.0)

        if tf.reduce_sum(acc) > tf.reduce_sum(total):
            result = acc - total
        else:
            result = total - acc
        return result * scale + y + (steps + halvings + odd)
    return long_function


LONG_NUMPY_OPS = types.SimpleNamespace(
    zeros_like=np.zeros_like, constant=np.float32, range=lambda n: np.arange(n, dtype=np.int32),
    tanh=np.tanh, abs=np.abs, reduce_max=np.max, reduce_sum=np.sum, maximum=np.maximum,
    minimum=np.minimum)


def _clear_conversion_caches():
    """Forgets every converted function (per code object and per function object)."""
    ag_conversion._code_cache.clear()
    ag_conversion._function_cache.clear()


def _check_conversion_caches():
    for name in ("_code_cache", "_function_cache"):
        if not hasattr(getattr(ag_conversion, name, None), "clear"):
            raise RuntimeError("autograph.conversion.%s is gone: update benchmarks/compiler.py"
                               % name)


def _build_trace_long_function():
    _check_conversion_caches()
    value = np.linspace(0.5, 4.0, LONG_SIZE, dtype=np.float32)
    python_function = make_long_function(ag_tf)
    tensor_args = (ag_tf.constant(value), ag_tf.constant(LONG_STEPS))

    def convert_and_trace(x, n):
        _clear_conversion_caches()
        return ag_tf.function(python_function)(x, n)

    def trace(x, n):
        return ag_tf.function(python_function)(x, n)

    cached = ag_tf.function(python_function)
    variants = [
        Variant("numpy", make_long_function(LONG_NUMPY_OPS), (value, np.int32(LONG_STEPS)),
                note="one call of the same function in hand-written numpy"),
        Variant("convert_and_trace", convert_and_trace, tensor_args,
                note="conversion caches cleared, new Function, first call: convert, trace, "
                     "compile the graph, run it"),
        Variant("trace", trace, tensor_args,
                note="new Function, first call, conversion cached: trace, compile, run"),
        Variant("function", cached, tensor_args, verify=traced_once(cached),
                note="the cached Function (informational)"),
    ]
    variants += compiled_variants(lambda backend: ag_tf.function(python_function, backend=backend),
                               tensor_args)
    tf = tensorflow()
    if tf is not None:
        tf_function = make_long_function(tf)

        def tensorflow_trace(x, n):
            return tf.function(tf_function)(x, n)
        variants.append(Variant("tensorflow.trace", tensorflow_trace,
                                (tf.constant(value), tf.constant(LONG_STEPS)),
                                note="new tf.function, first call (TensorFlow's own "
                                     "conversion cache stays warm)"))
    return variants


TRACE_LONG_FUNCTION = Workload(
    name="trace_long_function",
    description="First call of a new Function on a ~40-line function with three loops, "
                "six ifs, a break and a continue: from cold (conversion caches cleared) and "
                "with the conversion cached, against one call of the numpy version.",
    build=_build_trace_long_function,
    targets=[Target("convert_and_trace", "numpy"),
             Target("trace", "numpy", at_most=40),
             Target("convert_and_trace", "trace"),
             Target("function", "numpy")],
    rtol=1e-5, atol=1e-5,
    group=GROUP,
)


# -- 4b. the same function, compiled ------------------------------------------------------


def _jax_long_function(jax_module, jnp):
    """`make_long_function` written by hand for `jax.jit`: `lax.while_loop` for the loop with
    a break and for the while, `lax.fori_loop` for the loop with a continue, `lax.switch` and
    `lax.cond` for the ifs."""
    lax = jax_module.lax
    f32 = jnp.float32

    def long_function(x, n):
        def first_loop(carry):
            i, total, scale, steps, _ = carry
            total = lax.switch(i % 3, [lambda t: t + x * scale,
                                       lambda t: t - x * (scale * f32(0.5)),
                                       lambda t: jnp.tanh(t) * f32(2.0)], total)
            broke = jnp.max(jnp.abs(total)) > f32(12.0)
            return i + 1, total, scale * f32(0.9), steps + f32(1.0), broke

        def halve(carry):
            y, halvings = carry
            return y * f32(0.5), halvings + f32(1.0)

        start = (jnp.int32(0), jnp.zeros_like(x), f32(1.0), f32(0.0), jnp.bool_(False))
        _, total, scale, steps, _ = lax.while_loop(
            lambda c: (c[0] < n) & ~c[4], first_loop, start)
        y, halvings = lax.while_loop(lambda c: jnp.sum(c[0]) > f32(1.0), halve,
                                     (jnp.abs(total) + f32(1.0), f32(0.0)))
        positive = jnp.maximum(total, f32(0.0)) * f32(0.25)

        def odd_step(j, carry):
            acc, odd = carry

            def add(carry):
                acc, odd = carry
                acc, odd = acc + positive, odd + f32(1.0)
                return lax.cond(odd > f32(4.0), lambda a: jnp.minimum(a, f32(3.0)),
                                lambda a: a, acc), odd
            return lax.cond(j % 2 == 0, lambda c: c, add, (acc, odd))
        acc, odd = lax.fori_loop(0, n, odd_step, (jnp.zeros_like(x), f32(0.0)))
        result = lax.cond(jnp.sum(acc) > jnp.sum(total), lambda: acc - total,
                          lambda: total - acc)
        return result * scale + y + (steps + halvings + odd)
    return long_function


def _build_long_function():
    value = np.linspace(0.5, 4.0, LONG_SIZE, dtype=np.float32)
    python_function = make_long_function(ag_tf)
    numpy_args = (value, np.int32(LONG_STEPS))
    tensor_args = (ag_tf.constant(value), ag_tf.constant(LONG_STEPS))
    cached = ag_tf.function(python_function)
    variants = [
        Variant("numpy", make_long_function(LONG_NUMPY_OPS), numpy_args,
                note="the same function in hand-written numpy"),
        Variant("function", cached, tensor_args, verify=traced_once(cached),
                note="cached autograph.tf.function"),
    ]
    variants += compiled_variants(lambda backend: ag_tf.function(python_function, backend=backend),
                                  tensor_args)
    jax_module, jnp = jax()
    if jax_module is not None:
        variants.append(Variant(
            "jax.jit", jax_blocking(jax_module.jit(_jax_long_function(jax_module, jnp))),
            (jnp.asarray(value), jnp.int32(LONG_STEPS)),
            note="lax.while_loop/fori_loop/switch/cond by hand, result awaited"))
    return variants


LONG_FUNCTION = Workload(
    name="long_function",
    description="Every call of the cached Function of the ~40-line function (three loops, "
                "six ifs, a break and a continue), x float32[%d], n = %d, against the same "
                "function written by hand with lax control flow under jax.jit."
                % (LONG_SIZE, LONG_STEPS),
    build=_build_long_function,
    targets=[Target("function_numba", "jax.jit", at_most=1.0),
             Target("function_jax", "jax.jit", at_most=1.2),
             Target("function", "numpy", at_most=1.5)],
    rtol=1e-5, atol=1e-5,
    group=GROUP,
)


# -- 5. autograph.to_code of the same function ------------------------------------------------


def _looks_converted(source):
    return "def " in source and "ag__" in source


def _build_to_code_long_function():
    _check_conversion_caches()
    python_function = make_long_function(ag_tf)

    def ast_roundtrip(func):
        source = ast.unparse(ast.parse(textwrap.dedent(inspect.getsource(func))))
        return "def " in source  # the same kind of result as the other variants

    def to_code(func):
        _clear_conversion_caches()
        return _looks_converted(autograph.to_code(func))

    variants = [
        Variant("ast_roundtrip", ast_roundtrip, (python_function,),
                note="inspect.getsource + ast.parse + ast.unparse: the floor for source in, "
                     "source out"),
        Variant("to_code", to_code, (python_function,),
                note="conversion caches cleared, then autograph.to_code"),
    ]
    tf = tensorflow()
    if tf is not None:
        tf_function = make_long_function(tf)

        def tensorflow_to_code(func):
            return _looks_converted(tf.autograph.to_code(func))
        variants.append(Variant("tensorflow.to_code", tensorflow_to_code, (tf_function,),
                                note="tf.autograph.to_code"))
    return variants


TO_CODE_LONG_FUNCTION = Workload(
    name="to_code_long_function",
    description="`autograph.to_code` of the ~40-line function, conversion caches cleared "
                "each time, against parsing and unparsing its source with `ast`.",
    build=_build_to_code_long_function,
    targets=[Target("to_code", "ast_roundtrip", at_most=15)],
    reference="ast_roundtrip",
    group=GROUP,
)


WORKLOADS = [GUIDE_LOOP, COUNTER_LOOP, FIZZBUZZ_LOOP, TRACE_LONG_FUNCTION, LONG_FUNCTION,
             TO_CODE_LONG_FUNCTION]

"""What a benchmark is: a `Workload` with named `Variant`s and `Target`s.

A workload module (e.g. `benchmarks.runtime_core`) defines `WORKLOADS`, a list of `Workload`
objects, and is listed once in `benchmarks.WORKLOAD_MODULES`. Building a workload's
variants is deferred to `Workload.build()`, so that inputs are allocated, functions traced and
optional frameworks imported only for the workloads that actually run.

    Workload(
        name="cached_call",
        description="...",
        build=lambda: [Variant("numpy", operator.add, (x, 1)), Variant("function", f, (t,))],
        targets=[Target("function", "numpy", at_most=8.0)],
    )

Before timing, every variant is called once and its result compared with the reference
variant's (`np.testing.assert_allclose`), so a benchmark cannot silently time the wrong work.
A variant may also carry `verify`, called after timing, returning None or a problem (e.g. a
Function that retraced while being timed).
"""

import importlib

import numpy as np


class Variant:
    """One way of doing a workload's work: `fn(*args)` is what gets timed."""

    def __init__(self, name, fn, args=(), note="", verify=None):
        self.name = name
        self.fn = fn
        self.args = tuple(args)
        self.note = note
        self.verify = verify

    def result(self):
        """The variant's output as numpy (one call, not timed)."""
        return to_numpy(self.fn(*self.args))


class Target:
    """A goal on the ratio time(numerator) / time(denominator).

    `at_most=8` reads "numerator takes at most 8x the time of denominator";
    `at_least=3` reads "numerator takes at least 3x the time of denominator", i.e.
    denominator is at least 3x faster. With neither bound the ratio is only reported
    (an informational comparison: no PASS or MISS).
    """

    def __init__(self, numerator, denominator, at_most=None, at_least=None):
        if at_most is not None and at_least is not None:
            raise ValueError("give at most one of at_most and at_least")
        self.numerator = numerator
        self.denominator = denominator
        self.at_most = at_most
        self.at_least = at_least

    @property
    def informational(self):
        """True when there is no bound to meet."""
        return self.at_most is None and self.at_least is None

    def describe(self):
        """'function / numpy <= 1.3x'."""
        ratio = "%s / %s" % (self.numerator, self.denominator)
        if self.at_most is not None:
            return "%s <= %gx" % (ratio, self.at_most)
        if self.at_least is not None:
            return "%s >= %gx" % (ratio, self.at_least)
        return ratio

    def met(self, ratio):
        """True when the measured ratio meets the target (always, for informational ones)."""
        if self.at_most is not None:
            return ratio <= self.at_most
        if self.at_least is not None:
            return ratio >= self.at_least
        return True


class Workload:
    """A named piece of work measured in several variants against a reference."""

    def __init__(self, name, description, build, targets=(), reference="numpy",
                 rtol=1e-6, atol=0.0, group=""):
        self.name = name
        self.description = description
        self.build = build            # () -> list of Variant
        self.targets = list(targets)
        self.reference = reference    # the variant every other one is checked and compared against
        self.rtol = rtol
        self.atol = atol
        self.group = group


def traced_once(function):
    """A Variant `verify` hook: the Function must not have retraced while it was timed."""
    def verify():
        count = function.experimental_get_tracing_count()
        if count != 1:
            return "traced %d times (expected 1): the timing includes retracing" % count
        return None
    return verify


def to_numpy(value):
    """A result as a numpy array: our tensors, TensorFlow's and JAX's all support __array__."""
    return np.asarray(value)


# -- optional frameworks ------------------------------------------------------------------------

_OPTIONAL = {}


def optional_module(name):
    """The module `name` if it can be imported, else None (never installs anything)."""
    if name not in _OPTIONAL:
        try:
            _OPTIONAL[name] = importlib.import_module(name)
        except Exception:  # not installed, or broken: either way, skip its variants
            _OPTIONAL[name] = None
    return _OPTIONAL[name]


def tensorflow():
    """TensorFlow, when importable."""
    return optional_module("tensorflow")


def jax():
    """(jax, jax.numpy), when importable, else (None, None). Hand-written JAX multiplies
    float32 matrices at full precision, as the reference and the JAX backend do (on a GPU
    XLA's default is TF32, about 1e-3 off: it would fail the result check).

    The precision is set once, before any JAX variant is built: a JAX config change makes
    every program already jitted and called slower for good, hand-written jax.jit's too
    (0.15 us a call on this machine), so setting it between the JAX backend's variant and
    jax.jit's would tilt the comparison by 4% of a cached call."""
    module = optional_module("jax")
    if module is None:
        return None, None
    if module.config.jax_default_matmul_precision != "highest":
        module.config.update("jax_default_matmul_precision", "highest")
    return module, optional_module("jax.numpy")


def jax_blocking(fn):
    """Wraps a jitted JAX function so that a call waits for its result (JAX dispatches
    asynchronously; without this the benchmark would time the dispatch only)."""
    def call(*args):
        return fn(*args).block_until_ready()
    return call


def compiled_variants(make_function, args, reset=None):
    """[Variant("function_numba"), Variant("function_jax")], for the compiled backends that
    are installed: `make_function(backend)` is the workload's Function made with that
    backend. The first call (the trace and the compile) happens here, untimed; when the graph
    fell back to the executor the note says why. `reset(function)`, for a stateful workload
    (a training step), puts the state back as it was before that first call, so that the
    result check sees the same first step as the reference."""
    return [variant for backend in ("numba", "jax")
            for variant in _backend_variants(backend, make_function, args, reset)]


def _backend_variants(backend, make_function, args, reset):
    if optional_module(backend) is None:
        return []
    import warnings

    from runtime import backends
    if backend == "jax":
        jax()  # (its config first: see jax())
    function = make_function(backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", backends.BackendFallbackWarning)
        function(*args)
    report = function.get_concrete_function(*args).backend_report()
    note = "cached autograph.tf.function(backend=%r)" % backend
    call = function
    if backend == "jax":
        # as jax.jit's variants: arguments already on the device, the result awaited
        from runtime.backends import jax_backend
        from runtime.tensor import EagerTensor
        args = tuple(jax_backend.to_device(a) if isinstance(a, EagerTensor) else a
                     for a in args)
        call = _awaited(function, function(*args))
        note += ", device-resident arguments, result awaited"
    if report.running != backend:
        note += "; FELL BACK to the executor: %s" % report.reason
    if reset is not None:  # after every untimed call above
        reset(function)
    return [Variant("function_" + backend, call, args, verify=traced_once(function),
                    note=note)]


def _awaited(function, result):
    """`function`, made to wait for its device-resident result like `jax_blocking` (one
    Python frame) when it returns one; as it is when its result is on the host already."""
    if hasattr(result, "block_until_ready"):
        return jax_blocking(function)
    jax_module = jax()[0]
    leaves = jax_module.tree_util.tree_leaves(result)
    if any(hasattr(leaf, "block_until_ready") for leaf in leaves):
        def call(*args):
            return jax_module.block_until_ready(function(*args))
        return call
    return function

"""The shortest cached call: a Function fed device tensors (the JAX backend's results, or
`jax_backend.to_device`) of the dtypes and shapes of a trace whose compiled program it calls
directly (`JaxCompiledGraph.direct_call`).

A Function's general call canonicalises its arguments, builds their cache key, looks the key
up and hands the feeds to the trace: about 140 bytecodes in four Python frames, which on a
microsecond program is a quarter of `jax.jit`'s whole call (its dispatch is C++). Once a
sampled call (see `Function._timed_call`) finds such a trace, the Function is specialised:
its class becomes a subclass whose `__call__` first checks, for positional arguments only,
that each is a DeviceTensor whose cache-key part equals the trace's, that nothing asks for
the general path (a trace being built, a recording tape, `run_functions_eagerly`, a call due
for sampling), and calls the trace's direct call with the arrays. Anything else goes the
general way, which also keeps the sampling clock, retracing and errors as they are. Results
are the same either way: the direct call is what the general path would run for that key.

    f(x)   # the general call; a sampled one specialises f for x's dtype and shape
    f(x)   # DeviceFunction.__call__ -> the direct call -> the jitted program
"""

from __future__ import annotations

from typing import Any

from runtime import context, tracebacks
from runtime import signature as sig
from runtime.device_tensor import DeviceTensor

MISS = object()  # what a specialised call returns when the general call must run instead
_specialised: dict[type, type] = {}  # Function class -> its specialised subclass


def specialise(function: Any, key: tuple[Any, ...], direct: Any) -> None:
    """Makes `function` (a Function without an input signature) call `direct` (the direct
    call of the trace for cache key `key`) for arguments that are device tensors matching
    `key`; does nothing when some part of `key` is not a device tensor's."""
    if not key or not all(sig.is_device_part(part) for part in key):
        return
    function._device_call = _matching_call(function, key, direct)
    base = type(function)
    subclass = _specialised.get(base)
    if subclass is None:
        subclass = _specialised[base] = _subclass(base)
    function.__class__ = subclass


def _subclass(base: type) -> type:
    general = base.__call__

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs:
            try:
                result = self._device_call(args)
            except Exception as e:  # as the general call does
                tracebacks.filter_exception(e)
                raise
            if result is not MISS:
                return result
        return general(self, *args, **kwargs)

    return type("Device" + base.__name__, (base,), {
        "__call__": __call__, "__slots__": (), "__module__": __name__,
        "__doc__": "A %s specialised for device tensors (see runtime.device_calls)."
                   % base.__name__})


def _matching_call(function: Any, key: tuple[Any, ...], direct: Any) -> Any:
    """call(args): `direct`'s result for matching device tensors, else MISS."""
    settings, building, tapes = context._settings, context.building, context.tapes
    if len(key) == 1:
        (part,) = key

        def call_one(args: tuple[Any, ...]) -> Any:
            if len(args) == 1 and not building and not tapes \
                    and not settings["run_functions_eagerly"]:
                arg = args[0]
                if type(arg) is DeviceTensor and arg._key == part:
                    until_sample = function._until_sample - 1
                    if until_sample > 0:  # (0: a sampled call, which the general path times)
                        function._until_sample = until_sample
                        return direct([arg._array])
            return MISS
        return call_one
    count = len(key)

    def call(args: tuple[Any, ...]) -> Any:
        if len(args) != count or building or tapes or settings["run_functions_eagerly"]:
            return MISS
        feeds = []
        for arg, part in zip(args, key):
            if type(arg) is not DeviceTensor or arg._key != part:
                return MISS
            feeds.append(arg._array)
        until_sample = function._until_sample - 1
        if until_sample <= 0:
            return MISS
        function._until_sample = until_sample
        return direct(feeds)
    return call

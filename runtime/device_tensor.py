"""Device-resident eager tensors: results of a compiled backend (JAX) that stay on its device.

A `DeviceTensor` is an `EagerTensor` whose value is an accelerator library's array (a
`jax.Array`, on a CPU, a GPU or sharded over several devices). Its numpy value (`_value`,
what every kernel and numpy reads) is copied from the device at its first read and kept; its
dtype and shape never need the copy. The copy is read-only, so that it can never disagree with
the device array that a JAX-backed Function is fed instead of it.

Feeding: a Function call collects a device tensor's array (not its numpy value) as the feed
(see `runtime.signature.leaf_key`, `ON_DEVICE`); a concrete function that does not run on a
device takes the numpy values instead (`host_feeds`), so that only the JAX backend ever sees a
device array.

The array library is optional: the backend that makes device tensors registers its array type
(`register_array_type`), and this module never imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.tensor import EagerTensor

# the numpy value's storage: EagerTensor's own slot, which the property below hides
_host_slot = EagerTensor.__dict__["_value"]
# the array types of device values (jax.Array), registered by the backends that make them
_array_types: tuple[type, ...] = ()


def register_array_type(array_type: type) -> None:
    """Declares `array_type` (e.g. jax.Array) as a device array that feeds may hold."""
    global _array_types
    if array_type not in _array_types:
        _array_types = _array_types + (array_type,)


def host_feeds(feeds: list[Any]) -> list[Any]:
    """`feeds` with every device array replaced by its numpy value (copied from the device)."""
    if not _array_types:
        return feeds
    return [np.asarray(f) if isinstance(f, _array_types) else f for f in feeds]


class _OnDevice:
    def __repr__(self) -> str:
        return "ON_DEVICE"


# the marker that ends a device tensor's cache-key part (see runtime.signature)
ON_DEVICE = _OnDevice()


class DeviceTensor(EagerTensor):
    """An eager tensor whose value lives on a device, as `device_array` (a jax.Array); its
    numpy value is copied to the host, once, when something reads it (`numpy()`, printing,
    iterating, an eager op, a numpy or numba Function)."""

    __slots__ = ("_array", "_key")

    def __init__(self, array: Any, dtype: dtypes.DType, key: tuple[Any, ...] | None = None
                 ) -> None:
        # `_key`: its cache-key part (dtype, shape, ON_DEVICE), made once (by a compiled graph
        # for its outputs of static shape, which saves a property call and a tuple per result)
        self._array = array
        self.dtype = dtype
        self._key = (dtype, tuple(array.shape), ON_DEVICE) if key is None else key

    @property
    def _value(self) -> Any:
        """The numpy value (read-only), copied from the device at the first read."""
        try:
            return _host_slot.__get__(self, DeviceTensor)
        except AttributeError:
            value = np.asarray(self._array)
            if value.dtype != self.dtype.np_dtype:
                value = value.astype(self.dtype.np_dtype)
            value.flags.writeable = False
            _host_slot.__set__(self, value)
            return value

    @property
    def device_array(self) -> Any:
        """The value on its device (a jax.Array; sharded when the call that made it was)."""
        return self._array

    def block_until_ready(self) -> DeviceTensor:
        """Waits until the device has computed this value (devices run asynchronously);
        returns this tensor."""
        self._array.block_until_ready()
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle: the device array and dtype
        return DeviceTensor, (self._array, self.dtype, self._key)

    def _shape_tuple(self) -> tuple[int, ...]:
        return self._key[1]

    def __len__(self) -> int:
        shape = self._key[1]
        if not shape:
            raise TypeError("len() of a scalar tensor")
        return int(shape[0])

    # what registry.execute asks of an input that is not a plain EagerTensor
    def _eager_value(self) -> Any:
        return self._value

    def _spec(self) -> tuple[dtypes.DType, tuple[int, ...]]:
        return self.dtype, self._key[1]

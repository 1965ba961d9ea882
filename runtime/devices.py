"""Devices as TensorFlow names them: `tf.device`, `tf.config.list_physical_devices` and the
device and threading settings of `tf.config`.

The numpy runtime computes on the host CPU, so the CPU is always listed. Accelerators are
JAX's: with jax installed, its GPUs and TPUs are listed too (jax is imported by the call
that lists them, never before), and a Function with `backend="jax"` runs there.

    tf.config.list_physical_devices("GPU")   # [] without an accelerator
    with tf.device("/GPU:0"):                # the innermost device scope, read by
        ...                                  # `current_device()`; soft placement: a
                                             # device that is missing is not an error

Settings that only TensorFlow's own runtime has (memory growth, the inter- and intra-op
thread pools) are recorded and read back, as a program that sets them expects.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple


class PhysicalDevice(NamedTuple):
    """A device of the machine: `name` ('/physical_device:CPU:0') and `device_type`."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device ops can be placed on: `name` ('/device:CPU:0') and `device_type`."""

    name: str
    device_type: str


_JAX_TYPES = {"gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}
_SPEC_PART = re.compile(r"^(job|replica|task|device):(.*)$|^([A-Za-z_]+):(\d+|\*)$")


def _accelerators() -> list[tuple[str, int]]:
    """(type, index) of JAX's accelerators; none when jax is not installed."""
    try:
        import jax
    except ImportError:
        return []
    found = []
    counts: dict[str, int] = {}
    for device in jax.devices() if jax.default_backend() != "cpu" else []:
        kind = _JAX_TYPES.get(device.platform)
        if kind is not None:
            found.append((kind, counts.get(kind, 0)))
            counts[kind] = counts.get(kind, 0) + 1
    return found


def _all_physical() -> list[PhysicalDevice]:
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    for kind, index in _accelerators():
        devices.append(PhysicalDevice("/physical_device:%s:%d" % (kind, index), kind))
    return devices


_state: dict[str, Any] = {"visible": None, "memory_growth": {}, "inter_op": 0, "intra_op": 0}


def _device_type(device_type: str | None) -> str | None:
    if device_type is None:
        return None
    if not isinstance(device_type, str):
        raise TypeError("device_type must be a string such as 'GPU', got %r" % (device_type,))
    return device_type.upper()


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The machine's devices ('CPU', and JAX's 'GPU'/'TPU' with jax installed), or those of
    `device_type`."""
    kind = _device_type(device_type)
    return [d for d in _all_physical() if kind is None or d.device_type == kind]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices ops may use (all of them unless `set_visible_devices` chose)."""
    visible = _state["visible"]
    devices = list_physical_devices() if visible is None else visible
    kind = _device_type(device_type)
    return [d for d in devices if kind is None or d.device_type == kind]


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Makes `devices` (a PhysicalDevice or a list of them) the visible ones of their type
    (`device_type`: only those of that type change); the CPU stays visible."""
    chosen = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    known = list_physical_devices()
    for device in chosen:
        if device not in known:
            raise ValueError("Unrecognized device: %r" % (device,))
    kind = _device_type(device_type)
    kept = [d for d in get_visible_devices() if kind is not None and d.device_type != kind]
    if not any(d.device_type == "CPU" for d in kept + chosen):
        raise ValueError("the CPU must stay visible: the runtime computes there")
    _state["visible"] = [d for d in known if d in kept or d in chosen]


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The visible devices as ops name them ('/device:GPU:0'), or those of `device_type`."""
    return [LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in get_visible_devices(device_type)]


def _physical(device: Any) -> PhysicalDevice:
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError("Unrecognized device: %r" % (device,))
    return device


def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    """Records whether `device` should allocate memory as needed (TensorFlow's setting; JAX
    allocates its own way: see XLA_PYTHON_CLIENT_PREALLOCATE)."""
    _state["memory_growth"][_physical(device).name] = bool(enable)


def get_memory_growth(device: PhysicalDevice) -> bool:
    """The memory growth recorded for `device` (False by default)."""
    return _state["memory_growth"].get(_physical(device).name, False)


def _threads(key: str, count: int) -> None:
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ValueError("the number of threads must be an integer >= 0 (0: the system "
                         "chooses), got %r" % (count,))
    _state[key] = count


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Records the number of threads for independent ops (0: the system chooses)."""
    _threads("inter_op", num_threads)


def get_inter_op_parallelism_threads() -> int:
    """The number recorded by `set_inter_op_parallelism_threads` (0 by default)."""
    return int(_state["inter_op"])


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Records the number of threads inside one op (0: the system chooses)."""
    _threads("intra_op", num_threads)


def get_intra_op_parallelism_threads() -> int:
    """The number recorded by `set_intra_op_parallelism_threads` (0 by default)."""
    return int(_state["intra_op"])


def canonical_device(spec: str | None) -> str:
    """`spec` ('/GPU:0', 'gpu:0', '/job:localhost/device:CPU:0', '') in TensorFlow's
    spelling ('/device:GPU:0'); raises ValueError naming what is not a device spec."""
    if spec is None or spec == "":
        return ""
    if not isinstance(spec, str):
        raise TypeError("a device spec is a string such as '/GPU:0', got %r" % (spec,))
    parts = []
    for part in spec.strip("/").split("/"):
        match = _SPEC_PART.match(part)
        if match is None:
            raise ValueError("Unknown attribute: '%s' in '%s': a device spec reads like "
                             "'/GPU:0' or '/job:localhost/replica:0/task:0/device:CPU:0'"
                             % (part, spec))
        if match.group(1) == "device":
            kind, _, index = match.group(2).partition(":")
            parts.append("device:%s:%s" % (kind.upper(), index or "0"))
        elif match.group(1):
            parts.append(part)
        else:
            parts.append("device:%s:%s" % (match.group(3).upper(), match.group(4)))
    return "/" + "/".join(parts)


class _DeviceStack(threading.local):
    def __init__(self) -> None:
        self.stack: list[str] = []


_scopes = _DeviceStack()


@contextmanager
def device(device_name: str | None) -> Iterator[None]:
    """Places the ops of the block on `device_name` ('/GPU:0'; None or '' clears it).
    Placement is soft, as in TensorFlow's eager mode: a device the machine lacks runs the
    ops where they can run."""
    name = canonical_device(device_name)
    _scopes.stack.append(name)
    try:
        yield
    finally:
        _scopes.stack.pop()


def current_device() -> str:
    """The device of the innermost `device` scope in this thread ('' outside any)."""
    stack = _scopes.stack
    return stack[-1] if stack else ""

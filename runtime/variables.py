"""`Variable`: mutable state that outlives a call, readable and assignable in graphs.

A variable is a resource: graphs do not copy its value but capture the variable itself and
read or assign it with ops (`ReadVariableOp`, `AssignAddVariableOp`, ...) that run on every
call. Values are never mutated in place, so a read is a stable snapshot. Nothing handed
out shares the storage writably: eagerly, ops read it through a read-only view, while
`read_value()`, `value()`, `numpy()` and assignments return copies; a Function copies a
result that returns it (see runtime.executor).

Inside a trace a variable may be created only while the trace allows it (the first trace of
a Function); its initial value is computed at once when it does not depend on the trace's
inputs (even when ops of the trace compute it: runtime.init_lifting), and otherwise by an
`InitializeVariableOnce` node the first time the graph runs.
"""

import enum
import threading

import numpy as np

from runtime import context, dtypes, errors, init_lifting
from runtime import shape as shape_lib
from runtime.ops import common, math_ops, tensor_operators
from runtime.ops.registry import execute, execute1
from runtime.ops.variable_ops import OPS
from runtime.tensor import EagerTensor, SymbolicTensor, TensorRef, repr_value_text


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are brought in line (TensorFlow's enum)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable combines the updates of its replicas (TensorFlow's
    enum)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _member(kind, value, argument):
    if value is None:
        return next(iter(kind))
    if isinstance(value, kind):
        return value
    raise ValueError("Variable(%s=...) must be a %s, got %r"
                     % (argument, kind.__name__, value))


def _root_graph(graph):
    while graph.outer is not None:
        graph = graph.outer
    return graph


class _CreationClass(threading.local):
    cls = None


_creation = _CreationClass()


class creating_as:
    """Within `with creating_as(cls):`, `tf.Variable(...)` on this thread makes a `cls` (a
    Variable subclass): how a distribution strategy's scope makes its variables mirrored."""

    def __init__(self, cls):
        self.cls = cls
        self._outer = None

    def __enter__(self):
        self._outer = _creation.cls
        _creation.cls = self.cls
        return self

    def __exit__(self, *exc):
        _creation.cls = self._outer
        return False


class Variable:
    """A mutable tensor-valued state: `tf.Variable(initial_value, trainable, name, dtype)`.

    As in TensorFlow, creating one makes a `ResourceVariable` (a subclass, the type that
    `type(v)` names); assignments return the variable itself, read when used
    (`UnreadVariable`)."""

    _count = 0
    synchronization = VariableSynchronization.AUTO
    aggregation = VariableAggregation.NONE

    def __new__(cls, *args, **kwargs):
        if cls is Variable:
            cls = _creation.cls or ResourceVariable
        return super().__new__(cls)

    def __init__(self, initial_value=None, trainable=None, name=None, dtype=None, shape=None,
                 validate_shape=True, synchronization=None, aggregation=None, **kwargs):
        if kwargs:
            raise TypeError("Variable() got an unexpected keyword argument %r"
                            % next(iter(kwargs)))
        synchronization = _member(VariableSynchronization, synchronization, "synchronization")
        self.aggregation = _member(VariableAggregation, aggregation, "aggregation")
        if trainable is None:  # TensorFlow's default: a variable synchronised on read is not
            trainable = synchronization is not VariableSynchronization.ON_READ
        elif trainable and synchronization is VariableSynchronization.ON_READ:
            raise ValueError("Synchronization value can be set to "
                             "VariableSynchronization.ON_READ only for non-trainable "
                             "variables. You have specified trainable=True and "
                             "synchronization=VariableSynchronization.ON_READ.")
        self.synchronization = synchronization
        if initial_value is None:
            raise ValueError("a Variable needs an initial_value")
        graph = context.current_graph()
        if graph is not None:
            root = _root_graph(graph)
            if not root.variable_creation_allowed:
                raise ValueError(errors.with_user_location(
                    "a traced function tried to create a variable on a call other than its "
                    "first: tf.function only supports singleton tf.Variables created on the "
                    "first call. Create the variable outside the function, or only when it does "
                    "not exist yet (`if self.v is None: self.v = tf.Variable(...)`)"))
        if callable(initial_value):
            initial_value = initial_value()
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._lock = threading.RLock()  # see `updating`
        self.trainable = bool(trainable)
        self._name = (name or "Variable") + ":0"
        self._value = None
        if isinstance(initial_value, UnreadVariable) and \
                isinstance(initial_value._assignment, SymbolicTensor):
            # the value assigned, so that lifting the initial value runs the assignment once
            initial_value = initial_value._assignment
        elif isinstance(initial_value, Variable):
            initial_value = initial_value.read_value()
        if isinstance(initial_value, SymbolicTensor):
            # init_scope: a value that does not depend on the trace's inputs is computed now
            lifted = init_lifting.lift(initial_value)
            initial_value = initial_value if lifted is None else lifted
        if isinstance(initial_value, SymbolicTensor):
            value = initial_value if dtype is None else _cast(initial_value, dtype)
            self.dtype = value.dtype
            self._static_shape = value._shape if shape is None else shape_lib.normalize(shape)
            execute(OPS["InitializeVariableOnce"], [self, value])
            self._deferred_at = errors.user_location(2)  # where; see uninitialized_error
        else:
            with context.eager_scope():
                value = common.convert_to_tensor(initial_value, dtype_hint=dtype)
                if dtype is not None and value.dtype is not dtype:
                    value = _cast(value, dtype)
            self.dtype = value.dtype
            initial = value._value  # copied: it may be the caller's array, changed later
            self._value = initial.copy() if isinstance(initial, np.ndarray) else initial
            self._static_shape = (value._value.shape if shape is None
                                  else shape_lib.normalize(shape))
        if not validate_shape and shape is None:  # any shape may be assigned later
            self._static_shape = None
        if graph is not None:
            _root_graph(graph).created_variables.append(self)

    _deferred_at = None  # the user's line creating it, when the graph initialises it

    # -- storage ---------------------------------------------------------------------------
    # The value lives in one of two places: `_host`, a numpy array (None: not initialised),
    # or `_device`, a device array (jax.Array) that a compiled backend (JAX) wrote. Reading
    # `_value` brings a device value to the host, once, and drops the device copy (numba
    # updates a variable's host buffer in place), so that the two can never disagree; the
    # JAX backend reads and writes `_device` and keeps a training loop's variables on its
    # device (see runtime.backends.jax_backend).
    _host = None
    _device = None

    @property
    def _value(self):
        host = self._host
        if host is None and self._device is not None:
            with self._lock:  # (an update storing a new device value must not be undone)
                host = self._host
                if host is None and self._device is not None:
                    host = self._host = np.array(self._device)  # (a writable copy)
                    self._device = None
        return host

    @_value.setter
    def _value(self, value):
        self._host = value
        self._device = None

    def _stored(self):
        """The value where it is, without a copy: the device array or the numpy value
        (None: not initialised)."""
        device = self._device
        return self._host if device is None else device

    def _store_on_device(self, array):
        """Makes device array `array` the value (the host copy is made when read)."""
        self._device = array
        self._host = None

    # An update reads the value and writes a new one: two threads updating at once would
    # lose one of the updates. Each update holds the variable's lock (re-entrant, so that a
    # host call made while a compiled graph holds it may update the same variable), as
    # TensorFlow's resource variable ops hold theirs; reads need none (values are never
    # changed in place, so a read is a snapshot).
    _lock: "threading.RLock | None" = None

    # -- identity and metadata -----------------------------------------------------------
    @property
    def name(self):
        """The variable's name, 'Variable:0' by default."""
        return self._name

    @property
    def shape(self):
        """The static shape, as a TensorShape."""
        return shape_lib.TensorShape(self._static_shape)

    def get_shape(self):
        """Same as `.shape`."""
        return self.shape

    def _spec(self):
        return dtypes.resource, ()

    def _eager_value(self):
        return self

    def _handle(self):
        return self

    def _read_attrs(self):
        return {"dtype": self.dtype, "shape": self._static_shape}

    def __hash__(self):
        raise TypeError("Variable is unhashable (== compares elementwise); use variable.ref()")

    def ref(self):
        """A hashable reference to this variable."""
        return TensorRef(self)

    # -- reading -----------------------------------------------------------------------------
    def read_value(self):
        """The current value, as a tensor (a ReadVariableOp node inside a trace); eagerly a
        copy, which never shares memory with the variable's storage."""
        tensor = self._read()
        if type(tensor) is EagerTensor and isinstance(tensor._value, np.ndarray):
            tensor._value = tensor._value.copy()  # (the same tensor: a tape recorded it)
        return tensor

    value = read_value

    def _read(self):
        """The current value for ops to compute with: eagerly a read-only view of the
        storage (no copy, and nothing can write through it), else a ReadVariableOp node."""
        return execute1(OPS["ReadVariableOp"], [self._handle()], self._read_attrs())

    _as_tensor = _read

    def numpy(self):
        """The current value as numpy (eager only)."""
        if not context.executing_eagerly():
            raise NotImplementedError("Variable.numpy() is only available eagerly; use the "
                                      "variable itself inside a traced function")
        return self.read_value().numpy()

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self.numpy())
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        return bool(self._read())

    def __int__(self):
        return int(self._read())

    def __float__(self):
        return float(self._read())

    def __index__(self):
        return self._read().__index__()

    def __len__(self):
        return len(self._read())

    def __iter__(self):
        return iter(self._read())

    # -- assignment ---------------------------------------------------------------------------
    def _assign(self, op_name, value, read_value):
        value = common.convert_to_tensor(value, dtype_hint=self.dtype)
        result = execute1(OPS[op_name], [self._handle(), value], self._read_attrs())
        if not read_value:
            return None
        return UnreadVariable(self, result)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Sets the value; returns the variable (read when used), or None for
        `read_value=False`. A value whose static shape does not fit the variable's is a
        ValueError, before anything runs (as in TensorFlow)."""
        value = common.convert_to_tensor(value, dtype_hint=self.dtype)
        shape = value._shape_tuple()
        if not (shape_lib.is_compatible(self._static_shape, shape)
                or shape_lib.is_compatible(shape, self._static_shape)):
            # TensorFlow's words, its stray space included
            raise ValueError("Cannot assign value to variable ' %s': Shape mismatch.The "
                             "variable shape %s, and the assigned value shape %s are "
                             "incompatible." % (self.name, shape_lib.to_string(
                                 self._static_shape), shape_lib.to_string(shape)))
        return self._assign("AssignVariableOp", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` to the value; returns the variable (read when used), or None for
        `read_value=False`."""
        return self._assign("AssignAddVariableOp", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` from the value; returns the variable (read when used), or None
        for `read_value=False`."""
        return self._assign("AssignSubVariableOp", delta, read_value)

    def __repr__(self):
        if context.executing_eagerly() and self._value is not None:
            text = repr_value_text(EagerTensor(self._value, self.dtype).numpy())
            if "\n" in text:  # TensorFlow starts a value of several lines on its own line
                text = "\n" + text
            return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
                self.name, shape_lib.to_string(self._static_shape), self.dtype.name, text)
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (
            self.name, shape_lib.to_string(self._static_shape), self.dtype.name)


class GraphVariable(Variable):
    """Stands for a Variable passed as an argument to a traced function.

    Reads and assignments go through the argument's resource placeholder, so the same
    graph serves every variable of the same dtype and shape."""

    def __init__(self, handle, like):
        self._handle_tensor = handle
        self.dtype = like.dtype
        self._static_shape = like._static_shape
        self._name = like.name
        self.trainable = like.trainable
        self.synchronization = like.synchronization
        self.aggregation = like.aggregation
        self._value = None
        self._lock = like._lock
        self.original = like

    def _handle(self):
        return self._handle_tensor

    def numpy(self):
        raise NotImplementedError("Variable.numpy() is not available inside a traced function")


class ResourceVariable(Variable):
    """The type of a variable that `Variable(...)` creates (TensorFlow's name for it)."""


class UnreadVariable(Variable):
    """What an assignment returns (TensorFlow's `_UnreadVariable`): the assigned variable,
    read where it is used, so that a later assignment shows through it:

        a = v.assign(1.0)
        v.assign(5.0)
        a.numpy()              # 5.0, as in TensorFlow

    It shares the variable's storage and lock; its `op` is the assignment's node in a
    trace (for control dependencies)."""

    def __init__(self, parent, assignment):
        self._parent = parent
        self._assignment = assignment  # the assignment op's output
        self._lock = parent._lock  # set once, when the variable is made
        self.dtype = parent.dtype
        self._static_shape = parent._static_shape
        self.trainable = parent.trainable
        self.synchronization = parent.synchronization
        self.aggregation = parent.aggregation
        self._name = "UnreadVariable"

    @property
    def _value(self):
        return self._parent._value

    @_value.setter
    def _value(self, value):
        self._parent._value = value

    def _stored(self):
        return self._parent._stored()

    def _store_on_device(self, array):
        self._parent._store_on_device(array)

    def _handle(self):
        return self._parent._handle()

    @property
    def op(self):
        """The assignment's graph node (None eagerly)."""
        return getattr(self._assignment, "node", None)


class updating:
    """`with updating(variables):` holds the update locks of `variables` (each once, in one
    global order, so that two callers locking overlapping sets cannot deadlock)."""

    __slots__ = ("_locks",)

    def __init__(self, variables):
        locks = {id(v._lock): v._lock for v in variables}
        self._locks = [locks[key] for key in sorted(locks)]

    def __enter__(self):
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc_info):
        for lock in reversed(self._locks):
            lock.release()


def uninitialized_error(variables, function_name):
    """The error for a call, from inside another trace, of `function_name`'s trace whose
    `variables` (created in its first trace) the graph has not initialised yet."""
    variable = variables[0]
    return ValueError(errors.with_user_location(
        "%s() was called for the first time inside another traced function, and its first "
        "trace creates the variable %r from a value that depends on the function's "
        "arguments: a nested traced function can only create variables whose initial value "
        "can be computed outside the trace (a Python or numpy value, or ops on values that "
        "do not depend on the arguments, e.g. tf.random.normal([4, 3])). Create it from "
        "such a value, or call %s() once before tracing the outer function"
        % (function_name, variable.name, function_name), variable._deferred_at))


def _cast(tensor, dtype):
    return math_ops.cast(tensor, dtype)


tensor_operators.install(Variable, read=lambda v: v._read())

"""Summary writers and the recording state that summary ops read when they run.

    writer = create_file_writer("logs")        # logs/events.out.tfevents.<time>.<host>.<pid>.<n>.v2
    with writer.as_default(step=0):            # the default writer (and step) of this thread
        ...                                     # summary ops write here, eagerly or in a Function
    writer.flush(); writer.close()

A writer's event file starts with the file-version event; later events are queued and
written when `max_queue` are waiting, when `flush_millis` have passed since the last flush
(checked as events arrive), on `flush()` and on `close()`, and when the writer is
garbage-collected or the program exits. The default writer, the step and the recording
condition (`record_if`) are per-thread state, as in TensorFlow, read by each summary op when
it runs: a Function traced once writes on every call, at the step current then.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from runtime import context, errors
from runtime.io import tfrecord
from runtime.summary import protos

_file_numbers = itertools.count()


class _EventFile:
    """The open event file and the events waiting to be written to it (kept apart from the
    writer so that a finalizer can flush them when the writer is collected)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.records = tfrecord.RecordWriter(path)
        self.queue: list[bytes] = []
        self.lock = threading.Lock()
        self.last_flush = time.monotonic()

    def flush(self) -> None:
        with self.lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self.records.closed:
            return
        for event in self.queue:
            self.records.write(event)
        self.queue.clear()
        self.records.flush()
        self.last_flush = time.monotonic()

    def add(self, event: bytes, max_queue: int, flush_seconds: float) -> None:
        with self.lock:
            if self.records.closed:
                raise errors.FailedPreconditionError(
                    "the summary writer of %s is closed: it takes no more summaries" % self.path)
            self.queue.append(event)
            if (len(self.queue) > max_queue
                    or time.monotonic() - self.last_flush >= flush_seconds):
                self._flush_locked()

    def close(self) -> None:
        with self.lock:
            self._flush_locked()
            self.records.close()


class SummaryWriter:
    """Writes summaries to an event file in a log directory (see `create_file_writer`)."""

    def __init__(self, logdir: str, max_queue: int = 10, flush_millis: int = 120000,
                 filename_suffix: str = ".v2") -> None:
        os.makedirs(logdir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%d.%d%s" % (
            int(time.time()), socket.gethostname(), os.getpid(), next(_file_numbers),
            filename_suffix)
        self.logdir = logdir
        self.max_queue = max_queue
        self.flush_millis = flush_millis
        self._file = _EventFile(os.path.join(logdir, name))
        self._file.add(protos.event(time.time(), file_version=protos.FILE_VERSION), 0, 0.0)
        self._finalizer = weakref.finalize(self, self._file.close)

    @property
    def path(self) -> str:
        """The event file this writer writes."""
        return self._file.path

    def write_event(self, step: int = 0, *, summary: bytes = b"", graph_def: bytes = b"") -> None:
        """Queues one event (a serialized Summary or GraphDef) at `step`, stamped now."""
        self._file.add(protos.event(time.time(), step, summary=summary, graph_def=graph_def),
                       self.max_queue, self.flush_millis / 1000.0)

    def flush(self) -> None:
        """Writes the queued events to the file."""
        self._file.flush()

    def close(self) -> None:
        """Flushes and closes the event file; the writer takes no more summaries."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether the writer was closed."""
        return self._file.records.closed

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the default writer of this thread from now on (and sets the step, when
        given)."""
        _state.writers[:] = [(self, _building())]
        if step is not None:
            set_step(step)

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """A context in which this is the default writer (and `step`, when given, the step);
        the previous writer and step return at its end, and this writer is flushed."""
        previous_step = _state.step
        _state.writers.append((self, _building()))
        if step is not None:
            set_step(step)
        try:
            yield self
        finally:
            _state.writers.pop()
            if step is not None:
                _state.step = previous_step
            if not self.closed:
                self.flush()

    def init(self) -> None:
        """Does nothing: the event file is created with the writer (TensorFlow's v1 API)."""

    def __repr__(self) -> str:
        return "<SummaryWriter %s>" % self.path


class NoopSummaryWriter:
    """A writer that writes nothing (`create_noop_writer`): summaries under it are not
    recorded."""

    closed = False

    def write_event(self, step: int = 0, *, summary: bytes = b"", graph_def: bytes = b"") -> None:
        """Drops the event."""

    def flush(self) -> None:
        """Does nothing."""

    def close(self) -> None:
        """Does nothing."""

    def init(self) -> None:
        """Does nothing."""

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the default writer: summaries are dropped from now on."""
        SummaryWriter.set_as_default(self, step)  # type: ignore[arg-type]

    as_default = SummaryWriter.as_default


def create_file_writer(logdir: str | os.PathLike[str], max_queue: int | None = None,
                       flush_millis: int | None = None, filename_suffix: str | None = None,
                       name: str | None = None, experimental_trackable: bool = False,
                       experimental_mesh: Any = None) -> SummaryWriter:
    """A summary writer for a new event file in `logdir` (created if missing): at most
    `max_queue` (10) events wait in memory, and they are written at the latest
    `flush_millis` (120000) after the previous flush, when the next event comes."""
    if logdir is None:
        raise ValueError("logdir cannot be None")
    logdir = os.fspath(logdir)
    if not isinstance(logdir, str):
        raise TypeError("logdir must be a path, got %r" % (logdir,))
    return SummaryWriter(logdir, 10 if max_queue is None else int(max_queue),
                         120000 if flush_millis is None else int(flush_millis),
                         ".v2" if filename_suffix is None else filename_suffix)


def create_noop_writer() -> NoopSummaryWriter:
    """A writer that writes nothing, for code that wants a writer without output."""
    return NoopSummaryWriter()


# -- per-thread recording state -------------------------------------------------------------------
class _State(threading.local):
    """The default writers and `record_if` conditions of this thread, innermost last, each
    with the graph being traced when its context was entered (None: entered eagerly)."""

    def __init__(self) -> None:
        self.writers: list[tuple[Any, Any]] = []
        self.step: Any = None
        self.conditions: list[tuple[Any, Any]] = []


_state = _State()


def _building() -> Any:
    """The graph being traced now, or None."""
    return context.current_graph() if context.building else None


def default_writer() -> Any:
    """The default summary writer of this thread, or None."""
    return _state.writers[-1][0] if _state.writers else None


def default_writer_of_this_trace() -> Any:
    """The default writer, if it was made default inside the graph being traced now (the
    function's own `with writer.as_default():`), else None."""
    graph = _building()
    if graph is None or not _state.writers or _state.writers[-1][1] is not graph:
        return None
    return _state.writers[-1][0]


def set_step(step: Any) -> None:
    """Sets the default step of summaries (an int, a tensor or a Variable, read when each
    summary op runs)."""
    _state.step = step


def get_step() -> Any:
    """The default step of summaries, as set (None when unset)."""
    return _state.step


def recording_condition() -> tuple[bool, Any, Any]:
    """(whether a `record_if` context is active, the innermost one's condition, the graph
    being traced when it was entered, or None)."""
    if not _state.conditions:
        return False, None, None
    condition, graph = _state.conditions[-1]
    return True, condition, graph


@contextlib.contextmanager
def record_if(condition: bool | Any | Callable[[], Any]) -> Iterator[None]:
    """A context in which summaries are recorded only when `condition` holds: a bool, a
    boolean tensor or a callable returning one, evaluated each time a summary op runs.
    The innermost context decides."""
    _state.conditions.append((condition, _building()))
    try:
        yield
    finally:
        _state.conditions.pop()


def flush(writer: Any = None, name: str | None = None) -> None:
    """Flushes `writer`, or the default writer (nothing happens when there is none)."""
    writer = default_writer() if writer is None else writer
    if writer is not None:
        writer.flush()

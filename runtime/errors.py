"""Exception classes (the `tf.errors` family) and the helper that finds the user's line.

Every error the runtime raises about a user's program should say where in the user's code
the problem started; `user_location()` finds the innermost frame outside this project's
packages, and `SourceLocation` carries it on graph nodes so that failures during execution
can name the line that created the failing op.
"""

import os
import re
import sys
import warnings
from types import FrameType
from typing import Callable

from runtime import reserved_names


class OpError(Exception):
    """Base class of errors raised while running an op (TensorFlow's `tf.errors.OpError`).

    `in_kernel_words`: the message is the text of TensorFlow's C++ kernel for the same op and
    the same failed check (see `kernel_check_failed`)."""

    in_kernel_words = False

    def __init__(self, message, op_name=None):
        super().__init__(message)
        self.message = message
        self.op_name = op_name


class InvalidArgumentError(OpError):
    """An op received an argument with a wrong value, dtype or shape."""


class AssertionFailedError(InvalidArgumentError, AssertionError):
    """A converted `assert` on a tensor failed when the graph ran: an `AssertionError`, as
    plain Python raises, and an `InvalidArgumentError`, as TensorFlow's assert ops raise."""


class FailedPreconditionError(OpError):
    """The system is not in a state required by the op (for example, an uninitialised variable)."""


class OutOfRangeError(OpError):
    """An iterator ran past its end (`IteratorGetNext` on an exhausted tf.data iterator)."""


class NotFoundError(OpError):
    """Something requested was not found: a checkpoint file, or a key in a checkpoint."""


class DataLossError(OpError):
    """Stored data is corrupt or truncated: a checkpoint whose checksum, size or encoding
    does not hold up."""


class UndefinedValueError(InvalidArgumentError, UnboundLocalError):
    """A graph read a variable on a run-time path where it was never assigned (it is assigned
    only in some branches or loop iterations): TensorFlow's InvalidArgumentError for a failed
    run-time check, and the UnboundLocalError plain Python raises."""


class StagingError(Exception):
    """Tracing a Function failed in a way no trace can get past: the function calls itself
    while it is being traced for the same arguments, so each call would trace it again,
    without end (TensorFlow's name for the error it raises there)."""


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where a Python value is needed (`if t:`, `bool(t)`...)."""


class InaccessibleTensorError(ValueError):
    """A tensor was read from outside the graph scope (branch or loop body) that defines it."""


# The device TensorFlow's eager runtime names in a kernel's error: its one CPU.
_EAGER_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def kernel_check_failed(message, error_class=InvalidArgumentError):
    """The error an op's kernel raises when a check that TensorFlow's C++ kernel of the op
    also makes fails, `message` being that kernel's text word for word (the text users
    search for: "Input to reshape is a tensor with 30 values, ..."). Run eagerly, the op's
    error is worded as TensorFlow's eager runtime words it (`eager_kernel_message`); in a
    graph run the failing node is named before the same text."""
    error = error_class(message)
    error.in_kernel_words = True
    return error


def eager_kernel_message(op_name, message, kernel_name=None, called_name=None):
    """TensorFlow's words for the kernel of op `op_name` failing with `message` in an eager
    call: the function TensorFlow wraps the kernel in (named after `kernel_name`, the
    kernel that runs the op when it is not the op's own: oneDNN's '__MklMatMul' for a
    float32 MatMul), on its device, and the op's name; then ' name: <called_name>' when
    TensorFlow's Python function passed the op a name ('' for tf.matmul, which opens a
    name scope)."""
    text = "{{function_node __wrapped__%s_device_%s}} %s [Op:%s]" % (
        kernel_name or op_name, _EAGER_DEVICE, message, op_name)
    return text if called_name is None else "%s name: %s" % (text, called_name)


def add_note(error, note):
    """Adds `note` to `error`'s notes (PEP 678): shown after its message in tracebacks, its
    arguments left as they were. Before Python 3.11, which has no `add_note`, the note goes
    in the `__notes__` attribute, which the `exceptiongroup` backport shows in tracebacks."""
    if hasattr(error, "add_note"):
        error.add_note(note)
        return
    import exceptiongroup  # noqa: F401 - importing it makes tracebacks show __notes__
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, list):
        notes.append(note)
    else:
        error.__notes__ = [note]


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE_DIRS = tuple(os.path.join(_ROOT, name) + os.sep for name in ("runtime", "autograph"))


class SourceLocation:
    """A file, line and function name in the user's code; it does not change once made
    (tracing hands one to every node made at the same instruction)."""

    __slots__ = ("filename", "lineno", "function")
    filename: str
    lineno: int
    function: str

    def __init__(self, filename, lineno, function):
        set_field = object.__setattr__
        set_field(self, "filename", filename)
        set_field(self, "lineno", lineno)
        set_field(self, "function", function)

    def __setattr__(self, name, value):
        raise AttributeError("a SourceLocation does not change once made (tracing shares "
                             "one among the nodes of a line): make another")

    def __copy__(self):
        return self  # (it does not change: a copy would be the same)

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return type(self), self._fields()

    def _fields(self):
        """The arguments that make this location again."""
        return self.filename, self.lineno, self.function

    def source_line(self):
        """The text of the line, stripped, or '' when the source is unavailable."""
        import linecache
        return linecache.getline(self.filename, self.lineno).strip()

    def frame_filename(self):
        """The file name a traceback entry at this line carries, which tools (`traceback`,
        pdb, warnings) open to show the line: the file itself (a location read from a saved
        model gives another name when its file is not safe to read)."""
        return self.filename

    def __str__(self):
        text = "%s:%d in %s" % (self.filename, self.lineno, self.function)
        line = self.source_line()
        return text + ("\n    " + line if line else "")

    def one_line(self):
        """'file.py:12 in f (`y = x * 2`)': the location on one line, for a message."""
        text = "%s:%d in %s" % (self.filename, self.lineno, self.function)
        line = self.source_line()
        return text + (" (`%s`)" % line if line else "")


def is_internal_file(filename: str) -> bool:
    """True for files of this project's own packages (runtime/ and autograph/)."""
    found = _internal_files.get(filename)
    if found is None:
        if filename.startswith(reserved_names.FILE_PREFIX):
            return False  # converted user code: the location map translates it
        found = os.path.abspath(filename).startswith(_PACKAGE_DIRS)
        if os.path.isabs(filename):  # a relative name's meaning moves with the cwd
            _internal_files[filename] = found
    return found


# Absolute file name -> is_internal_file's answer. Tracing asks it for every frame between
# each new node and the user's line: `abspath` each time was a third of a trace.
_internal_files: dict = {}


# translator(filename, lineno) -> (filename, lineno) or None, for generated code
_location_translators: list[Callable[[str, int], tuple[str, int] | None]] = []


def register_location_translator(translator):
    """Adds `translator(filename, lineno) -> (filename, lineno) or None` for generated code."""
    _location_translators.append(translator)


def translate_location(filename, lineno):
    """Maps a location in generated code back to the user's file and line. Repeats while
    the result is generated code too (a nested function converted from converted code)."""
    for _ in range(8):
        for translator in _location_translators:
            found = translator(filename, lineno)
            if found is not None and found != (filename, lineno):
                filename, lineno = found
                break
        else:
            break
    return filename, lineno


# The functions that converted code defines (see autograph.converters.control_flow), with
# the `_N` suffix they get when the user's function already uses the name.
_GENERATED_FUNCTION = re.compile(
    r"(%s)(_\d+)?\Z" % "|".join(reserved_names.GENERATED_FUNCTIONS))


def is_generated_function(name):
    """True for the names of the functions that converted control flow defines."""
    return _GENERATED_FUNCTION.match(name) is not None


def user_function_name(frame):
    """The name of the user's function that the code `frame` runs, of converted code,
    belongs to: converted code's own functions (`ag__f`, `loop_body`, `if_body`...) are
    named after the user's function they were made from."""
    code = frame.f_code
    qualname = getattr(code, "co_qualname", None) or _qualname_from_callers(frame)
    for part in reversed(qualname.split(".")):
        if part == "<locals>" or is_generated_function(part):
            continue
        return _without_converted_prefix(part)
    name = code.co_name
    return _without_converted_prefix(name)


def _without_converted_prefix(name):
    """`f` of `ag__f` (see reserved_names.converted_function_name); other names as they are."""
    prefix = reserved_names.CONVERTED_PREFIX
    return name[len(prefix):] if name.startswith(prefix) else name


def _qualname_from_callers(frame):
    """The dotted names of the functions that define the code `frame` runs, found among its
    callers (CPython 3.10 has no `co_qualname`): a function's code is a constant of the code
    that defines it, and converted control flow is called while that code runs."""
    child = frame.f_code
    names = [child.co_name]
    caller = frame.f_back
    while caller is not None:
        if any(constant is child for constant in caller.f_code.co_consts):
            child = caller.f_code
            names.append(child.co_name)
        caller = caller.f_back
    return ".".join(reversed(names))


def user_location(skip=1):
    """Returns the `SourceLocation` of the innermost frame in user code, or None."""
    frame: FrameType | None = sys._getframe(skip)
    known = _internal_files
    while frame is not None:
        code = frame.f_code
        # (is_internal_file's cache read here first: a trace asks this for every node it
        # adds, each time past several frames of this project's own)
        internal = known.get(code.co_filename)
        if internal is None:
            internal = is_internal_file(code.co_filename)
        if not internal:
            return _location_of(frame, code)
        frame = frame.f_back
    return None


def _location_of(frame, code):
    """The SourceLocation of `frame` (running `code`), translated when it runs converted code.

    The answer for an instruction of converted code is remembered: tracing asks it for every
    node it adds, and it depends on the code object and line only (the line map of converted
    code is registered when it is loaded, and a function's name is its code's qualified
    name; CPython 3.10, which has none, finds it through the callers every time)."""
    generated = code.co_filename.startswith(reserved_names.FILE_PREFIX)
    # Keyed by the code object's identity, not its value: hashing a code object hashes its
    # constants, the code of every function nested in it (converted code nests its loop
    # bodies and branches), at each node. The entry holds the code object, so that its id
    # cannot be another's while the entry lasts. The instruction, not the line: a frame's
    # line number is found by reading the code's line table from its start, every time.
    key = (id(code), frame.f_lasti)
    remember = generated and _HAS_QUALNAME
    if remember:
        found = _generated_locations.get(key)
        if found is not None and found[0] is code:
            return found[1]  # (shared: nothing changes a SourceLocation once made)
    filename, lineno = translate_location(code.co_filename, frame.f_lineno)
    name = code.co_name
    if generated or (filename, lineno) != (code.co_filename, frame.f_lineno):
        name = user_function_name(frame)  # not `loop_body`: the user's function
    location = SourceLocation(filename, lineno, name)
    if remember:
        if len(_generated_locations) >= _REMEMBERED_LOCATIONS:
            _generated_locations.clear()
        _generated_locations[key] = (code, location)
    return location


_HAS_QUALNAME = hasattr(_location_of.__code__, "co_qualname")
_REMEMBERED_LOCATIONS = 4096
# (id of a code object, instruction) -> (that code object, the SourceLocation of its line)
_generated_locations: dict = {}


def warn(message, category=UserWarning):
    """Issues warning `message` attributed to the user's line that led to it: the innermost
    frame outside this project's packages, a frame of converted code translated to the
    user's file and line. (A `stacklevel` cannot say this: the number of frames between
    the user and the warning depends on the path taken, and generated code is no file.)"""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and is_internal_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
        return
    filename, lineno = translate_location(frame.f_code.co_filename, frame.f_lineno)
    f_globals = frame.f_globals
    warnings.warn_explicit(message, category, filename, lineno,
                           module=f_globals.get("__name__"),
                           registry=f_globals.setdefault("__warningregistry__", {}))


def with_user_location(message, location=None):
    """Appends 'in user code: file:line' to `message` when a user location is known."""
    location = location or user_location(2)
    if location is None:
        return message
    return "%s\n\nin user code:\n  %s" % (message, location)

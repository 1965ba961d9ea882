"""The `checkpoint` file of a checkpoint folder (TensorFlow's CheckpointState, in protocol-
buffer text format): which checkpoint is the latest, which ones a manager keeps, and when
they were written.

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1795921295.41
    all_model_checkpoint_timestamps: 1795921295.42
    last_preserved_timestamp: 1795921294.37

Paths are written relative to the folder and read back joined to it. Reading accepts only
these four fields, one per line, and refuses anything else, naming the file and line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from runtime import errors
from runtime.checkpoint import files

STATE_FILE = "checkpoint"
_LINE = re.compile(r'^\s*([a-z_]+)\s*:\s*(.*?)\s*$')
_STRING_FIELDS = ("model_checkpoint_path", "all_model_checkpoint_paths")
_NUMBER_FIELDS = ("all_model_checkpoint_timestamps", "last_preserved_timestamp")
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
_MAX_STATE_BYTES = 1 << 24


@dataclass
class CheckpointState:
    """The contents of a `checkpoint` file."""

    model_checkpoint_path: str = ""
    all_model_checkpoint_paths: list[str] = field(default_factory=list)
    all_model_checkpoint_timestamps: list[float] = field(default_factory=list)
    last_preserved_timestamp: float = 0.0


def _quote(text: str) -> str:
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append("\\%03o" % byte)
    return '"%s"' % "".join(out)


def _unquote(text: str, where: str) -> str:
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise errors.DataLossError("%s: expected a quoted string" % where)
    body = text[1:-1]
    out = bytearray()
    position = 0
    while position < len(body):
        char = body[position]
        if char == '"':
            raise errors.DataLossError("%s: unescaped quote in a string" % where)
        if char != "\\":
            out += char.encode("utf-8")
            position += 1
            continue
        escape = body[position + 1:position + 2]
        octal = re.match(r"[0-7]{1,3}", body[position + 1:])
        if escape in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[escape].encode("utf-8")
            position += 2
        elif octal:
            out.append(int(octal.group(), 8) & 0xFF)
            position += 1 + len(octal.group())
        else:
            raise errors.DataLossError("%s: unknown escape \\%s" % (where, escape))
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.DataLossError("%s: a path that is not UTF-8 text" % where) from None


def encode(state: CheckpointState, folder: str) -> str:
    """The text of the `checkpoint` file for `state`, paths made relative to `folder`."""
    def relative(path: str) -> str:
        return os.path.relpath(path, folder) if os.path.isabs(path) == os.path.isabs(folder) \
            else path
    lines = ["model_checkpoint_path: %s" % _quote(relative(state.model_checkpoint_path))]
    lines += ["all_model_checkpoint_paths: %s" % _quote(relative(p))
              for p in state.all_model_checkpoint_paths]
    lines += ["all_model_checkpoint_timestamps: %r" % t
              for t in state.all_model_checkpoint_timestamps]
    if state.last_preserved_timestamp:
        lines.append("last_preserved_timestamp: %r" % state.last_preserved_timestamp)
    return "\n".join(lines) + "\n"


def write(folder: str, state: CheckpointState) -> None:
    """Writes `folder`'s `checkpoint` file, atomically."""
    files.write_bytes(os.path.join(folder, STATE_FILE), encode(state, folder).encode("utf-8"))


def read(folder: str) -> CheckpointState | None:
    """`folder`'s checkpoint state, paths joined to the folder; None without a state file."""
    path = os.path.join(folder, STATE_FILE)
    if not os.path.lexists(path):
        return None
    with files.CheckpointFile(path, folder) as state_file:
        if state_file.size > _MAX_STATE_BYTES:
            raise errors.DataLossError("%s: %d bytes, too large for a checkpoint state file"
                                       % (path, state_file.size))
        raw = state_file.read_all()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.DataLossError("%s: not UTF-8 text" % path) from None
    state = CheckpointState()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s, line %d" % (path, number)
        match = _LINE.match(line)
        if match is None:
            raise errors.DataLossError("%s: expected 'field: value', found %r" % (where, line))
        name, value = match.groups()
        if name in _STRING_FIELDS:
            text_value = _unquote(value, where)
            if text_value and not os.path.isabs(text_value):
                text_value = os.path.join(folder, text_value)
            if name == "model_checkpoint_path":
                state.model_checkpoint_path = text_value
            else:
                state.all_model_checkpoint_paths.append(text_value)
        elif name in _NUMBER_FIELDS:
            try:
                number_value = float(value)
            except ValueError:
                raise errors.DataLossError("%s: %s is not a number: %r"
                                           % (where, name, value)) from None
            if name == "last_preserved_timestamp":
                state.last_preserved_timestamp = number_value
            else:
                state.all_model_checkpoint_timestamps.append(number_value)
        else:
            raise errors.DataLossError("%s: unknown field %r" % (where, name))
    return state

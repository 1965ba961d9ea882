"""Keras's progress bar: steps done, a bar, the time so far and per step, and the latest
value of each metric.

On a terminal the line is redrawn as steps finish (bold counts, a green bar; at most 20
times a second):

    32/32 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - accuracy: 0.8125 - loss: 0.4460

elsewhere (a file, a pipe) only the finished line is printed, once; `verbose=2` prints
the short form `32/32 - 1s - 3ms/step - accuracy: 0.8125 - loss: 0.4460`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

_BAR_WIDTH = 20
_INTERVAL = 0.05  # seconds between two redraws of a bar on a terminal


def format_value(value: float) -> str:
    """A metric value as Keras prints it: 4 decimals, or scientific when tiny."""
    return "%.4f" % value if abs(value) > 1e-3 else "%.4e" % value


def format_logs(logs: Mapping[str, Any]) -> str:
    """` - name: value` for each entry of `logs` whose value is a number."""
    parts = []
    for name, value in logs.items():
        try:
            parts.append(" - %s: %s" % (name, format_value(float(value))))
        except (TypeError, ValueError):
            continue
    return "".join(parts)


def _per_step(seconds: float, unit: str) -> str:
    if seconds >= 1 or seconds == 0:
        return "%.0fs/%s" % (seconds, unit)
    if seconds >= 1e-3:
        return "%.0fms/%s" % (seconds * 1e3, unit)
    return "%.0fus/%s" % (seconds * 1e6, unit)


class Progbar:
    """The progress of `target` steps (None when unknown), printed to `stream`."""

    def __init__(self, target: int | None, verbose: int = 1, unit_name: str = "step",
                 stream: TextIO | None = None) -> None:
        self.target = target
        self.verbose = verbose
        self.unit_name = unit_name
        self.stream = stream or sys.stdout
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self._start = time.time()
        self._last_width = 0
        self._last_update = 0.0

    def update(self, current: int, values: Mapping[str, Any] | None = None,
               finalize: bool = False) -> None:
        """Show `current` steps done with the latest `values`; `finalize` ends the line."""
        if not self.verbose:
            return
        elapsed = time.time() - self._start
        per_step = _per_step(elapsed / current if current else 0.0, self.unit_name)
        logs = format_logs(values or {})
        if self.verbose == 2:
            if finalize:
                self._write("%d/%s - %ds - %s%s\n" % (
                    current, self.target or current, int(elapsed), per_step, logs))
            return
        if not finalize and (not self.interactive or current == self.target or
                             time.time() - self._last_update < _INTERVAL):
            return  # the finished line follows; a terminal is redrawn at most 20 times/s
        self._last_update = time.time()
        line = self._bar_line(current, int(elapsed), per_step, logs)
        if self.interactive:
            padding = " " * max(0, self._last_width - len(line))
            self._last_width = len(line)
            self._write("\r" + line + padding + ("\n" if finalize else ""))
        else:
            self._write(line + "\n")

    def _bar_line(self, current: int, elapsed: int, per_step: str, logs: str) -> str:
        target = self.target
        counts = "%d/%s" % (current, target if target is not None else "Unknown")
        filled = _BAR_WIDTH if not target else min(_BAR_WIDTH, _BAR_WIDTH * current // target)
        done, rest = "━" * filled, "━" * (_BAR_WIDTH - filled)
        if self.interactive:
            return "\x1b[1m%s\x1b[0m \x1b[32m%s\x1b[0m\x1b[37m%s\x1b[0m \x1b[1m%ds\x1b[0m %s%s" % (
                counts, done, rest, elapsed, per_step, logs)
        return "%s %s%s %ds %s%s" % (counts, done, rest, elapsed, per_step, logs)

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

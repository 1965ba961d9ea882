"""What a filtered traceback looks like to a test, on every supported CPython.

A boundary (`Function.__call__`, the outermost converted function...) re-raises with a
bare `raise`. From CPython 3.11 that adds no frame; CPython 3.10 re-raises with the
traceback entry the boundary caught it with, so exactly one frame of the boundary itself
stays, at the outer end of the filtered frames (see runtime.tracebacks). These helpers check
that frame is there, once, on 3.10 only, and leave it out."""

import importlib
import os
import sys
import traceback

import autograph

PACKAGES = tuple(os.path.dirname(os.path.abspath(package.__file__)) + os.sep
                 for package in (autograph, importlib.import_module("runtime")))
BOUNDARY_FRAME_STAYS = sys.version_info < (3, 11)


def is_boundary(summary):
    """True for a frame a boundary leaves on 3.10: the runtime's or a converted function's."""
    return summary.filename.startswith(PACKAGES + ("<ag__ converted ",))


def boundary_frames(error):
    """The frames of `error`'s traceback a boundary left: one on 3.10, none from 3.11."""
    found = [summary for summary in traceback.extract_tb(error.__traceback__)
             if is_boundary(summary)]
    assert len(found) == (1 if BOUNDARY_FRAME_STAYS else 0), found
    return found


def user_frames(error):
    """(file, line, function) of each frame of `error`'s traceback, outermost first, without
    the frame a boundary leaves on 3.10 (checked to be exactly one there)."""
    boundary_frames(error)
    return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)
            if not is_boundary(f)]


def printed(error):
    """`error` printed as Python prints it, without the frame a boundary leaves on 3.10."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    for summary in boundary_frames(error):
        block = traceback.format_list([summary])[0]
        assert text.count(block) == 1, text
        text = text.replace(block, "")
    return text

"""Which functions are the user's code, the code that conversion rewrites.

Functions of this project, numpy, test frameworks and the standard library are libraries:
they are called as they are, never converted, and their frames are left out of the frames
named in errors. Functions marked with `do_not_convert` are the user's but stay as written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar, overload

_DO_NOT_CONVERT = "__autograph_do_not_convert__"

_SKIP_MODULES = frozenset(["runtime", "autograph", "numpy", "builtins", "gast", "exceptiongroup",
                           "pytest", "_pytest", "hypothesis"])


def is_library(func: Any) -> bool:
    """True for functions of this project, numpy, test frameworks and the standard library:
    they are called as they are, never converted."""
    return is_library_module(getattr(func, "__module__", None) or "")


def is_library_module(module: str) -> bool:
    """True for module names of this project, numpy, test frameworks and the stdlib."""
    top = module.split(".")[0]
    if top in _SKIP_MODULES:
        return True
    return top in sys.stdlib_module_names


# the type of what `do_not_convert` marks and hands back
F = TypeVar("F", bound=Callable[..., Any])


@overload
def do_not_convert(func: F) -> F:
    ...


@overload
def do_not_convert(func: None = None) -> Callable[[F], F]:
    ...


def do_not_convert(func: F | None = None) -> F | Callable[[F], F]:
    """Marks `func` so that autograph never converts it (it is traced as written)."""
    def mark(f: F) -> F:
        try:
            setattr(f, _DO_NOT_CONVERT, True)
        except (AttributeError, TypeError):
            pass
        return f
    if func is None:
        return mark
    return mark(func)


def is_marked_do_not_convert(func: Any) -> bool:
    """True for functions marked with `do_not_convert`."""
    return bool(getattr(func, _DO_NOT_CONVERT, False))

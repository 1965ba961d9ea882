"""The compiler's entry point used by `autograph.function`: Python function in, converted
function out. Functions marked with `do_not_convert` are returned unchanged."""

_DO_NOT_CONVERT = "__autograph_do_not_convert__"


def do_not_convert(func=None):
    """Marks `func` so that autograph never converts it (it is traced as written)."""
    def mark(f):
        try:
            setattr(f, _DO_NOT_CONVERT, True)
        except (AttributeError, TypeError):
            pass
        return f
    if func is None:
        return mark
    return mark(func)


def is_marked_do_not_convert(func):
    """True for functions marked with `do_not_convert`."""
    return bool(getattr(func, _DO_NOT_CONVERT, False))


def convert(func):
    """The converted form of `func` (control flow rewritten into ag__ calls).

    Until the compiler lands, functions are traced as written."""
    return func

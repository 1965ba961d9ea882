"""Markers for variables that have no value yet.

Converted code initialises a variable that is assigned inside a control-flow statement but
not before it with `Undefined('name')`, so that the statement's state functions can read it.
Using the marker as a value raises the error plain Python would raise.
"""


class Undefined:
    """Stands for variable `symbol_name` before its first assignment."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(
            "local variable '%s' is used before it is assigned a value (it is assigned only in "
            "some branches or loop iterations)" % self.symbol_name)

    __getattr__ = _fail
    __call__ = _fail
    __bool__ = _fail
    __iter__ = _fail
    __len__ = _fail
    __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __abs__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail

    def __repr__(self):
        return "<undefined %s>" % self.symbol_name


class UndefinedReturnValue(Undefined):
    """The return value of a function before any `return` ran."""

    __slots__ = ()

    def __init__(self, symbol_name="retval_"):
        super().__init__(symbol_name)


class DeadValue(Undefined):
    """A variable that a staged `if` carried only so that both branches start from its value
    before the statement; the compiler's analysis found it is not read afterwards."""

    __slots__ = ()


def is_undefined(value):
    """True for Undefined markers."""
    return isinstance(value, Undefined)


def ld(value):
    """Loads a variable that may still be Undefined: raises plain Python's error if so."""
    if isinstance(value, Undefined):
        value._fail()
    return value

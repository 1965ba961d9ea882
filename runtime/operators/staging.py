"""Shared machinery for staging Python control flow as graph ops (conditionals:
runtime.operators.cond_staging; loops: runtime.operators.loop_staging).

Converted statements carry their state as a tuple of values, one per variable the statement
modifies (`symbol_names` names them, for error messages). Staging a statement means tracing
its branches or body into sub-graphs and reconciling the state they produce:
  * Python numbers and bools become tensors where the other side (or the loop) has tensors;
  * a variable assigned on some paths only (one branch, a loop that may run zero times)
    comes out as a MaybeUndefined: its value plus a run-time definedness flag, checked where
    it is read (see runtime.operators.undefined); the compiler's own flags and return values
    instead get a neutral value (zeros / False) where unset, as they are read only when set;
  * a key or attribute of the state (`d['v']`, `s.v`; see runtime.operators.composites)
    that exists after one branch only, or that a loop creates, is an error naming it;
  * a variable whose dtype or nesting structure differs between branches or iterations is
    an error naming it and both types;
  * a loop variable whose shape changes across iterations is relaxed to None dimensions;
  * TensorArrays (composites of one handle tensor, see runtime.tensor_array) are carried
    as their handle; their static metadata (element shape, size) is joined across branches
    and iterations, so an element shape learned in a loop body holds after the loop;
  * a Python list that a loop on a tensor appends tensors to is carried as a TensorArray
    (a StagedList), see runtime.operators.loop_lists.
"""

import os
import re
from typing import Any, Callable, NoReturn

import numpy as np

from runtime import dtypes, errors, nest, reserved_names, tensor_array
from runtime import shape as shape_lib
from runtime.operators import try_regions
from runtime.operators.deferred_errors import DeferredError
from runtime.operators.staged_lists import StagedList
from runtime.ops import array_ops, common
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import Variable

# Variables the compiler introduces; when only one branch sets them, the other side gets a
# neutral value (the flag is False there, or the return value is never used).
COMPILER_SYMBOLS = reserved_names.JUMP_VARIABLES
LOOP_COUNTER = "<loop counter>"  # the state name of the hidden counter of a staged for loop
# the state name of the count of a loop with maximum_iterations (runtime.operators.loop_options)
ITERATION_COUNT = "<iteration count>"


try_body = try_regions.try_body
refuse_inside_try = try_regions.refuse_inside_try


def _no_state():
    return ()


def _ignore_state(values):
    pass


def state_functions(
        get_state: Callable[[], tuple] | None, set_state: Callable[[tuple], None] | None,
) -> tuple[Callable[[], tuple], Callable[[tuple], None]]:
    """The statement's state functions; converted code omits them when it has no state.

    Reading the state before staging names a `global` (or enclosing function's) variable
    that has no value yet as such: the staged statement would leave it defined on some
    run-time paths only, which a module's variable cannot hold."""
    if get_state is None:
        return _no_state, set_state or _ignore_state

    def read_state():
        try:
            return get_state()
        except NameError as e:
            if isinstance(e, UnboundLocalError) or getattr(e, "name", None) is None:
                raise
            raise NameError(errors.with_user_location(
                "'%s' (a global, or a variable of an enclosing function) has no value before "
                "a conditional or loop on a tensor that assigns it: it would be defined "
                "after it on some run-time paths only. Give it a value before the statement"
                % e.name, errors.user_location(2))) from None
    return read_state, set_state or _ignore_state


def is_symbolic(value: Any) -> bool:
    """True for tensors that exist only in a graph being built."""
    return isinstance(value, SymbolicTensor)


def as_condition(value: Any) -> Any:
    """Reads variables, so that `if v:` on a Variable sees a tensor; a staged list is true
    when it is not empty (a tensor when its length is known only at run time)."""
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, StagedList):
        length = value._len()
        return length > 0
    return value


_COMPILER_SYMBOL = re.compile(r"(%s)(_\d+)?\Z" % "|".join(COMPILER_SYMBOLS))


def is_compiler_symbol(name: str | None) -> bool:
    """The compiler's names are the bases above, or a base plus `_N` when the user's
    function already uses the base."""
    return name is not None and _COMPILER_SYMBOL.match(name) is not None


_DESCRIPTIONS = {
    reserved_names.RETURN_VALUE: "the return value of %(function)s",
    reserved_names.RETURN_FLAG: "the flag recording whether %(function)s has returned",
    reserved_names.BREAK_FLAG: "the flag recording a break from the loop at %(where)s",
    reserved_names.CONTINUE_FLAG: "the flag recording a continue in the loop at %(where)s",
    LOOP_COUNTER: "the counter of the loop at %(where)s",
    ITERATION_COUNT: "the iteration count of the loop at %(where)s",
}


def describe(name: str, kind: str | None = None) -> str:
    """How a message names state variable `name`: the user's names quoted (after `kind`,
    such as 'loop variable', when given); the compiler's own variables (COMPILER_SYMBOLS,
    the loop counter) by what they stand for in the user's function, never by their
    generated names."""
    match = _COMPILER_SYMBOL.match(name) if name else None
    base = match.group(1) if match is not None else name
    if base not in _DESCRIPTIONS and base.startswith("<") and base.endswith(">"):
        return base[1:-1]  # a description already: '<the value of an `and` expression>'
    if base not in _DESCRIPTIONS:
        return "%s '%s'" % (kind, name) if kind else "'%s'" % name
    location = errors.user_location(2)
    if location is None:
        return _DESCRIPTIONS[base] % {"function": "the function", "where": "?"}
    return _DESCRIPTIONS[base] % {
        "function": location.function,
        "where": "%s:%d" % (os.path.basename(location.filename), location.lineno)}


def fail(error_class: type[Exception], message: str) -> NoReturn:
    raise error_class(errors.with_user_location(message, errors.user_location(3)))


def python_to_tensor(value: Any, name: str, dtype_hint: Any = None) -> Any:
    if isinstance(value, (bool, int, float, str, bytes, np.ndarray, np.generic)):
        return common.convert_to_tensor(value, dtype_hint=dtype_hint)
    if isinstance(value, Variable):
        return value.read_value()
    fail(TypeError, "%s holds a Python %s (%r), which cannot be carried through staged "
         "control flow: only tensors, numbers, bools and strings (and nested "
         "tuples/lists/dicts of them) can" % (describe(name), type(value).__name__, value))


def require_scalar_bool(value: Any, what: str) -> None:
    """Checks that a staged condition is a scalar bool tensor."""
    if value.dtype is not dtypes.bool_:
        fail(TypeError, "the condition of %s must be a bool tensor, got %s" % (
            what, value.dtype.name))
    if value._shape not in ((), None):
        fail(ValueError, "the condition of %s must be a scalar, got shape %s; reduce it "
             "with tf.reduce_all or tf.reduce_any" % (what, shape_lib.to_string(value._shape)))


def placeholder_value(name: str, template: Any) -> Any:
    """Zeros with the structure, dtypes and shapes of `template` (a dimension known only at
    run time has size 0 here): the value of a variable where it is undefined, never read."""
    def zeros(leaf):
        if isinstance(leaf, Variable):
            leaf = leaf.read_value()
        if not isinstance(leaf, Tensor):
            leaf = python_to_tensor(leaf, name)
        if leaf.dtype.kind not in ("int", "float", "bool", "string"):
            fail(TypeError, "%s holds a %s, assigned on some paths of staged control flow "
                 "only; define it before the statement" % (describe(name), leaf.dtype.name))
        shape = leaf._shape_tuple()
        dims = [] if shape is None else [0 if d is None else d for d in shape]
        return array_ops.zeros(dims, leaf.dtype)
    if nest.map_composites(lambda c: None, template) is not template:
        fail(TypeError, "%s holds %r, assigned on some paths of staged control flow only; "
             "define it before the statement" % (describe(name), template))
    return nest.map_structure(zeros, template)


def raising_at_run_time(fn: Callable[..., Any],
                        traced: tuple[str, str] | None = None) -> Callable[..., Any]:
    """`fn`, a branch or loop body being traced, made to raise when it runs if tracing it met
    a Python error (a read of a variable that is unassigned on its path, a range step of 0):
    plain Python raises only if it gets there. Returns the DeferredError instead of the
    results then (see runtime.operators.deferred_errors).

    Any other error that the user's code (or an op it calls) raises while `fn` is traced
    fails the trace, as in TensorFlow; with `traced`, a (what, why) pair such as ('a branch
    of an if statement on a tensor', 'both branches are traced, whichever one runs'), it
    gets a note saying so (see `note_traced_code`)."""
    def run(*args):
        try:
            return fn(*args)
        except DeferredError as e:
            e.stage()
            return e
        except Exception as e:
            if traced is not None:  # (the statement's line: found from here, only now)
                note_traced_code(e, traced, errors.user_location())
            raise
    return run


BRANCH_OF = "both of its branches are traced, whichever one runs"
LOOP_BODY = "its body is traced once, even where it runs zero times"
_OPERATORS_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


# the attribute note_traced_code sets on the errors it noted
_NOTED = "_traced_code_noted"


def note_traced_code(error: BaseException, traced: tuple[str, str],
                     statement: errors.SourceLocation | None) -> None:
    """Adds to `error`, raised by the user's line (or an op it calls) while tracing staged
    code, a note naming that line and the staged statement (`traced`: its (what, why) pair,
    `statement`: its location), and saying that tracing ran the line whether or not Python
    would: the error fails the trace even for inputs where Python never gets there. The
    staging operators' own refusals (which say what they refuse) and errors an inner
    statement noted already are left as they are."""
    if getattr(error, _NOTED, False):
        return
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(
            _OPERATORS_DIR):
        return
    setattr(error, _NOTED, True)
    line = _user_line(error.__traceback__)
    what, why = traced
    errors.add_note(error, (
        "%s while tracing %s%s: %s, so this error fails the trace even for inputs where "
        "Python would not run that line. Make the line valid for every input traced (or "
        "guard it with a condition on Python values)"
        % ("%s raised this" % line.one_line() if line else "Raised",
           what, " at %s" % statement.one_line() if statement else "", why)))


def _user_line(tb):
    """The location of the innermost frame of traceback `tb` in user code (converted code
    translated to the user's file and line), or None."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not errors.is_internal_file(code.co_filename):
            filename, lineno = errors.translate_location(code.co_filename, tb.tb_lineno)
            converted = code.co_filename.startswith(reserved_names.FILE_PREFIX)
            found = errors.SourceLocation(filename, lineno, errors.user_function_name(
                tb.tb_frame) if converted else code.co_name)
        tb = tb.tb_next
    return found


def join_metadata(name: str, a: Any, b: Any, where: tuple[str, str]) -> Any:
    """`a` with its TensorArrays' metadata joined with `b`'s (runtime.tensor_array.join)."""
    try:
        return tensor_array.join(name, a, b, where)
    except TypeError as e:
        fail(TypeError, str(e))

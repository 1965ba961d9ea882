"""The names that converted code reserves, spelled here and nowhere else: the `ag__`
namespace it calls, the functions, flags and state variables the converter generates, and
the names of its files.

The compiler (autograph.converters, autograph.pyct) generates code with these names; the
runtime recognises them in frames, tracebacks and messages (runtime.errors,
runtime.operators.staging). Both read them from this module when they run, so that one
edit here renames them everywhere. A generated name that the user's function already uses
gets a suffix (`loop_body_1`, see autograph.converters.conversion_context.Namer).

    def ag__f(x):                                      # CONVERTED_PREFIX + the user's name
        with ag__.FunctionScope('f') as fscope:        # NAMESPACE, FUNCTION_SCOPE
            do_return = False                          # RETURN_FLAG
            def get_state(): ...                       # GET_STATE, SET_STATE(VARIABLES)
            def loop_body(itr): ...                    # LOOP_BODY(LOOP_ITEM)
            ag__.for_stmt(x, None, loop_body, get_state, set_state, ('x',), {})
"""

# The module converted code calls (`ag__.if_stmt`, `ag__.converted_call`, ...).
NAMESPACE = "ag__"
# A converted function `f` is defined as `ag__f`.
CONVERTED_PREFIX = "ag__"
# The FunctionScope of a converted function, which `converted_call` receives.
FUNCTION_SCOPE = "fscope"
# The function that loading converted code defines around it, and the names of the
# (linecache) files of converted code: `<ag__ converted f#3>`.
FACTORY = "ag__factory"
FILE_PREFIX = "<ag__"
FILE_NAME = "<ag__ converted %s#%d>"  # % (function name, counter)

# The functions converted control flow defines.
GET_STATE = "get_state"
SET_STATE = "set_state"
STATE_VARIABLES = "vars_"  # set_state's parameter
IF_BODY = "if_body"
ELSE_BODY = "else_body"
LOOP_TEST = "loop_test"
LOOP_BODY = "loop_body"
LOOP_ITEM = "itr"  # the parameter of a for loop's body
EXTRA_TEST = "extra_test"

# The variables lowered jumps use.
RETURN_FLAG = "do_return"
RETURN_VALUE = "retval_"
BREAK_FLAG = "break_"
CONTINUE_FLAG = "continue_"
PENDING_PREFIX = "pending_"  # + 'return', 'break', ...: a jump held while `finally` runs
FINALLY_SCOPE = "finally_"
MATCH_SUBJECT = "match_subject"  # the subject of a lowered `match`

# The names a module written by `autograph convert` binds: the decorator marking its
# converted functions, and the function mapping its lines back to the original's.
ARTIFACT_DECORATOR = "ag__autograph_artifact"
LINE_MAP_FUNCTION = "ag__original_lines"

# Names of functions that converted code defines: a frame running one belongs to the user's
# function it was made from.
GENERATED_FUNCTIONS = (FACTORY, LOOP_BODY, LOOP_TEST, IF_BODY, ELSE_BODY, GET_STATE,
                       SET_STATE, EXTRA_TEST)
# The variables lowering `return`, `break` and `continue` introduces.
JUMP_VARIABLES = (RETURN_FLAG, RETURN_VALUE, BREAK_FLAG, CONTINUE_FLAG)


def converted_function_name(name: str) -> str:
    """The name the converted form of function `name` is defined under (`ag__f`)."""
    return CONVERTED_PREFIX + name

"""The `ag__` namespace that converted code calls: the runtime's operators, plus
`converted_call` and `FunctionScope` from the compiler (autograph.converted_call).

    ag__.if_stmt / while_stmt / for_stmt / if_exp / and_ / or_ / not_ / assert_stmt
    ag__.Undefined / UndefinedReturnValue / ld / del_
    ag__.converted_call(f, args, kwargs, fscope)
    ag__.FunctionScope(name)
    ag__.store_outer(value, target[, root])   see runtime.side_effects

Files written by `autograph convert` import `ag__` from here.
"""

import builtins
import types

from autograph.converted_call import FunctionScope, converted_call
from runtime import operators, side_effects

ag__ = types.ModuleType("ag__", "The names converted code calls.")
for _name in operators.__all__:
    setattr(ag__, _name, getattr(operators, _name))
vars(ag__).update(converted_call=converted_call, FunctionScope=FunctionScope,
                  store_outer=side_effects.store_outer, builtins=builtins)

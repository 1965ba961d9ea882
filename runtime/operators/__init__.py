"""The run-time side of converted code: each `ag__.<name>` entry point decides at run time
between plain Python (Python values) and graph ops (symbolic tensors).

One module per construct: conditionals (if_stmt, if_exp, match_subject), loops (while_stmt,
for_stmt), logical (and_, or_, not_, in_, not_in), asserts (assert_stmt), try_statements
(FinallyJumps), undefined (Undefined markers), composites (maybe, refuse_composite: keys and
attributes as state), mutations (refuse_outer_mutation: containers changed in place by
their methods), and py_builtins (range, len, ... applied to tensors).
"""

from runtime.operators.asserts import assert_stmt
from runtime.operators.composites import maybe, refuse_composite, refuse_list_deletion
from runtime.operators.conditionals import if_exp, if_stmt, match_subject
from runtime.operators.logical import and_, compare_chain, in_, not_, not_in, or_
from runtime.operators.loops import for_stmt, while_stmt
from runtime.operators.mutations import refuse_outer_mutation
from runtime.operators.staging import try_body
from runtime.operators.try_regions import reraise_refusal
from runtime.operators.try_statements import FinallyJumps
from runtime.operators.undefined import Undefined, UndefinedReturnValue, del_, ld, ld_items
from runtime.operators.unrolling import python_loop

__all__ = ["assert_stmt", "if_exp", "if_stmt", "match_subject", "and_", "compare_chain", "in_",
           "not_", "not_in", "or_", "for_stmt", "python_loop", "while_stmt", "try_body",
           "reraise_refusal",
           "FinallyJumps", "Undefined", "UndefinedReturnValue", "del_", "ld", "ld_items", "maybe",
           "refuse_composite", "refuse_list_deletion", "refuse_outer_mutation"]

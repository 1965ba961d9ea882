"""`tf.autograph`: the compiler's entry points."""

import autograph as _autograph
from autograph import features as _features
from autograph.tf._namespaces import namespace as _namespace
from runtime.operators import loop_options as _loop_options
from runtime.operators import staged_lists as _staged_lists

to_code = _autograph.to_code
to_graph = _autograph.to_graph
do_not_convert = _autograph.do_not_convert
explain = _autograph.explain
set_verbosity = _autograph.set_verbosity
RetracingWarning = _autograph.RetracingWarning
SideEffectWarning = _autograph.SideEffectWarning
UnrollingWarning = _autograph.UnrollingWarning

experimental = _namespace(
    "autograph.tf.autograph.experimental", "Experimental autograph options.",
    do_not_convert=_autograph.do_not_convert,
    set_loop_options=_loop_options.set_loop_options,
    Feature=_features.Feature,
    set_element_type=_staged_lists.set_element_type)

"""`tf.autograph`: the compiler's entry points."""

import types as _types

import autograph as _autograph

to_code = _autograph.to_code
to_graph = _autograph.to_graph
do_not_convert = _autograph.do_not_convert

experimental = _types.ModuleType("autograph.tf.autograph.experimental",
                                 "Experimental autograph options.")
experimental.do_not_convert = _autograph.do_not_convert

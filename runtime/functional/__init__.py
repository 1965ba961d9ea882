"""TensorFlow's functional API for control flow, which users call by hand rather than the
converter emitting it: `cond` and `while_loop` (control_flow), `switch_case` and `case`
(branches), and `map_fn`, `scan`, `foldl`, `foldr` and `vectorized_map` (maps).

All of it is built on the staging machinery of runtime.operators, the entry points that
converted code calls; that package never imports this one.
"""

from runtime.functional.branches import case, switch_case
from runtime.functional.control_flow import cond, while_loop
from runtime.functional.maps import foldl, foldr, map_fn, scan, vectorized_map

__all__ = ["case", "cond", "foldl", "foldr", "map_fn", "scan", "switch_case",
           "vectorized_map", "while_loop"]

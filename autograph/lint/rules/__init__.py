"""The lint's rules, grouped by theme; importing this package registers them all."""

from autograph.lint.rules import loops, outer_names, retracing, side_effects, tensors, variables

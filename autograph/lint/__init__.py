"""`autograph check`: a static lint for the pitfalls of the guide "Better performance with
tf.function", in functions decorated with (or passed to) `tf.function`/`autograph.function`.

It reads sources and never imports or runs them. Rules live in `autograph.lint.rules`
(grouped by theme, each registered with a code `AGnnn`); `driver` runs them and reports.
"""

from autograph.lint.driver import check_paths, check_source, format_findings, select_rules
from autograph.lint.rule import Finding, Rule, UnreadableInputError, all_rules

__all__ = ["Finding", "Rule", "UnreadableInputError", "all_rules", "check_paths",
           "check_source", "format_findings", "select_rules"]

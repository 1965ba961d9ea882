"""`autograph check FILE_OR_DIR...`: the lint's command line (registered by autograph.cli).

Exit status: 0 when there is nothing to report, 1 when there are findings, 2 when an input
cannot be read or parsed (the other inputs are still checked) or the options are wrong.
"""

from __future__ import annotations

import argparse
import sys

from autograph.lint import driver
from autograph.lint.rule import all_rules

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2

_DESCRIPTION = """\
Read each FILE (and the .py files under each DIR) without importing or running
it, and report the pitfalls of tf.function in functions decorated with
tf.function or autograph.function (or passed to one), one per line as
FILE:LINE:COL: AGnnn message (fix: hint).

Exit status: 0 nothing found, 1 findings, 2 an unreadable input (the others
are still checked). A comment `# autograph: noqa[AGnnn]` (or a bare
`# autograph: noqa`) silences its line. See docs/check.md.
"""


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the `check` subcommand to the subparsers `commands`; returns its parser."""
    rules = "".join("  %s %-29s %s\n" % (r.code, r.name, r.summary) for r in all_rules())
    check = commands.add_parser(
        "check", help="report the guide's tf.function pitfalls in Python files",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_DESCRIPTION + "\nrules:\n" + rules)
    check.add_argument("paths", nargs="+", metavar="FILE_OR_DIR",
                       help="a Python file, or a directory of them")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       dest="output_format", help="text (default) or a JSON array")
    check.add_argument("--select", metavar="CODES", default="",
                       help="only these rule codes or prefixes, comma-separated (AG1,AG201)")
    check.add_argument("--ignore", metavar="CODES", default="",
                       help="leave out these rule codes or prefixes, comma-separated")
    check.set_defaults(run=run_check)
    return check


def _codes(text: str) -> list[str]:
    return [code.strip() for code in text.split(",") if code.strip()]


def run_check(args: argparse.Namespace) -> int:
    """Runs `autograph check` for parsed `args`; prints findings on stdout and unreadable
    inputs on stderr; returns the exit status."""
    try:
        rules = driver.select_rules(_codes(args.select), _codes(args.ignore))
    except ValueError as e:
        print("autograph: error: %s" % e, file=sys.stderr)
        return EXIT_BAD_INPUT
    findings, errors = driver.check_paths(args.paths, rules)
    sys.stdout.write(driver.format_findings(findings, args.output_format))
    sys.stdout.flush()
    for error in errors:
        print("autograph: error: %s" % error, file=sys.stderr)
    if errors:
        return EXIT_BAD_INPUT
    return EXIT_FINDINGS if findings else EXIT_CLEAN

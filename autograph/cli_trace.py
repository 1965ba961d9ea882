"""The subcommands that trace a function of a file (they import it):

    autograph explain FILE.py:FUNC --arg float32[None,3] --arg 3 [--json]
        prints the staging report of one trace (autograph.explain)
    autograph graph FILE.py:FUNC --arg ... -o OUT.svg|OUT.png|OUT.dot
        draws the traced graph: DOT (Graph.to_dot), rendered by Graphviz's `dot` program
        for .svg/.png (Debian package `graphviz`); without `dot`, -o OUT.dot works and an
        .svg/.png output is refused, saying how to render the DOT

The `--arg` syntax is autograph.cli_args's. Nothing is half-written: outputs are written to
a temporary file and renamed.
"""

import os
import shutil
import subprocess
import sys

import autograph
from autograph import cli_args
from autograph.cli_common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    CommandError,
    one_line,
    produce_atomically,
    write_atomically,
)

_IMPORTS_NOTE = ("FILE.py is imported (its module-level code runs) and FUNC traced for the "
                 "arguments; the traced graph is never run.")
_FORMATS = ("dot", "svg", "png")


def add_commands(commands):
    """Adds `explain` and `graph` to the `autograph` command's subparsers."""
    explain = commands.add_parser(
        "explain", help="report how each if/while/for of a function was staged "
                        "(imports FILE)",
        description="Trace FUNC of FILE.py for the --arg arguments and print its staging "
                    "report: for each if/elif, while, for, conditional expression and "
                    "and/or that ran, whether it became a graph op (which) or ran as Python, "
                    "and why; then each function it called, converted or not. " +
                    _IMPORTS_NOTE)
    _add_target_arguments(explain)
    explain.add_argument("--json", action="store_true",
                         help="print the report as JSON instead of a table")
    explain.set_defaults(run=run_explain)
    graph = commands.add_parser(
        "graph", help="draw the traced graph of a function (imports FILE)",
        description="Trace FUNC of FILE.py for the --arg arguments and draw its graph: "
                    "Graphviz DOT, rendered to SVG or PNG by the `dot` program when it is "
                    "installed (Debian/Ubuntu: apt-get install graphviz). " + _IMPORTS_NOTE)
    _add_target_arguments(graph)
    graph.add_argument("-o", "--output", metavar="OUT", required=True,
                       help="the picture to write: OUT.svg, OUT.png (need `dot`) or OUT.dot")
    graph.set_defaults(run=run_graph)


def _add_target_arguments(parser):
    parser.add_argument("target", metavar="FILE.py:FUNC",
                        help="the function to trace: a file and a function (or Class.method) "
                             "defined in it")
    parser.add_argument("--arg", action="append", default=[], metavar="SPEC",
                        help=cli_args.ARG_HELP)


def trace(args):
    """The ConcreteFunction and staging report of the command line's FUNC and --args."""
    values = [cli_args.parse_arg(text) for text in args.arg]
    func = cli_args.load_target(args.target)
    try:
        return autograph.explain(func, *values)
    except RecursionError:
        raise CommandError("%s: nested too deeply to trace" % args.target) from None
    except Exception as e:  # the user's function fails to trace: one line, its location
        raise CommandError("tracing %s failed: %s: %s" % (
            args.target, type(e).__name__, one_line(e)), EXIT_BAD_INPUT) from None


def run_explain(args):
    """`autograph explain`: prints the report (a table, or JSON with --json)."""
    report = trace(args)
    try:
        print(report.to_json() if args.json else report, flush=True)
    except BrokenPipeError:  # `autograph explain ... | head`: the reader has had enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's flush does not fail
    return EXIT_OK


def run_graph(args):
    """`autograph graph`: writes the traced graph as DOT, or renders it with `dot`."""
    output = args.output
    kind = os.path.splitext(output)[1][1:].lower()
    if kind not in _FORMATS:
        raise CommandError("-o %s: the output must end in .svg, .png or .dot" % output)
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise CommandError("-o %s: no such directory %s" % (output, directory))
    program = shutil.which("dot")
    if kind != "dot" and program is None:
        raise CommandError("-o %s: rendering .%s needs Graphviz's `dot` program, which is not "
                           "on PATH; install Graphviz (apt-get install graphviz), or write "
                           "DOT with -o %s.dot and render it elsewhere with "
                           "`dot -T%s %s.dot -o %s`" % (output, kind, _stem(output), kind,
                                                        _stem(output), output))
    report = trace(args)
    text = report.concrete_function.graph.to_dot(
        report.concrete_function.signature_text)
    if kind == "dot":
        write_atomically(output, text, "utf-8")
        print("wrote %s (%d ops); render it with Graphviz: dot -Tsvg %s -o %s.svg"
              % (output, report.graph_ops, output, _stem(output)))
        return EXIT_OK
    produce_atomically(output, lambda temp: _render(program, kind, text, temp))
    print("wrote %s (%d ops)" % (output, report.graph_ops))
    return EXIT_OK


def _render(program, kind, text, path):
    try:
        done = subprocess.run([program, "-T" + kind, "-o", path], input=text.encode("utf-8"),
                              capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CommandError("running %s failed: %s" % (program, e), EXIT_INTERNAL_ERROR) \
            from None
    if done.returncode != 0:
        raise CommandError("%s -T%s failed (status %d): %s" % (
            program, kind, done.returncode,
            " ".join(done.stderr.decode("utf-8", "replace").split()) or "no message"),
            EXIT_INTERNAL_ERROR)


def _stem(path):
    return os.path.splitext(path)[0]


"""The `autograph` command line.

    autograph convert FILE.py              prints the converted module
    autograph convert FILE.py -o OUT.py    writes it to OUT.py (atomically)
    autograph convert A.py B.py DIR -o OUT  converts several files, DIR's .py files mirrored
    autograph convert - < IN.py > OUT.py   `-` is standard input (and, as OUT, output)
    autograph convert --check FILE...      converts, writes nothing: the exit status says
    autograph explain FILE.py:FUNC --arg float32[None,3] ...   the staging report of a trace
    autograph graph FILE.py:FUNC --arg ... -o OUT.svg           a picture of the traced graph
    autograph check FILE_OR_DIR...         lints for tf.function pitfalls (autograph/lint)
    autograph --version

(`explain` and `graph` import FILE.py and trace FUNC: see autograph.cli_trace.)

Failures print one line per failing file on stderr and exit with status 2 (bad input:
unreadable file, syntax error, unsupported construct, an output that is an input) or 1 (an
internal error of the compiler). Every file is compiled by CPython (never run) before it is
converted, so whatever CPython would refuse is refused with its line and column. Each output
file is written to a temporary file next to it and renamed into place only on success, so a
failed run never leaves a partial file and never touches an existing one; with several inputs
the files that convert are written, and every failure is reported.
"""

import argparse
import os
import sys
import tokenize
import warnings

import autograph
from autograph import cli_trace, module_conversion
from autograph.cli_common import (
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    CommandError,
    one_line,
    write_atomically,
)
from autograph.errors import ConversionError
from autograph.lint import command as check_command

STANDARD_STREAM = "-"
_STDIN_NAME = "<stdin>"


def build_parser():
    """The argument parser of the `autograph` command and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="autograph",
        description="AutoGraph-style compiler: rewrites Python control flow over tensors "
                    "into graph-building calls.")
    parser.add_argument("--version", action="version",
                        version="%(prog)s " + autograph.__version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    convert = commands.add_parser(
        "convert", help="convert every function of Python files",
        description="Convert every function of FILE (parsed and compiled, never imported or "
                    "run) and print the resulting module, or write it to OUT. The output "
                    "imports and runs on its own; its functions are not converted again when "
                    "traced. With several FILEs or a directory, OUT is a directory that "
                    "receives each converted file under its relative path.")
    convert.add_argument("files", nargs="+", metavar="FILE",
                         help="a Python source file, a directory of them, or - for "
                              "standard input")
    convert.add_argument("-o", "--output", metavar="OUT",
                         help="write the converted module to OUT (a directory for several "
                              "inputs) instead of standard output")
    convert.add_argument("--check", action="store_true",
                         help="only convert: write nothing, report failures, exit status 0 "
                              "when every file converts")
    convert.set_defaults(run=run_convert)
    cli_trace.add_commands(commands)
    check_command.add_parser(commands)
    return parser


def main(argv=None):
    """Runs the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except CommandError as e:
        _report(e)
        return e.status


def _report(error):
    print("autograph: error: %s" % error, file=sys.stderr)


def run_convert(args):
    """`autograph convert`: converts each input, prints it or writes it; reports every
    failure and returns the worst exit status."""
    jobs = plan_jobs(args.files, args.output, args.check)
    inputs = [source for source, _ in jobs]
    several = _several(args.files)
    status = EXIT_OK
    for source, output in jobs:
        try:
            convert_file(source, output, inputs, args.check, make_directories=several)
        except CommandError as e:
            _report(e)
            status = max(status, e.status)
    return status


def plan_jobs(files, output, check):
    """[(input path or '-', output path or '-' or None for standard output)] for the command
    line's inputs and `-o`."""
    if STANDARD_STREAM in files and len(files) > 1:
        raise CommandError("standard input (-) can only be converted alone")
    if not _several(files):
        if output is not None and output != STANDARD_STREAM and os.path.isdir(output) \
                and files[0] != STANDARD_STREAM:
            output = os.path.join(output, os.path.basename(files[0]))
        return [(files[0], output)]
    if output is None or output == STANDARD_STREAM:
        if check:
            output = None
        else:
            raise CommandError("several inputs need -o DIR, the directory to write them to")
    elif os.path.exists(output) and not os.path.isdir(output):
        raise CommandError("-o %s: several inputs need a directory, not a file" % output)
    jobs: list[tuple[str, str | None]] = []
    targets: dict[str | None, str] = {}  # output file -> its input
    for path, relative in _expand(files, output):
        target = None if output is None else os.path.join(output, relative)
        if target is not None and target in targets:
            raise CommandError("%s and %s would both be written to %s"
                               % (targets[target], path, target))
        targets[target] = path
        jobs.append((path, target))
    return jobs


def _several(files):
    """True when the command line names more than one file: `-o` is then a directory."""
    return len(files) > 1 or any(os.path.isdir(f) for f in files)


def _expand(files, output):
    """(path, path relative to the output directory) of every input file: directories give
    their .py files (not those under OUT, hidden folders or __pycache__)."""
    skip = os.path.realpath(output) if output is not None else None
    for path in files:
        if not os.path.isdir(path):
            yield path, os.path.basename(path)
            continue
        found = list(_python_files(path, skip))
        if not found:
            raise CommandError("%s: no .py file to convert in this directory" % path)
        yield from found


def _python_files(path, skip):
    """(path, path relative to directory `path`) of the .py files under `path`, skipping
    the directory `skip`, hidden folders and __pycache__."""
    for root, directories, names in os.walk(path):
        directories[:] = sorted(
            d for d in directories if not d.startswith(".") and d != "__pycache__"
            and os.path.realpath(os.path.join(root, d)) != skip)
        for name in sorted(names):
            if name.endswith(".py"):
                full = os.path.join(root, name)
                yield full, os.path.relpath(full, path)


def convert_file(path, output, inputs, check, make_directories=False):
    """Converts the file at `path` ('-': standard input) and writes the result to `output`
    (None or '-': standard output) unless `check`; `make_directories`: creates the folders
    `output` needs (the mirrored folders of a directory's files)."""
    writes_file = not check and output not in (None, STANDARD_STREAM)
    source, encoding = read_source(path)
    if writes_file:
        _refuse_overwriting_an_input(output, inputs)
    name = _STDIN_NAME if path == STANDARD_STREAM else path
    converted = convert(source, name, _original_name(path, output if writes_file else None))
    if check:
        return
    if not writes_file:
        sys.stdout.write(converted)
        sys.stdout.flush()
        return
    directory = os.path.dirname(output)
    if directory and make_directories:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as e:
            raise CommandError("cannot write %s: %s" % (output, e.strerror or e)) from None
    write_atomically(output, converted, encoding)


def _refuse_overwriting_an_input(output, inputs):
    """Raises CommandError when `output` is one of `inputs`: the same path, a symbolic link
    to it or a hard link (the same file), or a path that resolves to it."""
    for path in inputs:
        if path == STANDARD_STREAM:
            continue
        same = os.path.realpath(output) == os.path.realpath(path)
        try:
            same = same or os.path.samefile(output, path)
        except OSError:  # OUT does not exist yet (or the input does not)
            pass
        if same:
            raise CommandError("%s: the output %s is the input file; converting would "
                               "overwrite it (choose another -o)" % (path, output))


def _original_name(path, output):
    """How the converted module names its original in its line map: relative to the folder
    it is written to (standard output: the current folder); None for standard input."""
    if path == STANDARD_STREAM:
        return None
    start = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
    try:
        return os.path.relpath(os.path.abspath(path), start)
    except ValueError:  # another drive
        return os.path.abspath(path)


def read_source(path):
    """(text, encoding) of Python source file `path` ('-': standard input), honouring its
    PEP 263 coding declaration; undecodable bytes and null bytes are reported with their
    line."""
    name = _STDIN_NAME if path == STANDARD_STREAM else path
    try:
        data = _read_bytes(path)
    except OSError as e:
        raise CommandError("cannot read %s: %s" % (name, e.strerror or e)) from None
    lines = data.splitlines(True)
    try:
        encoding, _ = tokenize.detect_encoding(iter(lines).__next__)
    except SyntaxError as e:  # an unknown encoding, or one that contradicts a BOM
        line = next((n for n, text in enumerate(lines[:2], 1) if b"coding" in text), 1)
        raise CommandError("%s:%d: cannot read: %s" % (name, line, e.msg)) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise CommandError("%s:%d: cannot decode byte 0x%02x as %s: %s"
                           % (name, line, data[e.start], encoding, e.reason)) from None
    if "\0" in text:
        line = text[:text.index("\0")].count("\n") + 1
        raise CommandError("%s:%d: the source contains a null byte" % (name, line))
    return text, encoding


def _read_bytes(path):
    if path != STANDARD_STREAM:
        with open(path, "rb") as f:
            return f.read()
    stream = getattr(sys.stdin, "buffer", None)
    return stream.read() if stream is not None else sys.stdin.read().encode("utf-8")


def convert(source, filename, original=None):
    """The converted module for `source`, checked first by CPython's own compiler (which
    does not run it); failures become one-line CommandErrors. `original` names `filename`
    in the converted module's line map (see `module_conversion.convert_source`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `x is 1`, '\d': not errors
            warnings.simplefilter("ignore", DeprecationWarning)
            compile(source, filename, "exec", dont_inherit=True)
            return module_conversion.convert_source(source, filename, original)
    except SyntaxError as e:
        where = ":".join(str(n) for n in (e.lineno, e.offset) if n)
        raise CommandError("%s:%s syntax error: %s"
                           % (filename, where + ":" if where else "", e.msg)) from None
    except RecursionError:
        raise CommandError("%s: nested too deeply to convert" % filename) from None
    except ValueError as e:  # ConversionError; also null bytes in the source
        if isinstance(e, ConversionError):
            raise CommandError(one_line(e)) from None
        raise CommandError("%s: cannot parse: %s" % (filename, one_line(e))) from None
    except Exception as e:  # a compiler bug: still one line, but a distinct status
        raise CommandError("%s: internal error while converting (%s: %s)"
                           % (filename, type(e).__name__, one_line(e)),
                           EXIT_INTERNAL_ERROR) from None


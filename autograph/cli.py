"""The `autograph` command line.

    autograph convert FILE.py              prints the converted module
    autograph convert FILE.py -o OUT.py    writes it to OUT.py (atomically)

Failures print one line on stderr and exit with status 2 (bad input: unreadable file,
syntax error, unsupported construct) or 1 (an internal error of the compiler). The output
file is written to a temporary file next to it and renamed into place only on success, so a
failed run never leaves a partial file and never touches an existing one.
"""

import argparse
import os
import sys
import tempfile
import tokenize

from autograph import module_conversion
from autograph.errors import ConversionError

# Exit statuses.
EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1  # a compiler bug
EXIT_BAD_INPUT = 2  # unreadable file, syntax error, unsupported construct; also usage errors


class CommandError(Exception):
    """A failure to report as one line on stderr, with the exit status to return."""

    def __init__(self, message, status=EXIT_BAD_INPUT):
        super().__init__(message)
        self.status = status


def build_parser():
    """The argument parser of the `autograph` command and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="autograph",
        description="AutoGraph-style compiler: rewrites Python control flow over tensors "
                    "into graph-building calls.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    convert = commands.add_parser(
        "convert", help="convert every function of a Python file",
        description="Convert every function of FILE (parsed, never imported or run) and "
                    "print the resulting module, or write it to OUT. The output imports and "
                    "runs on its own; its functions are not converted again when traced.")
    convert.add_argument("file", metavar="FILE", help="the Python source file to convert")
    convert.add_argument("-o", "--output", metavar="OUT",
                         help="write the converted module to OUT instead of stdout")
    convert.set_defaults(run=run_convert)
    return parser


def main(argv=None):
    """Runs the command line `argv` (default: sys.argv[1:]); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except CommandError as e:
        print("autograph: error: %s" % e, file=sys.stderr)
        return e.status


def run_convert(args):
    """`autograph convert`: reads, converts and prints or writes one file."""
    source, encoding = read_source(args.file)
    converted = convert(source, args.file)
    if args.output is None:
        sys.stdout.write(converted)
    else:
        write_atomically(args.output, converted, encoding)
    return EXIT_OK


def read_source(path):
    """(text, encoding) of Python source file `path`, honouring its coding declaration."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(True)).__next__)
        return data.decode(encoding), encoding
    except (OSError, SyntaxError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else e
        raise CommandError("cannot read %s: %s" % (path, reason)) from None


def convert(source, filename):
    """The converted module for `source`; failures become one-line CommandErrors."""
    try:
        return module_conversion.convert_source(source, filename)
    except SyntaxError as e:
        where = ":".join(str(n) for n in (e.lineno, e.offset) if n)
        raise CommandError("%s:%s syntax error: %s"
                           % (filename, where + ":" if where else "", e.msg)) from None
    except ValueError as e:  # ConversionError; also null bytes in the source
        if isinstance(e, ConversionError):
            raise CommandError(_one_line(e)) from None
        raise CommandError("%s: cannot parse: %s" % (filename, _one_line(e))) from None
    except Exception as e:  # a compiler bug: still one line, but a distinct status
        raise CommandError("%s: internal error while converting (%s: %s)"
                           % (filename, type(e).__name__, _one_line(e)),
                           EXIT_INTERNAL_ERROR) from None


def write_atomically(path, text, encoding):
    """Writes `text` to `path` via a temporary file in the same directory and a rename, so
    `path` is either left as it was or holds the whole of `text`."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = -1, None
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path),
                                    suffix=".tmp")
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            fd = -1
            f.write(text)
        os.chmod(temp, _mode_for(path))
        os.replace(temp, path)
        temp = None
    except (OSError, UnicodeEncodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else e
        raise CommandError("cannot write %s: %s" % (path, reason)) from None
    finally:
        if fd != -1:
            os.close(fd)
        if temp is not None and os.path.exists(temp):
            os.remove(temp)


def _mode_for(path):
    """The permissions for the new `path`: those of the file it replaces, or the default
    for a new file (mkstemp's temporary files are private)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _one_line(error):
    """The message of `error` on one line."""
    return " ".join(str(error).split())

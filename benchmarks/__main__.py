"""Runs the benchmarks and prints a table of median times, ratios and targets.

    python -m benchmarks                      # everything, 7 interleaved samples per variant
    python -m benchmarks --quick              # 3 shorter samples per variant
    python -m benchmarks --filter chain       # workloads (or groups) whose name contains 'chain'
    python -m benchmarks --list               # the registered workloads
    python -m benchmarks --markdown           # tables as Markdown (for benchmarks/README.md)

Exit status: 0, or 1 when a variant computed a wrong result or misbehaved while timed (and,
with --strict, when a target is missed).
"""

import argparse
import datetime
import os
import platform
import sys

import numpy as np

import benchmarks
from benchmarks import timing
from benchmarks.workload import optional_module


class WorkloadResult:
    """What running one workload produced."""

    def __init__(self, workload):
        self.workload = workload
        self.variants = []     # the variants that were timed, in order
        self.times = {}        # variant name -> per-call seconds, one per sample
        self.numbers = {}      # variant name -> calls per sample
        self.problems = {}     # variant name -> why it was not timed, or what went wrong
        self.error = None      # why the whole workload could not run

    def ratio(self, numerator, denominator):
        """Median of per-sample time ratios, or None when either variant was not timed."""
        if numerator not in self.times or denominator not in self.times:
            return None
        return timing.paired_ratio(self.times[numerator], self.times[denominator])


def check_variant(variant, expected, workload):
    """None when the variant's result matches the reference, else a one-line problem."""
    try:
        got = variant.result()
    except Exception as e:  # report it beside the table rather than abort the run
        return "raised %s: %s" % (type(e).__name__, e)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return "result is %s %s, expected %s %s" % (got.dtype, got.shape, expected.dtype,
                                                    expected.shape)
    try:
        np.testing.assert_allclose(got, expected, rtol=workload.rtol, atol=workload.atol)
    except AssertionError as e:
        lines = [line.strip() for line in str(e).splitlines()
                 if line.strip().startswith(("Mismatched", "Max absolute", "Max relative"))]
        return "wrong result (rtol=%g, atol=%g): %s" % (workload.rtol, workload.atol,
                                                         "; ".join(lines))
    return None


def run_workload(workload, settings, log):
    """Builds, checks and times one workload."""
    result = WorkloadResult(workload)
    try:
        variants = workload.build()
        reference = next(v for v in variants if v.name == workload.reference)
        expected = reference.result()
    except StopIteration:
        result.error = "no reference variant %r" % workload.reference
        return result
    except Exception as e:
        result.error = "setup failed: %s: %s" % (type(e).__name__, e)
        return result
    for variant in variants:
        problem = None if variant is reference else check_variant(variant, expected, workload)
        if problem is None:
            result.variants.append(variant)
        else:
            result.problems[variant.name] = "CHECK FAILED, not timed: " + problem
            log("  %s/%s: %s" % (workload.name, variant.name, result.problems[variant.name]))
    times, numbers = timing.measure(result.variants, settings)
    for variant, samples, number in zip(result.variants, times, numbers):
        result.times[variant.name] = samples
        result.numbers[variant.name] = number
        if variant.verify is not None:
            problem = variant.verify()
            if problem:
                result.problems[variant.name] = problem
                log("  %s/%s: %s" % (workload.name, variant.name, problem))
    return result


# -- formatting --------------------------------------------------------------------------------


def format_time(seconds):
    """Microseconds with 3-4 significant digits."""
    us = seconds * 1e6
    if us < 10:
        return "%.2f µs" % us
    if us < 1000:
        return "%.1f µs" % us
    return "{:,.0f} µs".format(us)


def format_ratio(ratio):
    if ratio is None:
        return "-"
    return "%.2fx" % ratio if ratio < 100 else "%.0fx" % ratio


def render(headers, rows, align, markdown):
    """A table as text lines: aligned columns, or Markdown."""
    if markdown:
        marks = {"l": ":--", "r": "--:"}
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join(marks[a] for a in align) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return lines
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows)]

    def line(cells):
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                         for c, w, a in zip(cells, widths, align)).rstrip()
    return [line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows]


def times_table(results, markdown):
    headers = ["workload", "variant", "median time/call", "spread", "calls/sample", "vs ref"]
    rows = []
    for result in results:
        workload = result.workload
        first = True
        if result.error:
            rows.append([workload.name, "-", "ERROR: " + result.error, "", "", ""])
            continue
        for variant in result.variants:
            samples = result.times[variant.name]
            name = variant.name + (" (ref)" if variant.name == workload.reference else "")
            if variant.name in result.problems:
                name += " [!]"
            rows.append([workload.name if first else "", name,
                         format_time(timing.median(samples)),
                         "%.0f%%" % (100 * timing.spread(samples)),
                         "{:,}".format(result.numbers[variant.name]),
                         format_ratio(result.ratio(variant.name, workload.reference))])
            first = False
        for name, problem in result.problems.items():
            if name not in result.times:
                rows.append([workload.name if first else "", name + " [!]", "not timed", "",
                             "", ""])
                first = False
    return render(headers, rows, "llrrrr", markdown)


def targets_table(results, markdown):
    headers = ["workload", "target (time ratio)", "measured", "result"]
    rows = []
    misses = 0
    for result in results:
        for target in result.workload.targets:
            ratio = result.ratio(target.numerator, target.denominator)
            if target.informational:
                verdict = "info"
            elif ratio is None:
                verdict = "N/A"
                misses += 1
            elif target.met(ratio):
                verdict = "PASS"
            else:
                verdict = "MISS"
                misses += 1
            rows.append([result.workload.name, target.describe(), format_ratio(ratio), verdict])
    return render(headers, rows, "llrl", markdown), misses


def environment_lines(settings, quick):
    versions = []
    for name in ("tensorflow", "jax"):
        module = optional_module(name)
        versions.append("%s %s" % (name, module.__version__) if module is not None
                        else "%s: not installed (skipped)" % name)
    return [
        "date: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "python %s, numpy %s, %s %s, %d CPUs" % (
            platform.python_version(), np.__version__, platform.system(), platform.machine(),
            os.cpu_count() or 0),
        "; ".join(versions),
        "BLAS threads: %s" % ", ".join("%s=%s" % item for item in benchmarks.BLAS_THREADS.items()),
        "mode: %s: %d interleaved samples per variant, each of ~%.0f ms (at least %.0f ms)" % (
            "quick" if quick else "full", settings.samples, 1000 * settings.target_time,
            1000 * settings.min_time),
    ]


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="fewer and shorter samples (3 of ~15 ms per variant)")
    parser.add_argument("--filter", action="append", default=[], metavar="NAME",
                        help="run the workloads whose name or group contains NAME "
                             "(repeatable)")
    parser.add_argument("--samples", type=int, default=None,
                        help="timed samples per variant (default 7, or 3 with --quick)")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a target is missed")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workloads = benchmarks.select(benchmarks.load_workloads(), args.filter)
    if args.list:
        for workload in workloads:
            targets = ", ".join(t.describe() for t in workload.targets) or "no targets"
            print("%s/%s: %s\n    targets: %s" % (workload.group, workload.name,
                                                  workload.description, targets))
        return 0
    if not workloads:
        print("no workload matches %s" % ", ".join(args.filter), file=sys.stderr)
        return 2
    base = timing.QUICK if args.quick else timing.FULL
    settings = timing.Settings(args.samples or base.samples, base.min_time, base.target_time)
    if settings.samples < 1:
        print("--samples must be at least 1", file=sys.stderr)
        return 2

    def log(text):
        print(text, file=sys.stderr, flush=True)

    results = []
    for workload in workloads:
        log("running %s ..." % workload.name)
        results.append(run_workload(workload, settings, log))

    print("\n".join(environment_lines(settings, args.quick)))
    print()
    print("Per-call times: median over samples; spread = (max - min) / median; "
          "vs ref = median of per-sample time ratios to the reference variant (numpy).")
    print()
    print("\n".join(times_table(results, args.markdown)))
    print()
    lines, misses = targets_table(results, args.markdown)
    print("\n".join(lines))
    broken = [r for r in results if r.error or r.problems]
    if broken:
        print()
        for result in broken:
            if result.error:
                print("[!] %s: %s" % (result.workload.name, result.error))
            for name, problem in result.problems.items():
                print("[!] %s/%s: %s" % (result.workload.name, name, problem))
    if broken:
        return 1
    return 1 if args.strict and misses else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs many random programs (tests/autograph/random_programs.py) and counts how each ended.

    python -m tests.autograph.random_program_report 10000 [seed] [patterns]
                                                             (from the repository root)

`patterns` is 'all' (every pattern of PATTERNS, the default) or a comma list of them. Prints
one line per outcome: 'agreed' (plain Python, the converted function and the traced function
gave the same value or raised the same kind of error), 'raised at run' (the graph raised the
run-time form of Python's error), 'refused: ...' (an explicit refusal, see check_program,
grouped by its class and the first words of its message), 'WRONG' (a disagreement) and
'CRASH ...' (any other error, grouped by type and message). Examples of each failure go to
random_program_failures.txt in the current folder. Exits 1 when anything is WRONG or CRASH.
"""

import collections
import re
import sys
import traceback
import warnings

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.autograph import random_programs as programs


def main(argv):
    """Runs `argv[0]` programs (hypothesis seed `argv[1]`, default 0; patterns `argv[2]`)."""
    count = int(argv[0])
    chosen_seed = int(argv[1]) if len(argv) > 1 else 0
    chosen = argv[2] if len(argv) > 2 else "all"
    patterns = frozenset(programs.PATTERNS) if chosen == "all" else \
        frozenset(chosen.split(","))
    outcomes = collections.Counter()
    examples = collections.defaultdict(list)

    @seed(chosen_seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(source=programs.programs(patterns), x=st.integers(0, 9), y=st.integers(0, 9))
    def run(source, x, y):
        try:
            outcomes[programs.check_program(source, x, y)] += 1
            return
        except AssertionError:
            kind, trace = "WRONG", traceback.format_exc()
        except Exception as e:  # noqa: BLE001  (every other error is counted as a crash)
            first = str(e).splitlines()[0][:90] if str(e) else ""
            kind = "CRASH %s: %s" % (type(e).__name__, re.sub(r"\d+", "N", first))
            trace = traceback.format_exc()
        outcomes[kind] += 1
        if len(examples[kind]) < 3:
            examples[kind].append("x=%d y=%d\n%s\n%s" % (x, y, source, trace))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
    total = sum(outcomes.values())
    for kind, number in outcomes.most_common():
        print("%6d %5.1f%% %s" % (number, 100.0 * number / total, kind))
    if examples:
        with open("random_program_failures.txt", "w") as out:
            for kind, texts in examples.items():
                out.write("=== %s\n%s\n" % (kind, "\n".join(texts)))
    return 1 if examples else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

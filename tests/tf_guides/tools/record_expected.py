"""Records what real TensorFlow shows for each guide cell, into `tests/tf_guides/expected/`.

NOT run by the test suite, and not project code: it needs real TensorFlow (2.21, in a throwaway
virtual environment), which the project never imports. Run from the worktree root:

    /tmp/tfenv/bin/python tests/tf_guides/tools/record_expected.py [GUIDE ...]

For each guide (all of `cells/` by default) it runs the cells that are not skipped, in order,
in a fresh temporary working directory, with `cell_runner` (the code the test runs too), and
writes `expected/<guide>.json`: per cell index, what the cell printed, wrote to standard error,
showed as its value and raised.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

import cell_runner  # noqa: E402
import tensorflow as tf  # noqa: E402  (only this tool, never the project)

tf.get_logger().setLevel("ERROR")  # deprecation notices are not what a cell shows


def record(guide):
    """Runs one guide under TensorFlow and writes its expected outputs."""
    cells = json.loads((HERE / "cells" / f"{guide}.json").read_text())["cells"]
    start = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        try:
            outputs = cell_runner.run_guide(guide, cells, cell_runner.new_namespace(tf))
        finally:
            os.chdir(start)
    data = {"tensorflow": tf.__version__, "guide": guide,
            "cells": {str(index): output.as_dict() for index, output in outputs.items()}}
    out_dir = HERE / "expected"
    out_dir.mkdir(exist_ok=True)
    (out_dir / f"{guide}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    errors = sum(output.error is not None for output in outputs.values())
    print(f"{guide}: {len(outputs)} cells run, {errors} raised")


def main(argv):
    """Records the guides named in argv, or every guide in cells/."""
    guides = argv[1:] or sorted(path.stem for path in (HERE / "cells").glob("*.json"))
    for guide in guides:
        record(guide)


if __name__ == "__main__":
    main(sys.argv)

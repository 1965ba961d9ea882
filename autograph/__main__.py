"""`python -m autograph ...`: the same command line as the `autograph` script."""

import sys

from autograph.cli import main

if __name__ == "__main__":
    sys.exit(main())

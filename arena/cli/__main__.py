"""``python -m arena.cli``: the ``arena`` command."""

import sys

from arena.cli.main import main

if __name__ == "__main__":
    sys.exit(main())

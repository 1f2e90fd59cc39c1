"""``python -m pubharvest.cli``: the ``pubharvest`` command."""

import sys

from . import main

if __name__ == "__main__":  # not when a walk over the package's modules imports this one
    sys.exit(main())

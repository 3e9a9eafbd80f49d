"""``python -m chainrule``: the ``chainrule`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

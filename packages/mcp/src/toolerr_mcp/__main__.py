"""``python -m toolerr_mcp``: the same as the ``toolerr-mcp`` command."""

import sys

from ._cli import main

sys.exit(main())

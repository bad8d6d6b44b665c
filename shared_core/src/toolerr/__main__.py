"""``python -m toolerr``: the ``toolerr`` command."""

from ._cli import main

raise SystemExit(main())

"""``python -m libraries [NAME ...]``: regenerate the held-out corpus' JSONL files."""

from __future__ import annotations

import sys

import libraries

for name, cases in libraries.generate_all(sys.argv[1:] or None):
    libraries.write(name, cases)
    print(f"{name}: {len(cases)} cases -> {libraries.path(name)}")

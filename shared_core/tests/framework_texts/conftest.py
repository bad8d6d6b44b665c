"""The framework texts need the frameworks: only the ``framework_texts`` nox session
installs them (one virtualenv per framework) and sets TOOLERR_FRAMEWORK_TEXTS. The core
tests read the committed JSONL without them (tests/test_framework_templates.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

if not os.environ.get("TOOLERR_FRAMEWORK_TEXTS"):
    collect_ignore_glob = ["*"]

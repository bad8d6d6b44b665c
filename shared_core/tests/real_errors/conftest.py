"""The live corpus needs its libraries (httpx, openai, botocore ...): only the
``real_errors`` nox session installs them and sets TOOLERR_REAL_ERRORS."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

if not os.environ.get("TOOLERR_REAL_ERRORS"):
    collect_ignore_glob = ["*"]

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# Helpers shared with the other packages' tests (a fresh clone has them at the repo root).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

from __future__ import annotations

import sys
from pathlib import Path

# the helpers beside the tests (golden.py, meaning.py) import as plain modules
sys.path.insert(0, str(Path(__file__).parent))

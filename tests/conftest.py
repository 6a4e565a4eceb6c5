from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# the helpers beside the tests (golden.py, meaning.py) import as plain modules
sys.path.insert(0, str(Path(__file__).parent))


# Properties are judged by what they find, not by how fast inputs were drawn: on a busy
# CI machine a slow draw is noise (too_slow), and timings never fail a test (deadline).
settings.register_profile("sarp", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sarp")

# SPDX-License-Identifier: Apache-2.0
"""Puts this directory on the path so the tests import my_sampler wherever pytest runs from."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

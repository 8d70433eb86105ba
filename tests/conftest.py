"""Shared fixtures and the Hypothesis profiles.

Profiles: ``ci`` (the default, a moderate example count that keeps the suite
within CI's budget) and ``thorough`` (thousands of examples, for local hunts:
``HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_properties.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from liturgy.interpreter.engine import Ruleset, load_ruleset

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
BLOODBORNE = ROOT / "rulesets" / "bloodborne.rules"


@pytest.fixture(scope="session")
def bloodborne() -> Ruleset:
    return load_ruleset(str(BLOODBORNE))


@pytest.fixture
def write_ruleset(tmp_path: Path) -> Callable[..., str]:
    """Write a ruleset (and optional card files) into a temp folder; return its path."""

    def write(text: str, cards: dict[str, str] | None = None, name: str = "game.rules") -> str:
        for fname, body in (cards or {}).items():
            p = tmp_path / fname
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(body, encoding="utf-8")
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write

"""Every catalogue code is raised by some monitor test and documented with its rule in
docs/monitor.md (issue 5: cover each code of alerts.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.vocabulary.alerts import CATALOGUE

HERE = Path(__file__).parent
TESTS = [p for p in HERE.glob("test_monitor_*.py") if p.name != Path(__file__).name]
DOC = HERE.parent / "docs" / "monitor.md"


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_code_is_tested_and_documented(code: str) -> None:
    quoted = f'"{code}"'
    assert any(quoted in p.read_text(encoding="utf-8") for p in TESTS), \
        f"no monitor test expects {code}"
    assert code in DOC.read_text(encoding="utf-8"), f"docs/monitor.md does not explain {code}"

"""Every citation in the code and the docs resolves inside the project: ``rules.md §N`` to a
section of docs/rules.md, a source key such as ``[002 #33]`` to a source it lists, a page name
such as ``monitor.md`` to a page of docs/, and the alert catalogue in code to docs/alerts.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.vocabulary.alerts import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SEARCHED = ("table_controller", "firmware_bridge", "vision", "hw_sim", "benchmarks", "tests",
            "tools", "docs")


def _texts() -> list[tuple[Path, str]]:
    paths = [ROOT / "README.md"]
    for folder in SEARCHED:
        for suffix in ("*.py", "*.md", "*.toml"):
            paths.extend(sorted((ROOT / folder).rglob(suffix)))
    return [(p, p.read_text(encoding="utf-8")) for p in paths if ".venv" not in p.parts]


TEXTS = _texts()
RULES = (DOCS / "rules.md").read_text(encoding="utf-8")


def test_every_rules_section_cited_exists() -> None:
    sections = set(re.findall(r"^## (\d+)\. ", RULES, flags=re.M))
    assert sections == {str(n) for n in range(1, 8)}
    cited = {(p.relative_to(ROOT), n) for p, text in TEXTS
             for n in re.findall(r"rules\.md §(\d+)", text)}
    assert cited, "nothing cites rules.md: the pattern is wrong"
    missing = sorted(f"{p}: §{n}" for p, n in cited if n not in sections)
    assert not missing, missing


def test_every_source_key_is_listed() -> None:
    listed = set(re.findall(r"^\| \[(\d{3})\] \|", RULES, flags=re.M))
    assert listed == {"000", "001", "002", "003", "004"}
    keys = {(p.relative_to(ROOT), k) for p, text in TEXTS
            for group in re.findall(r"\[(0\d\d\b[^\]\n]*)\]", text)
            for k in re.findall(r"(?<!#)\b0\d\d\b", group)}
    assert keys
    unknown = sorted(f"{p}: [{k}]" for p, k in keys if k not in listed)
    assert not unknown, unknown


def test_every_page_named_is_a_page_of_docs() -> None:
    pages = {p.name for p in DOCS.glob("*.md")} | {"README.md"}
    named = {(p.relative_to(ROOT), name) for p, text in TEXTS
             for name in re.findall(r"(?<![\w/.-])([a-z][a-z_-]*\.md)\b", text)}
    missing = sorted(f"{p}: {name}" for p, name in named if name not in pages)
    assert not missing, missing


def test_the_product_does_not_need_the_shared_folder() -> None:
    """A user's clone has no ``../shared``: the packages never look for it (tests and benchmarks
    may, when it is there, and do without it)."""
    packages = ("table_controller", "firmware_bridge", "vision", "hw_sim", "tools")
    product = [p for p, text in TEXTS if p.relative_to(ROOT).parts[0] in packages
               and re.search(r"shared/(spec|scenarios|seeds|data)", text)]
    assert not product, product


def _catalogue_rows() -> dict[str, str]:
    text = (DOCS / "alerts.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([A-Z][A-Z_]+) \| (stop|fix|warn|info|fault) \|", text, flags=re.M)
    return dict(rows)


def test_the_alert_page_lists_the_catalogue() -> None:
    rows = _catalogue_rows()
    assert rows == {code: spec.severity.value for code, spec in CATALOGUE.items()}


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_each_code_cites_known_sources(code: str) -> None:
    listed = set(re.findall(r"^\| \[(\d{3})\] \|", RULES, flags=re.M))
    for key in re.findall(r"\[(\d{3})", CATALOGUE[code].rule):
        assert key in listed, f"{code}: [{key}]"

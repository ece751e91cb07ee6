"""User-facing text cites works by name: no internal source numbers, no paths users lack."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTERNAL = re.compile(r"seeds? ?(00\d|§)|\.\./shared/", re.IGNORECASE)


def user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for package in ("anomaly", "repository", "detectors", "bench"):
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def test_no_internal_source_references() -> None:
    found = []
    for path in user_facing_files():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL.search(line):
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not found, "cite works by name (docs/references.md):\n" + "\n".join(found)


def test_references_page_names_the_papers() -> None:
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    for title in (
        "Automating Large-Scale Data Quality Verification",
        "Differential Data Quality Verification on Partitioned Data",
        "Apache Griffin",
    ):
        assert title in text

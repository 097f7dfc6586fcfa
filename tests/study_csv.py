"""Reading a reproduction's experiment tables (``OUT/NAME.csv``) in the study tests."""

from __future__ import annotations

import csv
from pathlib import Path


def rows(out: Path, name: str) -> list[dict[str, str]]:
    """The rows of experiment ``name``'s table in ``out``."""
    return list(csv.DictReader((out / f"{name}.csv").open()))


def by(rs: list[dict[str, str]], **match: str) -> dict[str, str]:
    """The one row whose columns equal ``match``."""
    (row,) = [r for r in rs if all(r[k] == v for k, v in match.items())]
    return row

"""Named, ordered migrations read from ``schema.sql``; each is applied once, in its own transaction.

A block may name a Python step (``-- python: <name>``, a function of ``migration_steps``) for what SQL cannot do;
it runs after the block's SQL, in the same transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SCHEMA_FILE = Path(__file__).with_name("schema.sql")
_HEADER = re.compile(r"^-- migration: (\d+) (\S+)\s*$", re.M)
_PYTHON_STEP = re.compile(r"^-- python: (\w+)\s*$", re.M)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    python: str | None = None  # a function of ``migration_steps`` run after ``sql``


def load_migrations(path: Path = SCHEMA_FILE) -> list[Migration]:
    """Split the schema file into its migration blocks, checking versions are 1, 2, 3, ..."""
    text = path.read_text(encoding="utf-8")
    headers = list(_HEADER.finditer(text))
    migrations = []
    for index, match in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        sql = text[match.end():end].strip()
        step = _PYTHON_STEP.search(sql)
        migrations.append(Migration(int(match.group(1)), match.group(2), sql, step.group(1) if step else None))
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"{path}: migration versions must be 1..n in order, found {versions}")
    return migrations


SCHEMA_VERSION = len(load_migrations())

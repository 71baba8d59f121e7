"""Named, ordered migrations read from ``schema.sql``; each is applied once, in its own transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SCHEMA_FILE = Path(__file__).with_name("schema.sql")
_HEADER = re.compile(r"^-- migration: (\d+) (\S+)\s*$", re.M)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations(path: Path = SCHEMA_FILE) -> list[Migration]:
    """Split the schema file into its migration blocks, checking versions are 1, 2, 3, ..."""
    text = path.read_text(encoding="utf-8")
    headers = list(_HEADER.finditer(text))
    migrations = []
    for index, match in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        migrations.append(Migration(int(match.group(1)), match.group(2), text[match.end():end].strip()))
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"{path}: migration versions must be 1..n in order, found {versions}")
    return migrations


SCHEMA_VERSION = len(load_migrations())

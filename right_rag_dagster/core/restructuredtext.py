"""reStructuredText markup that holds no text a reader sees, shared by the generic parser and ``spec/`` parsers."""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^\.\.[ \t]+[\w:-]+::")
_FIELD = re.compile(r":[\w-]+:(?:\s|$)")


def only_comments(text: str) -> bool:
    """True when ``text`` is reStructuredText comments only: ``..`` lines that start no directive, and the indented
    lines under them (the licence header over lazr.uri's ``index.rst``, before its title)."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and lines[0].startswith("..") and all(
        (line.startswith("..") and not _DIRECTIVE.match(line)) or line[:1] in " \t" for line in lines)


def only_fields(text: str) -> bool:
    """True when ``text`` is reStructuredText field lines only (``:orphan:``, ``:tocdepth: 2``): metadata before a
    title, no text a reader sees."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_FIELD.match(line) for line in lines)

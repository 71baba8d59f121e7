"""Copyright stanzas by their file patterns: "What licence is libogg released under?" answers with ``Files: *``.

A Debian copyright file is a list of stanzas that all say "Copyright" and "License"; what tells them apart is
the files they cover (the ``files`` attribute of a ``files_stanza``, or of a free-form file's ``files_section``).
BM25 ranks them by their words and length, so a short stanza of one test file (``Files: debian/tests/readogg.c``)
outranks the package's main stanza, and ``src/ALAC/shift.h`` outranks ``src/ALAC/*`` for "libsndfile's ALAC code".

When the retriever's first candidate is such a stanza, the stanzas of that document among the candidates are
compared by their patterns as a name: the literal words of the patterns (``src/ALAC/*`` -> ``src``, ``alac``),
as BM25 stems, against the question's stems (without the words of the name it calls the document by). The stanza
whose patterns the question covers best (the largest share of their words) comes first; when the question says
none of them, it asks about the package as a whole, and the stanza for every file (``*``) comes first. Only
the order of that document's stanzas at the top changes: a question about anything else is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .bm25 import query_terms

STANZA_TYPES = frozenset({"files_stanza", "files_section"})
_SEPARATE = re.compile(r"[/*.]|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")

T = TypeVar("T")


def pattern_terms(attributes: dict[str, Any]) -> frozenset[str] | None:
    """The stems of a stanza's file patterns (empty for ``*``), or None when the chunk is not a files stanza."""
    patterns = attributes.get("files")
    if attributes.get("unit_type") not in STANZA_TYPES or not isinstance(patterns, list) or not patterns or attributes.get("files_count"):
        return None
    return frozenset(_terms(" ".join(str(p) for p in patterns)))


def _terms(text: str) -> list[str]:
    """BM25 stems of ``text`` with path parts, extensions, letters and digits apart (``src/GSM610/*`` is said
    "GSM 6.10", ``hangman.py`` "hangman.py")."""
    return query_terms(_SEPARATE.sub(" ", text))


def reorder(items: Sequence[T], question: str, document_of: Callable[[T], str],
            terms_of: Callable[[T], frozenset[str] | None], score_of: Callable[[T], float],
            rescore: Callable[[T, float], T], name_of: Callable[[str], str | None] = lambda _: None) -> list[T]:
    """``items`` (best first) with the stanza whose file patterns fit the question best moved to the first place,
    when the first item is a files stanza and a better fitting one of its document is among the items."""
    if not items or terms_of(items[0]) is None:
        return list(items)
    document = document_of(items[0])
    asked = set(_terms(question)) - set(_terms(name_of(document) or ""))
    stanzas = [(i, terms) for i, item in enumerate(items)
               if document_of(item) == document and (terms := terms_of(item)) is not None]

    def fit(terms: frozenset[str]) -> float:
        return len(terms & asked) / len(terms) if terms else 0.0

    best = max(fit(terms) for _, terms in stanzas)
    if best > 0:
        chosen = next(i for i, terms in stanzas if fit(terms) == best)
    else:
        chosen = next((i for i, terms in stanzas if not terms), 0)
    if chosen == 0:
        return list(items)
    top = score_of(items[0])
    return [rescore(items[chosen], top), *(item for i, item in enumerate(items) if i != chosen)]

"""Units by the files they cover: "What licence is libogg released under?" answers with ``Files: *``.

A unit parser may say which files a unit covers: a ``files`` attribute, a list of glob patterns (the sample
``debian_copyright`` parser sets it from a stanza's ``Files:`` field; with more patterns than it keeps, it adds
``files_count`` and such a unit is left out). Units of one document that differ mostly by the files they cover all
share the same words (every stanza of a Debian copyright file says "Copyright" and "License"), so BM25 ranks them
by length: a short stanza of one test file (``Files: debian/tests/readogg.c``) outranks the package's main stanza,
and ``src/ALAC/shift.h`` outranks ``src/ALAC/*`` for "libsndfile's ALAC code".

When the retriever's first candidate carries file patterns, the candidates of that document that carry them are
compared by their patterns as a name: the literal words of the patterns (``src/ALAC/*`` -> ``src``, ``alac``),
as BM25 stems, against the question's stems (without the words of the name it calls the document by). The unit
whose patterns the question covers best (the largest share of their words) comes first; when the question says
none of them, it asks about the whole, and the unit for every file (``*``) comes first. The word "files" names
no pattern ("talloc's files" is not ``stale_files.py``). Only the order of that
document's units at the top changes: a question about anything else is left as it is.

A unit that lists its fields (a ``fields`` attribute: the sample parser sets it from a stanza's field names) and
carries no file patterns comes first for questions that name their document: a copyright file's header stanza
(``Upstream-Name: zutty``, ``Comment: ... waf binary ...``) outranked its ``Files: waf waflib/* wscript`` stanza for
"Which licence covers the waf build system files in zutty?". When the question asks for a field (its words, as BM25
stems: "licence" is ``License``, "copyright" ``Copyright``) that the first unit lacks and units of its document
with file patterns have, those units are compared as above and the best fitting one comes first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .bm25 import query_terms

FILES_ATTRIBUTE = "files"
FIELDS_ATTRIBUTE = "fields"
_SEPARATE = re.compile(r"[/*.]|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")

T = TypeVar("T")


def pattern_terms(attributes: dict[str, Any]) -> frozenset[str] | None:
    """The stems of a unit's file patterns (empty for ``*``), or None when it names no files (or only some of
    them: ``files_count``)."""
    patterns = attributes.get(FILES_ATTRIBUTE)
    if not isinstance(patterns, list) or not patterns or attributes.get("files_count"):
        return None
    return frozenset(_terms(" ".join(str(p) for p in patterns)))


def field_terms(attributes: dict[str, Any]) -> frozenset[str] | None:
    """The stems of the words of a unit's field names (``Upstream-Name`` -> ``upstream``, ``name``), or None when
    it lists none."""
    fields = attributes.get(FIELDS_ATTRIBUTE)
    if not isinstance(fields, list) or not fields:
        return None
    return frozenset(_terms(" ".join(str(f).replace("-", " ") for f in fields)))


def _terms(text: str) -> list[str]:
    """BM25 stems of ``text`` with path parts, extensions, letters and digits apart (``src/GSM610/*`` is said
    "GSM 6.10", ``hangman.py`` "hangman.py")."""
    return query_terms(_SEPARATE.sub(" ", text))


def reorder(items: Sequence[T], question: str, document_of: Callable[[T], str],
            terms_of: Callable[[T], frozenset[str] | None], score_of: Callable[[T], float],
            rescore: Callable[[T, float], T], name_of: Callable[[str], str | None] = lambda _: None,
            fields_of: Callable[[T], frozenset[str] | None] = lambda _: None) -> list[T]:
    """``items`` (best first) with the unit whose file patterns fit the question best moved to the first place,
    when the first item carries file patterns, or lists fields none of which the question asks for while units
    with file patterns have one (``fields_of``: the stems of a unit's field names), and a better fitting unit of its
    document is among the items."""
    if not items:
        return list(items)
    document = document_of(items[0])
    said = set(_terms(question)) - set(_terms(name_of(document) or ""))
    stanzas = [(i, terms) for i, item in enumerate(items)
               if document_of(item) == document and (terms := terms_of(item)) is not None]
    if terms_of(items[0]) is None and not _asks_what_they_hold(items, stanzas, said, fields_of):
        return list(items)
    # "files" says that the question is about files, never which ones: it matches no pattern (``stale_files.py``)
    asked = said - set(_terms(FILES_ATTRIBUTE))

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


def _asks_what_they_hold(items: Sequence[T], stanzas: list[tuple[int, frozenset[str]]], said: set[str],
                         fields_of: Callable[[T], frozenset[str] | None]) -> bool:
    """Whether the first item, which carries no file patterns, lists fields none of which the question says, while
    a unit of its document with file patterns lists one it says."""
    own = fields_of(items[0]) if stanzas else None
    if own is None or said & own:
        return False
    return any(said & (fields_of(items[i]) or frozenset()) for i, _ in stanzas)

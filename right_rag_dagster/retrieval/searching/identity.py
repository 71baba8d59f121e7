"""Document identity in ranking: a question that names a document ("GPL version 2", "the FHS") ranks it first.

The names of every document (``doc_names.py``) are matched against the question's name tokens as whole phrases;
when one document's match lies inside another's longer one ("GPL" inside "LGPL 2.1", or inside "GPL 2" of
another document), only the longer counts, so "GPL version 2" names GPL-2 and not GPL-3. A name that fits
several versions of one document and says no version ("the GPL" beside GPL-2 and GPL-3) names none of them
(``Identified.versions``). Then a variant reorders the retriever's candidates:

- ``none``: names are ignored;
- ``boost``: candidates of a named document gain ``BOOST`` x the best candidate's score (a strong prior, yet a
  much better passage of another document can still win);
- ``first``: candidates of named documents come first, each group in the retriever's order;
- ``filter``: only named documents are searched (a pre-filter; nothing else is returned).

With every variant but ``none``, the one name a question says counts as BM25 terms only in the documents it
names: every other chunk is scored by the question without it (``Identified.lexical``). "GPL version 2" says which
document, not what passage; as terms of other documents its words favour whatever quotes the name (a copyright
stanza's ``License: GPL-2+``, the copyright-format specification's list of short names) over the passage asked
about. Inside the named documents the name stays (taking it out there too lost a development question).

Names are derived from the documents' text when needed and kept per store file while it is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ...store import Store
from ...store.chunk_reads import document_heads
from ..stopwords import ENGLISH_STOPWORDS
from ..tokenize import tokenize
from .doc_names import (
    HEAD_CHARS,
    POSSESSIVE,
    DocumentNames,
    document_names,
    leading_capitals,
    name_tokens,
)
from .per_store import per_store_version

BOOST = 0.5
DEPTH = 50
"""Candidates reordered when a document is named (the named document's passages need not be in the top k)."""

T = TypeVar("T")


@per_store_version
def store_names(store: Store) -> tuple[DocumentNames, ...]:
    """The names of the store's loaded documents, derived once per version of the store file."""
    with store.read() as con:
        rows = document_heads(con, HEAD_CHARS)
    return tuple(document_names(document_id, head or "", title) for document_id, head, title in rows)


@per_store_version
def _names_by_document(store: Store) -> dict[str, DocumentNames]:
    return {names.document_id: names for names in store_names(store)}


def document_names_of(store: Store, document_id: str) -> str:
    """A document's title line and names as one text (its id when the store does not hold it); a name that counts
    only in the possessive ("tdb's") is given without it (``tdb``): the document is what that word names."""
    found = _names_by_document(store).get(document_id)
    if found is None:
        return document_id
    names = dict.fromkeys(" ".join(name[:-1] if name[-1] == POSSESSIVE else name) for name in sorted(found.names))
    return " ".join([found.title, *names])


_WORD = re.compile(r"[^\W_]+(?:\.\d+)*")
"""A run of letters and digits (with dotted version parts): name tokens never span two of them."""


@dataclass(frozen=True)
class Identified:
    """What a question's names say: ``named`` (document id -> the name it is called by) and ``lexical``, the
    question with its name blanked out (what BM25 scores other documents' chunks by). ``lexical`` is the question itself
    when it names nothing, when nothing but the name would be left, or when it names two things ("the GPL"
    and "the MPL 2.0", "GPL-2+" in "the apt copyright"): then one name is what the question asks about in
    the other's text, and its words must still be found there."""

    named: dict[str, str]
    lexical: str
    said: dict[str, str] = field(default_factory=dict)
    """Document id -> the words of every name of it the question writes ("nvidia settings libxnvctrl 0"): none of
    them says which part of the document is asked about."""
    versions: dict[str, str] = field(default_factory=dict)
    """Document id -> the name it shares with its other versions, when the question says that name and no version
    ("the GPL"): not named (nothing moves up), but the name's words count only in those documents, as a name's do."""


def identify(question: str, names: Iterable[DocumentNames]) -> Identified:
    """The documents ``question`` names (longest matches) and the question without those names."""
    words, places = _name_words(question)
    names = tuple(names)
    found = _found_spans(words, names)
    said_of = {document.document_id: document for document in names if document.document_id in found}
    if places is not None:
        found = _without_spans(found, lambda doc, span: _common_possessive(span, words, places, question)
                               or _lowercase_acronym(span, said_of[doc], words, places, question))
    every = _kept_spans(found)
    kept = _without_unversioned(every, words, said_of)
    shared = _shared(kept, said_of)
    every = {doc: span for doc, span in every.items() if doc not in shared}
    kept = {doc: span for doc, span in kept.items() if doc not in shared}
    named = {doc: " ".join(words[a:b]) for doc, (a, b) in kept.items()}
    said = {doc: " ".join(" ".join(words[a:b]) for a, b in found[doc]) for doc in kept}
    spans = set(every.values())
    versions = {doc: " ".join(words[a:b]) for doc, (a, b) in every.items() if doc not in kept}
    if len(spans) != 1 or places is None:
        return Identified(named, question, said, versions)
    (a, b), = spans
    text = question[:places[a][0]] + " " + question[places[b - 1][1]:]
    if not any(token not in ENGLISH_STOPWORDS for token in tokenize(text)):
        return Identified(named, question, said, versions)
    return Identified(named, text, said, versions)


def named_documents(question: str, names: Iterable[DocumentNames]) -> dict[str, str]:
    """``document id -> the name it is called by`` for the documents the question names (longest matches)."""
    return identify(question, names).named


def _name_words(question: str) -> tuple[tuple[str, ...], list[tuple[int, int]] | None]:
    """The question's name tokens and, for each, the characters of the question it came from (None when the
    tokens of its words one by one are not those of the whole, which only odd Unicode could cause)."""
    words = name_tokens(question)
    tokens: list[str] = []
    places: list[tuple[int, int]] = []
    for match in _WORD.finditer(question):
        for token in name_tokens(match.group(0)):
            tokens.append(token)
            places.append(match.span())
    return words, (places if tuple(tokens) == words else None)


def _found_spans(words: tuple[str, ...], names: Iterable[DocumentNames]) -> dict[str, list[tuple[int, int]]]:
    """``document id -> where the question's name tokens say one of its names``, in the order they are said, for
    the documents it names at all."""
    found = {}
    for document in names:
        spans = {(start, end) for name in document.names for start in range(len(words) - len(name) + 1)
                 if (end := _match_at(words, start, name)) is not None}
        if spans:
            found[document.document_id] = sorted(spans)
    return found


def _match_at(words: tuple[str, ...], start: int, name: tuple[str, ...]) -> int | None:
    """Where ``name`` ends when the question says it from ``start``, else None. A possessive inside the name is
    skipped: "util-linux's parse_date" (``util linux s parse date``) says ``util linux parse date``."""
    if words[start:start + len(name)] == name:
        return start + len(name)
    if words[start] != name[0]:
        return None
    position = start + 1
    for token in name[1:]:
        if position < len(words) and words[position] == POSSESSIVE and token != POSSESSIVE:
            position += 1
        if position >= len(words) or words[position] != token:
            return None
        position += 1
    return position


DETERMINERS = frozenset({"the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "these",
                         "those", "each", "every", "any", "some", "whose"})
"""Words that open a noun phrase: a possessive inside one is a common noun's ("my system's gamma", "the operating
system's ICU library", "our build system's packaging step"), where a document's name stands alone ("dash's
src/mksignames.c", "to run libffi's test suite": system(3) is named ``system s`` as dash's copyright file is
``dash s``). Not "what" and "which": "What licence covers libdaemon's packaging?" asks of a thing, then names one;
nor "that", as often a conjunction ("Is it true that system's return value is -1?") as a determiner."""
_PHRASE_WORDS = re.compile(r"[^\W_][\w'’-]*")
_PHRASE_BREAK = re.compile(r"[,;:.!?()\[\]\"“”]")
_MODIFIERS = 3
"""Words between a determiner and the possessive at most ("the version control system's")."""


def _in_noun_phrase(question: str, start: int) -> bool:
    """Whether the word that starts at ``start`` follows a determiner, with at most ``_MODIFIERS`` words between
    that are no stopwords (nor across punctuation)."""
    before = _PHRASE_BREAK.split(question[:start])[-1]
    for word in reversed(_PHRASE_WORDS.findall(before)[-(_MODIFIERS + 1):]):
        word = word.casefold()
        if word in DETERMINERS:
            return True
        if word in ENGLISH_STOPWORDS:
            return False
    return False


def _without_spans(found: dict[str, list[tuple[int, int]]], drop: Callable[[str, tuple[int, int]], bool]
                   ) -> dict[str, list[tuple[int, int]]]:
    """``found`` without the spans ``drop(document id, span)`` says name nothing, and the documents left with none."""
    kept = {doc: [span for span in spans if not drop(doc, span)] for doc, spans in found.items()}
    return {doc: spans for doc, spans in kept.items() if spans}


def _common_possessive(span: tuple[int, int], words: tuple[str, ...], places: list[tuple[int, int]],
                       question: str) -> bool:
    """Whether ``span`` says a one-word possessive name inside a noun phrase (``DETERMINERS``)."""
    a, b = span
    return b - a == 2 and words[b - 1] == POSSESSIVE and _in_noun_phrase(question, places[a][0])


def _lowercase_acronym(span: tuple[int, int], document: DocumentNames, words: tuple[str, ...],
                       places: list[tuple[int, int]], question: str) -> bool:
    """Whether ``span`` says a title's acronym alone (with or without a version) in lower case: "man-db" is no
    "MAN", "the .NET runtime" no "NET" (``DocumentNames.capitals``)."""
    a, b = span
    if words[a] not in document.capitals or not (b - a == 1 or (b - a == 2 and words[a + 1][0].isdigit())):
        return False
    return not leading_capitals(question[places[a][0]:places[a][1]])


def _kept_spans(found: dict[str, list[tuple[int, int]]]) -> dict[str, tuple[int, int]]:
    """Each named document's longest name in the question, the first said of equally long ones (a document's
    names are a set: without that rule, which of "nvidia-settings" and "libxnvctrl0" named it changed with the
    process's hash seed)."""
    spans = {doc: max(said, key=lambda span: (span[1] - span[0], -span[0])) for doc, said in found.items()}
    return {doc: span for doc, span in spans.items()
            if not any(_inside(span, other) for other_doc, other in spans.items() if other_doc != doc)}


def _without_unversioned(kept: dict[str, tuple[int, int]], words: tuple[str, ...],
                         said_of: Mapping[str, DocumentNames]) -> dict[str, tuple[int, int]]:
    """``kept`` without a name that fits several versions of one document and says none ("the GPL" when GPL-2
    and GPL-3 are both indexed): it does not say which document, and a question says it of something else ("is
    its test runner under the GPL?", "a GPL-compatible licence") far more often than it asks about the licence
    text itself (19 of the tuning sets' questions to none). Each of those documents is also named with a version
    that the others' names do not share."""
    by_name: dict[tuple[int, int], list[str]] = {}
    for doc, span in kept.items():
        by_name.setdefault(span, []).append(doc)
    dropped = set()
    for (a, b), docs in by_name.items():
        said = words[a:b]
        if len(docs) < 2 or any(token[0].isdigit() for token in said):
            continue
        found = [{name[len(said)] for name in said_of[doc].names
                  if len(name) == len(said) + 1 and name[:len(said)] == said and name[-1][0].isdigit()}
                 for doc in docs]
        if all(found) and all(not (mine & other) for i, mine in enumerate(found) for other in found[i + 1:]):
            dropped.update(docs)
    return {doc: span for doc, span in kept.items() if doc not in dropped}


SHARED = 3
"""Documents one name may say at most: a name that three documents share ("FAQ" of every "Frequently asked
questions") says which kind of document, not which one."""


def _shared(kept: dict[str, tuple[int, int]], said_of: Mapping[str, DocumentNames]) -> set[str]:
    """The documents of ``kept`` named by a name that ``SHARED`` different documents or more are called by: neither
    named nor treated as versions (the name's words count everywhere, as any word's). Copies of one document (the
    same names: ``GPL-2.txt`` in three packages' folders) count once."""
    said: dict[tuple[int, int], set[frozenset[tuple[str, ...]]]] = {}
    for doc, span in kept.items():
        said.setdefault(span, set()).add(said_of[doc].names)
    return {doc for doc, span in kept.items() if len(said[span]) >= SHARED}


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """``span`` lies within ``other`` and is shorter (equal spans name both documents)."""
    return other[0] <= span[0] and span[1] <= other[1] and (other[1] - other[0]) > (span[1] - span[0])


def reorder(items: Sequence[T], named: dict[str, str], variant: str, document_of: Callable[[T], str],
            score_of: Callable[[T], float], rescore: Callable[[T, float, str | None], T]) -> list[T]:
    """``items`` (best first) reordered by ``variant`` for the ``named`` documents; ``rescore(item, score, name)``
    makes an item with its new score and the name that moved it (None when it did not move)."""
    if not named or variant == "none" or not items:
        return list(items)
    if variant == "boost":
        bonus = BOOST * max(abs(score_of(item)) for item in items)
        scored = [(score_of(item) + (bonus if document_of(item) in named else 0.0), i, item)
                  for i, item in enumerate(items)]
        scored.sort(key=lambda entry: (-entry[0], entry[1]))
        return [rescore(item, score, named.get(document_of(item))) for score, _, item in scored]
    first = [item for item in items if document_of(item) in named]
    rest = [] if variant == "filter" else [item for item in items if document_of(item) not in named]
    return [rescore(item, score_of(item), named.get(document_of(item))) for item in first + rest]

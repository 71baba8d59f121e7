"""Acronyms the documents define themselves ("Continuous Integration (CI)"), so a question's "CI" also asks for
the words it stands for, which the answering passage may use instead.

Found by rule in the loaded documents' texts, once per version of the store file: capitals in parentheses
(``(CI)``, ``(FHS)``, plural ``(UIDs)``) right after words whose initials spell them, filler words (``of``,
``and``, ``the``...) allowed in between. A question that writes the acronym in capitals is scored by BM25 with
the expansion's words added; an acronym with more than ``MAX_EXPANSIONS`` different expansions in the corpus is
left alone, and so is one the question uses as a document's name (``identity`` takes it out of the lexical query).
"""

from __future__ import annotations

import re

from ...store import Store
from ...store.chunk_reads import parenthesised_capitals
from .per_store import per_store_version

MAX_EXPANSIONS = 2
_FILLER = frozenset({"of", "and", "the", "for", "to", "in", "on", "a", "an", "&"})
_DEFINED = re.compile(r"\(([A-Z]{2,6})s?\)")
_WORD = re.compile(r"[^\W\d_][\w'’-]*|&")
_QUESTION_ACRONYM = re.compile(r"\b([A-Z]{2,6})s?\b")
_LOOKBACK = 120



def definitions(text: str) -> dict[str, set[str]]:
    """Acronym -> the expansions ``text`` gives it ("continuous integration" for ``CI``), lower case."""
    found: dict[str, set[str]] = {}
    for match in _DEFINED.finditer(text):
        acronym = match.group(1)
        words = _WORD.findall(text[max(0, match.start() - _LOOKBACK):match.start()])
        expansion = _spelled(acronym, words)
        if expansion:
            found.setdefault(acronym, set()).add(expansion)
    return found


def _spelled(acronym: str, words: list[str]) -> str | None:
    """The last words whose initials spell ``acronym`` (fillers may be skipped), else None."""
    letters = acronym.lower()
    position, used = len(letters), []
    for word in reversed(words):
        if position == 0:
            break
        if word.lower()[0] == letters[position - 1]:
            position -= 1
            used.append(word)
        elif word.lower() in _FILLER and used:
            used.append(word)
        else:
            return None
    if position:
        return None
    return " ".join(reversed(used)).lower()


@per_store_version
def store_acronyms(store: Store) -> dict[str, frozenset[str]]:
    """Acronym -> expansions over every loaded document of ``store`` (ambiguous ones left out)."""
    merged: dict[str, set[str]] = {}
    with store.read() as con:
        contexts = parenthesised_capitals(con, _LOOKBACK)
    for context in contexts:
        for acronym, expansions in definitions(context).items():
            merged.setdefault(acronym, set()).update(expansions)
    return {a: frozenset(e) for a, e in merged.items() if len(e) <= MAX_EXPANSIONS}


def writes_acronym(query: str) -> bool:
    """Whether ``query`` has a word in capitals that could be an acronym (only then are definitions read)."""
    return _QUESTION_ACRONYM.search(query) is not None


def expansion(query: str, acronyms: dict[str, frozenset[str]]) -> str:
    """The expansions of the acronyms ``query`` writes in capitals that it does not already spell out, as one
    text ("" when none)."""
    lowered = query.lower()
    return " ".join(expanded for acronym in dict.fromkeys(_QUESTION_ACRONYM.findall(query))
                    for expanded in sorted(acronyms.get(acronym, ())) if expanded not in lowered)

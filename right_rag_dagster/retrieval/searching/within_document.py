"""Which of one document's passages answers: BM25 with the document's own IDF orders them among its places.

A word every passage of the Helgrind chapter holds ("Helgrind") tells the chapter from other documents, and BM25's
corpus-wide IDF weighs it so; it says nothing about which of the chapter's passages answers, yet a passage that
repeats it outranks the one that holds the question's rarer words ("slow", "down"). So BM25's ranking keeps its
places and scores (which documents hold the top ranks), and each document's candidates are ordered among its
places by their BM25 score plus their BM25 score with the IDF computed over that document's chunks alone
(``Bm25Postings.document_scores``; the first search of a process computes the same in SQL,
``store.search_tables.bm25_document_scores``). On the 15 tuning sets (454 questions) it put the evidence first for
7 more questions (358 -> 365) and in the top 5 for 2 more (docs/evaluation.md, "A document's own IDF").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

DEPTH = 50
"""BM25 candidates whose order within their documents is decided here (a document's best passage for the question
may rank below another document's passages, and only these are looked at)."""


def take_places(places: Sequence[T], document_of: Callable[[T], str],
                order: Callable[[list[T]], Sequence[T]]) -> list[tuple[T, T]]:
    """``places`` (a ranking, best first) with each document's items put in ``order`` and taking, one by one, that
    document's places: ``(item, place)`` pairs in place order. Which documents hold which ranks stays the ranking's."""
    groups: dict[str, list[T]] = {}
    for item in places:
        groups.setdefault(document_of(item), []).append(item)
    queues = {document: iter(order(group)) for document, group in groups.items()}
    return [(next(queues[document_of(place)]), place) for place in places]


def shared_documents(documents: Iterable[str]) -> set[str]:
    """The documents that hold two or more of a ranking's places (a lone candidate has no place to trade)."""
    return {document for document, count in Counter(documents).items() if count > 1}


def order_within_documents(items: Sequence[T], local: Sequence[float], document_of: Callable[[T], str],
                           score_of: Callable[[T], float], placed: Callable[[T, float, float], T]) -> list[T]:
    """``items`` (best first) with each document's items ordered by score plus ``local`` (their score with the
    document's own IDF) among that document's places; each keeps the score of the place it takes (``placed(item,
    place score, local score)``), so the ranking's scores still fall. Equal sums keep their order."""
    taken = take_places(list(zip(items, local)), lambda pair: document_of(pair[0]),
                        lambda group: sorted(group, key=lambda pair: -(score_of(pair[0]) + pair[1])))
    return [placed(item, score_of(place), own) for (item, own), (place, _) in taken]

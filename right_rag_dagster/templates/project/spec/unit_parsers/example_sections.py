"""Example unit parser: plain-text documents with numbered section headings (``1``, ``1.1``, ``1.1.1``, ...).

What it accepts
    A plain-text document (not a PDF) with at least two numbered headings in sequence, the first numbered ``1``.
    A heading is a line after a blank line (or the first line) that starts, without indentation, with ``1``,
    ``1.``, ``2.3`` or ``2.3.`` and a short title: a capital letter first (after an optional quote), no full
    stop last. A number only counts as a heading when it follows the previous one (``2.3`` may be followed by
    ``2.3.1``, ``2.4`` or ``3``), so numbered lists and page numbers inside the text are not mistaken for
    sections. Anything else is left to other parsers, or reported as ``unsupported`` when no parser accepts it,
    never forced into one giant unit.

What it returns
    One unit per section, nested by numbering depth (``2.3`` sits under ``2``) and keyed by the section number, so
    ids stay stable when a title is reworded. Text before the first heading becomes a ``Preamble`` unit. A unit's
    span runs from its heading to the next heading at the same or a higher level (so it contains its
    subsections); its ``fulltext`` is its own text up to its first subsection.

Adapt it
    Copy this file, rename the class and ``parser_name``, and change ``HEADING`` and ``parser_can_handle_document``
    to the markers of your documents (Chapter / Section / Article, หมวด / มาตรา, ...). Keep acceptance narrow:
    one parser per document family. Then run ``right-rag index`` and ``right-rag report`` to see each document's
    coverage and the documents no parser accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import Document, ParsedUnit

# "2.3 Title" or "2.3. Title" as the first line of a paragraph (at the start of the text or after a blank line);
# the title starts with a capital letter (after an optional quote), is at most 80 characters long and does not
# end like a sentence.
HEADING = re.compile(r"(?:\A|(?<=\n\n))(?P<number>\d+(?:\.\d+)*)\.?[ \t]+(?P<title>[\"“']?[A-Z][^\n]{0,78}[^.\n])$",
                     re.MULTILINE)


def follows(previous: tuple[int, ...], number: tuple[int, ...]) -> bool:
    """True when ``number`` can come right after ``previous``: its first child, or the next sibling at any level."""
    if number == (*previous, 1):
        return True
    return any(number == (*previous[:level], previous[level] + 1) for level in range(len(previous)))


def section_headings(text: str) -> list[tuple[tuple[int, ...], re.Match[str]]]:
    """The heading lines of ``text`` in order, keeping only numbers that follow the previous heading."""
    headings: list[tuple[tuple[int, ...], re.Match[str]]] = []
    previous: tuple[int, ...] = (0,)  # so that the first heading must be "1"
    for match in HEADING.finditer(text):
        number = tuple(int(part) for part in match["number"].split("."))
        if follows(previous, number):
            headings.append((number, match))
            previous = number
    return headings


def without_trailing_space(text: str, start: int, end: int) -> int:
    """``end`` moved back over whitespace, so a span does not end in the blank lines before the next heading."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


class ExampleSectionParser(UnitParser):
    """Numbered sections (1, 1.1, 1.1.1, ...) of plain-text documents, nested by their numbering."""

    @property
    def parser_name(self) -> str:
        return "example-sections"

    def parser_can_handle_document(self, document: Document) -> bool:
        # Narrow on purpose: plain text (a PDF has a page map; its running headers and table of contents need
        # a parser of their own) with two headings in sequence, starting at 1. Anything else is not ours.
        return not document.page_starts and len(section_headings(document.text)) >= 2

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        headings = section_headings(text)
        roots: list[ParsedUnit] = []
        first = headings[0][1].start()
        if text[:first].strip():
            preamble = text[:first].rstrip()
            roots.append(ParsedUnit(topic="Preamble", fulltext=preamble.strip(), source_start=0,
                                    source_end=len(preamble), attributes={"unit_type": "preamble"}))
        open_sections: list[tuple[tuple[int, ...], ParsedUnit]] = []  # the current path from the root
        for index, (number, match) in enumerate(headings):
            # A section ends where the next heading at the same or a higher level starts; its own text ends at
            # the next heading of any level (its first subsection, if it has one).
            end = next((m.start() for n, m in headings[index + 1:] if len(n) <= len(number)), len(text))
            own_end = headings[index + 1][1].start() if index + 1 < len(headings) else end
            key = ".".join(str(part) for part in number)
            unit = ParsedUnit(
                topic=f"{key} {match['title'].strip()}",
                key=key,  # the section number: unique among siblings and stable when the title changes
                fulltext=text[match.start():own_end].strip(),
                source_start=match.start(),
                source_end=without_trailing_space(text, match.start(), end),
                attributes={"unit_type": "section", "number": key, "level": len(number)},
            )
            while open_sections and len(open_sections[-1][0]) >= len(number):
                open_sections.pop()
            (open_sections[-1][1].subunits if open_sections else roots).append(unit)
            open_sections.append((number, unit))
        return roots

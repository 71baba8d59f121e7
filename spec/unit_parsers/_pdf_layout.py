"""Private helper of the manual parser: page furniture, table of contents and footnotes of a paged document.

Works on the text layer the default loader extracts (pages joined with newlines, with a page map and printed
page labels). Not a plugin. Furniture = running headers, page-number lines, running footers and the
"(continued from previous page)" markers of typeset code blocks: text that belongs to the page, not the content.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass

from right_rag_dagster.core.model import Document

_CONTINUED = re.compile(r"^\((continued from previous page|continues on next page)\)$")
_FOOTER_REST = re.compile(r"^(?:Chapter|CHAPTER|Appendix|APPENDIX|Section)\b|^\d+(?:\.\d+)*\.?\s|^[A-Z][A-Z &,-]+$")
_CONTENTS = re.compile(r"^(CONTENTS|Contents|Table of Contents|TABLE OF CONTENTS)$")
_TOC_ENTRY = re.compile(
    r"^(?:(?:Chapter|CHAPTER|Appendix|APPENDIX)\s+)?(?P<num>(?:\d+|[A-Z])(?:\.\d+)*\.?\s+)?(?P<title>\S.*?)"
    r"(?:\s*(?:\.\s*){2,}|\s+)(?P<page>\d+|[ivxlcdm]+)$"
)
_FOOTNOTE_START = re.compile(r"^(?P<n>\d{1,3})(?:[ \t]+(?=\S)|$|(?=[A-Z]))")


@dataclass(frozen=True)
class Line:
    """One line of the text layer: its span, text (stripped) and physical page (1-based)."""

    start: int
    end: int
    text: str
    page: int


@dataclass(frozen=True)
class TocEntry:
    """One table-of-contents line: numbering (None for 'Index' and the like), title and printed page label."""

    numbering: str | None
    title: str
    page_label: str


@dataclass(frozen=True)
class Footnote:
    """A footnote at the foot of a page: its number and span."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Layout:
    """The page structure of a document: lines, furniture spans, the contents span and entries, footnotes."""

    lines: tuple[Line, ...]
    furniture: tuple[tuple[int, int], ...]
    toc_span: tuple[int, int] | None
    toc_entries: tuple[TocEntry, ...]
    footnotes: tuple[Footnote, ...]
    furniture_starts: tuple[int, ...] = ()

    def furniture_in(self, start: int, end: int) -> list[tuple[int, int]]:
        """Furniture spans that overlap ``[start, end)``, clipped to it."""
        first = max(0, bisect_right(self.furniture_starts, start) - 1)
        last = bisect_left(self.furniture_starts, end)
        return [(max(s, start), min(e, end)) for s, e in self.furniture[first:last] if e > start and s < end]

    def furniture_chars(self, start: int, end: int) -> int:
        return sum(e - s for s, e in self.furniture_in(start, end))


def analyse(document: Document) -> Layout:
    """Find furniture, the table of contents and footnotes of a paged document."""
    lines = _lines(document)
    pages: dict[int, list[Line]] = {}
    for line in lines:
        pages.setdefault(line.page, []).append(line)
    furniture = _furniture(document, pages)
    content = [line for line in lines if (line.start, line.end) not in furniture and line.text]
    toc_span, entries = _table_of_contents(content)
    after_toc = [line for line in content if toc_span is None or line.start >= toc_span[1]]
    footnotes = _footnotes(after_toc)
    spans = tuple(sorted(furniture))
    return Layout(tuple(lines), spans, toc_span, tuple(entries), tuple(footnotes), tuple(s for s, _ in spans))


def _lines(document: Document) -> list[Line]:
    text, lines, position = document.text, [], 0
    while position <= len(text):
        newline = text.find("\n", position)
        stop = len(text) if newline < 0 else newline
        raw = text[position:stop]
        lead = len(raw) - len(raw.lstrip())
        stripped = raw.strip()
        start = position + lead
        lines.append(Line(start, start + len(stripped), stripped, document.page_at(position) or 1))
        if newline < 0:
            break
        position = newline + 1
    return lines


def _norm(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.split()))


def _furniture(document: Document, pages: dict[int, list[Line]]) -> set[tuple[int, int]]:
    """Headers (repeated first lines), page-number lines with their running titles, footers, continuation marks."""
    firsts = Counter(_norm(lines[0].text) for lines in pages.values() if lines and lines[0].text)
    repeated = {text for text, count in firsts.items() if count >= max(3, len(pages) // 5)}
    found: set[tuple[int, int]] = set()
    for page, lines in pages.items():
        texts = [line for line in lines if line.text]
        label = document.page_label(page) or str(page)
        marks = _page_marks(texts, label, str(page), repeated)
        found.update((texts[i].start, texts[i].end) for i in marks)
    return found


def _page_marks(lines: list[Line], label: str, physical: str, repeated: set[str]) -> set[int]:
    """Indexes of the furniture lines at the top and the bottom of one page."""
    numbers = {label, physical}
    marks: set[int] = set()
    index = 0
    while index < min(3, len(lines)):
        text = lines[index].text
        next_text = lines[index + 1].text if index + 1 < len(lines) else ""
        running = index == 0 and (next_text in numbers or _is_footer(text, label))
        if text in numbers or _norm(text) in repeated or _CONTINUED.match(text) or running:
            marks.add(index)
            index += 1
            continue
        break
    last = len(lines) - 1
    if last > max(marks, default=-1):
        for offset in range(2):
            i = last - offset
            if i <= max(marks, default=-1):
                break
            text = lines[i].text
            if text in numbers or _CONTINUED.match(text) or _is_footer(text, label):
                marks.add(i)
                if offset == 1:
                    marks.add(last)  # a footer wrapped onto a second line
                break
    marks.update(i for i, line in enumerate(lines) if _CONTINUED.match(line.text))  # typeset code-block marks
    return marks


def _is_footer(text: str, label: str) -> bool:
    """'26 Chapter 4. Source packages', '4.9. Main building script: debian/rules 27', '2 CONTENTS'."""
    if text.startswith(label) and not text[len(label):len(label) + 1].isdigit():
        rest = text[len(label):].strip()
        return bool(rest) and bool(_FOOTER_REST.match(rest))
    if text.endswith(" " + label):
        return bool(_FOOTER_REST.match(text[: -len(label)].strip()))
    return False


def _table_of_contents(lines: list[Line]) -> tuple[tuple[int, int] | None, list[TocEntry]]:
    """The contents heading and the run of entry lines after it ('4.9.1 Title . . . 26'); wrapped titles joined."""
    head = next((i for i, line in enumerate(lines[:400]) if _CONTENTS.match(line.text)), None)
    if head is None:
        return None, []
    entries: list[TocEntry] = []
    end, pending, misses = lines[head].end, "", 0
    for line in lines[head + 1:]:
        match = _TOC_ENTRY.match(f"{pending} {line.text}".strip())
        if match and (match.group("num") or len(match.group("title")) <= 60):
            numbering = (match.group("num") or "").strip().rstrip(".") or None
            entries.append(TocEntry(numbering, match.group("title").strip(), match.group("page")))
            end, pending, misses = line.end, "", 0
        elif misses < 2 and len(line.text) < 120 and entries:
            pending, misses = f"{pending} {line.text}".strip(), misses + 1  # a title wrapped onto more lines
        else:
            break
    return ((lines[head].start, end), entries) if len(entries) >= 3 else (None, [])


def _footnotes(lines: list[Line]) -> list[Footnote]:
    """Numbered notes at the foot of each page; numbers run on (or restart at 1) and need a marker above them."""
    found: list[Footnote] = []
    last = 0
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    for page_lines in by_page.values():
        begin = None
        for index, line in enumerate(page_lines):
            match = _FOOTNOTE_START.match(line.text)
            if not match:
                continue
            number = int(match.group("n"))
            if number not in (last + 1, last + 2, 1) or _repeated_below(page_lines, index, number):
                continue
            above = "\n".join(item.text for item in page_lines[:index])
            if _has_marker(above, number):
                begin = index
                break
        if begin is None:
            continue
        current_start, current = page_lines[begin].start, int(_FOOTNOTE_START.match(page_lines[begin].text).group("n"))
        previous_end = page_lines[begin].end
        for line in page_lines[begin + 1:]:
            match = _FOOTNOTE_START.match(line.text)
            if match and int(match.group("n")) == current + 1:
                found.append(Footnote(current, current_start, previous_end))
                current_start, current = line.start, current + 1
            previous_end = line.end
        found.append(Footnote(current, current_start, page_lines[-1].end))
        last = current
    return found


def _repeated_below(lines: list[Line], index: int, number: int) -> bool:
    """A number alone on a line is the marker, not the note, when the same number starts a line further down
    or the next line starts with a digit (a heading such as '11.2 Daemons')."""
    if lines[index].text != str(number):
        return False
    following = lines[index + 1].text if index + 1 < len(lines) else ""
    later = (_FOOTNOTE_START.match(line.text) for line in lines[index + 1:])
    return following[:1].isdigit() or any(m is not None and int(m.group("n")) == number for m in later)


def _has_marker(text: str, number: int) -> bool:
    """A footnote mark: glued to a word ('conversant.1', 'document19 means'), after 'text. ', or on its own line."""
    glued = re.search(rf"(?:[^\s\d]|[.,;:)] ){number}(?=\s|$)", text)
    return glued is not None or re.search(rf"(?m)^{number}$", text) is not None

"""Policy manuals and technical standards as PDFs (Debian Policy, FHS, ...): chapter > section > subsection.

Accepts a paged document (PDF text layer with a page map) whose numbered headings can be found: from its table
of contents ('4.9.1 Title . . . 26', located again in the body on the page the contents names) or, without one,
from numbered heading lines that follow each other (1, 1.1, 1.2, 2). Running headers, page-number lines and
running footers are furniture: no unit's own text contains them. Where a section's text crosses a page break
(or a footnote), its text is split into ``passage`` units around the furniture, and footnotes become
``footnote`` units. The table of contents and the index are ``navigation`` units (kept, never chunked).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")
P = load_helper(__file__, "_pdf_layout.py")

MIN_HEADINGS = 5
MIN_LOCATED = 0.8
_LEVEL_TYPES = {1: "chapter", 2: "section", 3: "subsection"}
_NAVIGATION_TITLES = re.compile(r"\bindex\b", re.I)
_PREFIX = r"^(?:(?:Chapter|CHAPTER|Appendix|APPENDIX)\s+)?"
_NUMBERED = re.compile(_PREFIX + r"(?P<num>\d+(?:\.\d+)*)\.?\s+(?P<title>\S.{0,150})$")
_VERSION = re.compile(r"\b(Release|Version)\s+(\d[\w.]*\w)")
_MAX_TITLE_WORDS = 12


@dataclass(frozen=True)
class _Heading:
    """A located heading: numbering (None for 'Index'), title, span of the heading lines."""

    numbering: str | None
    title: str
    start: int
    heading_end: int

    @property
    def level(self) -> int:
        return len(self.numbering.split(".")) if self.numbering else 1


class ManualParser(UnitParser):
    """Numbered manuals and standards in PDF; rejects paged documents whose headings cannot be located."""

    def __init__(self) -> None:
        self._layouts: dict[tuple[str, int], object] = {}

    @property
    def parser_name(self) -> str:
        return "manual"

    def parser_can_handle_document(self, document: Document) -> bool:
        if not document.page_starts or H.man_page_header(document.text):
            return False
        layout = self._layout(document)
        numbered = [e for e in layout.toc_entries if e.numbering]
        return len(numbered) >= MIN_HEADINGS or len(_fallback_headings(layout)) >= MIN_HEADINGS

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        layout = self._layout(document)
        headings, missing = _locate_headings(document, layout)
        if len(headings) < MIN_HEADINGS or len(headings) < MIN_LOCATED * (len(headings) + len(missing)):
            raise DocumentRejected(
                document.id, f"found {len(headings)} of {len(headings) + len(missing)} table-of-contents headings in "
                f"the body (need {MIN_LOCATED:.0%}); first missing: {[m.title for m in missing[:3]]}")
        info = _document_info(document, layout, self.parser_name)
        builder = _TreeBuilder(document, layout)
        nodes = builder.front_matter(headings[0].start) + builder.sections(headings)
        return [H.to_parsed(document, info, node) for node in nodes]

    def _layout(self, document: Document):
        key = (document.id, hash(document.text))
        if key not in self._layouts:
            self._layouts = {key: P.analyse(document)}  # keep one: can_handle then parse the same document
        return self._layouts[key]


def _document_info(document: Document, layout, parser: str):
    """The title is the document's opening line when it reads like a title, even when it repeats as a running header
    (a specification names itself on every page); otherwise the first line that is not page furniture."""
    opening = next((line.text.strip() for line in layout.lines if line.text and line.text.strip()), "")
    first = opening if _title_like(opening) else next(
        (line.text for line in layout.lines if line.text and (line.start, line.end) not in layout.furniture),
        document.id)
    head = document.text[: document.page_starts[2] if len(document.page_starts) > 2 else 4000]
    version = _VERSION.search(head)
    label = H.labelled(first, version and version.group(0))
    return H.DocumentInfo(title=first, label=label, parser=parser)


def _title_like(line: str) -> bool:
    """A short line with letters that is not a sentence, an address, a page number or a contents entry."""
    words = line.split()
    return (0 < len(words) <= _MAX_TITLE_WORDS and bool(re.search(r"[^\W\d_]{2}", line)) and not line.endswith(".")
            and "://" not in line and "@" not in line and not _NUMBERED.match(line))


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _locate_headings(document: Document, layout) -> tuple[list[_Heading], list]:
    """Find each contents entry in the body, in order, on or just after the page the contents gives."""
    body_start = layout.toc_span[1] if layout.toc_span else 0
    furniture = set(layout.furniture)
    lines = [line for line in layout.lines if line.text and line.start >= body_start
             and (line.start, line.end) not in furniture]
    if not layout.toc_entries:
        return _fallback_headings(layout), []
    pages_by_label: dict[str, list[int]] = {}
    for page in range(1, document.page_count + 1):
        pages_by_label.setdefault(document.page_label(page) or str(page), []).append(page)
    headings, missing, position = [], [], 0
    for entry in layout.toc_entries:
        current_page = lines[position].page if position < len(lines) else document.page_count
        targets = [p for p in pages_by_label.get(entry.page_label, []) if p >= current_page]
        last_page = (targets[0] + 1) if targets else current_page + 2
        window_end = next((i for i in range(position, len(lines)) if lines[i].page > last_page), len(lines))
        found = _match(lines, position, window_end, entry)
        if found is None:
            missing.append(entry)
            continue
        first, last = found
        headings.append(_Heading(entry.numbering, entry.title, lines[first].start, lines[last].end))
        position = last + 1
    return headings, missing


def _match(lines: list, begin: int, end: int, entry) -> tuple[int, int] | None:
    """Index of the first and last line of the heading for ``entry`` within ``lines[begin:end]``."""
    title = _norm(entry.title)
    for index in range(begin, end):
        text = lines[index].text
        rests: list[tuple[str, int]] = []
        if entry.numbering:
            numbered = re.match(_PREFIX + rf"{re.escape(entry.numbering)}\.?(?:\s+|$)(.*)$", text)
            if numbered:
                rests.append((numbered.group(1), index))
            if text in ("CHAPTER", "APPENDIX") and index + 2 < end:  # Sphinx: CHAPTER / FOUR / SOURCE PACKAGES
                rests.append(("", index + 1))
        elif _norm(text) and title.startswith(_norm(text)):
            rests.append((text, index))
        for rest, last in rests:
            covered = _norm(rest)
            while len(covered) < len(title) and last + 1 < min(end, index + 5):
                last += 1
                covered += _norm(lines[last].text)
            if covered == title:
                return index, last
    return None


def _fallback_headings(layout) -> list[_Heading]:
    """Without a table of contents: numbered heading lines that follow each other in outline order."""
    headings: list[_Heading] = []
    previous, furniture = None, set(layout.furniture)
    for line in layout.lines:
        match = _NUMBERED.match(line.text)
        if not match or (line.start, line.end) in furniture or not match.group("title")[0].isupper():
            continue
        numbers = H.numbering_tuple(match.group("num"))
        if H.is_next_number(previous, numbers):
            headings.append(_Heading(match.group("num"), match.group("title").strip(), line.start, line.end))
            previous = numbers
    return headings


class _TreeBuilder:
    """Builds section nodes whose own text never contains furniture (split into passages where it would)."""

    def __init__(self, document: Document, layout) -> None:
        self.document, self.layout, self.text = document, layout, document.text
        self.footnotes = list(layout.footnotes)

    def front_matter(self, first_heading: int) -> list:
        nodes = []
        toc = self.layout.toc_span
        regions = [("title page", "Title page", 0, toc[0] if toc else first_heading, "front_matter", "notice")]
        if toc:
            regions.append(("contents", "Contents", toc[0], toc[1], "table_of_contents", "navigation"))
            regions.append(("front matter", "Front matter", toc[1], first_heading, "front_matter", None))
        for key, topic, start, end, unit_type, role in regions:
            node = self._node(key, topic, start, end, unit_type, role, {"heading": topic})
            if node is not None:
                self._close(node)
                nodes.append(node)
        return nodes

    def sections(self, headings: list[_Heading]) -> list:
        items: list[tuple[int, object]] = []
        ends = [h.start for h in headings[1:]] + [len(self.text)]
        deeper = [nxt.level > h.level for h, nxt in zip(headings, headings[1:])] + [False]
        for heading, region_end, has_children in zip(headings, ends, deeper):
            navigation = heading.numbering is None and _NAVIGATION_TITLES.search(heading.title)
            unit_type = "index" if navigation else _LEVEL_TYPES.get(heading.level, "subsubsection")
            topic = f"{heading.numbering} {heading.title}" if heading.numbering else heading.title
            attributes = {"heading": self.text[heading.start:heading.heading_end]}
            if heading.numbering:
                attributes["numbering"] = heading.numbering
            role = "navigation" if navigation else H.heading_role(heading.title)
            node = self._node(heading.numbering or _norm(heading.title), topic, heading.start, region_end,
                              unit_type, role, attributes, has_children)
            if node is not None:
                items.append((heading.level, node))
        roots = H.nest(items)
        for root in roots:
            self._close(root)
        return roots

    def _node(self, key: str, topic: str, start: int, end: int, unit_type: str, role, attributes: dict,
              has_children: bool = False):
        """A unit for ``[start, end)``: its text pieces between furniture and footnotes become passages if several,
        or if furniture would sit between its own text and its first child (inside its own span)."""
        cuts = self.layout.furniture_in(start, end)
        notes = [f for f in self.footnotes if start <= f.start and f.end <= end]
        cuts = sorted(cuts + [(f.start, f.end) for f in notes])
        pieces, position = [], start
        for cut_start, cut_end in cuts:
            pieces.append(H.trim(self.text, position, cut_start))
            position = max(position, cut_end)
        pieces.append(H.trim(self.text, position, end))
        pieces = [(s, e) for s, e in pieces if e > s]
        if not pieces:
            return None
        node = H.Node(key, topic, pieces[0][0], pieces[-1][1], unit_type, role=role, attributes=dict(attributes))
        trailing = bool(cuts) and cuts[-1][1] > pieces[-1][1]
        if len(pieces) > 1 or notes or (has_children and trailing):
            node.children = self._passages(topic, pieces, notes, role)
        elif not role:
            node.role = H.text_role(self.text[pieces[0][0]:pieces[0][1]], legal=False)
        return node

    def _passages(self, topic: str, pieces: list[tuple[int, int]], notes: list, role: str | None) -> list:
        seen: dict[str, int] = {}
        items = [(s, e, None) for s, e in pieces] + [(f.start, f.end, f.number) for f in notes]
        children = []
        for start, end, number in sorted(items):
            start, end = H.trim(self.text, start, end)
            body = self.text[start:end]
            if number is None:
                label = self.document.page_label(self.document.page_at(start))
                children.append(H.Node(H.unique_key(f"page {label}", seen), f"{topic} (page {label})", start, end,
                                       "passage", role=role if role == "navigation" else H.text_role(body, legal=False),
                                       in_path=False))
            else:
                children.append(H.Node(H.unique_key(f"footnote {number}", seen), f"Footnote {number}", start, end,
                                       "footnote", role="note", attributes={"footnote_number": number}))
        return children

    def _close(self, node) -> None:
        """Parents span their children; record furniture inside the span but outside the children."""
        for child in node.children:
            self._close(child)
        if node.children:
            node.end = max(node.end, node.children[-1].end)
        inside = self.layout.furniture_chars(node.start, node.end)
        node.attributes["furniture_chars"] = inside - sum(
            self.layout.furniture_chars(child.start, child.end) for child in node.children)
        node.fulltext = self._clean(node.start, node.end)

    def _clean(self, start: int, end: int) -> str:
        """The unit's text with furniture lines removed (what a reader sees as the section's content)."""
        parts, position = [], start
        for cut_start, cut_end in self.layout.furniture_in(start, end):
            parts.append(self.text[position:cut_start])
            position = cut_end
        parts.append(self.text[position:end])
        return re.sub(r"\n{2,}", "\n", "".join(parts)).strip()

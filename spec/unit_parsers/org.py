"""Emacs Org-mode documents read as text (GnuPG's ``doc/DETAILS``, zutty's ``README.org``).

Org marks a heading with stars at the left margin (``* Format of the colon listings``, ``*** Field 2 - Validity``),
the title with ``#+TITLE:``, blocks with ``#+begin_example`` ... ``#+end_example`` (their lines are no headings) and a
description list's items with ``- term :: text``. Accepts a document that says it is Org (an Emacs mode line
``-*- org -*-`` on its first line, a ``#+TITLE:`` line near the top, or a name ending in ``.org``) and has at least two
headings: a star at a line's start is a bullet elsewhere. Tree: one unit per heading nested by its level; a section
whose own text lists at least three description items holds one ``entry`` per item (the text between them as
``paragraph`` units). The document is titled by ``#+TITLE:``, else by its file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.markdown import inside
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_HEADINGS = 2
MIN_ENTRIES = 3
TITLE_LINES = 20
"""``#+TITLE:`` is looked for among this many first lines."""
_MODE_LINE = re.compile(r"-\*-(?:[^\n]*?\bmode:)?[ \t]*org[ \t]*(?:;[^\n]*)?-\*-", re.I)
_TITLE = re.compile(r"^#\+TITLE:[ \t]*(?P<title>\S[^\n]*?)[ \t]*$", re.I | re.M)
_HEADING = re.compile(r"^(?P<stars>\*+)[ \t]+(?P<text>\S[^\n]*?)(?:[ \t]+:[\w@#%:]+:)?[ \t]*$", re.M)
_BLOCK = re.compile(r"^[ \t]*#\+begin_(?P<kind>\w+)[^\n]*\n.*?^[ \t]*#\+end_(?P=kind)[ \t]*$", re.I | re.M | re.S)
_ITEM = re.compile(r"^(?P<indent>[ \t]*)[-+][ \t]+(?P<term>\S[^\n]*?)[ \t]+::(?:[ \t]|$)", re.M)
_LEVEL_TYPES = {1: "section", 2: "subsection"}
_MARKUP = re.compile(r"(?<!\w)([*/=~_+])(\S(?:[^\n]*?\S)?)\1(?!\w)")


class OrgParser(UnitParser):
    """Emacs Org-mode text: star headings nested by level, description-list entries."""

    @property
    def parser_name(self) -> str:
        return "org"

    def parser_can_handle_document(self, document: Document) -> bool:
        return _problem(document) is None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        problem = _problem(document)
        if problem:
            raise DocumentRejected(document.id, problem)
        text = document.text
        headings = _headings(text)
        title_line = _title_line(text)
        title = plain(title_line.group("title")) if title_line else H.file_title(document.id)
        info = H.DocumentInfo(title=title, label=title, parser=self.parser_name)
        items: list[tuple[int, object]] = []
        start, end = H.trim(text, 0, headings[0].start())
        if end > start:
            items.append((1, H.Node("preamble", "Preamble", start, end, "front_matter", role="notice")))
        ends = [m.start() for m in headings[1:]] + [len(text)]
        for heading, region_end in zip(headings, ends):
            level = len(heading.group("stars"))
            topic = plain(heading.group("text"))
            start, end = H.trim(text, heading.start(), region_end)
            node = H.Node(topic, topic, start, end, _LEVEL_TYPES.get(level, "subsubsection"),
                          role=H.heading_role(topic), attributes={"heading": topic})
            node.children = _entries(text, heading.end(), end)
            H.leaf_roles(text, node)
            items.append((level, node))
        roots = H.nest(items)
        H.unique_sibling_keys(roots)
        return [H.to_parsed(document, info, node) for node in roots]


def _problem(document: Document) -> str | None:
    """Why this is not an Org document (nothing says so, too few headings), else None."""
    text = document.text
    first = text.split("\n", 1)[0]
    declared = _MODE_LINE.search(first) or _title_line(text) or document.id.lower().endswith(".org")
    if document.page_starts or not declared:
        return "not an Org document: no '-*- org -*-' mode line, '#+TITLE:' line or '.org' name"
    found = len(_headings(text))
    if found < MIN_HEADINGS:
        return f"{found} Org headings ('* Heading' at the left margin; need {MIN_HEADINGS})"
    return None


def _title_line(text: str) -> re.Match[str] | None:
    """The ``#+TITLE:`` line among the first ``TITLE_LINES`` lines."""
    return _TITLE.search("\n".join(text.splitlines()[:TITLE_LINES]))


def _headings(text: str) -> list[re.Match[str]]:
    """Star headings outside ``#+begin_...`` blocks."""
    blocks = [m.span() for m in _BLOCK.finditer(text)]
    return [m for m in _HEADING.finditer(text) if not inside(blocks, m.start())]


def _entries(text: str, start: int, end: int) -> list:
    """One ``entry`` per description item of the section's own text (at the items' outermost indentation, up to the
    next line indented as little), the text between them as ``paragraph`` units; fewer than ``MIN_ENTRIES``: none."""
    items = list(_ITEM.finditer(text, start, end))
    if len(items) < MIN_ENTRIES:
        return []
    margin = min(len(m.group("indent").expandtabs()) for m in items)
    items = [m for m in items if len(m.group("indent").expandtabs()) == margin]
    if len(items) < MIN_ENTRIES:
        return []
    nodes, position = [], start
    for item in items:
        if item.start() < position:
            continue
        nodes += _paragraph(text, position, item.start())
        stop = end
        for line_start, line_end in H.line_spans(text, text.find("\n", item.start(), end) + 1 or end, end):
            line = text[line_start:line_end]
            if line.strip() and len(line.expandtabs()) - len(line.expandtabs().lstrip()) <= margin:
                stop = line_start
                break
        s, e = H.trim(text, item.start(), stop)
        term = plain(item.group("term"))[:80] or "Item"
        nodes.append(H.Node(term, term, s, e, "entry", attributes={"heading": term}))
        position = stop
    return nodes + _paragraph(text, position, end)


def _paragraph(text: str, start: int, end: int) -> list:
    """The text between entries as one ``paragraph`` unit; none when only blanks are there."""
    s, e = H.trim(text, start, end)
    return [H.Node("paragraph", "Paragraph", s, e, "paragraph", in_path=False)] if e > s else []


def plain(markup: str) -> str:
    """Org text as a reader sees it: ``=code=``, ``*bold*``, ``/italic/`` without their marks, links by their
    description (``[[https://x][X]]`` as ``X``)."""
    text = re.sub(r"\[\[(?:[^\]]*)\]\[([^\]]*)\]\]", r"\1", markup)
    text = re.sub(r"\[\[([^\]]*)\]\]", r"\1", text)
    return " ".join(_MARKUP.sub(r"\2", text).split())

"""Specifications exported to Markdown (HTML/DOCX through Docling, or .md files) with numbered headings.

Accepts a Markdown document with at least three ATX headings after its title (with fewer it declines, so a
project's fallback parser can take it: a short licence or a page with one heading is not lost). Sections come from its numbered headings (``## 4. File syntax``,
``### 4.1. Single-line values``, ``# Chapter 2. Menu Structure``) when it has at least three, else from all
headings after the title by their level (``## Overview`` > ``### Ruby packages``). Tree: front matter (title, version, notices, abstract), the table of contents
(a list of links to anchors, a ``navigation`` unit), then sections nested by their numbering. Subsections of a
section titled ``Fields`` are ``field_definition`` units whose ``defined_term`` is the field name. A section whose
paragraphs open with bold terms (an API reference's functions, a change log's releases) holds one ``entry`` per term.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.markdown import fenced_spans, inside
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_SECTIONS = 3
CHROME_CHARS = 200
"""At most this many characters between two ``#`` headings when the first is a site's name, not the title."""
LEAD_CHARS = 300
"""A document without a ``#`` heading that has this many characters of prose before its first heading (a README
that opens with a logo and a paragraph) has no title heading: its first heading is a section."""
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>\S.*?)[ \t#]*$", re.M)
_NUMBERED = re.compile(r"^(?:(?:Chapter|Appendix)[ \t\u00a0]+)?(?P<num>\d+(?:\.\d+)*)\.?[ \t\u00a0]+(?P<title>\S.*)$")
_TOC_LINE = re.compile(r"^[ \t]*[-*+][ \t]+\[.*\]\(#[^)]*\)")
_TOC_TITLE = re.compile(r"^\W*(table of contents|contents)\W*$", re.I)
_FIELDS = re.compile(r"^fields?$", re.I)
_VERSION = re.compile(r"\bVersion\s+(\d[\w.]*)", re.I)


def _plain(markdown: str) -> str:
    """Heading text without emphasis, code marks, links and a Sphinx permalink mark: ``**`Format`**`` gives
    ``Format``, ``IDLE ¶`` gives ``IDLE``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"[*_`]+", "", text).strip().removesuffix("¶").strip()


def _heading_title(markdown: str) -> str:
    """A title heading's text without the badges after the name: "pkgconf [![test](…/badge.svg)](…)", which Docling
    renders "pkgconf <!-- image --> [test](…)", is "pkgconf" (what comes before the first image, if anything does)."""
    image = _IMAGE.search(markdown)
    if image and _plain(_IMAGE.sub("", markdown[:image.start()])):
        markdown = markdown[:image.start()]
    return _plain(_IMAGE.sub("", markdown))


_IMAGE = re.compile(r"\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?|<!-- image -->")


class MarkdownSpecParser(UnitParser):
    """Markdown specifications, by numbered headings or else by heading level; rejects Markdown with too few."""

    @property
    def parser_name(self) -> str:
        return "markdown-spec"

    def parser_can_handle_document(self, document: Document) -> bool:
        converted = document.metadata.get("converted_by") == "docling-markdown"
        markdown_file = Path(document.id).suffix.lower() in {".md", ".markdown"}
        return (not document.page_starts and (converted or markdown_file)
                and len(_section_headings(document.text)[1]) >= MIN_SECTIONS)

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        headings, numbered = _section_headings(text)
        first = _title_index(headings, text)
        if len(numbered) < MIN_SECTIONS:
            raise DocumentRejected(document.id, f"Markdown with {len(numbered)} headings after its title (need "
                                                f"{MIN_SECTIONS}, like '## 1. Introduction'); no section structure")
        title = _heading_title(headings[first].group("text")) if first >= 0 else _lead_title(text, document.id)
        recorded = document.metadata.get("title")
        if recorded and (not any(len(m.group("hashes")) == 1 for m in headings)
                         or len(title.split()) == 1 < len(recorded.split())):
            # a page without a "#" heading, or with a one-word one (a Texinfo page's "Top", "Time"): its <title>
            # names it ("bc Command Manual"), not its first "##" section or its node's name
            title = recorded
        elif recorded and (page := _page_heading(headings, first, recorded)):
            # a site's banner as the one "#" heading over the page's own "## Corepack": the <title> names both
            # ("Corepack | Node.js v20.20.2 Documentation"), or only the page ("Library internals")
            title = recorded if _words(title) <= _words(recorded) else f"{page} — {title}"
        version = _VERSION.search(text, 0, numbered[0][0].start()) if first >= 0 else None
        info = H.DocumentInfo(title=title, label=H.labelled(title, version and version.group(0)),
                              parser=self.parser_name)
        nodes = _front_matter(text, numbered[0][0].start()) + _sections(text, numbered)
        return [H.to_parsed(document, info, node) for node in nodes]


def _section_headings(text: str) -> tuple[list[re.Match[str]], list[tuple[re.Match[str], re.Match[str]]]]:
    """All ATX headings outside code fences, and the section headings: the numbered ones when there are three, else
    every heading after the title numbered by its level."""
    fences = fenced_spans(text)
    headings = [m for m in _HEADING.finditer(text) if not inside(fences, m.start())]
    numbered = [(m, _NUMBERED.match(_plain(m.group("text")))) for m in headings]
    numbered = [(m, n) for m, n in numbered if n]
    if len(numbered) < MIN_SECTIONS and headings:
        # a "## Table of contents" heading over the page's links is front matter, not the parent of every section
        numbered = _by_level([m for m in headings[_title_index(headings, text) + 1:]
                              if not _TOC_TITLE.match(_plain(m.group("text")))])
    return headings, numbered


def _title_index(headings: list[re.Match[str]], text: str) -> int:
    """The title heading: the first ``#`` heading, or the last of a run of them (a web page converted to Markdown
    opens with its site's chrome: "## Keyboard shortcuts", "# The rustc book", then the page's "# Target Tier
    Policy", less than ``CHROME_CHARS`` after the book's); without ``#`` headings, the first heading, unless
    ``LEAD_CHARS`` of text come before it (then -1: no heading is the title). A release's heading or a section's name
    ("Overview", ``_SECTION_NAME``) is no title either (-1)."""
    if not headings:
        return -1
    levels = [len(m.group("hashes")) for m in headings]
    if 1 not in levels:
        lead = len(text[:headings[0].start()].strip())
        return -1 if lead >= LEAD_CHARS or _a_release(headings, 0) or _section_name(headings, 0) else 0
    index = levels.index(1)
    while (index + 1 < len(levels) and levels[index + 1] == 1
           and headings[index + 1].start() - headings[index].end() <= CHROME_CHARS):
        index += 1
    return -1 if _a_release(headings, index) or _section_name(headings, index) else index


_SECTION_NAME = re.compile(r"(?:overview|introduction|description|background|summary|abstract|about|usage|synopsis|"
                           r"preface|getting\s+started|quick\s*start|installation)\W*", re.I)
"""Headings that name a part of a document: ALSA UCM's ``DEBUG.md`` opens with "Overview" and libjpeg-turbo's README
with "Background", each beside the document's other sections at its level; such a heading is a section, and the title
comes from the page's recorded title, the text's opening or the file's name."""


def _section_name(headings: list[re.Match[str]], index: int) -> bool:
    """Heading ``index`` names a part (``_SECTION_NAME``) and a later heading has its level: a sibling section. Alone at
    its level ("# Introduction" over "##" sections, a Hugo page's "# Installation") it names the document."""
    level = headings[index].group("hashes")
    return (_SECTION_NAME.fullmatch(_plain(headings[index].group("text"))) is not None
            and any(m.group("hashes") == level for m in headings[index + 1:]))


_RELEASE_HEADING = re.compile(r"(?P<name>[^\d]*[^\W\d_][^\d]*?)[ \t]+v?(?P<version>\d[\w.-]*)"
                              r"(?:[ \t]*(?:\([^)]*\)|[-–—:][^\n]*))?$")
"""A release heading: a name, a version, and at most a date in parentheses or after a dash ("man-db 2.11.2 (8 January
2023)", "polkit 122"); "Foo 2.0 Manual" is none."""


def _a_release(headings: list[re.Match[str]], index: int) -> bool:
    """Heading ``index`` names a release, as the next heading of its level does: the same words before a number
    ("## polkit 122" ... "## polkit 121", "# man-db 2.11.2 (8 January 2023)" ... "# man-db 2.11.1 (...)"). A change
    log's first release is no title (its NEWS file is)."""
    level = headings[index].group("hashes") if headings else ""
    same = [m.group("text") for m in headings[index:] if m.group("hashes") == level][:2]
    releases = [_RELEASE_HEADING.match(text.strip()) for text in same]
    return (len(releases) == 2 and all(releases) and releases[0].group("name") == releases[1].group("name")
            and releases[0].group("version") != releases[1].group("version"))


_TITLE_PARTS = re.compile(r"\s+(?:[|·–—:-]|::)\s+")


def _page_heading(headings: list[re.Match[str]], first: int, recorded: str) -> str | None:
    """The heading after the title heading when it is what the recorded ``<title>`` names first (the page's own
    name under a site's banner), else None."""
    if first < 0 or first + 1 >= len(headings):
        return None
    page = _heading_title(headings[first + 1].group("text"))
    named = _TITLE_PARTS.split(recorded.strip())[0]
    return page if page and page.casefold() == named.casefold() else None


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _lead_title(text: str, document_id: str) -> str:
    """A document's name from its opening when no heading gives it: a logo's ``alt`` text ("Zstandard") or the
    bold term that starts the first paragraph ("**Zstandard**, or `zstd` ..."), else the file's name."""
    lead = text[:LEAD_CHARS]
    logo = r"^\s*(?:<[^>]*>\s*)*<img\b[^>]*\balt=\"(?P<name>[^\"]{2,60})\""
    bold = r"^(?:\s*(?:<[^>]*>|!\[[^\]]*\]\([^)]*\)|<!-- image -->))*\s*(?:\*\*|__)(?P<name>[^*_\n]{2,60})(?:\*\*|__)"
    for pattern in (logo, bold):
        if (match := re.match(pattern, lead)) and re.search(r"[^\W\d_]", match.group("name")):
            return match.group("name").strip()
    return H.file_title(document_id)


def _by_level(headings: list[re.Match[str]]) -> list[tuple[re.Match[str], re.Match[str]]]:
    """Unnumbered headings numbered by their level and order (``## Overview`` 1, ``### Ruby packages`` 6.1), so they
    nest like numbered ones; the section topics keep the heading's own text."""
    top = min((len(m.group("hashes")) for m in headings), default=1)
    counters: list[int] = []
    out = []
    for match in headings:
        depth = len(match.group("hashes")) - top + 1
        counters = (counters + [0] * depth)[:depth]
        counters[-1] += 1
        numbering = ".".join(str(n) for n in counters)
        out.append((match, _NUMBERED.match(f"{numbering} {_plain(match.group('text'))}")))
    return out


def _front_matter(text: str, end: int) -> list:
    """Title block and notices, the table of contents (a list of anchor links), and anything after it."""
    lines = H.line_spans(text, 0, end)
    toc_lines = [i for i, (s, e) in enumerate(lines) if _TOC_LINE.match(text[s:e])]
    regions = []
    if toc_lines:
        first, last = toc_lines[0], toc_lines[-1]
        previous = [i for i in range(first) if text[slice(*lines[i])].strip()]
        if previous and _TOC_TITLE.match(text[slice(*lines[previous[-1]])]):
            first = previous[-1]
        regions += [("front matter", "Front matter", 0, lines[first][0], "front_matter", "notice"),
                    ("contents", "Contents", lines[first][0], lines[last][1], "table_of_contents", "navigation"),
                    ("after contents", "Front matter (after contents)", lines[last][1], end, "front_matter", None)]
    else:
        regions.append(("front matter", "Front matter", 0, end, "front_matter", "notice"))
    nodes = []
    for key, topic, start, stop, unit_type, role in regions:
        start, stop = H.trim(text, start, stop)
        if stop > start:
            nodes.append(H.Node(key, topic, start, stop, unit_type, role=role, attributes={"heading": topic}))
    return nodes


def _sections(text: str, numbered: list) -> list:
    """Sections nested by numbering depth; each runs to the next numbered heading."""
    items: list[tuple[int, object]] = []
    titles: dict[str, str] = {}
    ends = [m.start() for m, _ in numbered[1:]] + [len(text)]
    seen: dict[str, int] = {}
    for (match, number), region_end in zip(numbered, ends):
        numbering, title = number.group("num"), number.group("title").strip()
        titles[numbering] = title
        depth = len(numbering.split("."))
        field = depth > 1 and bool(_FIELDS.match(titles.get(numbering.rsplit(".", 1)[0], "")))
        unit_type = "field_definition" if field else {1: "section", 2: "subsection"}.get(depth, "subsubsection")
        start, end = H.trim(text, match.start(), region_end)
        attributes = {"numbering": numbering, "heading": text[match.start():match.end()].strip()}
        key, topic = numbering, f"{numbering}. {title}"
        if _NUMBERED.match(_plain(match.group("text"))) is None:  # numbered by _by_level: the text has none
            key, topic = H.unique_key(title, seen), title
            del attributes["numbering"]
        if field:
            attributes["defined_term"] = title
        role = "definition" if field else H.heading_role(title)
        node = H.Node(key, topic, start, end, unit_type, role=role, attributes=attributes)
        items.append((depth, node))
    roots = H.nest(items)
    for root in roots:
        _add_entries(text, root)
        H.leaf_roles(text, root)
    return roots


MIN_ENTRIES = 3
_ENTRY = re.compile(r"\n[ \t]*\n(?P<lead>\*\*(?P<term>[^*\n]{1,80})\*\*)")
_NOT_A_TERM = re.compile(r"^\W*(?:notes?|warning|caution|important|tip|abstract|(?:table of )?contents|list of \w+|"
                         r"examples?|table|figure)\b", re.I)
"""Bold labels that open notes, tables and figures (``**Note:**``, ``**Table 2. ...**``), not entries."""


def _add_entries(text: str, node) -> None:
    """An API reference or a list of releases rendered from HTML: where the text a section has before its subsections
    holds at least ``MIN_ENTRIES`` paragraphs that each open with a different bold term (``**debounce**
    `_.debounce(function, wait)` ...``, ``**1.13.4** - *June 2, 2022*``), each such paragraph opens an ``entry`` that
    runs to the next one; the text before the first stays the section's own."""
    for child in node.children:
        _add_entries(text, child)
    own_end = node.children[0].start if node.children else node.end
    body = text.find("\n", node.start, own_end)
    if body < 0:
        return
    starts = [(m.start("lead"), _plain(m.group("term")).rstrip(":").strip())
              for m in _ENTRY.finditer(text, body, own_end)]
    starts = [(start, term) for start, term in starts if term and not _NOT_A_TERM.match(term)]
    if len({term for _, term in starts}) < MIN_ENTRIES:
        return
    entries, seen = [], {child.key: 1 for child in node.children}  # a "### map" beside "**map**": "map #2"
    for (start, term), stop in zip(starts, [s for s, _ in starts[1:]] + [own_end]):
        start, end = H.trim(text, start, stop)
        entries.append(H.Node(H.unique_key(term, seen), term, start, end, "entry", role=H.heading_role(term),
                              attributes={"heading": term}))
    node.children = entries + node.children

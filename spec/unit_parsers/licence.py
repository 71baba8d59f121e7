"""Licences and contracts in plain text (GPL, LGPL, AGPL, Apache, MPL, CC0, ...): numbered sections and clauses.

Accepts a plain-text document (or a web page converted to Markdown without ``#`` headings, whose numbered
headings are bold lines) whose first lines carry a licence title and that is not a Debian copyright file.
Tree: title notice, preamble, the TERMS AND CONDITIONS block with its numbered sections (``0.``, ``1.1.``),
their clauses (``a)``, ``(b)``, nested by indentation), definitions with the defined term, and the appendices
after the terms. A licence without at least three numbered sections (MIT, BSD, a project's own LICENCE file) is
declined, so a project's fallback parser takes it (accepted and then rejected, it reached no parser at all); if
``parse_document`` is called on one anyway, it is rejected with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_SECTIONS = 3
_HEADING = re.compile(
    r"^(?P<lead>[ \t*]{0,8})(?P<num>\d{1,2}(?:\.\d{1,2}){0,2})(?P<dot>\.?)[ \t]+(?P<rest>\S.*?)[ \t*]*$")
_TERMS = re.compile(r"^[ \t]*TERMS AND CONDITIONS\b.*$", re.M)
_END_TERMS = re.compile(r"^[ \t]*END OF TERMS AND CONDITIONS[ \t]*$", re.M)
_CLAUSE = re.compile(  # (a) (iv) (1) a) 1) a. iv.
    r"^(?P<lead>[ \t]*)(?P<marker>\((?:[a-z]|[ivx]{1,5}|\d{1,2})\)|(?:[a-z]|\d{1,2})\)|(?:[a-z]|[ivx]{1,5})\.)[ \t]+")
_SEPARATOR = re.compile(r"\n(?:[ \t*]*\n)+")  # blank lines and box-drawing lines of asterisks
_DECORATION = re.compile(r"^[\s*=\-_~#]*$")
_CAPS_WORD = re.compile(r"\b[A-Z]{2,}\b")
_APPENDIX_WORD = re.compile(r"^(APPENDIX|ADDENDUM|EXHIBIT|HOW TO|SCHEDULE|ANNEX)\b", re.I)
_MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.M)
_NOTICE_START = re.compile(r"^(Copyright|Everyone|Version|https?:|<|\(C\)|©)", re.I)
_SMALL_WORDS = {"of", "and", "the", "to", "for", "a", "an", "in", "on", "or", "with", "by", "from", "not", "as"}


@dataclass(frozen=True)
class _Heading:
    """A numbered section heading: its numbering, where it starts, and its title when the text has one."""

    numbers: tuple[int, ...]
    numbering: str
    start: int
    title: str | None


class LicenceParser(UnitParser):
    """Plain-text licences with numbered sections; declines licences without them (the fallback parser takes those)."""

    @property
    def parser_name(self) -> str:
        return "licence"

    def parser_can_handle_document(self, document: Document) -> bool:
        if document.page_starts or not _plain_or_flat_markdown(document):
            return False
        if _is_copyright_file_name(document.id) or H.is_pod(document.text, document.id):
            return False  # a POD licence (perlartistic.pod) is read by pod.py, its =head1 sections
        return H.licence_title(document.text) is not None and len(_top_sections(document.text)) >= MIN_SECTIONS

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        title = H.licence_title(text)
        if title is None:
            raise DocumentRejected(document.id, "no licence title (a line naming a License) in the first lines")
        terms_end_match = _END_TERMS.search(text)
        headings = _numbered_headings(text, terms_end_match.start() if terms_end_match else len(text))
        top = [h for h in headings if len(h.numbers) == 1]
        if len(top) < MIN_SECTIONS:
            raise DocumentRejected(
                document.id, f"licence text with {len(top)} numbered sections (need {MIN_SECTIONS}: lines like "
                "'1. Definitions.'); short licences without sections (MIT, BSD) need their own parser")
        info = H.DocumentInfo(title=title, label=title, parser=self.parser_name)
        body_end = terms_end_match.end() if terms_end_match else _appendix_start(text, headings[-1].start)
        nodes = _front_matter(text, 0, headings[0].start, title)
        sections = _section_tree(text, headings, terms_end_match.start() if terms_end_match else body_end)
        terms = _TERMS.search(text, 0, headings[0].start)
        if terms:
            start, end = H.trim(text, terms.start(), body_end)
            nodes.append(H.Node("terms", " ".join(terms.group(0).split()), start, end, "terms", children=sections))
        else:
            nodes.extend(sections)
        nodes.extend(_appendices(text, body_end))
        return [H.to_parsed(document, info, node) for node in nodes]


def _plain_or_flat_markdown(document: Document) -> bool:
    """Plain text, or a web page converted to Markdown without ``#`` headings (a Word-exported licence page bolds
    its numbered headings: ``**1. DEFINITIONS**``); with ``#`` headings the markdown-spec parser takes it."""
    if document.metadata.get("format", "text") == "text":
        return True
    return document.metadata.get("converted_by") == "docling-markdown" and not _MARKDOWN_HEADING.search(document.text)


def _is_copyright_file_name(document_id: str) -> bool:
    name = Path(document_id).name.lower()
    return name == "copyright" or name.endswith(".copyright")




def _top_sections(text: str) -> list[_Heading]:
    """The top-level numbered section headings ``parse_document`` builds its tree from (before the end of the terms)."""
    terms_end_match = _END_TERMS.search(text)
    headings = _numbered_headings(text, terms_end_match.start() if terms_end_match else len(text))
    return [h for h in headings if len(h.numbers) == 1]


def _numbered_headings(text: str, scan_end: int) -> list[_Heading]:
    """Numbered section headings in outline order: each must follow the previous one (1, 1.1, 1.2, 2, ...)."""
    headings: list[_Heading] = []
    previous_blank, top_indent = True, None
    for start, end in H.line_spans(text, 0, scan_end):
        line = text[start:end]
        match = _HEADING.match(line)
        candidate = match and previous_blank and (match.group("dot") or "." in match.group("num"))
        previous_blank = _DECORATION.match(line) is not None
        if not candidate:
            continue
        numbers = H.numbering_tuple(match.group("num"))
        lead = match.group("lead")
        if len(numbers) == 1 and "*" not in lead:
            if top_indent is not None and abs(len(lead) - top_indent) > 1:
                continue
        if not H.is_next_number(headings[-1].numbers if headings else None, numbers):
            continue
        if len(numbers) == 1 and top_indent is None and "*" not in lead:
            top_indent = len(lead)
        headings.append(_Heading(numbers, match.group("num"), start, _heading_title(text, start, match)))
    return headings


def _heading_title(text: str, start: int, match: re.Match[str]) -> str | None:
    """The title of a heading line: the whole line when it stands alone, else a short Title-Case first sentence."""
    block_end = _SEPARATOR.search(text, start)
    block = text[start:block_end.start() if block_end else len(text)]
    block_lines = [line for line in block.split("\n") if not _DECORATION.match(line)]
    rest = match.group("rest")
    if len(block_lines) == 1 or (H.quoted_heading_term(rest) and not rest.rstrip().endswith(".")):
        return rest.rstrip(" .")
    if len(block_lines) == 2 and len(" ".join(block_lines)) <= 110 and not re.search(r"[.;:,]", block_lines[0][-1:]):
        return " ".join([rest.strip(), block_lines[1].strip(" *")]).rstrip(" .")
    sentence = re.match(r"^([^.;:]{2,70})\.\s", rest + " ")
    if sentence:
        words = sentence.group(1).split()
        if len(words) <= 8 and all(w[0].isupper() or not w[0].isalpha() or w in _SMALL_WORDS for w in words):
            return sentence.group(1)
    return None


def _appendix_start(text: str, last_heading: int) -> int:
    """Without an END OF TERMS line, the terms end at the first underlined or 'Exhibit'/'Appendix' heading."""
    lines = H.line_spans(text, last_heading)
    for index, (start, end) in enumerate(lines[1:-1], start=1):
        line = text[start:end].strip()
        after = text[slice(*lines[index + 1])].strip()
        blank_before = not text[slice(*lines[index - 1])].strip()
        underlined = len(after) >= 3 and set(after) <= set("-=~")
        if line and blank_before and (underlined or _APPENDIX_WORD.match(line)):
            return start
    return len(text)


def _front_matter(text: str, start: int, end: int, title: str) -> list:
    """The title notice (title, version, copyright lines) and the preamble or introduction before the terms."""
    terms = _TERMS.search(text, start, end)
    end = terms.start() if terms else end
    blocks = H.paragraphs(text, start, end, _SEPARATOR)
    if not blocks:
        return []
    notice_end = 1
    while notice_end < len(blocks) and _NOTICE_START.match(text[slice(*blocks[notice_end])].strip()):
        notice_end += 1
    nodes = [H.Node("title", title, blocks[0][0], blocks[notice_end - 1][1], "title", role="notice")]
    rest = blocks[notice_end:]
    cuts = [i for i, block in enumerate(rest) if i and _underlined_title(text[slice(*block)])]
    if rest:
        head = rest[:cuts[0]] if cuts else rest
        first = text[slice(*head[0])].strip()
        titled = "\n" not in first and len(first) <= 40
        topic = first if titled else "Introduction"
        start_, end_ = head[0][0], head[-1][1]
        role = H.heading_role(topic) if titled else None
        nodes.append(H.Node("preamble" if titled else "introduction", topic, start_, end_,
                            "preamble" if titled else "introduction", role=role or "rationale"))
    seen: dict[str, int] = {}
    for cut, next_cut in zip(cuts, [*cuts[1:], len(rest)]):  # "Alternative licenses" over "----" (psycopg2's)
        topic = text[slice(*rest[cut])].split("\n", 1)[0].strip()
        nodes.append(H.Node(H.unique_key(topic, seen), topic, rest[cut][0], rest[next_cut - 1][1], "preamble",
                            role=H.heading_role(topic) or "rationale", attributes={"heading": topic}))
    return nodes


def _underlined_title(block: str) -> bool:
    """A block that is a short title over a line of ``-`` or ``=`` (an unnumbered heading before the terms)."""
    lines = block.strip().split("\n")
    return (len(lines) == 2 and 0 < len(lines[0].strip()) <= 60 and bool(re.fullmatch(r"[ \t]*([=-])\1{2,}[ \t]*",
                                                                                     lines[1])))


def _section_tree(text: str, headings: list[_Heading], end: int) -> list:
    """Sections and subsections from the heading list; each runs to the next heading of any depth."""
    bounds = [h.start for h in headings[1:]] + [end]
    return H.nest([(len(h.numbers), _section_node(text, h, region_end)) for h, region_end in zip(headings, bounds)])


def _section_node(text: str, heading: _Heading, region_end: int):
    """One section: its own blocks become clause/definition/paragraph children when it has clauses or definitions."""
    topic = f"{heading.numbering}. {heading.title}" if heading.title else f"Section {heading.numbering}"
    blocks = _blocks(text, heading.start, region_end)
    start, end = blocks[0][0], blocks[-1][1]
    term = H.quoted_heading_term(heading.title or "") or None
    own_text = text[start:blocks[0][1]]
    if term is None and heading.title is None:
        term = H.defined_term(own_text.split(None, 1)[1] if " " in own_text.strip() else own_text)
    node = H.Node(heading.numbering, topic, start, end, "definition" if term else "section",
                  role=H.role_for(heading.title or "", text[start:end], legal=True, term=term),
                  attributes={"numbering": heading.numbering, "heading": heading.title or heading.numbering,
                              **({"defined_term": term} if term else {})})
    body = [_classify_block(text, s, e) for s, e in blocks[1:]]
    if any(kind != "paragraph" for kind, *_ in body):
        node.children = _block_children(text, heading.numbering, body, lead_in=_lead_in(text[start:blocks[0][1]]))
        node.role = "definition" if term else H.heading_role(heading.title or "")
    return node


def _blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Blank-line separated blocks, also split before a clause marker that is less indented than the line above."""
    blocks: list[tuple[int, int]] = []
    for block_start, block_end in H.paragraphs(text, start, end, _SEPARATOR):
        lines = H.line_spans(text, text.rfind("\n", 0, block_start) + 1, block_end)
        cut = block_start
        for (previous, _), (line_start, line_end) in zip(lines, lines[1:]):
            line = text[line_start:line_end]
            indent = len(line) - len(line.lstrip())
            above = text[previous:line_start].rstrip("\n")
            if _CLAUSE.match(line) and indent < len(above) - len(above.lstrip()):
                blocks.append(H.trim(text, cut, line_start))
                cut = line_start
        blocks.append(H.trim(text, cut, block_end))
    return blocks


def _classify_block(text: str, start: int, end: int) -> tuple[str, int, int, str | None, int]:
    """(kind, start, end, marker or defined term, indent) for one block of a section."""
    line_start = text.rfind("\n", 0, start) + 1
    indent = start - line_start
    clause = _CLAUSE.match(text[line_start:end])
    if clause:
        return "clause", start, end, clause.group("marker").strip("()."), clause.end()
    term = H.defined_term(text[start:end])
    return ("definition" if term else "paragraph"), start, end, term, indent


def _lead_in(block: str) -> str | None:
    """The sentence that introduces a list of clauses ('... provided that you meet these conditions:'), if any."""
    flat = _CLAUSE.sub("", " ".join(block.replace("*", " ").split()))
    if not flat.endswith(":"):
        return None
    sentence = re.split(r"(?<=[.;])\s+", flat)[-1]
    return sentence if len(sentence) <= 200 else f"{sentence[:150]} ... {sentence[-45:]}"


def _block_children(text: str, numbering: str, blocks: list, lead_in: str | None) -> list:
    """Blocks after the heading block as units; clauses nest under the clause with a smaller indent.

    Clauses carry the ``lead_in`` sentence that introduces them, so a clause can be read (and found) on its own.
    """
    children: list = []
    stack: list[tuple[int, object]] = []
    seen: dict[int, dict[str, int]] = {}
    introductions: dict[int, str | None] = {}
    for ordinal, (kind, start, end, detail, indent) in enumerate(blocks, start=2):
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if kind != "clause":
            stack.clear()
        parent = stack[-1][1] if stack else None
        siblings = parent.children if parent else children
        keys = seen.setdefault(id(parent), {})
        body = text[start:end]
        if kind == "clause":
            prefix = parent.topic if parent else numbering
            key = H.unique_key(f"({detail})", keys)
            introduced_by = introductions.get(id(parent)) if parent else lead_in
            node = H.Node(key, f"{prefix}({detail})", start, end, "clause", role=H.role_for("", body, legal=True),
                          attributes={"numbering": f"{prefix}({detail})",
                                      **({"lead_in": introduced_by} if introduced_by else {})})
            introductions[id(node)] = _lead_in(body)
            stack.append((indent, node))
        else:
            lead_in = _lead_in(body)
            key = H.unique_key(f"¶{ordinal}", keys)
            topic = f'{numbering} definition of "{detail}"' if kind == "definition" else f"{numbering} ¶{ordinal}"
            node = H.Node(key, topic, start, end, kind, role=H.role_for("", body, legal=True, term=detail),
                          attributes={"numbering": f"{numbering} ¶{ordinal}",
                                      **({"defined_term": detail} if detail else {})})
        siblings.append(node)
    return children


def _appendices(text: str, start: int) -> list:
    """Units after the terms: each titled block ('How to Apply ...', 'Exhibit A ...') runs to the next one."""
    lines = H.line_spans(text, start)
    marks: list[tuple[int, str]] = []
    for index, (s, e) in enumerate(lines):
        line = text[s:e].strip()
        before = text[slice(*lines[index - 1])].strip() if index else ""
        after = text[slice(*lines[index + 1])].strip() if index + 1 < len(lines) else ""
        underlined = len(after) >= 3 and set(after) <= set("-=~")
        alone = not after and not line.endswith((".", ",", ";", ":"))
        centred = text[s:e].startswith(" " * 8) and alone
        capitals = alone and line.upper() == line and len(_CAPS_WORD.findall(line)) >= 2  # '"CLASSPATH" EXCEPTION'
        if line and not before and len(line) <= 80 and (underlined or _APPENDIX_WORD.match(line) or centred
                                                         or capitals):
            marks.append((s, line.rstrip(".")))
    remaining = H.trim(text, start, len(text))
    if remaining[1] <= remaining[0]:
        return []
    if not marks or H.trim(text, start, marks[0][0])[1] > remaining[0]:
        marks.insert(0, (remaining[0], "Appendix"))
    nodes, seen = [], {}
    for (s, title), nxt in zip(marks, [m[0] for m in marks[1:]] + [len(text)]):
        a, b = H.trim(text, s, nxt)
        if b > a:
            nodes.append(H.Node(H.unique_key(title, seen), title, a, b, "appendix",
                                role=H.heading_role(title) or "notice", attributes={"heading": title}))
    return nodes

"""GNU Info manuals (``sed.info``, ``grep.info``, ``diffutils.info``, ...): makeinfo's plain-text rendering of Texinfo.

An Info file is a sequence of nodes, each opened by a ``\\x1f`` separator line and a header line
(``File: sed.info,  Node: Execution Cycle,  Next: ...,  Up: advanced sed``); a node's title is its first line
underlined by ``*`` (chapter), ``=`` (section), ``-`` (subsection) or ``.`` (subsubsection). Accepts a document
with at least three node header lines. Tree: the preamble (what the file documents, its licence notice), then one
unit per node nested by its title's underline, keyed and titled by the node's title ("6.1 How ‘sed’ Works"); menus
and index nodes are ``navigation``. Inside a node whose table items are mostly options, each item is a unit: its term
lines at the margin (``‘-t NUMBER’`` over ``‘--tries=NUMBER’``; a definition's `` -- Function: ...`` among them)
right over a body indented by five columns, an ``option`` when the term is one, else an ``entry``; the text between
them is a ``paragraph`` unit. A table of commands or of addresses stays whole. The document is titled by the Top
node's title and labelled with the version the preamble documents ("GNU ‘sed’, version 4.9"), not makeinfo's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_NODES = H.MIN_INFO_NODES
_UNDERLINES = {"*": 1, "=": 2, "-": 3, ".": 4}
_LEVEL_TYPES = {1: "chapter", 2: "section", 3: "subsection", 4: "subsubsection"}
_VERSION = re.compile(r"(?:documents? |\()(?:version|release) (?P<version>\d[\w.]*\w)", re.I)
""""This file documents version 4.9 of GNU sed", "for GNU Diffutils (version 3.8, ...)"; not makeinfo's own."""
_INDEX = re.compile(r"\bindex\b", re.I)
TABLE_BODY_INDENT = 5
"""makeinfo indents a table item's or a definition's body by five columns under its term."""
MAX_TERM_LINES = 4
MAX_TERM_CHARS = 80
MAX_TERM_WORDS = 4
_DEFINITION = re.compile(r"^ -- [A-Z][\w ]*: \S")
"""A definition's term (``@deffn``): `` -- Command: s/REGEXP/REPLACEMENT/FLAGS``."""
_QUOTES = "‘’'`\""
_OPTION = re.compile(r"^[‘'`]?-{1,2}(?:\w|[’'`]?$)")
"""An option's term: ``‘-t NUMBER’``, ``‘--tries=NUMBER’``, and grep's ``‘--’`` (the end of options)."""
_MENU = re.compile(r"^\* Menu:", re.M)


class InfoManualParser(UnitParser):
    """GNU Info manuals: one unit per node, nested by chapter, section and subsection."""

    @property
    def parser_name(self) -> str:
        return "info-manual"

    def parser_can_handle_document(self, document: Document) -> bool:
        return H.is_info(document.text)

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        headers = list(H.INFO_NODE_HEADER.finditer(text))
        if len(headers) < MIN_NODES:
            raise DocumentRejected(document.id, f"{len(headers)} Info node header lines ('File: x.info,  Node: "
                                                f"...'); need {MIN_NODES}")
        items: list[tuple[int, object]] = []
        seen: dict[str, int] = {}
        start, end = H.trim(text, 0, headers[0].start())
        if end > start:
            items.append((1, H.Node("preamble", "Preamble", start, end, "front_matter", role="notice")))
        top_title = None
        ends = [h.start() for h in headers[1:]] + [len(text)]
        for header, region_end in zip(headers, ends):
            start, end = H.trim(text, header.start(), region_end)
            node_name = header.group("node").strip()
            title, level = _title(text, header.end(), end)
            if node_name == "Top":
                top_title = title or top_title
                level = 1
            topic = title or node_name
            navigation = bool(_INDEX.search(node_name)) and (
                _MENU.search(text, header.end(), end) is not None or _index_lines(text, header.end(), end))
            node = H.Node(H.unique_key(topic, seen), topic, start, end, _LEVEL_TYPES.get(level, "section"),
                          role="navigation" if navigation else H.heading_role(topic),
                          attributes={"heading": topic, "node": node_name})
            if not navigation:
                node.children = _table_entries(text, _body_start(text, header.end(), end, title), end)
            items.append((level or (items[-1][0] if items else 1), node))
        nodes = H.nest(items)
        for node in nodes:
            H.leaf_roles(text, node)
        title = top_title or document.id.rsplit("/", 1)[-1].removesuffix(".info")
        version = _VERSION.search(text, 0, ends[0])  # the preamble and the Top node
        info = H.DocumentInfo(title=title, label=H.labelled(title, version and f"version {version.group('version')}"),
                              parser=self.parser_name)
        return [H.to_parsed(document, info, node) for node in nodes]


def _title(text: str, start: int, end: int) -> tuple[str | None, int | None]:
    """The node's title (its first line underlined by ``*``, ``=``, ``-`` or ``.``) and its level, if any."""
    lines = [text[s:e] for s, e in H.line_spans(text, start, min(end, start + 2000))]
    lines = [line for line in lines if line.strip()][:2]
    if len(lines) == 2:
        title, rule = lines[0].strip(), lines[1].strip()
        if rule and rule[0] in _UNDERLINES and set(rule) == {rule[0]} and len(rule) >= max(3, len(title) // 2):
            return title, _UNDERLINES[rule[0]]
    return None, None


def _index_lines(text: str, start: int, end: int) -> bool:
    """Most lines of the node are index entries (``* term:   node.   (line 12)``)."""
    lines = [text[s:e] for s, e in H.line_spans(text, start, end) if text[s:e].strip()]
    entries = sum(1 for line in lines if line.startswith("* ") and ":" in line)
    return len(lines) > 4 and entries >= len(lines) / 2


def _body_start(text: str, start: int, end: int, title: str | None) -> int:
    """Where a node's text opens: after its title and the title's underline, if it has them."""
    if title is None:
        return start
    lines = [(s, e) for s, e in H.line_spans(text, start, end) if text[s:e].strip()]
    return lines[1][1] if len(lines) > 1 else end


def _table_entries(text: str, start: int, end: int) -> list:
    """The items of the tables in ``[start, end)`` as units, and the text between them as paragraphs, when most items
    are options; none otherwise. An item's term lines open a paragraph at the margin and its body follows them
    directly, five columns in (an example under a sentence is set apart by a blank line)."""
    lines = H.line_spans(text, start, end)
    terms: list[tuple[int, int]] = []  # (first term line, first body line)
    index = 0
    while index < len(lines):
        if _term_line(text, lines[index]) and (index == 0 or not text[slice(*lines[index - 1])].strip()):
            last = index
            while (last + 1 < len(lines) and last - index < MAX_TERM_LINES - 1
                   and _term_line(text, lines[last + 1])):
                last += 1
            following = text[slice(*lines[last + 1])] if last + 1 < len(lines) else ""
            if following.strip() and H.indent(following) == TABLE_BODY_INDENT:
                terms.append((index, last + 1))
                index = last + 1
                continue
        index += 1
    options = [bool(_OPTION.match(text[slice(*lines[first])])) for first, _ in terms]
    if not terms or sum(options) * 2 < len(terms):
        return []  # a table of commands or addresses reads best whole; a list of options item by item
    nodes: list = []
    seen: dict[str, int] = {}
    previous_end = start
    for number, (first, body) in enumerate(terms):
        stop = terms[number + 1][0] if number + 1 < len(terms) else len(lines)
        last_body = body
        for position in range(body, stop):
            line = text[slice(*lines[position])]
            if line.strip() and H.indent(line) < TABLE_BODY_INDENT:
                break
            last_body = position
        entry_start, entry_end = H.trim(text, lines[first][0], lines[last_body][1])
        gap_start, gap_end = H.trim(text, previous_end, entry_start)
        if gap_end > gap_start:
            nodes.append(H.Node(H.unique_key("paragraph", seen), "Paragraph", gap_start, gap_end, "paragraph",
                                in_path=False))
        term = ", ".join(" ".join(text[slice(*lines[i])].split()).strip(_QUOTES) for i in range(first, body))
        title = term.removeprefix("-- ") if _DEFINITION.match(text[slice(*lines[first])]) else term
        title = H.shortened(title)
        unit_type = "option" if options[number] else "entry"
        nodes.append(H.Node(H.unique_key(title, seen), title, entry_start, entry_end, unit_type,
                            attributes={"heading": title}))
        previous_end = entry_end
    gap_start, gap_end = H.trim(text, previous_end, end)
    if gap_end > gap_start:
        nodes.append(H.Node(H.unique_key("paragraph", seen), "Paragraph", gap_start, gap_end, "paragraph",
                            in_path=False))
    return nodes


def _term_line(text: str, span: tuple[int, int]) -> bool:
    """A line that can be (one of) a table item's terms: at the margin (a definition's one column in), short, and
    no line of prose ("For example:", "To run it quietly, use,"): an option, a definition, or a few words that do
    not end in a colon or a comma."""
    line = text[slice(*span)]
    stripped = line.strip()
    if not stripped or len(stripped) > MAX_TERM_CHARS or stripped.startswith("* "):
        return False
    if _DEFINITION.match(line):
        return True
    return H.indent(line) == 0 and (bool(_OPTION.match(stripped)) or len(stripped.split()) <= MAX_TERM_WORDS
                                    and not stripped.endswith((":", ",")))



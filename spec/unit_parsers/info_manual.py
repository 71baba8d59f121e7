"""GNU Info manuals (``sed.info``, ``grep.info``, ``diffutils.info``, ...): makeinfo's plain-text rendering of Texinfo.

An Info file is a sequence of nodes, each opened by a ``\\x1f`` separator line and a header line
(``File: sed.info,  Node: Execution Cycle,  Next: ...,  Up: advanced sed``); a node's title is its first line
underlined by ``*`` (chapter), ``=`` (section), ``-`` (subsection) or ``.`` (subsubsection). Accepts a document
with at least three node header lines. Tree: the preamble (what the file documents, its licence notice), then one
unit per node nested by its title's underline, keyed and titled by the node's title ("6.1 How ‘sed’ Works"); menus
and index nodes are ``navigation``. The document is titled by the Top node's title and labelled with the version
the preamble documents ("GNU ‘sed’, version 4.9"), not makeinfo's.
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

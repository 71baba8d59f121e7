"""Perl's POD documentation read as text (``perlfaq4.pod``, ``IO/Compress/FAQ.pod``, a module's ``.pod`` file).

POD marks its structure with command paragraphs at the left margin: ``=head1 NAME`` to ``=head4`` headings, lists
opened by ``=over``, their entries by ``=item`` and closed by ``=back``, and ``=pod``/``=cut``/``=encoding`` around
them. Accepts a document that opens with a command paragraph (or is named ``*.pod``) and has at least two ``=head1``
headings. Tree: one unit per heading nested by its level (a FAQ's ``=head2`` questions under their ``=head1``
group; code after a ``=cut`` stays in the section before it), holding one ``list_item`` per ``=item`` of its outermost list (a nested list stays inside its item), the
text between them as ``paragraph`` units. Topics read as the rendered page does (``C<gunzip>`` as ``gunzip``);
the units' text is the file's own, markup included. The document is titled by its NAME paragraph
("IO::Compress::FAQ -- Frequently Asked Questions about IO::Compress").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_HEAD1 = 2
_COMMAND = H.POD_COMMAND
_LEVEL_TYPES = {1: "section", 2: "subsection", 3: "subsubsection", 4: "subsubsection"}
_BULLET_ITEM = re.compile(r"^(?:\*|[0-9]+[.)]?)(?:\s+|$)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


class PodParser(UnitParser):
    """Perl POD: ``=head1``-``=head4`` sections nested by level, their ``=item`` entries."""

    @property
    def parser_name(self) -> str:
        return "pod"

    def parser_can_handle_document(self, document: Document) -> bool:
        return _problem(document) is None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        problem = _problem(document)
        if problem:
            raise DocumentRejected(document.id, problem)
        text = document.text
        commands = list(_COMMAND.finditer(text))
        headings = [m for m in commands if m.group("name").startswith("head")]
        title = _name_paragraph(text, headings) or H.file_title(document.id)
        info = H.DocumentInfo(title=title, label=title, parser=self.parser_name)
        items: list[tuple[int, object]] = []
        start, end = H.trim(text, 0, headings[0].start())
        if end > start:
            items.append((1, H.Node("preamble", "Preamble", start, end, "front_matter", role="notice")))
        ends = [m.start() for m in headings[1:]] + [len(text)]
        for heading, region_end in zip(headings, ends):
            level = int(heading.group("name")[4:])
            topic = plain(heading.group("text")) or heading.group("name")
            start, end = H.trim(text, heading.start(), region_end)
            node = H.Node(topic, topic, start, end, _LEVEL_TYPES[level], role=H.heading_role(topic),
                          attributes={"heading": topic})
            node.children = _list_items(text, [m for m in commands if start < m.start() < end], heading.end(), end)
            H.leaf_roles(text, node)
            items.append((level, node))
        roots = H.nest(items)
        H.unique_sibling_keys(roots)  # a list's "=item verbose" and the "=head2 verbose" after it are siblings
        return [H.to_parsed(document, info, node) for node in roots]


def _problem(document: Document) -> str | None:
    """Why this is not a POD document (it does not open with a POD command, too few ``=head1``), else None."""
    if document.page_starts or not H.is_pod(document.text, document.id):
        return "no POD command paragraph ('=head1 NAME', '=pod', '=encoding') opens the document"
    head1 = sum(1 for m in _COMMAND.finditer(document.text) if m.group("name") == "head1")
    if head1 < MIN_HEAD1:
        return f"{head1} '=head1' headings (need {MIN_HEAD1}: NAME, DESCRIPTION, ...)"
    return None


def _name_paragraph(text: str, headings: list[re.Match[str]]) -> str | None:
    """The NAME section's first paragraph ("perlfaq4 - Data Manipulation"), markup removed: what follows it
    (File::FcntlLock's "This text also documents the following sub-packages:" and an ``=over`` list) is the
    section's text, not the title every passage's header carries."""
    if not headings or headings[0].group("text").strip().upper() != "NAME":
        return None
    stop = headings[1].start() if len(headings) > 1 else len(text)
    paragraphs = (p for p in _PARAGRAPH_BREAK.split(text[headings[0].end():stop]) if p.strip())
    body = " ".join(plain(next(paragraphs, "")).split())
    return body[:160] or None


def _list_items(text: str, commands: list[re.Match[str]], start: int, end: int) -> list:
    """One ``list_item`` per ``=item`` of the section's outermost lists (up to the next ``=item`` or its ``=back``);
    with items, the text between them as ``paragraph`` units. No items: no children."""
    depth = 0
    bounds: list[tuple[int, int]] = []  # (item start, item end)
    open_item: int | None = None
    for command in commands:
        name = command.group("name")
        if name == "over":
            depth += 1
        elif name == "back":
            if depth == 1 and open_item is not None:
                bounds.append((open_item, command.start()))
                open_item = None
            depth = max(depth - 1, 0)
        elif name == "item" and depth <= 1:
            if open_item is not None:
                bounds.append((open_item, command.start()))
            open_item = command.start()
    if open_item is not None:
        bounds.append((open_item, end))
    if not bounds:
        return []
    nodes, position = [], start
    for item_start, item_end in bounds:
        nodes += _paragraph(text, position, item_start)
        s, e = H.trim(text, item_start, item_end)
        title = _item_title(text, s, e)
        nodes.append(H.Node(title, title, s, e, "list_item", attributes={"heading": title}))
        position = item_end
    return nodes + _paragraph(text, position, end)


def _paragraph(text: str, start: int, end: int) -> list:
    """The prose between two items (or a list's ends) as a ``paragraph`` unit, without the ``=over``/``=back``
    command lines around it; none when only commands are there."""
    lines = [(s, e) for s, e in H.line_spans(text, start, end) if text[s:e].strip()]
    while lines and _COMMAND.match(text[slice(*lines[0])]):
        lines.pop(0)
    while lines and _COMMAND.match(text[slice(*lines[-1])]):
        lines.pop()
    if not lines:
        return []
    s, e = H.trim(text, lines[0][0], lines[-1][1])
    return [H.Node("paragraph", "Paragraph", s, e, "paragraph", in_path=False)]


def _item_title(text: str, start: int, end: int) -> str:
    """An item's label: its ``=item`` text without a bullet or number, else the first words of its paragraph."""
    line_end = text.find("\n", start, end)
    label = plain(text[start:end if line_end < 0 else line_end].removeprefix("=item"))
    bare = _BULLET_ITEM.sub("", label).strip()
    if not bare:
        body = plain(text[end if line_end < 0 else line_end:end][:TITLE_SOURCE_CHARS])
        bare = " ".join(body.split()[:8])
    return bare[:80] or "Item"


TITLE_SOURCE_CHARS = 500
"""An unlabelled item is titled by its first words: only so much of its body is read for them."""
_CODE_LETTERS = frozenset("BCEFILSXZ")
_ENTITIES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}


def plain(text: str) -> str:
    """POD text as a reader sees it: formatting codes (``C<...>``, ``B<C<...>>``, ``I<...>``, ``L<text|target>``,
    ``E<gt>``, ``C<< $a->b >>``) replaced by their text, whitespace collapsed."""
    return " ".join(_codes(text, 0, None)[0].split())


def _codes(text: str, position: int, closing: str | None) -> tuple[str, int]:
    """The text from ``position`` with its formatting codes rendered, up to ``closing`` (``>`` for ``X<...>``, a space
    and ``>>`` for ``X<< ... >>``) or the end; returns it and the position after the closing."""
    out: list[str] = []
    while position < len(text):
        if closing == ">" and text[position] == ">":
            return "".join(out), position + 1
        if closing and closing != ">" and text[position].isspace() and text.startswith(closing, position + 1):
            return "".join(out), position + 1 + len(closing)
        letter = text[position]
        if letter in _CODE_LETTERS and text.startswith("<", position + 1):
            angles = len(text) - len(text[position + 1:].lstrip("<")) - position - 1
            if angles > 1 and text[position + 1 + angles:position + 2 + angles].isspace():
                inner, position = _codes(text, position + 2 + angles, ">" * angles)
            else:
                inner, position = _codes(text, position + 2, ">")
            out.append(_rendered(letter, inner))
            continue
        out.append(letter)
        position += 1
    return "".join(out), position


def _rendered(code: str, inner: str) -> str:
    """What one formatting code shows: ``E<gt>`` a character, ``L<text|target>`` its text (a link to a page or a
    section its name), ``Z<>`` and ``X<index entry>`` nothing, the others their text."""
    if code == "E":
        return _entity(inner.strip())
    if code == "L":
        if "|" in inner:
            return inner.split("|", 1)[0]
        return inner if "://" in inner else inner.replace('/"', " ").replace("/", " ").replace('"', "").strip()
    return "" if code in "ZX" else inner


def _entity(name: str) -> str:
    """``E<...>``: a named escape (``lt``, ``gt``, ``eacute``), or a number in decimal, ``0x`` hex or ``0`` octal;
    one that names nothing stays as written."""
    if name in _ENTITIES:
        return _ENTITIES[name]
    try:
        if name[:2].lower() == "0x":
            return chr(int(name[2:], 16))
        if name.isdigit():
            return chr(int(name, 8) if name.startswith("0") and len(name) > 1 else int(name))
    except (ValueError, OverflowError):
        return f"E<{name}>"
    import html

    decoded = html.unescape(f"&{name};")
    return decoded if decoded != f"&{name};" else f"E<{name}>"

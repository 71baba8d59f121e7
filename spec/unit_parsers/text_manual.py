"""Policy manuals, sub-policies and specifications as plain text (policy.txt, menu-policy.txt, fhs-3.0.txt, ...).

The plain-text renderings of the family the manual parser reads as PDFs: Sphinx text builds (numbered titles
over a line of ``*``, ``=`` or ``-``), DocBook text dumps (``2.1. Title`` alone at the left margin, centred
``Chapter 1. Title``) and specifications with underlined headings only (``Overview`` over ``-----``).
Accepts plain text with at least five numbered headings in outline order, or three underlined headings, that
is neither a licence (a licence title in its first lines), a change log (most headings name a version) nor a GNU
Info file (``info_manual.py``).
Tree: front matter, the table of contents (``navigation``), then chapter > section > subsection by numbering; a
section's request boxes (X protocol specifications) and AsciiDoc labeled-list items (``--rejoin::``) are its units.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.core.restructuredtext import only_comments, only_fields
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_NUMBERED = 3
MAX_LEAD = 2  # DocBook text dumps indent body text by 3 and section headings by 0 to 2
MIN_UNDERLINED = 3
_LEVEL_TYPES = {1: "chapter", 2: "section", 3: "subsection"}
_SPACE = r"[ \t\u00a0]+"
_NUMBERED = re.compile(rf"^(?P<prefix>(?:Chapter|CHAPTER|Appendix|APPENDIX){_SPACE})?(?P<num>\d{{1,3}}(?:\.\d{{1,3}})*)"
                       rf"\.?{_SPACE}(?P<title>[A-Z/\"'“(`].*)$")
_UNDERLINE = re.compile(r"^(?:([=*\-~^#+])\1{2,}|([<>\"'])\2{3,})$")  # <>"' from four: not a >>> prompt
_VERSION = re.compile(r"\b(?:[Vv]ersion|Release|Revision)\s+\d[\w.]*\w")
_NUMBERED_RELEASE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)*\b")
"""A version number in a heading ("Avahi 0.8, the 'Dobro Jutro' release", kmod's "kmod 30"): see
``_first_of_releases``."""
_MAX_TITLE_WORDS = 12
_TITLE_LOOKAHEAD = 40
"""Lines of the front matter searched for a title when the opening line is a sentence."""
_CONTENTS = re.compile(r"^(?:Table of Contents|TABLE OF CONTENTS|Contents|CONTENTS)$")
_TOC_ENTRY = re.compile(rf"^(?:[*\-+]{_SPACE})?(?:(?:Chapter|Appendix){_SPACE})?\d+(?:\.\d+)*\.?{_SPACE}\S")
_STATUS = re.compile(r"^[<\[(]?(?:(?:working|public|proposed|preliminary|final|internal)\s+)?"
                     r"(?:draft|preliminary|confidential|obsolete)"
                     r"(?:\s+(?:for\s+(?:public\s+)?(?:review|comments?)|version|only|\d[\w.]*))*!*[>\])]?$", re.I)
"""A status banner over a specification's title ("DRAFT FOR REVIEW", OpenSSL's "<DRAFT!>"): it says what state the
text is in, not what it is."""


OVERLINE_SLACK = 8
"""An overlined heading's lines are at most this many characters longer than its text."""
_COMMAND = re.compile(r"[|$={};<>]|\s--?\w|/\S")


@dataclass(frozen=True)
class _Heading:
    """A heading: span of its lines (underline included), title, numbering (None when unnumbered), underline mark,
    and whether a line of the same mark is over it too (a reStructuredText document title)."""

    start: int
    end: int
    title: str
    numbering: str | None
    mark: str | None
    overlined: bool = False


class TextManualParser(UnitParser):
    """Numbered or underlined plain-text manuals and specifications; declines licences and change logs."""

    @property
    def parser_name(self) -> str:
        return "text-manual"

    def parser_can_handle_document(self, document: Document) -> bool:
        if document.page_starts or document.metadata.get("format", "text") != "text":
            return False
        name = Path(document.id).name.lower()
        if name == "copyright" or name.endswith((".copyright", ".md", ".markdown")):
            return False
        if H.is_info(document.text):
            return False  # a GNU Info manual: info_manual.py reads its nodes
        if H.is_vim_help(document.text):
            return False  # a Vim help file: vim_help.py reads its sections and tags
        if H.is_pod(document.text, document.id):
            return False  # Perl POD: pod.py reads its commands
        if H.release_headers(document.text):
            return False  # release notes ("Changes in version 2.7.6:"): changelog.py reads them
        return H.licence_title(document.text) is None and _structure_problem(_headings(document.text)) is None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        headings = _headings(text)
        problem = _structure_problem(headings)
        if problem:
            raise DocumentRejected(document.id, problem)
        first = headings[0]
        # a reStructuredText title may follow a note, a comment (a licence header) or fields (":orphan:")
        opens = (first.overlined or not text[:first.start].strip() or only_comments(text[:first.start])
                 or only_fields(text[:first.start]))
        title_heading = first if first.numbering is None and opens and not _first_of_releases(headings) else None
        body = [h for h in headings if h is not title_heading]
        title = _rst_plain(title_heading.title) if title_heading else _title_line(text, body[0].start, document.id)
        version = _VERSION.search(text, 0, body[0].start)
        info = H.DocumentInfo(title=title, label=H.labelled(title, version and version.group(0)),
                              parser=self.parser_name)
        nodes = _front_matter(text, body[0].start, title, title_heading)
        nodes += _sections(text, body)
        return [H.to_parsed(document, info, node) for node in nodes]


def _headings(text: str) -> list[_Heading]:
    """Underlined lines, else numbered lines standing alone; numbered ones must follow in outline order."""
    underlined = _candidates(text, standalone=False)
    if sum(1 for h in underlined if h.numbering) >= MIN_NUMBERED or not any(h.numbering for h in underlined):
        standalone = [] if any(h.numbering for h in underlined) else _candidates(text, standalone=True)
        if sum(1 for h in standalone if h.numbering) > sum(1 for h in underlined if h.numbering):
            return standalone
    return underlined


def _candidates(text: str, standalone: bool) -> list[_Heading]:
    """Underlined headings (``standalone=False``) or numbered lines between blank lines (``True``), in order."""
    lines = H.line_spans(text)
    found: list[_Heading] = []
    previous: tuple[int, ...] | None = None
    for index, (start, end) in enumerate(lines):
        line = text[start:end]
        stripped = line.strip()
        if not stripped or len(stripped) > 200 or _UNDERLINE.match(stripped):
            continue
        above = text[slice(*lines[index - 1])].strip() if index else ""
        below = text[slice(*lines[index + 1])].strip() if index + 1 < len(lines) else ""
        lead = len(line) - len(line.lstrip())
        numbered = _NUMBERED.match(stripped)
        overline = False
        if standalone:
            ok = not above and not below and numbered is not None and (
                lead <= MAX_LEAD or numbered.group("prefix") is not None)
        else:
            # reStructuredText's title, a line over and under it about as long as it (72 dashes around a line
            # are separators, as in text exports of FAQs; dashes around a command delimit an AsciiDoc listing)
            overline = (bool(above) and above == below and bool(_UNDERLINE.match(above))
                        and len(above) <= len(stripped) + OVERLINE_SLACK and not _COMMAND.search(stripped)
                        and (index < 2 or not text[slice(*lines[index - 2])].strip()))
            ok = bool(_UNDERLINE.match(below)) and len(below) >= len(stripped) - 2 and (not above or overline)
            if ok and overline:
                start, lead = lines[index - 1][0], 0
        if not ok:
            continue
        end = end if standalone else lines[index + 1][1]
        if numbered:
            numbers = H.numbering_tuple(numbered.group("num"))
            restart = not standalone and numbers == (1,)  # appendices numbered again from 1 (Sphinx)
            if not (H.is_next_number(previous, numbers) or restart):
                continue
            previous = numbers
            title = " ".join(f"{numbered.group('num')}. {numbered.group('title')}".split())
            found.append(_Heading(start + lead, end, title, numbered.group("num"), None if standalone else below[0],
                                  overline))
        elif not standalone:
            found.append(_Heading(start + lead, end, " ".join(stripped.split()), None, below[0], overline))
    return found


def _first_of_releases(headings: list[_Heading]) -> bool:
    """Whether the first heading is the first of a series of releases, underlined alike and each naming a version
    after the same first word (Avahi's NEWS: "Avahi 0.8, the 'Dobro Jutro' release" over 42 older ones; kmod's:
    "kmod 30" over "kmod 29" ... "kmod 1"): the newest release, not the document's title, which every passage's
    header would carry. A manual whose sections name numbers ("Installing 2.0", "Networking on 10.0.0.1") keeps
    its title."""
    first = headings[0]
    if not _NUMBERED_RELEASE.search(first.title):
        return False
    lead = first.title.split()[0].lower()
    alike = [h for h in headings[1:] if h.mark == first.mark and h.overlined == first.overlined]
    releases = [h for h in alike if _NUMBERED_RELEASE.search(h.title) and h.title.split()[0].lower() == lead]
    return len(alike) >= MIN_UNDERLINED and 2 * len(releases) >= len(alike)  # "Avahi 0.7", ..., as "Avahi 0.8" opens


def _structure_problem(headings: list[_Heading]) -> str | None:
    """Why the headings do not make a manual (too few, or a change log's version headings), else None."""
    numbered = sum(1 for h in headings if h.numbering)
    underlined = sum(1 for h in headings if h.mark)
    versions = sum(1 for h in headings if H.RELEASE_HEADING.search(h.title))
    if versions >= MIN_UNDERLINED and versions * 2 >= len(headings):
        return f"{versions} of {len(headings)} headings name a version: a change log, not a manual"
    if numbered < MIN_NUMBERED and underlined < MIN_UNDERLINED:
        return (f"plain text with {numbered} numbered and {underlined} underlined headings (need {MIN_NUMBERED} "
                f"numbered headings in outline order, like '2.1. Title', or {MIN_UNDERLINED} underlined ones)")
    return None


def _title_line(text: str, end: int, document_id: str) -> str:
    """The opening line when it reads like a title; otherwise the first line before the body that does and shares
    a word with the file name (a Sphinx text export opens with a sentence about where its HTML version is, and
    names itself in its navigation lines; a list item that runs on, a ``Field: value`` line or a
    lead-in ending in a colon is no title); else the file's name when the text opens with
    a copyright notice ("numpy LICENSE") or with the first heading, or the opening line. A status banner ("DRAFT FOR
    REVIEW") is skipped; a man page's ``NAME`` heading gives the line under it."""
    every = text[:end].splitlines()
    raw = [(line.strip(), every[n + 1].strip() if n + 1 < len(every) else "")
           for n, line in enumerate(every) if line.strip()]
    lines = [_rst_plain(" ".join(line.split())).strip("*-•» ") for line, _ in raw]
    # a list item whose sentence runs on ("* Neither the name of the NumPy Developers nor the names of any")
    items = {i for i, (line, after) in enumerate(raw) if _LIST_ITEM.match(line) and after[:1].islower()}
    kept = [i for i, line in enumerate(lines) if not _STATUS.match(line)] or list(range(len(lines)))
    if not kept:
        return H.file_title(document_id)  # the first heading opens the text: "zlib algorithm", not ""
    if lines[kept[0]] == "NAME" and len(kept) > 1:
        return lines[kept[1]][:120]  # a man page's NAME over its line: "parse_date - parses a date string ..."
    if _title_like(lines[kept[0]]):
        return lines[kept[0]][:120]
    stem_words = set(re.findall(r"[a-z]{3,}", Path(document_id).stem.lower()))
    for i in kept[1:_TITLE_LOOKAHEAD]:
        named = " ".join(lines[i].replace("_", " ").split())
        words = set(re.findall(r"[a-z]{3,}", named.lower()))
        lead_in = named.endswith(":") or bool(_FIELD.match(named))
        continues = raw[i][1][:1] == "(" or raw[i][1][:1].islower()
        if i not in items and not lead_in and _title_like(named) and stem_words & words and not continues:
            return named[:120]
    if _COPYRIGHT.match(lines[kept[0]]) or _wrapped(lines[kept[0]]):
        return H.file_title(document_id)
    return lines[kept[0]][:120]


def _rst_plain(line: str) -> str:
    """A line as reStructuredText renders it: a ``:title:`` field by its value, roles and literals by their text
    (":mod:`email` Package Architecture" is "email Package Architecture", ":class:`~pkg.Foo`" is "Foo")."""
    line = re.sub(r"^:title:\s+", "", line, flags=re.I)
    return re.sub(r":[\w.-]+:`([^`]+)`|``([^`]+)``", lambda m: _role_text(m.group(1)) if m.group(1) else m.group(2),
                  line)


def _role_text(content: str) -> str:
    """What Sphinx shows of a role's content: a link's text ("text <target>" is "text"), a ``~`` target's last part
    ("~pkg.Foo" is "Foo")."""
    explicit = re.fullmatch(r"(.+?)\s*<[^<>]+>", content)
    if explicit:
        return explicit.group(1)
    return content[1:].rsplit(".", 1)[-1] if content.startswith("~") else content


_LIST_ITEM = re.compile(r"^(?:[*\-•+]|\d+[.)]|[a-z][.)])\s")
_FIELD_NAME = r"[A-Z][\w-]*:"
"""A ``Field:`` name at a line's start, as in a stanza (``License: BSD-3-Clause``)."""
_FIELD = re.compile(rf"^{_FIELD_NAME}\s")
_COPYRIGHT = re.compile(r"^(?:copyright\b|\(c\)|©)", re.I)


def _title_like(line: str) -> bool:
    """Short, with letters, not a sentence, an address, a contents entry or a piece of a wrapped sentence."""
    return (0 < len(line.split()) <= _MAX_TITLE_WORDS and bool(re.search(r"[^\W\d_]{2}", line))
            and not line.endswith(".") and "://" not in line and "@" not in line and not _TOC_ENTRY.match(line)
            and not _wrapped(line))


def _wrapped(line: str) -> bool:
    """A line of a sentence wrapped onto the next or from the one before: it ends in "the" or "as", starts with
    one ("the new BSD license). The license is ..."), or leaves a parenthesis open or closes one it did not open
    ("Celery is licensed under The BSD License (3 Clause, also known as")."""
    words = line.split()
    return bool(words) and (words[-1].lower() in _RUNS_ON or words[0] in _RUNS_ON
                            or line.count("(") != line.count(")"))


_RUNS_ON = frozenset({"a", "an", "the", "of", "to", "and", "or", "with", "in", "on", "by", "for", "as", "using",
                      "that", "which", "is", "are", "be", "from"})
"""Words a title neither ends with nor starts with in lower case: a line that does is part of a wrapped sentence."""


def _front_matter(text: str, end: int, title: str, title_heading: _Heading | None) -> list:
    """Title and notices, then the table of contents (a run of numbered entries) as a navigation unit."""
    blocks = H.paragraphs(text, 0, end)
    components = len(_COMPONENT.findall(text, 0, end)) >= 2  # a list of licences: no contents in it
    toc = [] if components else [i for i, (s, e) in enumerate(blocks) if _is_toc_block(text[s:e])]
    regions = []
    if toc:
        first, last = toc[0], toc[-1]
        if first and _CONTENTS.match(text[slice(*blocks[first - 1])].strip()):
            first -= 1
        regions = [("front matter", title, 0, blocks[first][0], "front_matter", "notice"),
                   ("contents", "Contents", blocks[first][0], blocks[last][1], "table_of_contents", "navigation"),
                   ("after contents", "Front matter (after contents)", blocks[last][1], end, "front_matter", None)]
    else:
        regions = [("front matter", title, 0, end, "front_matter", "notice")]
    nodes = []
    for key, topic, start, stop, unit_type, role in regions:
        start, stop = H.trim(text, start, stop)
        if stop > start:
            nodes.append(H.Node(key, topic, start, stop, unit_type, role=role, attributes={"heading": topic}))
    if title_heading and nodes and nodes[0].key == "front matter":
        nodes[0].unit_type, nodes[0].attributes["heading"] = "title", title_heading.title
    for node in nodes:
        _components(text, node)
    return nodes


_COMPONENT = re.compile(rf"^Name:[ \t]+(?P<name>\S[^\n]*?)[ \t]*\n(?={_FIELD_NAME})", re.M)
_LICENSE_FIELD = re.compile(r"^License:[ \t]+(?P<licence>\S[^\n]*?)[ \t]*$", re.M)


def _stanza_end(text: str, start: int, end: int) -> int:
    """Where a stanza that starts before ``start`` ends: at its first line that is neither a field nor indented."""
    for line_start, line_end in H.line_spans(text, start, end):
        line = text[line_start:line_end]
        if line.strip() and line[:1] not in (" ", "\t") and not re.match(_FIELD_NAME, line):
            return line_start
    return end


def _components(text: str, node) -> None:
    """The bundled components a binary's licence file lists (NumPy's wheel: ``Name: OpenBLAS``, ``Files:``,
    ``Description:``, ``Availability:``, ``License: BSD-3-Clause`` and the licence's text indented under it), two or
    more: a ``component`` unit each, named by its ``Name``, with its ``License`` field. The last stanza ends at its
    first line that is neither a field nor indented; what follows ("Full text of license texts referred to above
    follows ...") is a unit of its own."""
    starts = list(_COMPONENT.finditer(text, node.start, node.end))
    if len(starts) < 2:
        return
    seen: dict[str, int] = {}
    ends = [m.start() for m in starts[1:]] + [node.end]
    for match, region_end in zip(starts, ends):
        stop = region_end if region_end < node.end else _stanza_end(text, match.end(), region_end)
        start, end = H.trim(text, match.start(), stop)
        name = match.group("name")
        attributes = {"heading": name, "defined_term": name}
        if licence := _LICENSE_FIELD.search(text, start, end):
            attributes["licence"] = licence.group("licence")
        node.children.append(H.Node(H.unique_key(name, seen), name, start, end, "component", attributes=attributes))
    start, end = H.trim(text, node.children[-1].end, node.end)
    if end > start:  # what follows the list is the document's (a parent's own text is what precedes its children)
        node.children.append(H.Node("after components", "After the bundled components", start, end, "front_matter",
                                    attributes={"heading": "After the bundled components"}))


def _is_toc_block(block: str) -> bool:
    """A block of contents entries ('* 1.1. Scope', '2.1. Preferred menu structure'), or the contents title."""
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    if len(lines) == 1 and _CONTENTS.match(lines[0]):
        return False
    entries = sum(1 for line in lines if _TOC_ENTRY.match(line))
    return entries >= max(1, len(lines) // 2) and len(block) < 4000


def _sections(text: str, headings: list[_Heading]) -> list:
    """Sections nested by numbering (unnumbered underlined headings by their underline's rank)."""
    # a mark over and under a heading ranks apart from the same mark under one (reStructuredText's styles)
    styles = dict.fromkeys((h.mark, h.overlined) for h in headings if not h.numbering)
    ranks = {style: rank for rank, style in enumerate(styles, 1)}
    items: list[tuple[int, object]] = []
    ends = [h.start for h in headings[1:]] + [len(text)]
    seen: dict[str, int] = {}
    for heading, region_end in zip(headings, ends):
        level = len(heading.numbering.split(".")) if heading.numbering else ranks[(heading.mark, heading.overlined)]
        start, end = H.trim(text, heading.start, region_end)
        attributes = {"heading": heading.title}
        if heading.numbering:
            attributes["numbering"] = heading.numbering
        role = H.heading_role(heading.title)
        title = _rst_plain(heading.title)  # ":mod:`cachetools.keys` --- Key functions" as it renders
        key = H.unique_key(heading.numbering or title[:80], seen)
        items.append((level, H.Node(key, title, start, end, _LEVEL_TYPES.get(level, "subsubsection"),
                                    role=role, attributes=attributes)))
    roots = H.nest(items)
    for root in roots:
        _boxes(text, root)
        _labeled_lists(text, root)
        _object_descriptions(text, root)
        H.leaf_roles(text, root)
    return roots


_BOX = re.compile(r"^┌─+[ \t]*$", re.M)


def _boxes(text: str, node) -> None:
    """A section that describes requests or events in boxes, as the X protocol specifications do (``┌───``, the
    name, its fields, ``▶`` and the reply, ``└───``, then the description), gets one unit per box named by it."""
    if node.children:
        for child in node.children:
            _boxes(text, child)
        return
    named = []
    for box in _BOX.finditer(text, node.start, node.end):
        name = re.match(r"\s*(\S[^\n:]*?)[ \t]*(?:\n|$)", text[box.end():node.end])
        if name is not None and re.fullmatch(r"[A-Za-z][\w-]*", name.group(1)):
            named.append((box.start(), name.group(1)))
    # a box of fields without a name line stays with the named box before it (text between a parent's children
    # would be in no chunk)
    kind = next((k for k in ("event", "request") if re.search(rf"\b{k}s?\b", node.topic, re.I)), "definition")
    seen: dict[str, int] = {}
    ends = [start for start, _ in named[1:]] + [node.end]
    for (box_start, term), region_end in zip(named, ends):
        start, end = H.trim(text, box_start, region_end)
        node.children.append(H.Node(H.unique_key(term, seen), term, start, end, kind,
                                    attributes={"heading": term, "defined_term": term}))


_LABEL = re.compile(r"^(?!\.\. )(?P<term>\S[^\n]*?[^:\s]):: *\n(?=[ \t]*\S)", re.M)
"""An AsciiDoc labeled list's term (``--rejoin::``, ``add <local-commit>::``) with its description or another term
on the next line. A reStructuredText paragraph that ends in ``::`` has a blank line before its literal block, and a
directive (``.. doctest::`` over its ``:hide:`` option) is no term."""
MIN_LABELS = 2


def _labeled_lists(text: str, node) -> None:
    """A section whose body is an AsciiDoc labeled list (git's manuals: the commands and options of git-subtree(1))
    gets one unit per item: its terms (several stacked over one description) and the description, to the next."""
    if node.children:
        for child in node.children:
            _labeled_lists(text, child)
        return
    items: list[list[re.Match[str]]] = []
    for label in _LABEL.finditer(text, node.start, node.end):
        if items and items[-1][-1].end() == label.start():
            items[-1].append(label)  # stacked terms over one description ("-b <branch>::", "--branch=<branch>::")
        else:
            items.append([label])
    if len(items) < MIN_LABELS:
        return
    seen: dict[str, int] = {}
    ends = [terms[0].start() for terms in items[1:]] + [node.end]
    for terms, region_end in zip(items, ends):
        title = ", ".join(term.group("term").strip() for term in terms)[:80]
        start, end = H.trim(text, terms[0].start(), region_end)
        kind = "option" if title.startswith("-") else "entry"
        node.children.append(H.Node(H.unique_key(title, seen), title, start, end, kind, attributes={"heading": title}))


_OBJECT_DIRECTIVE = re.compile(
    r"^\.\. (?:(?:py|c|cpp|js|rst|std|cmake):)?(?P<kind>(?:auto)?(?:function|method|class|attribute|data|exception"
    r"|decorator)|classmethod|staticmethod"
    r"|property|variable|command|envvar|option|cmdoption|describe|object|confval|macro"
    r"|type|member|var|struct|enum|enumerator|genex)::[ \t]+(?P<target>\S[^\n]*?)[ \t]*$", re.M)
"""A Sphinx directive that describes one object at the margin (``.. variable:: CPACK_EXTERNAL_REQUESTED_VERSIONS``,
``.. function:: next(it)``, ``.. autoclass:: LRUCache(maxsize)``); not one that notes, shows or links
(``.. versionadded::``, ``.. doctest::``)."""
_MARGIN_LINE = re.compile(r"^\S", re.M)
MIN_OBJECTS = 2


def _object_descriptions(text: str, node) -> None:
    """Each object a Sphinx directive describes in a section's own text (before its first subsection, or all of it)
    becomes a unit of the section, titled by its signature: the directive, its indented body and the notes, targets
    and comments at the margin after it (``.. note::`` under CPack RPM's variables). Prose at the margin after an
    object, up to the next, is a "Paragraph" of the section."""
    children = list(node.children)
    objects = _objects(text, node.start, children[0].start if children else node.end)
    for child in children:
        _object_descriptions(text, child)
    node.children = objects + children


def _objects(text: str, start: int, end: int) -> list:
    """The object units of ``[start, end)``, none when it describes fewer than ``MIN_OBJECTS``."""
    matches = list(_OBJECT_DIRECTIVE.finditer(text, start, end))
    if len(matches) < MIN_OBJECTS:
        return []
    nodes, seen = [], {}
    for match, next_start in zip(matches, [m.start() for m in matches[1:]] + [end]):
        body_end = _object_end(text, match.end(), next_start)
        title = " ".join(match.group("target").split())[:80]
        kind = "option" if match.group("kind") in ("option", "cmdoption") else "entry"
        o_start, o_end = H.trim(text, match.start(), body_end)
        nodes.append(H.Node(H.unique_key(title, seen), title, o_start, o_end, kind,
                            attributes={"heading": title, "directive": match.group("kind")}))
        g_start, g_end = H.trim(text, body_end, next_start)
        if g_end > g_start:
            nodes.append(H.Node(H.unique_key("paragraph", seen), "Paragraph", g_start, g_end, "paragraph",
                                in_path=False))
    return nodes


def _object_end(text: str, position: int, limit: int) -> int:
    """Where an object's description ends: at the first line of prose at the margin after its directive (lines of
    explicit markup at the margin, ``.. note::``, ``.. _target:``, a comment, and their bodies are its own)."""
    while (margin := _MARGIN_LINE.search(text, position, limit)) is not None:
        if not text.startswith("..", margin.start()):
            return margin.start()
        line_end = text.find("\n", margin.start(), limit)
        if line_end < 0:
            break
        position = line_end
    return limit

"""Private helpers for the sample unit parsers: text spans, roles, defined terms and a unit-tree builder.

Not a plugin (it defines no ``UnitParser``). Plugin files are imported by path, so they load this module
with ``right_rag_dagster.core.registry.load_helper(__file__, "_shared.py")``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from right_rag_dagster.core.model import Document, ParsedUnit

_BLANK_RUN = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
RELEASE_HEADING = re.compile(r"\b(?:Version|Revision|Release)\s+(?P<v>\d+(?:\.\d+)+(?:[a-z]+\d*)?)\b", re.I)
"""A heading that names a release: "Version 4.6.2", "Revision 0.6.1, released 10-09-2024" (pyasn1), "Release 2.1",
"Version 0.0.13a". The change-log parser counts such headings to accept a text, the text-manual parser the same ones
to decline it (one pattern, so they judge a heading alike; each counts over the headings it finds)."""


def indent(line: str) -> int:
    """The columns of whitespace a line opens with, tabs expanded (man's and makeinfo's renderings mix them)."""
    expanded = line.expandtabs()
    return len(expanded) - len(expanded.lstrip())


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither starts nor ends with whitespace (empty spans collapse to start)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def line_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of every line in ``text[start:end]``, newline excluded."""
    end = len(text) if end is None else end
    spans, position = [], start
    while position < end:
        newline = text.find("\n", position, end)
        stop = end if newline < 0 else newline
        spans.append((position, stop))
        position = stop + 1
    return spans


def paragraphs(text: str, start: int, end: int, separator: re.Pattern[str] = _BLANK_RUN) -> list[tuple[int, int]]:
    """Trimmed spans of the blank-line separated blocks of ``text[start:end]``."""
    blocks, position = [], start
    for match in separator.finditer(text, start, end):
        blocks.append(trim(text, position, match.start()))
        position = match.end()
    blocks.append(trim(text, position, end))
    return [(s, e) for s, e in blocks if e > s]


_LICENCE_TITLE = re.compile(r"\blicen[cs]e\b|\blegal code\b", re.I)


def licence_title(text: str) -> str | None:
    """The licence title (plus its version line) when one of the first three non-blank lines names a licence.

    The licence parser accepts documents that have one; the parsers of other plain-text families decline them.
    A line that continues a sentence ("under the terms of the GNU Lesser General Public License as published") is
    no title: the file's short opening line is ("psycopg2 and the LGPL")."""
    lines = [line.strip(" \t=*-") for line in text[:2000].splitlines()]
    lines = [line for line in lines if line]
    for index, line in enumerate(lines[:3]):
        if len(line) <= 80 and _LICENCE_TITLE.search(line):
            opening = lines[0]
            if (line[:1].islower() and index and len(opening.split()) <= 8
                    and not opening.endswith((".", ",", ":", ";"))):
                return opening
            following = lines[index + 1] if index + 1 < len(lines) else ""
            return f"{line}, {following}" if re.match(r"^Version\b", following) else line
    return None


MAN_HEADER = re.compile(r"^(?P<name>[^\s()]+)\((?P<section>[0-9n][\w:]*)\)\s+(?:(?P<centre>.*?)\s+)?"
                        r"(?P=name)\((?P=section)\)$")


INFO_NODE_HEADER = re.compile(r"^File: (?P<file>[^,\n]+),[ \t]+Node: (?P<node>[^,\n]+)[^\n]*$", re.M)
"""The header line of a GNU Info node (``File: sed.info,  Node: Execution Cycle,  Next: ...,  Up: ...``)."""
MIN_INFO_NODES = 3


VIM_HELP_TAG = re.compile(r"\A\s*\*(?P<name>[\w.+-]+)\.txt\*[ \t]")
_VIM_HELP_SAYS = re.compile(r"For Vim version|\bvim:[^\n]*\bft=help\b")


def is_vim_help(text: str) -> bool:
    """A Vim help file: its first line is its tag (``*autocmd.txt*``), and it says so (``For Vim version 9.0`` on
    that line, or the ``vim:...:ft=help:`` mode line that ends it)."""
    first = text[:text.find("\n")] if "\n" in text else text
    return bool(VIM_HELP_TAG.match(text)) and bool(_VIM_HELP_SAYS.search(first) or _VIM_HELP_SAYS.search(text[-400:]))


def is_info(text: str) -> bool:
    """A GNU Info file (makeinfo's rendering of a Texinfo manual): ``MIN_INFO_NODES`` node header lines."""
    count = 0
    for _ in INFO_NODE_HEADER.finditer(text):
        count += 1
        if count >= MIN_INFO_NODES:
            return True
    return False


POD_COMMAND = re.compile(r"^=(?P<name>head[1-4]|item|over|back|pod|cut|begin|end|for|encoding)\b[ \t]*"
                         r"(?P<text>[^\n]*)$", re.M)
"""A command paragraph of Perl's POD at the left margin (``=head2 Title``, ``=item *``, ``=over 4``, ``=cut``)."""


def is_pod(text: str, document_id: str = "") -> bool:
    """Perl POD: the first non-blank line is a POD command, or the file is named ``*.pod`` and has one. The POD
    parser takes such documents; the parsers of other plain-text families decline them (``=head1 NAME`` over
    "perlartistic - the Perl Artistic License" is no licence title)."""
    first = next((line for line in text[:2000].splitlines() if line.strip()), "")
    if POD_COMMAND.match(first):
        return True
    return document_id.lower().endswith(".pod") and POD_COMMAND.search(text) is not None


def file_title(document_id: str) -> str:
    """The file's name as a title, when the text names itself nowhere: its stem with ``-``, ``_`` and ``.`` as spaces
    ("numpy-LICENSE.txt" gives "numpy LICENSE")."""
    return re.sub(r"[-_.]+", " ", Path(document_id).stem).strip()


MIN_RELEASES = 3
_RELEASE = re.compile(r"^(?=(?-i:[*\dA-Z]))\*?[ \t]*(?:[\w'’-]+[ \t]+){0,3}?(?:changes|news|new|version|release)\b"
                      r"[^\n]{0,50}?"
                      r"(?<![\w.])v?(?P<version>\d+(?:\.\d+)+[\w.~+-]*?)\b[^\n]{0,40}$", re.I | re.M)
RELEASE_LOOKAHEAD = 5
"""A release-notes file names a release in its first non-blank lines (after a title or a notice line or two), or is
titled as one (``_LOG_TITLE``) and may open with plans and notes before its first release."""
_LOG_TITLE = re.compile(r"^[ \t]*(?:what['’]?s[ \t]+new|news|changes|change[ \t]*log|release[ \t]+(?:notes|history))"
                        r"\b[^\n]{0,40}$", re.I)
"""The title line of a change log ("What's New" over Zip's betas, "Release Notes"), first in the file."""


_FIRST_ITEM = re.compile(r"^\*[ \t]+\S")
"""A release's first ``*`` item, unindented, on the line right under its header (gzip's oldest releases)."""
SAME_LEAD = 2
"""A header right over its first item counts only where at least this many other headers open with the same two
words ("Major changes from 1.2 to 1.2.1" among gzip's 24): a lead-in over a list ("Release 1.9.1 introduced a
regression, fixed here:") is none."""

_NAMED_RELEASE = re.compile(r"^(?P<name>[A-Z][\w+.-]*(?:[ \t][A-Z][\w+.-]*){0,2})[ \t]+v?"
                            r"(?P<version>\d+(?:\.\d+)+[\w.~+-]*?)(?:[ \t]*(?:\([^)\n]{0,40}\)|[-–—:][^\n]{0,40}))?$",
                            re.M)
"""A release header that is the program's name and a version ("PulseAudio 16.1", "GNU Tar 1.35 (2023-07-18)"):
taken only where every header names the same program."""


def release_headers(text: str) -> list[re.Match[str]]:
    """The release headers of a NEWS file, or [] when it is none: it must name a release in its first
    ``RELEASE_LOOKAHEAD`` non-blank lines (or open with a change log's title) and have at least ``MIN_RELEASES``
    headers. Each is an unindented line of at most 90 characters after a blank line and over a blank line or its
    first ``*`` item (``_is_release``, ``SAME_LEAD``): one that names a release ("Changes in version 2.7.6:"), or else
    the same program's name and a version on every header ("PulseAudio 16.1")."""
    first = list(islice(re.finditer(r"^[^\S\n]*\S[^\n]*$", text[:4000], re.M), RELEASE_LOOKAHEAD))
    titled = bool(first and _LOG_TITLE.match(first[0].group(0)))
    for pattern in (_RELEASE, _NAMED_RELEASE):
        if not titled and not any(_is_release(text, m.start(), pattern) for m in first):
            continue
        headers = _repeated_over_items(text, [m for m in pattern.finditer(text)
                                              if _is_release(text, m.start(), pattern)])
        if pattern is _NAMED_RELEASE:
            names = [m.group("name") for m in headers]
            headers = [m for m in headers if m.group("name") == max(set(names), key=names.count)] if names else []
        if len(headers) >= MIN_RELEASES:
            return headers
    return []


def _repeated_over_items(text: str, headers: list[re.Match[str]]) -> list[re.Match[str]]:
    """``headers`` less those right over an item whose first two words fewer than ``SAME_LEAD`` others share."""
    def lead(header: re.Match[str]) -> tuple[str, ...]:
        return tuple(header.group(0).lstrip("* \t").lower().split()[:2])

    leads = Counter(lead(header) for header in headers)
    return [header for header in headers
            if not _FIRST_ITEM.match(text[header.end() + 1:header.end() + 200]) or leads[lead(header)] > SAME_LEAD]


def _is_release(text: str, start: int, pattern: re.Pattern[str] = _RELEASE) -> bool:
    """Whether the line at ``start`` is a release header: it starts with a capital, a digit or ``*``, a blank line (or
    the start of the text) comes before it and a blank line or the release's first ``*`` item after it ("Major changes
    from 1.2 to 1.2.1" over its items in gzip's oldest releases), so no line of a wrapped sentence is one ("fixed
    in\nRelease 2.0.1.")."""
    lines = text[start:start + 400].split("\n", 2)
    line, after = lines[0], (lines[1] if len(lines) > 1 else "")
    before = text[text.rfind("\n", 0, start - 1) + 1:start - 1] if start else ""  # the line above, newline excluded
    return (len(line.strip()) <= 90 and bool(pattern.fullmatch(line)) and not before.strip()
            and (not after.strip() or (bool(_FIRST_ITEM.match(after)) and not line.lstrip().startswith("*"))))


def man_page_header(text: str) -> re.Match[str] | None:
    """The header of a man page rendering on its first non-blank line (``GZIP(1) General Commands Manual
    GZIP(1)``): the man-page parser takes such documents, the manual parsers decline them."""
    for line in text[:2000].splitlines():
        if line.strip():
            return MAN_HEADER.match(" ".join(line.split()))
    return None


# --- roles -------------------------------------------------------------------------------------------------

_HEADING_ROLES = [
    (re.compile(r"\bdefinitions?\b", re.I), "definition"),
    (re.compile(r"\bterminat", re.I), "termination"),
    (re.compile(r"disclaimer|warrant|liabilit", re.I), "disclaimer"),
    (re.compile(r"\b(rationale|preamble)\b", re.I), "rationale"),
    (re.compile(r"\b(purpose|scope)\b", re.I), "purpose"),
    (re.compile(r"\bhow to apply\b|\bprocedures?\b|\binstructions\b", re.I), "procedure"),
    (re.compile(r"\bexamples?\b", re.I), "example"),
    (re.compile(r"\brequirements\b", re.I), "duty"),
    (re.compile(r"\bpermissions?\b|\bgrant of\b", re.I), "permission"),
]
_LEGAL_ROLES = [
    (re.compile(r"WITHOUT (ANY )?WARRANT|NO WARRANTY|\bAS IS\b|\bdisclaims?\b|\bbe liable\b|\bin no event\b"
                r"|\bunder no circumstances\b", re.I), "disclaimer"),
    (re.compile(r"\b(shall|will) terminate|\bterminat(es|ed|ion) (of )?(your|the|this|any)", re.I), "termination"),
]
_MODALS = re.compile(
    r"(?P<prohibition>\b(?:must|may|shall|should|can)\s+not\b|\bcannot\b|\bmust never\b"
    r"|\b(?:is|are) not (?:allowed|permitted)\b|\bprohibit|\bforbid|\bdoes not grant\b"
    r"|\bno\s+\w+\s+(?:may|shall|is allowed)\b)"
    r"|(?P<duty>\bmust\b|\bshall\b|\bis required\b|\bare required\b|\brequired to\b|\bobligat)"
    r"|(?P<recommendation>\bshould\b|\brecommended\b|\bencouraged\b)"
    r"|(?P<permission>\bmay\b|\bpermitted\b|\bpermission\b|\bhereby grants?\b|\bis allowed\b|\bare allowed\b)",
    re.I,
)


def heading_role(heading: str) -> str | None:
    """The role a heading names outright (``Definitions``, ``Termination``, ``Rationale``, ...), if any."""
    for pattern, role in _HEADING_ROLES:
        if pattern.search(heading):
            return role
    return None


def text_role(body: str, legal: bool) -> str | None:
    """The role the text itself shows: for legal text disclaimers and termination first, else the first modal verb."""
    if legal:
        for pattern, role in _LEGAL_ROLES:
            if pattern.search(body):
                return role
    match = _MODALS.search(body)
    return match.lastgroup if match else None


def role_for(heading: str, body: str, legal: bool, term: str | None = None) -> str | None:
    """Role of a unit: a defined term makes it a definition, else its heading, else the first modal verb."""
    if term:
        return "definition"
    return heading_role(heading) or text_role(body, legal)


_QUOTE = r"[\"“”']"
_DEFINING = (
    r"(?:means|mean|refers? to|shall mean|also means|is defined as|is|are|includes?|denotes?|"
    r"(?:is|are) called|(?:is|are) referred to as)"
)
_DEFINITION_LEAD = re.compile(
    r"^(?:As used herein,\s+|In this [A-Za-z]+,\s+)?(?:(?:To|The|A|An|Each|Any|a|an|the)\s+)?(?:[\w'’-]+\s+){0,3}?"
    + _QUOTE + r"(?P<term>[^\"“”\n]{1,60}?)" + _QUOTE
    + r"(?:\s*\([^)]{0,40}\))?(?:\s+(?:[\w'’-]+\s+){0,8}?)?\s*" + _DEFINING + r"\b",
    re.S,
)
_CALLED = re.compile(r"\b(?:is|are) called (?:an? |the )?" + _QUOTE + r"(?P<term>[^\"“”\n]{1,60}?)" + _QUOTE)
_QUOTED_HEADING = re.compile(r"^" + _QUOTE + r"(?P<term>[^\"“”\n]{1,60}?)" + _QUOTE)


_CONDITION = re.compile(r"^(?:When|Whenever|If|Where|Unless|Although|Though|Since|Because|While|Once|Before|After|"
                        r"Until|Whether|In case)\b", re.I)
"""A paragraph that opens with a condition uses a term ("When a "work that uses the Library" uses material from a
header file ...") rather than defines it."""


def defined_term(text: str) -> str | None:
    """The term a paragraph defines (``"Source" form shall mean ...`` gives ``Source``), or None."""
    head = " ".join(text[:400].split())
    match = (None if _CONDITION.match(head) else _DEFINITION_LEAD.match(head)) or _CALLED.search(head)
    return match.group("term").strip() if match else None


def quoted_heading_term(title: str) -> str | None:
    """The term of a definition heading such as ``"Contributor"`` or ``"You" (or "Your")``."""
    match = _QUOTED_HEADING.match(title.strip())
    return match.group("term").strip() if match else None


# --- numbering ---------------------------------------------------------------------------------------------

def numbering_tuple(numbering: str) -> tuple[int, ...]:
    """``"4.9.1"`` or ``"4.9.1."`` as ``(4, 9, 1)``."""
    return tuple(int(part) for part in numbering.strip(".").split("."))


def is_next_number(previous: tuple[int, ...] | None, candidate: tuple[int, ...]) -> bool:
    """True when ``candidate`` can follow ``previous`` in a numbered outline (first child, sibling or uncle)."""
    if previous is None:
        return len(candidate) == 1 and candidate[0] in (0, 1)
    if candidate in (previous + (1,), previous + (0,), previous + (0, 1)):
        return True
    return any(candidate == previous[:depth] + (previous[depth] + 1,) for depth in range(len(previous)))


# --- unit trees --------------------------------------------------------------------------------------------

@dataclass
class Node:
    """A unit while a parser builds the tree (mutable); ``to_parsed`` turns it into a ``ParsedUnit``.

    ``in_path=False`` keeps a unit without a heading of its own (a page passage, the text between a section's
    entries: "Paragraph") out of its own and its descendants' ``hierarchy``: its chunks' headers and its citations
    (the section path, which follows ``hierarchy``) name its section.
    """

    key: str
    topic: str
    start: int
    end: int
    unit_type: str
    role: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    fulltext: str | None = None
    temporal: str = ""
    in_path: bool = True


@dataclass(frozen=True)
class DocumentInfo:
    """What every unit of a document carries: its title, the title with version/date context, the parser's name."""

    title: str
    label: str
    parser: str


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z])")
_ABBREVIATION = re.compile(r"(?:\b(?i:e\.g|i\.e|etc|vs|cf|viz|approx|incl|resp)|(?<![\w-])[A-Z])\.$")
"""What a full stop ends that is no sentence's end: "e.g.", "i.e.", "etc.", an initial ("U.S.", "J. Doe")."""


def first_sentence(words: str) -> str:
    """The first sentence of ``words`` (whitespace collapsed): up to the first full stop, ``!`` or ``?`` before a
    capital that does not end an abbreviation ("Use an editor, e.g. Vim" goes on)."""
    for match in _SENTENCE_BREAK.finditer(words):
        if not abbreviation_at(words, match.start()):
            return words[:match.start()]
    return words


def abbreviation_at(text: str, end: int) -> bool:
    """Whether the full stop that ends at ``end`` ends an abbreviation ("e.g.", "i.e.", an initial), not a sentence."""
    return bool(_ABBREVIATION.search(text, 0, end))


def shortened(title: str, limit: int = 80) -> str:
    """``title`` cut at a word to at most ``limit`` characters, with " …" where it was cut."""
    return title if len(title) <= limit else title[:limit].rsplit(" ", 1)[0] + " …"


def labelled(title: str, version: str | None) -> str:
    """The title with its version (``"Foo, Version 2.1"``), or the title alone when it already names that version
    ("Kerberos Version 5, Release 1.20" is not labelled again with "Release 1.20", which every chunk would repeat)."""
    if not version or " ".join(version.split()).casefold() in " ".join(title.split()).casefold():
        return title
    return f"{title}, {version}"


def to_parsed(document: Document, info: DocumentInfo, node: Node, parent_path: tuple[str, ...] = ()) -> ParsedUnit:
    """Convert a ``Node`` tree into ``ParsedUnit``s with the standard attributes (type, role, path, pages)."""
    path = (*parent_path, node.topic)
    child_path = path if node.in_path else parent_path
    attributes: dict[str, Any] = {"unit_type": node.unit_type}
    if node.role:
        attributes["role"] = node.role
    attributes.update(node.attributes)
    attributes["hierarchy"] = list(child_path)
    attributes["document_title"] = info.title
    attributes["document_label"] = info.label
    if document.page_starts:
        first, last = document.page_at(node.start), document.page_at(max(node.start, node.end - 1))
        attributes.update(page_start=document.page_label(first), page_end=document.page_label(last),
                          page_index_start=first, page_index_end=last)
    fulltext = node.fulltext if node.fulltext is not None else document.text[node.start:node.end]
    return ParsedUnit(
        topic=node.topic,
        key=node.key,
        fulltext=fulltext,
        temporal_topic=node.temporal or f"{info.label} {child_path[-1] if child_path else node.topic}".strip(),
        source_start=node.start,
        source_end=node.end,
        attributes=attributes,
        metadata={"parser": info.parser},
        subunits=[to_parsed(document, info, child, child_path) for child in node.children],
    )


def nest(items: list[tuple[int, Node]]) -> list[Node]:
    """Nest ``(depth, node)`` pairs given in document order (depth 1 = top level) and close the parents' spans."""
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for depth, node in items:
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((depth, node))
    for root in roots:
        close_spans(root)
    return roots


def leaf_roles(text: str, node: Node) -> None:
    """A section without subsections and without a role-naming heading takes the role its text shows."""
    for child in node.children:
        leaf_roles(text, child)
    if not node.children and not node.role:
        node.role = text_role(text[node.start:node.end], legal=False)


def close_spans(node: Node) -> None:
    """Make every parent span its children (a section ends where its last descendant ends)."""
    for child in node.children:
        close_spans(child)
    if node.children:
        node.end = max(node.end, node.children[-1].end)


def unique_sibling_keys(siblings: list[Node]) -> None:
    """Make keys unique among siblings (``verbose #2``) through a nested tree, where nodes made apart (a list's items,
    the subsections after them) became children of one parent."""
    seen: dict[str, int] = {}
    for node in siblings:
        node.key = unique_key(node.key, seen)
        unique_sibling_keys(node.children)


def unique_key(key: str, seen: dict[str, int]) -> str:
    """``key`` the first time, then ``key #2``, ``key #3``... so sibling keys stay unique and readable."""
    seen[key] = seen.get(key, 0) + 1
    return key if seen[key] == 1 else f"{key} #{seen[key]}"

"""Manual pages rendered by man/groff: as text (``man 5 deb-src-control | col -b``) or typeset to PDF.

A man page opens with its header line, ``GITIGNORE(5)   Git Manual   GITIGNORE(5)``, and its sections are
capitalised headings at the left margin (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, SEE ALSO; some pages add title-case
ones: "How It Works"), their bodies indented.
Accepts a document whose first line is such a header with a NAME heading and at least three section headings.
Tree: section > subsection (a text rendering's headings indented by a few spaces) > entry: a tagged paragraph
(an option such as ``-k --keep``, a field, a bullet) whose body is indented under its term, a numbered step ("1. Close
all open file descriptors"), or in a PDF (no indentation) an option line; the text between entries is a ``paragraph``
unit, so every line has a unit. The
document is titled by its NAME line ("gzip, gunzip, zcat - compress or expand files").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")
P = load_helper(__file__, "_pdf_layout.py")

MIN_SECTIONS = 3
MAX_SUBSECTION_LEAD = 4
"""A text rendering indents ``.SS`` headings by 3 spaces and section bodies by 7."""
_SECTION = re.compile(r"^[A-Z][A-Z0-9 ,&'/()$.:-]{1,60}$")
"""At a text rendering's margin, capitals with a file's dot, a variable's ``$`` or a colon are headings too:
sources.list(5)'s "SOURCES.LIST.D" and "THE DEB AND DEB-SRC TYPES: OPTIONS", kernel-install(8)'s "THE $BOOT
PARTITION" (they were read as text of the section before them)."""
_TYPESET_SECTION = re.compile(r"^[A-Z][A-Z ,&'/()-]{1,60}$")
"""A typeset page has no margin to tell a heading: a capitalised line with a digit there is a table row."""
_TITLED_SECTION = re.compile(r"^[A-Z][\w,&'/()-]*(?: [\w,&'/()-]+){0,8}$")
"""A text rendering's margin tells a heading in title case too (pyenv(1)'s "How It Works"): words single-spaced,
which a footer's tab-separated fields are not."""
_OPTION = re.compile(r"^[-+]{1,2}[\w#?]")
_PLACEHOLDER = re.compile(r"^[A-Za-z][\w.=\[\]<>|-]*,?$")
MAX_TERM_CHARS = 60
_BULLET = re.compile(r"^[•*·o-][ \t]")
_CAPTION = re.compile(r"^(?:Example|Table|Figure) \d+\.")
"""A DocBook caption over its example ("Example 1. os-release file for Fedora Workstation"): a title, set apart."""
_ENUMERATED = re.compile(r"^\(?(?:[A-Za-z]|\d{1,2}|[ivx]{1,4})[.)][ \t]")
_NUMBERED_ITEM = re.compile(r"^[ \t]*(\d{1,2})\.[ \t]+(?=\S)")
MAX_ITEM_LEAD = 3
"""A numbered list's items sit at the body's margin or up to 3 columns past it (daemon(7): "\\t1. Close all open
file descriptors", a tab stop one column past the 7-column margin, and "       10. In the daemon process")."""
_HEADER_LINES = 3
MAX_SET_APART_TAG_WORDS = 2
MIN_TAG_CHARS = 3
MIN_BODY_BESIDE = 30
"""Characters a one-word tag's line runs on past the body's column for the rest to be read as its body's first line
when only one space parts them (``_tag_beside_body``)."""
_NAME_TAG = re.compile(r"^(?:[A-Z][A-Z0-9_]+|[a-z][\w.-]*)$")
"""A tag that is one name: an error or constant (``EACCES``, ``RLIMIT_AS``) or a keyword (``search``)."""
_SENTENCE_START = re.compile(r"[A-Z][a-z]")
MAX_TITLE_WORDS = 8
"""A list item is titled by its first words: a longer title repeats its text in every chunk's header."""


class ManPageParser(UnitParser):
    """man pages as text or PDF: sections, subsections, option and list entries."""

    @property
    def parser_name(self) -> str:
        return "man-page"

    def parser_can_handle_document(self, document: Document) -> bool:
        return _problem(document) is None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        problem = _problem(document)
        if problem:
            raise DocumentRejected(document.id, problem)
        text = document.text
        header = H.man_page_header(text)
        furniture = set(P.analyse(document).furniture) if document.page_starts else set()
        headings = _section_headings(document, furniture)
        name_line = _name_line(text, headings)
        page = f"{header.group('name')}({header.group('section')})"
        title = name_line or page
        info = H.DocumentInfo(title=title, label=f"{page} {title}" if name_line else page, parser=self.parser_name)
        nodes = []
        start, end = H.trim(text, 0, headings[0][0])
        if end > start:
            # the header line alone ("tmpfs(5)  File Formats Manual  tmpfs(5)") is page furniture, not text to find
            alone = "\n" not in text[start:end]
            nodes.append(H.Node("header", page, start, end, "front_matter", role="furniture" if alone else "notice",
                                attributes={"heading": page, **({"furniture_chars": end - start} if alone else {})}))
        ends = [s for s, _, _ in headings[1:]] + [len(text)]
        seen: dict[str, int] = {}
        for (h_start, h_end, title_text), region_end in zip(headings, ends):
            start, end = H.trim(text, h_start, region_end)
            node = H.Node(H.unique_key(title_text, seen), title_text, start, end, "section",
                          role=H.heading_role(title_text), attributes={"heading": title_text})
            node.children = _section_children(text, h_end, end, bool(document.page_starts), furniture)
            H.close_spans(node)
            H.leaf_roles(text, node)
            nodes.append(node)
        return [H.to_parsed(document, info, node) for node in nodes]


def _problem(document: Document) -> str | None:
    """Why this is not a man page rendering (no header line, no NAME heading, too few sections), else None."""
    if H.man_page_header(document.text) is None:
        return "no man page header line ('NAME(SECTION) ... NAME(SECTION)') on the first line"
    furniture = set(P.analyse(document).furniture) if document.page_starts else set()
    headings = _section_headings(document, furniture)
    if not headings or headings[0][2] != "NAME":
        return "no NAME section heading at the left margin after the header"
    if len(headings) < MIN_SECTIONS:
        return f"{len(headings)} section headings at the left margin (need {MIN_SECTIONS}: NAME, SYNOPSIS, ...)"
    return None


def _section_headings(document: Document, furniture: set[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """``(start, end, title)`` of every section heading: a capitalised line alone at the left margin (a PDF's
    lines have no margin: any such line that is not page furniture), never the header or footer lines."""
    text, paged = document.text, bool(document.page_starts)
    found = []
    for start, end in H.line_spans(text):
        line = text[start:end]
        stripped = line.strip()
        if not stripped or (not paged and line[0].isspace()):
            continue
        if not (_TYPESET_SECTION.match(stripped) if paged else
                _SECTION.match(stripped) or len(stripped) <= 60 and _TITLED_SECTION.match(stripped)):
            continue
        if H.MAN_HEADER.match(" ".join(stripped.split())):
            continue
        lead = len(line) - len(line.lstrip())
        if paged and (start + lead, start + lead + len(stripped)) in furniture:
            continue
        found.append((start + lead, end, stripped))
    return found


def _name_line(text: str, headings: list[tuple[int, int, str]]) -> str | None:
    """The NAME section's first paragraph ("gitignore - Specifies intentionally untracked files to ignore"), with
    man's hyphenation at a line's end undone ("meth‐ ods"); ctags-faq(7) goes on with prose and a contents list."""
    if len(headings) < 2:
        return None
    body = re.split(r"\n[ \t]*\n", text[headings[0][1]:headings[1][0]].strip(), maxsplit=1)[0]
    return _unhyphenated(" ".join(body.split()))[:160] or None


def _unhyphenated(flat: str) -> str:
    """``flat`` (whitespace collapsed) without man's hyphenation at line ends: "de‐ pend" is "depend"."""
    return re.sub(r"(?<=\w)[\u2010\u00ad] (?=[a-z])", "", flat)




def _section_children(text: str, start: int, end: int, paged: bool, furniture: set[tuple[int, int]]) -> list:
    """Subsections (text only) and entries of one section's body ``[start, end)``."""
    lines = [(s, e) for s, e in H.line_spans(text, start, end)]
    if paged:
        return _entries_paged(text, lines, furniture)
    subsections = [i for i, (s, e) in enumerate(lines)
                   if text[s:e].strip() and 0 < H.indent(text[s:e]) <= MAX_SUBSECTION_LEAD
                   and len(text[s:e].strip()) <= 80 and not text[s:e].rstrip().endswith(".")]
    if not subsections:
        return _entries(text, lines)
    children = _entries(text, lines[:subsections[0]])
    bounds = subsections + [len(lines)]
    seen: dict[str, int] = {}
    for first, stop in zip(bounds, bounds[1:]):
        s, e = lines[first]
        title = text[s:e].strip()
        body = lines[first + 1:stop]
        node_start, node_end = H.trim(text, s, lines[stop - 1][1])
        node = H.Node(H.unique_key(title, seen), title, node_start, node_end, "subsection",
                      role=H.heading_role(title), attributes={"heading": title})
        node.children = _entries(text, body)
        children.append(node)
    return children


def _entries(text: str, lines: list[tuple[int, int]]) -> list:
    """Tagged paragraphs (a line at the body's margin over lines indented deeper) as entries; the text between
    them as paragraphs. No entries: no children (the section's own text is its body)."""
    content = [(s, e) for s, e in lines if text[s:e].strip()]
    if not content:
        return []
    margin = min(H.indent(text[s:e]) for s, e in content)
    items = _numbered_items(text, content, margin)
    starts: list[tuple[int, int]] = []
    for index, (s, e) in enumerate(content):
        following = content[index + 1] if index + 1 < len(content) else None
        if index in items:
            starts.append((index, index))
        elif (H.indent(text[s:e]) == margin and following is not None and index + 1 not in items
                and H.indent(text[following[0]:following[1]]) > margin and not _BOX.match(text[s:e])
                and not text[s:e].rstrip().endswith("{")  # an example program's block, not a tag over its body
                and not _prose_over_example(text, (s, e), following)):
            first = index  # several tags over one body ("--disabled-login" over "--disabled-password")
            while (first > 0 and (not starts or first - 1 > starts[-1][1])
                   and _adjacent(text, content[first - 1], content[first])
                   and H.indent(text[slice(*content[first - 1])]) == margin
                   and len(text[slice(*content[first - 1])].strip()) <= MAX_TERM_CHARS):
                first -= 1
            if first and _adjacent(text, content[first - 1], content[first]):
                first = _wrapped_question(text, content, index, margin, starts)
                if first is None:
                    continue  # the last line of a paragraph over an indented example, not a tag
            starts.append((first, index))
    if not starts:
        return []
    pieces: list[tuple[int, int, int | None]] = []  # (first content index, stop index, the tag's last line or None)
    for number, (first, term) in enumerate(starts):
        stop, own, step = term + 1, H.indent(text[slice(*content[term])]), first in items
        following = starts[number + 1][0] if number + 1 < len(starts) else len(content)
        # a tag's body is indented under it; a step also runs on over the lines right below it (top(1) wraps one
        # at the number's column)
        while stop < following and stop not in items and (
                H.indent(text[slice(*content[stop])]) > own or step and _adjacent(text, content[stop - 1], content[stop])
                or _box_after_lead_in(text, content, stop, term)):
            stop += 1
        pieces.append((first, stop, term))
        if following > stop:
            pieces.append((stop, following, None))
    nodes = []
    seen: dict[str, int] = {}
    lead_in = _lead_in(text[content[0][0]:content[starts[0][0] - 1][1]]) if starts[0][0] else None
    for first, stop, tag_end in pieces:
        start, end = H.trim(text, content[first][0], content[stop - 1][1])
        is_entry = tag_end is not None
        # a tag is its first line ("--disabled-login" over "--disabled-password"), a wrapped question all of it
        last = tag_end if is_entry and text[slice(*content[tag_end])].rstrip().endswith("?") else first
        term = " ".join(text[content[first][0]:content[last][1]].split())
        if is_entry and first == last and tag_end + 1 < stop and not _BULLET.match(term):
            term = _tag_beside_body(text[slice(*content[first])], H.indent(text[slice(*content[tag_end + 1])])) or term
        if is_entry:  # a step is titled by its first sentence, another entry by its tag
            node = (_step_node(text, start, end, seen) if first in items
                    else _entry_node(term, start, end, seen))
            if node.unit_type == "list_item" and lead_in:
                node.attributes["lead_in"] = lead_in  # read (and found) with the item, as a licence's clauses
            nodes.append(node)
        else:
            nodes.append(H.Node(H.unique_key("paragraph", seen), "Paragraph", start, end, "paragraph", in_path=False))
            lead_in = _lead_in(text[start:end])
    return nodes


_BOX = re.compile(r"^[ \t]*[┌│├└]")
"""A line of a table man draws with boxes (tbl's ``allbox``)."""


def _box_after_lead_in(text: str, content: list[tuple[int, int]], index: int, term: int) -> bool:
    """Whether line ``index`` is part of a boxed table that the entry's body leads in to ("Format of the timestamp
    can be any of the following:" over rtcwake(8)'s table of formats, drawn at the tag's column): the table is the
    entry's, not a paragraph between entries."""
    if not _BOX.match(text[slice(*content[index])]):
        return False
    first = index
    while first > term + 1 and _BOX.match(text[slice(*content[first - 1])]):
        first -= 1
    return first > term + 1 and text[slice(*content[first - 1])].rstrip().endswith(":")


def _numbered_items(text: str, content: list[tuple[int, int]], margin: int) -> set[int]:
    """Indexes of the lines that open a numbered list's steps ("1. Close all open file descriptors"): at most
    ``MAX_ITEM_LEAD`` columns past the margin, numbered one after another with their text at one column (daemon(7)'s
    "\\t1. Close" and "       10. In" both start their text at column 11), no paragraph between them. A list past the
    margin under a label, a step or a line past the margin is that entry's body (git-rebase(1)'s "a) regular use",
    ctags-faq(7)'s "D. The presence of duplicate tags")."""
    runs: list[list[int]] = []
    open_runs: dict[int, tuple[int, list[int]]] = {}  # the column of the items' text -> (last number, its run)
    for index, (s, e) in enumerate(content):
        expanded = text[s:e].expandtabs()
        match = _NUMBERED_ITEM.match(expanded)
        if match and H.indent(expanded) <= margin + MAX_ITEM_LEAD:
            number, column = int(match.group(1)), match.end()
            last = open_runs.get(column)
            if last and last[0] == number - 1:
                last[1].append(index)
                open_runs[column] = (number, last[1])
            else:
                runs.append([index])
                open_runs[column] = (number, runs[-1])
        elif index and not _adjacent(text, content[index - 1], content[index]):
            # a paragraph left of a list's text ends it: "1." in one paragraph and "2." in another are no list
            open_runs = {column: run for column, run in open_runs.items() if H.indent(expanded) >= column}
    return {index for run in runs if len(run) > 1 and not _nested(text, content, run[0], margin) for index in run}


def _nested(text: str, content: list[tuple[int, int]], first: int, margin: int) -> bool:
    """Whether the list whose first step is line ``first`` lies in an entry's body: past the margin, under a line
    (the nearest one no deeper than the step, code between them skipped) past the margin too, or a step or a label
    ("a) regular use": short, no closing punctuation) at it."""
    depth = H.indent(text[slice(*content[first])])
    if depth <= margin:
        return False
    above = next((text[slice(*content[i])] for i in range(first - 1, -1, -1)
                  if H.indent(text[slice(*content[i])]) <= depth), None)
    if above is None:
        return False
    label = above.strip()
    return (H.indent(above) > margin or bool(_NUMBERED_ITEM.match(above))
            or len(label) <= MAX_TERM_CHARS and not label.endswith((".", ":", "?", ",", ";")))


def _step_node(text: str, start: int, end: int, seen: dict[str, int]):
    """A numbered step titled by the first sentence of its first paragraph ("2. Reset all signal handlers to their
    default."), man's hyphenation at a line's end undone, its first ``MAX_TITLE_WORDS`` words as a bullet's; a step
    that heads a body indented past its text (top(1)'s "1. COMMAND-LINE Options") by its first line."""
    lines = text[slice(*H.paragraphs(text, start, end)[0])].split("\n")
    first = text[text.rfind("\n", 0, start) + 1:start] + lines[0]
    heads = len(lines) > 1 and H.indent(lines[1]) > _NUMBERED_ITEM.match(first.expandtabs()).end()
    number, _, rest = " ".join((lines[0] if heads else " ".join(lines)).split()).partition(" ")
    words = H.first_sentence(_unhyphenated(rest)).split()
    title = " ".join([number, *words[:MAX_TITLE_WORDS]]) + (" …" if len(words) > MAX_TITLE_WORDS else "")
    return H.Node(H.unique_key(title, seen), title, start, end, "list_item", attributes={"heading": title})


MAX_QUESTION_LINES = 3
"""A question over its answer wraps over at most this many lines (gitfaq(7): "I've made a change with a bug and
it's been included in the main / branch. How should I undo it?")."""


def _tag_beside_body(line: str, body: int) -> str | None:
    """The tag of a line that also opens its body (``Host    Restricts the following declarations``: a short tag's
    body starts on its line, at the column its next lines keep; a one-letter option too: badblocks(8)'s
    "-f     Normally, badblocks will refuse ..."), else None; an exit value or an enumerator ("0", "125", "(a)",
    "2)") says less than its line and stays with it. A tag one column short of the body keeps one space before it
    (rename(2)'s "EACCES Write permission is denied ..."): then the tag is one name (``_NAME_TAG``) and a sentence
    runs on from it as a body's first line does, so a question ("How do I ...") or a command with its arguments
    ("add KERNEL-VERSION ...", "file [-bcdE ...]") stays whole."""
    expanded = line.expandtabs()
    for gap in re.finditer(r"(?<=\S)[ ]+(?=\S)", expanded):
        if gap.end() == body:
            if gap.end() - gap.start() == 1 and not (_NAME_TAG.match(expanded[:gap.start()].strip())
                                                     and _SENTENCE_START.match(expanded, body)
                                                     and len(expanded.rstrip()) - body >= MIN_BODY_BESIDE):
                return None
            tag = " ".join(expanded[:gap.start()].split())
            long_enough = len(tag) >= MIN_TAG_CHARS or _OPTION.fullmatch(tag) is not None
            return tag if long_enough and not tag.isdigit() and not _ENUMERATED.match(f"{tag} ") else None
    return None


def _wrapped_question(text: str, content: list[tuple[int, int]], index: int, margin: int,
                      starts: list[tuple[int, int]]) -> int | None:
    """Where a question that wraps at the margin over an indented answer starts (a FAQ's entry), else None: a
    paragraph over an indented example ends in a colon or a stop, not a question mark."""
    if not text[slice(*content[index])].rstrip().endswith("?"):
        return None
    first = index
    while (first > 0 and index - first < MAX_QUESTION_LINES - 1 and (not starts or first - 1 > starts[-1][1])
           and _adjacent(text, content[first - 1], content[first])
           and H.indent(text[slice(*content[first - 1])]) == margin):
        first -= 1
    if first and _adjacent(text, content[first - 1], content[first]):
        return None  # a longer paragraph that ends in a question
    return first


def _lead_in(text: str) -> str | None:
    """The sentence that introduces the list after ``text`` ("The format begins with a 44-byte header containing
    the following fields:"), if its last paragraph's last sentence ends in a colon (a table above it is not read)."""
    blocks = H.paragraphs(text, 0, len(text))
    flat = _unhyphenated(" ".join(text[slice(*blocks[-1])].split())) if blocks else ""
    if not flat.endswith(":"):
        return None
    sentence = re.split(r"(?<=[.;!?])\s+(?=[A-Z])", flat)[-1]
    return sentence if len(sentence) <= 200 else f"{sentence[:150]} ... {sentence[-45:]}"


def _prose_over_example(text: str, line: tuple[int, int], below: tuple[int, int]) -> bool:
    """A line of prose set apart from the indented example under it ("If that version is broken, type", "For
    example the functions:", "For example:"): a tag's body follows it directly, and a tag set apart by a blank line is
    a term of a word or two (limits.conf(5)'s "<domain>"). Bullets, options, enumerated labels ("a) regular use",
    ctags-faq(7)'s "A. The ability of your editor to use multiple tag files.") and captions ("Example 1. ...") stay
    tags."""
    term = text[slice(*line)].strip()
    return (not _adjacent(text, line, below) and (len(term.split()) > MAX_SET_APART_TAG_WORDS or term.endswith(":"))
            and not _BULLET.match(term) and not _OPTION.match(term) and not _ENUMERATED.match(term)
            and not _CAPTION.match(term))


def _adjacent(text: str, above: tuple[int, int], below: tuple[int, int]) -> bool:
    """Two lines with no blank line between them."""
    return not text[above[1]:below[0]].strip("\n\t ") and text.count("\n", above[1], below[0]) == 1


def _entries_paged(text: str, lines: list[tuple[int, int]], furniture: set[tuple[int, int]]) -> list:
    """A typeset page has no indentation: each option line (``-k --keep``) opens an entry that runs to the next."""
    starts = []
    for s, e in lines:
        stripped = text[s:e].strip()
        lead = len(text[s:e]) - len(text[s:e].lstrip())
        if _option_term(stripped) and (s + lead, s + lead + len(stripped)) not in furniture:
            starts.append(s + lead)
    if not starts:
        return []
    section_end = lines[-1][1]
    nodes, seen = [], {}
    for start, stop in zip(starts, starts[1:] + [section_end]):
        start, end = H.trim(text, start, stop)
        term = text[start:text.find("\n", start) if "\n" in text[start:end] else end].strip()
        nodes.append(_entry_node(" ".join(term.split()), start, end, seen))
    return nodes


def _option_term(line: str) -> bool:
    """A typeset line that is an option's term alone (``-S .suf, --suffix=.suf``), not a sentence that wraps at
    an option (``--keep.``, ``--memlimit-decompress is used, it ...``) nor a table row (``-0 256 KiB ...``)."""
    if not _OPTION.match(line) or len(line) > MAX_TERM_CHARS or line.endswith("."):
        return False
    tokens = line.split()
    options = sum(1 for token in tokens if _OPTION.match(token))
    others = [token for token in tokens if not _OPTION.match(token)]
    return len(others) <= options and all(_PLACEHOLDER.match(token) for token in others)


def _entry_node(term: str, start: int, end: int, seen: dict[str, int]):
    """An option (``-k --keep``), a list item (a bullet) or another tagged paragraph (a field, a file name)."""
    if _OPTION.match(term):
        unit_type, title = "option", term[:80]
    elif _BULLET.match(term):
        unit_type, title = "list_item", " ".join(term[1:].split()[:MAX_TITLE_WORDS])
    else:
        unit_type, title = "entry", term[:80]
    return H.Node(H.unique_key(title, seen), title, start, end, unit_type, attributes={"heading": title})

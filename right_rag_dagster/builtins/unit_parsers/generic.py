"""The generic structure parser: the fallback for documents that no domain parser of a project accepts.

Never selected by default and never routed to beside the domain parsers: a project enables it with
``[right-rag.pipeline] fallback_unit_parser = "generic"`` and it then takes only the documents every domain
parser declines. It reads the structure the text shows without knowing the family: headings (Markdown ``#``,
underlined, numbered ``2.1.``, ``Chapter 3``, ``IV. Writing``, short capitalised or ``Label:`` lines, and the lines
a table of contents lists, nested by its indentation) nest in the order their styles first appear, and after the
first of them reStructuredText's ``.. rubric::``, ``.. dropdown::`` and ``.. topic::`` titles head parts of their
section; inside a section, each blank-line separated block is a ``stanza`` (``Field: value`` lines), a
``definition`` (a term line over an indented body) or a ``paragraph``, except that a FAQ's ``Q:`` block and the
``A:`` block after it, with the blocks up to the next ``Q:``, are one ``question``, and so is a block that is one
line asking a question, with the blocks up to the next such line, where a section has at least two of them each
followed by an answer. A rule standing alone between blank lines (``********``, ``----``) that a document repeats
separates entries (ncurses' FAQ; a licence file that appends the licences of code it bundles): each entry is a
section named by its first sentence.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from right_rag_dagster.core.faq import ANSWER, ANSWER_LINE, QUESTION, QUESTION_LINE
from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.markdown import fenced_spans, inside
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.restructuredtext import only_comments

MAX_HEADING = 100
MIN_CAPS = 3
"""Headings of several capitalised words that make capitalised lines of one word headings too (libjpeg's usage notes'
"JPEGTRAN" among "GENERAL USAGE" and "HINTS FOR CJPEG"); a lone "NOTE" in a document of other headings stays text."""
_ATX = re.compile(r"^(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_TOOL_MARKER = re.compile(r"^REUSE-(?:IgnoreStart|IgnoreEnd|SnippetBegin|SnippetEnd)\b")
"""A comment that tells the REUSE licensing tool where to look (rustdoc's ``COPYRIGHT`` opens ``# REUSE-IgnoreStart``):
no heading, no title."""
_UNDERLINE = re.compile(r"^(?:([=\-~^*#+])\1{2,}|([<>\"'])\2{3,})$")
"""An underline of reStructuredText's usual marks; ``<``, ``>``, ``"`` and ``'`` (six's manual underlines its
subsections with ``>>>>``) from four on, so a ``>>>`` prompt or a docstring's quotes under a short line is none."""
_SHORT_UNDERLINE = re.compile(r"^([=-])\1+$")
_NUMBERED = re.compile(r"^(?P<prefix>(?:Chapter|CHAPTER|Part|PART|Appendix|APPENDIX)[ \t\u00a0]+)?"
                       r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,4})\.?[ \t\u00a0]+(?P<title>[A-Z/\"'“(`].*)$")
_WORD = re.compile(r"[^\W\d_]{2}")
_MARKUP_LINE = re.compile(r"^(?::[\w-]+:\s*$|\.\. )")
_COPYRIGHT_LINE = re.compile(r"(?:copyright\b|\(c\)|©)", re.IGNORECASE)
"""A copyright notice: the opening line of many licence files, and never their title."""
_GENERIC_FILE_WORDS = frozenset({"license", "licence", "licenses", "licences", "copying", "copyright", "notice",
                                 "readme", "txt", "text", "doc", "docs"})
_ROMAN = re.compile(r"^(?P<num>[IVXLC]{1,7})\.[ \t\u00a0]+(?P<title>[A-Z].{0,80}[^.:;,])$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_LABEL = re.compile(r"^[A-Z][\w ()/,'-]{0,50}:$")
_CAPS = re.compile(r"^[A-Z][A-Z0-9 ,&'/()-]{3,60}$")
_FIELD = re.compile(r"^[A-Za-z][\w-]{0,40}:(?:[ \t]|$)")
DIRECTIVE_LEVEL = 1_000
"""The depth of a ``_TITLED_DIRECTIVE`` heading: below every other heading, so the next heading of any style ends it."""
_TITLED_DIRECTIVE = re.compile(r"^\.\.[ \t]+(?:rubric|dropdown|topic)::[ \t]+(?P<title>\S.{0,98}?)[ \t]*$")
"""A reStructuredText directive that titles what follows it: Sphinx's ``.. rubric:: Examples`` (a heading outside the
table of contents), sphinx-design's ``.. dropdown:: Usage`` (a section shown folded), ``.. topic:: Title``."""
_BLANK_RUN = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_RULE = re.compile(r"^([*=\-~#_+])\1{3,}$")
MIN_RULES = 2
"""A rule that separates entries is one a document repeats: a lone ``----`` may only close a letter's body."""
_SENTENCE_END = re.compile(r"[^\W\d_][\"')]?[.!?:](?=\s)")  # after a word: "2.2." ends none
_DATE = re.compile(r"^\d{1,2}\.?\s+(?:January|February|March|April|May|June|July|August|September|October|November|"
                   r"December),?\s+\d{4}\b", re.IGNORECASE)
"""A date line ("27 September 1996") under a title block: no section 27."""
_CONTENTS = re.compile(r"^(?:table\s+of\s+)?contents:?$", re.IGNORECASE)
_LEADER = re.compile(r"(?:[ \t]*\.{2,}[ \t]*|\t+|[ \t]{2,})\d+$")
"""A contents entry's page number after dots, a tab or spaces ("Installing ..... 12"); "Step 1" keeps its number."""
MIN_CONTENTS = 3
MAX_CONTENTS_LINES = 300


@dataclass(frozen=True)
class Heading:
    """A heading: its span (underline included), title, numbering, and style (styles decide the depth)."""

    start: int
    end: int
    title: str
    style: str
    numbering: str | None = None


@dataclass
class _Section:
    heading: Heading
    level: int
    region_end: int
    children: list[_Section] = field(default_factory=list)


class GenericUnitParser(UnitParser):
    """Headings, numbered sections, definition lists, stanzas and paragraphs of any text: a fallback only."""

    selected_by_default = False

    @property
    def parser_name(self) -> str:
        return "generic"

    def parser_can_handle_document(self, document: Document) -> bool:
        return bool(document.text.strip())

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        headings = find_headings(text)
        title = _document_title(document, text, headings)
        lines = _lines(text)
        table = contents(text, lines) if any(h.style.startswith("listed") for h in headings) else None
        build = _Builder(document, title, self.parser_name, table.span(text, lines) if table is not None else None)
        front_end = headings[0].start if headings else len(text)
        if not headings:
            return build.blocks(0, front_end, ())
        units = []
        front = _trim(text, 0, front_end)
        if front[1] > front[0]:
            units.append(build.unit("front matter", "Front matter", front, "front_matter", (),
                                    build.blocks(*front, ("Front matter",))))
        return _unique_keys(units + [build.section(section, ()) for section in _nest(headings, len(text))])


def find_headings(text: str) -> list[Heading]:
    """Heading lines in document order (a numbered heading must follow the previous one in outline order)."""
    lines = _lines(text)
    found: list[Heading] = []
    previous_number: tuple[int, ...] | None = None
    previous_roman = 0  # Roman-numbered chapters ("III. Reading") count up from I
    rules: dict[str, list[int]] = {}  # rules standing alone between blank lines, by their character
    list_items = _ListItems(text, lines)
    one_word: list[Heading] = []  # capitalised words standing alone, not on the first line: headings among capitals
    separators = _separators(text, lines)
    for index, (start, end) in enumerate(lines):
        line = text[start:end]
        stripped = line.strip()
        above = text[slice(*lines[index - 1])].strip() if index else ""
        below = text[slice(*lines[index + 1])].strip() if index + 1 < len(lines) else ""
        if not above and not below and _RULE.match(stripped):
            rules.setdefault(stripped[0], []).append(index)
        if not stripped or len(stripped) > MAX_HEADING or _UNDERLINE.match(stripped):
            continue
        atx = _ATX.match(line)
        if atx and _TOOL_MARKER.match(atx.group(2)):
            continue
        numbered = _NUMBERED.match(stripped)
        titled = _TITLED_DIRECTIVE.match(line)
        if atx:
            found.append(Heading(start, end, atx.group(2), f"atx{len(atx.group(1))}"))
        elif titled:
            found.append(Heading(start, end, titled.group("title"), "directive"))
        elif not above and (_UNDERLINE.match(below) and len(below) >= max(3, len(stripped) - MAX_UNDERLINE_SLACK)
                            and not _rule_under_sentence(stripped, below)
                            or _short_underline(stripped, below, text, lines, index)):
            number = _NUMBERED.match(stripped)
            found.append(Heading(start + len(line) - len(line.lstrip()), lines[index + 1][1], stripped,
                                 f"underline{below[0]}", number.group("num") if number else None))
        elif (numbered and line.rstrip() == stripped and _after_separator(text, lines, index, separators)
              and not _DATE.match(stripped)
              and _follows(previous_number, numbers := tuple(int(part) for part in numbered.group("num").split(".")))):
            previous_number = numbers  # an entry opened by a rule (Valgrind's FAQ): its answer may follow directly
            found.append(Heading(start, end, stripped, f"num{len(numbers)}", numbered.group("num")))
        elif above or below:
            continue  # the remaining styles stand alone between blank lines (or open with a label)
        elif (roman := _ROMAN.match(stripped)) and line == stripped and (
                chapter := _next_chapter(previous_roman, roman.group("num"))):
            previous_roman = chapter
            found.append(Heading(start, end, stripped, "roman"))  # nests by its style, not with "2.1."
        elif (numbered and (numbered.group("prefix") or line == stripped) and not stripped.endswith((",", ";"))
              and not _DATE.match(stripped)):
            numbers = tuple(int(part) for part in numbered.group("num").split("."))
            first = previous_number is None
            if (_follows(previous_number, numbers) and not (first and list_items.continues(start, numbers, found))
                    and not list_items.opens(start, numbers)):
                previous_number = numbers
                found.append(Heading(start + len(line) - len(line.lstrip()), end, stripped, f"num{len(numbers)}",
                                     numbered.group("num")))
        elif line == stripped and _LABEL.match(stripped):
            found.append(Heading(start, end, stripped.rstrip(":"), "label"))
        elif line == stripped and _CAPS.match(stripped) and (" " in stripped or index):
            (found if " " in stripped else one_word).append(Heading(start, end, stripped, "caps"))
    found += _entries(text, lines, rules, {h.start for h in found})
    found += _first_entries(text, lines, found)
    if sum(h.style == "caps" for h in found) >= MIN_CAPS:  # the document heads its sections in capitals
        found += one_word
    fences = _fences(text)  # a "# comment" in a code block is no heading
    found = sorted(found + _listed(text, lines, {h.start for h in found}), key=lambda h: h.start)
    found = [heading for heading in found if not inside(fences, heading.start)]
    first = next((h.start for h in found if h.style != "directive"), None)
    # a directive before the first heading (".. topic:: Abstract" over the title) is part of the front matter
    return [h for h in found if h.style != "directive" or first is not None and h.start > first]


@dataclass(frozen=True)
class _Contents:
    """A table of contents: its lines (``first`` to ``stop``, exclusive; the "Contents" line first) and the
    indentation of each entry's title."""

    first: int
    stop: int
    depth: dict[str, int]

    def span(self, text: str, lines: list[tuple[int, int]]) -> tuple[int, int]:
        return _trim(text, lines[self.first][0], lines[self.stop - 1][1])


def contents(text: str, lines: list[tuple[int, int]]) -> _Contents | None:
    """The table of contents that a line "Contents" (or "Table of Contents") standing near the top opens: the short
    lines after it, up to the first that repeats one of them (the body's first heading), at least ``MIN_CONTENTS``
    of them standing alone after it (a README's "Contents" section listing its folders is no table of contents)."""
    opening = next((i for i, (start, end) in enumerate(lines[:MAX_CONTENTS_LINES])
                    if _CONTENTS.match(text[start:end].strip()) and (i == 0 or not text[slice(*lines[i - 1])].strip())),
                   None)
    if opening is None:
        return None
    depth: dict[str, int] = {}
    last = opening
    for index in range(opening + 1, min(len(lines), opening + MAX_CONTENTS_LINES)):
        line = text[slice(*lines[index])]
        title = _LEADER.sub("", line.strip())
        if not title:
            continue
        if title in depth or len(title) > MAX_HEADING or not _WORD.search(title):
            table = _Contents(opening, last + 1, depth)
            found = title in depth and len(depth) >= MIN_CONTENTS
            return table if found and len({h.title for h in _standing(text, lines, table, set())}) >= MIN_CONTENTS \
                else None
        depth[title] = len(line) - len(line.lstrip())
        last = index
    return None


def _listed(text: str, lines: list[tuple[int, int]], taken: set[int]) -> list[Heading]:
    """The lines a table of contents lists, where they stand alone after it: headings, nested by the contents'
    indentation (an X specification rendered from DocBook: "Requests" over "AppGroupCreate", no numbers or
    underlines)."""
    table = contents(text, lines)
    return [] if table is None else _standing(text, lines, table, taken)


def _standing(text: str, lines: list[tuple[int, int]], table: _Contents, taken: set[int]) -> list[Heading]:
    """The lines after ``table`` that it lists and that stand alone (blank lines around them), but at ``taken``; where
    every such line stands flush left over an indented body, also the other short lines of words that stand so
    (util-linux's howto-contribute lists "Sending Patches" but not its "Repositories & Branches"), at the top level."""
    depth = table.depth
    levels = {indent: rank for rank, indent in enumerate(sorted(set(depth.values())))}
    found, unlisted = [], []
    all_flush = True  # every listed heading flush left over an indented body
    for i in range(table.stop, len(lines)):
        start, end = lines[i]
        title = text[start:end].strip()
        if start in taken or not _alone(text, lines, i):
            continue
        line = text[start:end]
        if title in depth:
            found.append(Heading(start + len(line) - len(line.lstrip()), end, title.rstrip("."),
                                 f"listed{levels[depth[title]]}"))
            all_flush = all_flush and line == line.lstrip() and _body_indented(text, lines, i)
        elif line == title and _flush_title(title) and _body_indented(text, lines, i):
            unlisted.append(Heading(start, end, title, "listed0"))
    return sorted(found + unlisted, key=lambda h: h.start) if found and all_flush else found


_FLUSH_TITLE = re.compile(r"^[A-Z][\w&'/() -]{0,58}[\w)]$")


def _flush_title(line: str) -> bool:
    """A short line of words that ends in no punctuation ("Repositories & Branches")."""
    return bool(_FLUSH_TITLE.match(line)) and len(line.split()) <= 6


def _alone(text: str, lines: list[tuple[int, int]], i: int) -> bool:
    return (not text[slice(*lines[i - 1])].strip()) and (i + 1 == len(lines) or not text[slice(*lines[i + 1])].strip())


def _body_indented(text: str, lines: list[tuple[int, int]], i: int) -> bool:
    """The first line with text after line ``i`` is indented."""
    after = next((text[slice(*lines[j])] for j in range(i + 1, len(lines)) if text[slice(*lines[j])].strip()), "")
    return after[:1] in (" ", "\t")


def _separators(text: str, lines: list[tuple[int, int]]) -> set[str]:
    """The rules a text repeats between its entries: lines of one character, at least ``MIN_SEPARATOR_CHARS`` long,
    found at least ``MIN_SEPARATORS`` times (Valgrind's FAQ: 72 dashes before and after each chapter's title and
    after each answer); an underline, a thematic break (``----``) or a rule drawn once is none."""
    counts = Counter(stripped for s, e in lines
                     if len(stripped := text[s:e].strip()) >= MIN_SEPARATOR_CHARS and _RULE.match(stripped))
    return {rule for rule, count in counts.items() if count >= MIN_SEPARATORS}


MIN_SEPARATOR_CHARS = 40
MIN_SEPARATORS = 3


def _after_separator(text: str, lines: list[tuple[int, int]], index: int, separators: set[str]) -> bool:
    """Whether the last line with text above line ``index`` (at most one blank line between) is a separator."""
    for back in (index - 1, index - 2):
        if back < 0:
            return False
        above = text[slice(*lines[back])].strip()
        if above:
            return above in separators
    return False


def _rule_under_sentence(line: str, below: str) -> bool:
    """A sentence (it ends in a full stop) over a rule longer than itself is a paragraph's last line over the rule
    that ends an entry (Valgrind's FAQ closes each answer with a line of 72 dashes), not a heading and its
    underline. (A line ending in "?" or "!" over a longer rule stays a heading: a FAQ's question, an exclamation.)"""
    return line.endswith(".") and len(below) > len(line) + MAX_UNDERLINE_SLACK


def _short_underline(title: str, below: str, text: str, lines: list[tuple[int, int]], index: int) -> bool:
    """A short ``title`` (line ``index``) over a run of ``=`` or ``-`` shorter than it (``below``), a blank line after
    (D-Bus's README: "Security" over "=="): Markdown reads any length as an underline, and a title's words make it no
    table rule."""
    after = text[slice(*lines[index + 2])].strip() if index + 2 < len(lines) else ""
    return (bool(_SHORT_UNDERLINE.match(below)) and not after and len(title.split()) <= 8 and title[:1].isupper()
            and not title.endswith((".", ",", ";", ":")))


def _entries(text: str, lines: list[tuple[int, int]], rules: dict[str, list[int]],
             heading_starts: set[int]) -> list[Heading]:
    """A heading for each entry that a repeated rule (``rules``: line indexes by character) opens: the rule's line,
    named by the entry's first sentence, so the entry's text stays whole in its section. A rule right above a
    heading opens no entry (the heading names it); nor does one with nothing after it."""
    entries = []
    for indexes in rules.values():
        if len(indexes) < MIN_RULES:
            continue
        for index in indexes:
            first = _text_line(text, lines, index + 1)
            line = text[slice(*lines[first])] if first is not None else ""
            if first is None or _RULE.match(line.strip()):
                continue
            start = lines[first][0] + len(line) - len(line.lstrip())
            if start in heading_starts or lines[first][0] in heading_starts:
                continue
            rule_start, rule_end = lines[index]
            rule_start += len(text[rule_start:rule_end]) - len(text[rule_start:rule_end].lstrip())
            entries.append(Heading(rule_start, rule_end, _first_sentence(text, start), "entry"))
    return entries


_BULLET = re.compile(r"[*•-][ \t]+\S")


def _first_entries(text: str, lines: list[tuple[int, int]], headings: list[Heading]) -> list[Heading]:
    """An entry that a heading opens instead of a rule: where the rules' entries open with a bulleted sentence at
    the start of a line, a paragraph that opens so right under another heading is an entry too (groff's
    ``PROBLEMS``: each problem follows a ``----`` rule but the first of a section, which follows the section's
    ``====`` heading and was read as the section's own text), named and nested as the rules' entries are."""
    starts = [start for start, _ in lines]

    def opening(end: int) -> int | None:  # the first line with text after ``end``, if a bullet at its start
        index = _text_line(text, lines, bisect_left(starts, end))
        start = lines[index][0] if index is not None else None
        return start if start is not None and _BULLET.match(text, start) else None

    entries = [h for h in headings if h.style == "entry"]
    openings = [opening(h.end) for h in entries]
    if len(entries) < MIN_RULES or None in openings or len({text[start] for start in openings}) != 1:
        return []  # only where every rule's entry opens with the same bullet
    bullet = text[openings[0]]
    ordered = sorted(headings, key=lambda h: h.start)
    taken = {h.start for h in headings}
    found = []
    heading_starts = [h.start for h in ordered]
    for heading in ordered:
        start = opening(heading.end) if heading.style != "entry" else None
        if start is None or text[start] != bullet or start in taken:
            continue
        after = bisect_left(heading_starts, start + 1)  # the bullet opens the section's entries: a rule's entry
        if after < len(ordered) and ordered[after].style == "entry":  # comes next, not another section
            found.append(Heading(start, start, _first_sentence(text, start), "entry"))
    return found


def _text_line(text: str, lines: list[tuple[int, int]], index: int) -> int | None:
    """The index of the first line from ``index`` on that holds text (not only blanks), or None."""
    return next((i for i in range(index, len(lines)) if text[slice(*lines[i])].strip()), None)


def _first_sentence(text: str, start: int) -> str:
    """The first sentence of the paragraph at ``start``, whitespace collapsed, at most ``MAX_HEADING`` characters
    (cut at a word)."""
    paragraph = " ".join(text[start:start + 4 * MAX_HEADING].split("\n\n", 1)[0].split())
    end = _SENTENCE_END.search(paragraph)
    return _cut(paragraph[:end.end()] if end else paragraph, MAX_HEADING)


def _cut(text: str, limit: int) -> str:
    """``text`` when it fits ``limit`` characters, else cut at the last word that fits, with " …"."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _next_chapter(previous: int, numeral: str) -> int | None:
    """The numeral's value when a heading numbered with it continues the chapters before it (the next number, or
    one skipped or repeated: libpng's manual goes XIII, XV, XV), else None."""
    value = _roman_value(numeral)
    if value is None or not (previous + 1 == value if previous == 0 else previous <= value <= previous + 2):
        return None
    return value


def _roman_value(numeral: str) -> int | None:
    """The value of a well-formed Roman numeral (``XIV`` -> 14), else None (``IIII``, ``VX``)."""
    values = [_ROMAN_VALUES[c] for c in numeral]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return total if total > 0 and _roman(total) == numeral else None


def _roman(value: int) -> str:
    out = ""
    for number, letters in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"),
                            (1, "I")):
        while value >= number:
            out, value = out + letters, value - number
    return out


class _ListItems:
    """The lines that open a numbered list item ("24. The \\W prompt ..."), outside code fences, read once per
    document when a numbered heading standing alone may be an item of a list (``continues``, ``opens``)."""

    def __init__(self, text: str, lines: list[tuple[int, int]]) -> None:
        self.text, self.lines = text, lines
        self._items: list[tuple[int, int, bool, int]] | None = None
        self._reaches: dict[int, int] = {}  # item index -> start of the hanging item its run goes back to

    def continues(self, start: int, numbers: tuple[int, ...], headings: list[Heading]) -> bool:
        """Whether a first numbered heading at ``start`` (``26.``) continues a numbered list above it: the item lines
        right before it count down from its number, after the last of ``headings``, back to one whose text runs on
        under a hanging indent (bash's COMPAT: items 25 and 26 fit on one line, 24 does not). Then it is one item of
        that list, no section."""
        if len(numbers) > 1:
            return False
        items = self.items()
        after = headings[-1].start if headings else -1
        index, expected, walked = bisect_left(items, (start,)) - 1, numbers[0] - 1, []
        while index >= 0 and expected >= 1 and items[index][0] > after and items[index][1] == expected:
            reached = self._reaches.get(index, items[index][0] if items[index][2] else None)
            if reached is not None:
                self._reaches.update(dict.fromkeys(walked, reached))
                return reached > after
            walked.append(index)
            index, expected = index - 1, expected - 1
        return False

    def opens(self, start: int, numbers: tuple[int, ...]) -> bool:
        """Whether a "1." standing alone at ``start`` opens a list whose "2." runs on under a hanging indent
        (Valgrind's "1.  Find out the name of the system call:" over "2.  Do 'man 2 mysyscallname' to get some idea
        ..."), every line between them blank or indented deeper than the number: then it is that list's first item,
        no section over the others."""
        if numbers != (1,):
            return False
        items = self.items()
        index = bisect_left(items, (start + 1,))
        if index == 0 or items[index - 1][0] != start:
            return False
        indent = items[index - 1][3]
        following = next((items[i] for i in range(index, len(items)) if items[i][3] <= indent), None)
        if following is None or following[1:] != (2, True, indent):
            return False
        between = range(bisect_left(self.lines, (start + 1,)), bisect_left(self.lines, (following[0],)))
        return all(not line.strip() or len(line) - len(line.lstrip()) > indent
                   for line in (self.text[slice(*self.lines[i])].expandtabs() for i in between))

    def items(self) -> list[tuple[int, int, bool, int]]:
        """(line start, number, whether the next line is indented deeper, the number's column) of every line that
        opens an item."""
        if self._items is None:
            fences = _fences(self.text)
            self._items = []
            for index, (start, end) in enumerate(self.lines):
                item = _LIST_NUMBER.match(self.text, start, end)
                if item and not inside(fences, start):
                    below = self.text[slice(*self.lines[index + 1])] if index + 1 < len(self.lines) else ""
                    hanging = bool(below.strip()) and len(below) - len(below.lstrip()) > len(item.group(1))
                    self._items.append((start, int(item.group(2)), hanging, len(item.group(1).expandtabs())))
        return self._items


_LIST_NUMBER = re.compile(r"([ \t]*)(\d{1,4})\.[ \t]")


def _follows(previous: tuple[int, ...] | None, numbers: tuple[int, ...]) -> bool:
    """Outline order: a first child, a next sibling or uncle, or a restart at 1 (a new part or appendix)."""
    if numbers in ((0,), (1,)) or previous is None:
        return len(numbers) == 1
    if numbers in (previous + (1,), previous + (0,)):
        return True
    return any(numbers == previous[:depth] + (previous[depth] + 1,) for depth in range(len(previous)))


def _nest(headings: list[Heading], text_end: int) -> list[_Section]:
    levels = {style: rank for rank, style in enumerate(dict.fromkeys(h.style for h in headings), start=1)}
    numbered_levels = sorted(levels[h.style] for h in headings if h.numbering)
    roots: list[_Section] = []
    stack: list[_Section] = []
    ends = [h.start for h in headings[1:]] + [text_end]
    for heading, region_end in zip(headings, ends):
        level = levels[heading.style]
        if heading.numbering and numbered_levels:  # numbered headings nest by their numbering
            level = numbered_levels[0] + heading.numbering.count(".")
        if heading.style == "directive":  # a rubric titles a part of its section, never a parent of headings
            level = DIRECTIVE_LEVEL
        section = _Section(heading, level, region_end)
        while stack and stack[-1].level >= level:
            stack.pop()
        (stack[-1].children if stack else roots).append(section)
        stack.append(section)
    return roots


class _Builder:
    """Turns sections and blocks into ``ParsedUnit`` trees with exact, trimmed spans."""

    def __init__(self, document: Document, title: str, parser: str, contents: tuple[int, int] | None = None) -> None:
        self.text, self.title, self.parser = document.text, title, parser
        self.contents = contents  # the table of contents' span: its blocks are navigation (the domain chunker skips)

    def unit(self, key: str, topic: str, span: tuple[int, int], unit_type: str, parent: tuple[str, ...],
             children: list[ParsedUnit], **attributes: object) -> ParsedUnit:
        start, end = span
        if children:
            start, end = min(start, children[0].source_start), max(end, children[-1].source_end)
        return ParsedUnit(
            topic=topic, key=key, fulltext=self.text[start:end], source_start=start, source_end=end,
            temporal_topic=f"{self.title} {topic}",
            attributes={"unit_type": unit_type, "hierarchy": [*parent, topic], "document_title": self.title,
                        "document_label": self.title, **{k: v for k, v in attributes.items() if v}},
            metadata={"parser": self.parser}, subunits=_unique_keys(children))

    def section(self, section: _Section, parent: tuple[str, ...]) -> ParsedUnit:
        heading = section.heading
        path = (*parent, heading.title)
        body_end = section.children[0].heading.start if section.children else section.region_end
        own = self.blocks(heading.end, body_end, path)
        children = (own if len(own) > 1 or any(u.attributes["unit_type"] != "paragraph" for u in own) else [])
        children += [self.section(child, path) for child in section.children]
        span = _trim(self.text, heading.start, body_end if children or not own else own[-1].source_end)
        unit_type = "section" if heading.style != "label" else "labelled_section"
        return self.unit(heading.numbering or heading.title[:80], heading.title, span, unit_type, parent, children,
                         heading=heading.title, numbering=heading.numbering)

    def blocks(self, start: int, end: int, parent: tuple[str, ...]) -> list[ParsedUnit]:
        """The paragraphs, stanzas, definitions and FAQ entries of ``[start, end)``; a paragraph that leads in to a
        list ("1. the TypeEngine classes are used for:") holds the items after it, so they are read together."""
        units = self._blocks(_questions(self.text, _paragraphs(self.text, start, end)), parent)
        nested: list[ParsedUnit] = []
        index = 0
        while index < len(units):
            unit, stop = units[index], index + 1
            if unit.attributes["unit_type"] == "paragraph" and unit.fulltext.rstrip().endswith(":"):
                # items of one list: markers of one kind, not the lead-in's own ("1. ... for:" over "a.", "b.")
                kind = _marker_kind(units[stop].fulltext) if stop < len(units) else None
                while (kind and kind != _marker_kind(unit.fulltext) and stop < len(units)
                       and _marker_kind(units[stop].fulltext) == kind):
                    stop += 1
            if stop - index > MIN_LIST_ITEMS:
                path = (*parent, unit.topic)
                items = [replace(item, attributes={**item.attributes, "hierarchy": [*path, item.topic]})
                         for item in units[index + 1:stop]]
                unit = self.unit(unit.key, unit.topic, (unit.source_start, unit.source_end), "paragraph", parent,
                                 items)
            else:
                stop = index + 1
            nested.append(unit)
            index = stop
        return self._items(nested, parent)

    def _items(self, units: list[ParsedUnit], parent: tuple[str, ...]) -> list[ParsedUnit]:
        """A list item holds the blocks after it that are indented to its text or deeper (util-linux's "* add a
        Signed-off-by line." and its paragraphs on what the sign-off certifies), so an item is read whole."""
        out: list[ParsedUnit] = []
        index = 0
        while index < len(units):
            unit, stop = units[index], index + 1
            column = _item_column(self.text, unit.source_start)
            while column is not None and stop < len(units) and _column(self.text, units[stop].source_start) >= column:
                stop += 1
            if stop > index + 1:
                topic = unit.topic if unit.attributes["unit_type"] != "paragraph" else _item_text(unit.fulltext, unit.topic)
                path = (*parent, topic)
                unit = self.unit(unit.key, topic, (unit.source_start, unit.source_end), unit.attributes["unit_type"],
                                 parent, [_rerooted(block, path) for block in units[index + 1:stop]],
                                 defined_term=unit.attributes.get("defined_term"))
            out.append(unit)
            index = stop
        return out

    def _blocks(self, blocks: list[tuple[int, int, bool]], parent: tuple[str, ...]) -> list[ParsedUnit]:
        units = []
        for ordinal, (block_start, block_end, entry) in enumerate(blocks, start=1):
            block = self.text[block_start:block_end]
            marker = QUESTION.match(block) if entry else None
            if entry:
                kind, term = "question", None
                asked = block[marker.end():].split("\n\n", 1)[0] if marker else block.split("\n", 1)[0]
                asked = asked[:answer.start()] if (answer := ANSWER_LINE.search(asked, 1)) else asked
                topic = " ".join(asked.split())[:MAX_HEADING]
            elif self.contents and self.contents[0] <= block_start < self.contents[1]:
                kind, term, topic = "table_of_contents", None, "Contents"
            else:
                kind, term = _classify(self.text, block_start, block)
                topic = term if term else f"{parent[-1] if parent else self.title} ¶{ordinal}"
            units.append(self.unit(f"¶{ordinal}", topic, (block_start, block_end), kind, parent, [],
                                   defined_term=term if kind == "definition" else None,
                                   role="navigation" if kind == "table_of_contents" else None))
        return units


MIN_LIST_ITEMS = 1
"""A lead-in holds the items after it when there are more than this many."""
_LIST_ITEM = re.compile(r"[ \t]*(?:(?P<bullet>[-*•+])|\(?(?:(?P<digit>\d{1,2})|(?P<roman>[ivx]{1,4})|(?P<letter>[a-z]))[.)])"
                        r"[ \t]+\S")


def _item_column(text: str, start: int) -> int | None:
    """The column at which the text of the list item at ``start`` begins (tabs every 8), or None: no item there."""
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", start)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    match = _LIST_ITEM.match(line)
    return len(line[:match.end() - 1].expandtabs(8)) if match and match.lastgroup in ("bullet", "digit") else None


def _item_text(block: str, topic: str) -> str:
    """A list item's first line as the topic of the item and the blocks it holds ("normalize.css" over its copyright
    notice, not "COPYRIGHT ¶8"); ``topic`` when that line has no word (a rule of ``- - -``)."""
    line = block.split("\n", 1)[0]
    match = _LIST_ITEM.match(line)
    text = " ".join(line[match.end() - 1 if match else 0:].split()).rstrip(":‐")
    if not _WORD.search(text):
        return topic
    return _cut(text, 80)


def _column(text: str, start: int) -> int:
    line_start = text.rfind("\n", 0, start) + 1
    return len(text[line_start:start].expandtabs(8))


def _rerooted(unit: ParsedUnit, parent: tuple[str, ...]) -> ParsedUnit:
    """``unit`` and its subunits with their hierarchy under ``parent``."""
    path = (*parent, unit.topic)
    return replace(unit, attributes={**unit.attributes, "hierarchy": list(path)},
                   subunits=[_rerooted(child, path) for child in unit.subunits])


def _marker_kind(text: str) -> str | None:
    """``bullet``, ``digit``, ``roman`` or ``letter``: how the list item ``text`` is marked (None: no item)."""
    match = _LIST_ITEM.match(text)
    return match.lastgroup if match else None


def _unique_keys(units: list[ParsedUnit]) -> list[ParsedUnit]:
    """Sibling keys made unique: the second 'Purpose' becomes 'Purpose #2'."""
    seen: dict[str, int] = {}
    out = []
    for unit in units:
        seen[unit.key] = seen.get(unit.key, 0) + 1
        out.append(unit if seen[unit.key] == 1 else replace(unit, key=f"{unit.key} #{seen[unit.key]}"))
    return out


def _classify(text: str, start: int, block: str) -> tuple[str, str | None]:
    """``stanza`` (Field: value lines), ``definition`` (term line over an indented body) or ``paragraph``."""
    lines = block.split("\n")
    fields = [line for line in lines if _FIELD.match(line)]
    if len(fields) >= 2 and all(_FIELD.match(line) or line[:1] in (" ", "\t") for line in lines):
        return "stanza", fields[0].split(":", 1)[0]
    first_indent = start - (text.rfind("\n", 0, start) + 1)
    rest = [line for line in lines[1:] if line.strip()]
    if rest and len(lines[0]) <= 80 and all(len(line) - len(line.lstrip()) >= first_indent + 2 for line in rest):
        return "definition", lines[0].strip().rstrip(":")
    return "paragraph", None


def _document_title(document: Document, text: str, headings: list[Heading]) -> str:
    if headings and (not text[:headings[0].start].strip() or only_comments(text[:headings[0].start])):
        return headings[0].title  # a reStructuredText title may follow a comment (a licence header)
    raw = text[:4000].splitlines()
    titles = [_title_text(line) for line in raw]
    index, first_line = next(((i, line) for i, line in enumerate(titles) if line), (0, ""))
    following = raw[index + 1] if index + 1 < len(raw) else ""
    if _CONTENTS.match(first_line):  # a table of contents opens the text: "CONTENTS" names no document
        return _named_line(document, raw, titles, skip=first_line) or Path(document.id).name
    # an owner, a lead-in to a list, the first sentence of the text's prose, a field ("Author: Ben Collins
    # <...>") or a dated entry of a news file ("Apr 08, 2022: libarchive 3.6.1 released")
    if (_COPYRIGHT_LINE.match(first_line) or first_line.endswith(":") or _a_sentence(first_line, following)
            or _FIELD.match(first_line) or _DATED_ENTRY.match(first_line)):
        return _named_line(document, raw, titles, skip=first_line) or Path(document.id).name
    if 0 < len(first_line) <= MAX_HEADING and not (first_line.endswith("?") and _a_faq(text)):
        return first_line
    return Path(document.id).name  # a FAQ's first question names one entry, not the document


def _a_sentence(line: str, following: str) -> bool:
    """``line`` opens the text's prose instead of naming it: a statement of four words or more ("`tqdm` is a
    product of collaborative work."), or a line whose sentence runs on into the next ("lxml is copyright Infrae
    and distributed under the BSD license (see" over "doc/licenses/BSD.txt), ...", "... ncurses which are" over
    "considered bugs elsewhere ...", a line of ``WRAPPED_WORDS`` or more over the next line of its paragraph:
    "This document describes some caveats about the use of Valgrind with" over "Python.  Valgrind is ...")."""
    words = len(line.split())
    if words < 4:
        return False
    runs_on = line.count("(") > line.count(")") or bool(re.match(r"[a-z]+\s", following.strip()))
    wrapped = words >= WRAPPED_WORDS and bool(following.strip()) and not _RULE.match(following.strip())
    return line.endswith(".") or runs_on or wrapped


WRAPPED_WORDS = 8
_DATED_ENTRY = re.compile(r"^(?:[A-Z][a-z]{2,8}\.?,?\s+)?(?:\d{1,2},?\s+)?\d{4}\s*:|^\d{4}-\d{2}-\d{2}\s*:")
"""A news file's dated entry: "Apr 08, 2022: ...", "Nov, 2016: ...", "2022-04-08: ..."."""
_COLUMNS = re.compile(r"\S(?: {3,}|\t)\S")
"""Words set apart in columns: a configuration line or a table row ("session    required   pam_limits.so")."""


_NO_NAME = re.compile(r"://|^[-*+\[]|^\(?\d{1,3}[.)]\s|:$")
"""A line that names nothing: a web address, a list item (bulleted or numbered: groff's ``PROBLEMS`` has "1. Set the
GROFF_NO_SGR environment variable." alone between blank lines) or link reference, a lead-in to what follows."""


def _named_line(document: Document, raw: list[str], titles: list[str], skip: str = "") -> str:
    """The first short line of ``raw`` (``titles``: each as a title) standing alone (a blank line or a rule before
    it, a blank line after) that names what the file's own name says ("dateutil - Extensions to the standard Python
    datetime module" in ``python-dateutil-LICENSE.txt``), but ``skip``, for a text that opens with a copyright
    notice, which says who owns the text and not what it is, with a line that leads in to a list ("Sections in this
    file describe:"), or with a sentence; never a field, a dated entry or a line of columns."""
    stem = _words(Path(document.id).stem) - _GENERIC_FILE_WORDS
    for i, line in enumerate(titles):
        alone = (i + 1 == len(raw) or not raw[i + 1].strip()) and (i == 0 or not titles[i - 1])
        if (line and line != skip and alone and len(line) <= MAX_HEADING and stem & _words(line)
                and not _COPYRIGHT_LINE.match(line) and not _NO_NAME.search(line) and not _FIELD.match(line)
                and not _DATED_ENTRY.match(line) and not _COLUMNS.search(raw[i].strip())):
            return line.rstrip(".")
    return ""


def _words(text: str) -> set[str]:
    """The words of three letters or more in ``text``, case folded; a hyphenated name also as one word ("D-Bus"
    names ``dbus-README.txt``)."""
    words = re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", text)
    return {w.casefold() for word in words for w in (word.replace("-", ""), *word.split("-")) if len(w) >= 3}


def _a_faq(text: str) -> bool:
    """The text asks on lines of their own, each over its answer, at least twice."""
    return sum(_asking(text, _paragraphs(text, 0, len(text)))[2]) >= 2


def _title_text(line: str) -> str:
    """``line`` as a title, or "" for markup that is no title: a rule or an over-line (``=====``), an empty
    Markdown heading (``##``), a reStructuredText field or directive (``:orphan:``, ``.. include::``), a REUSE
    marker."""
    line = line.strip().lstrip("#").strip()
    if not _WORD.search(line) or _MARKUP_LINE.match(line) or _TOOL_MARKER.match(line):
        return ""
    return line


@lru_cache(maxsize=8)
def _fences(text: str) -> list[tuple[int, int]]:
    """The code fences of ``text``, less those that are underlines: a line of ``~`` right under a line of text about
    as long is that line's underline in a plain text (reST's third heading level, Valgrind's FAQ under its release
    line), not a fence, when no fence closes it or another underline would: read as fences, they paired up around
    the text between two such headings or ran to the end of the text, and the headings and paragraphs inside were
    lost (the whole FAQ was one paragraph)."""
    return fenced_spans(text, _underlines)  # once per document: the headings and every section's blocks ask


def _underlines(text: str, start: int) -> bool:
    """Whether the fence line at ``start`` is a line of ``~`` right under a line of text about as long as itself."""
    line_end = text.find("\n", start)
    fence = text[start:len(text) if line_end < 0 else line_end].strip()
    if start == 0 or not fence or set(fence) != {"~"}:
        return False  # an info string ("~~~python") opens a fence, and nobody underlines with backquotes
    above = text[text.rfind("\n", 0, start - 1) + 1:start - 1].strip()
    return bool(above) and abs(len(fence) - len(above)) <= MAX_UNDERLINE_SLACK


MAX_UNDERLINE_SLACK = 2
"""How much longer or shorter than the line above a line of ``~`` may be and still underline it."""


def _lines(text: str) -> list[tuple[int, int]]:
    spans, position = [], 0
    while position <= len(text):
        newline = text.find("\n", position)
        stop = len(text) if newline < 0 else newline
        spans.append((position, stop))
        position = stop + 1
    return spans


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _questions(text: str, blocks: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """``blocks`` with each FAQ entry made one (True): a ``Q:`` block followed by an ``A:`` block or holding its
    ``A:`` line (libc6's "Q6: I get this message ..." over the message and a bare "A6:", its answer in the blocks
    below), or a block that is one line asking a question followed by a block that does not (where at least two such
    pairs are found, so a lone rhetorical question stays a paragraph), with the blocks after them up to the next
    question. Apart, the answer says nothing about what it answers ("A: Set a default memory usage limit ...", "You
    didn't enable it.") and the question holds no answer, so neither ranks for a question put in other words, and the
    answer can sit outside the top hits."""
    marked, lines, paired = _asking(text, blocks)
    asks = [m or line for m, line in zip(marked, lines)] if sum(paired) >= 2 and not any(marked) else marked
    out: list[tuple[int, int, bool]] = []
    index = 0
    while index < len(blocks):
        start, end = blocks[index]
        index += 1
        answered = marked[index - 1] and (index < len(blocks) and ANSWER.match(text, *blocks[index])
                                          or ANSWER_LINE.search(text, start, end))
        entry = bool(answered or asks[index - 1] and paired[index - 1])
        while entry and index < len(blocks) and not asks[index]:
            end = blocks[index][1]
            index += 1
        out.append((start, end, entry))
    return out


def _asking(text: str, blocks: list[tuple[int, int]]) -> tuple[list[bool], list[bool], list[bool]]:
    """Per block: whether it opens with ``Q:``; whether it is one line asking a question (never a ``Q:`` or ``A:``
    block: a FAQ with markers is read by them); and whether it is such a line with a block after it that does not
    ask."""
    marked = [bool(QUESTION.match(text, start, end)) for start, end in blocks]
    lines = [not m and _question_line(text, start, end) and not ANSWER.match(text, start, end)
             for m, (start, end) in zip(marked, blocks)]
    paired = [lines[i] and i + 1 < len(blocks) and not lines[i + 1] and not marked[i + 1] for i in range(len(blocks))]
    return marked, lines, paired


def _question_line(text: str, start: int, end: int) -> bool:
    """The block is one line, at the start of its line, that asks a question."""
    return (start == 0 or text[start - 1] == "\n") and bool(QUESTION_LINE.fullmatch(text, start, end))


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The blank-line separated blocks of ``[start, end)``; a code fence is one block, blank lines and all."""
    blocks, position = [], start
    fences = _fences(text)
    for match in _BLANK_RUN.finditer(text, start, end):
        if inside(fences, match.start()):
            continue
        blocks.append(_trim(text, position, match.start()))
        position = match.end()
    blocks.append(_trim(text, position, end))
    return [(s, e) for s, e in blocks if e > s]

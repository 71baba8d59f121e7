"""Vim's help files (``/usr/share/vim/vim90/doc/*.txt``: the reference manual, the user manual, ``uganda.txt``).

A help file opens with its tag and version (``*autocmd.txt*   For Vim version 9.0.  Last change: 2023 Feb 18``), then
"VIM REFERENCE MANUAL" or "VIM USER MANUAL", the file's title ("Automatic commands", "Moving around") and a list of its
sections. A line of ``=`` separates the sections; each opens with its heading ("2. Defining autocommands", or
``*03.1*`` over "Word movement"). Inside a section, a line that ends in tags set off by a tab or a run of spaces
(``*:au* *:autocmd*`` alone, or "MANUAL" before ``*fold-manual*``) is where a topic starts: ``:help`` jumps there;
so does a header line at the margin that ends in ``~`` ("Updating the swapfile ~").
Accepts a text whose first line is such a file tag and says "For Vim version" (or that ends with the
``vim:...:ft=help:`` mode line), with a section separator or a tagged topic. Tree: front matter (with the topics it
tags: ``uganda.txt``'s licence), then one ``section`` per separator, each with one ``entry`` per tagged topic (named
by the text before its tags, or by them), the text before its first topic its own; in a file without separators
(``ft_ps1.txt``) the tagged topics are the sections. Titled by the file's title line, with "Vim" in front when the
title does not say it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

_VERSION = re.compile(r"For Vim version (?P<version>\d+(?:\.\d+)*)")
_SEPARATOR = re.compile(r"^={40,}[ \t]*$", re.M)
_TAGS = re.compile(r"(?:\*[^*\s|]+\*[ \t]*)+$")
"""The tags at a line's end (``*:au* *:autocmd*``): what ``:help`` finds."""
_TAG = re.compile(r"\*([^*\s|]+)\*")
_ANCHOR = re.compile(r"^(?P<text>[^\n]*?)(?:^|\t| {3})[ \t]*(?P<tags>(?:\*[^*\s|]+\*[ \t]*)+)$", re.M)
"""A topic's first line: tags set off by a tab or a run of spaces (or alone on the line); a tag after a sentence's
two spaces ("cannot be "*".  *E1155*") is a reference inside a topic, not the start of one."""
_HEADER = re.compile(r"^(?P<text>[^\s*|][^\n\t]*?[^\s~])[ ]*~[ \t]*$", re.M)
"""A header line ("Updating the swapfile ~", "MOVING OVER FOLDS ~", ``g:rustc_path~``): at the margin after a blank
line, ending in the ``~`` that Vim shows as a header's highlight; an indented line ending in ``~`` is an example's
output, and one with tabs a table's column headings (``magic<tab>nomagic<tab>action ~``)."""
_HEADLINE = re.compile(r"^(?P<text>[A-Z][A-Z0-9 .()/_-]{2,58}[A-Z0-9)])[ \t]*$", re.M)
"""A headline in capitals at the margin after a blank line ("FROM A PACKAGE", "SESSIONS AND VIMINFO"), which Vim
highlights as a header too (``helpHeadline``): the user manual's sub-headings."""
_BLANKS = re.compile(r"\s*")
_HEADER_MARK = re.compile(r"\s*~$")
"""The ``~`` a header line ends in (userfunc.txt's "1. Defining a function ~"): Vim's highlight, no word of it."""
_SENTENCE_END = re.compile(r"[a-z)|'\"]\.$")
"""A line that ends as a sentence does, not as a heading ("... can be found at |patches-after-8.2|.")."""
_CHAPTER_LINK = re.compile(r"^\s*(?:(?P<label>(?:Next|Previous) chapter|Table of contents|Copyright):[^|\n]*"
                           r"\|[^|\s]+\|.*|vim:[^\n]*:)$", re.I)
"""A line that closes a user manual chapter: "Next chapter: |usr_24.txt|  Inserting quickly", "Copyright: see
|manual-copyright|" (its label titles the region), the mode line."""
_FILLED_LINE = re.compile(r"^[ \t]*\S", re.M)
_MANUAL = re.compile(r"^\s*VIM (?:REFERENCE|USER) MANUAL\b", re.M)
_BYLINE = re.compile(r"^(?:-\s*)?(?:by|author|maintainer|written by)\b", re.I)
_DATE = re.compile(r"(?:Last change:\s*)?\b(?:\d{4}\s+\w{3}\s+\d{1,2}|\w{3}\s+\d{1,2},\s+\d{4})\s*$")
TITLE_LINES = 12
"""Lines of the front matter read for the title."""


class VimHelpParser(UnitParser):
    """Vim help files: sections between ``====`` lines, a unit per tagged topic."""

    @property
    def parser_name(self) -> str:
        return "vim-help"

    def parser_can_handle_document(self, document: Document) -> bool:
        return _problem(document) is None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        problem = _problem(document)
        if problem:
            raise DocumentRejected(document.id, problem)
        text = document.text
        name = H.VIM_HELP_TAG.match(text).group("name")
        after_tag = text.find("\n") + 1
        version = _VERSION.search(text, 0, after_tag)
        separators = list(_SEPARATOR.finditer(text))
        topics = [] if separators else _topics(text, after_tag, len(text))
        front_end = separators[0].start() if separators else topics[0].start
        title = _title(text, front_end, name)
        label = f"{title} ({name}.txt, Vim {version.group('version')})" if version else f"{title} ({name}.txt)"
        info = H.DocumentInfo(title=title, label=label, parser=self.parser_name)
        nodes = []
        start, end = H.trim(text, 0, front_end)
        if end > start:
            front = H.Node("front matter", "Front matter", start, end, "front_matter", role="notice",
                           attributes={"heading": "Front matter"})
            if separators:  # uganda.txt's licence comes before its first section, under tags of its own
                front.children = _topics(text, after_tag, end, headers=False)
            nodes.append(front)
        if not separators:  # a short file (ft_ps1.txt): its tagged topics are its sections
            for topic in topics:
                topic.unit_type = "section"
            return [H.to_parsed(document, info, node) for node in nodes + topics]
        seen: dict[str, int] = {}
        ends = [m.start() for m in separators[1:]] + [len(text)]
        for separator, region_end in zip(separators, ends):
            start, end = H.trim(text, separator.start(), region_end)
            body = _first_filled_line(text, text.find("\n", separator.end(), end) + 1 or end, end)
            closing = _closing_links(text[body:end])  # "Next chapter: |usr_24.txt| ...", the mode line
            if closing:  # never indexed
                nodes.append(H.Node(H.unique_key(closing, seen), closing, start, end, "navigation", role="navigation",
                                    attributes={"heading": closing}))
                continue
            heading_end = text.find("\n", body, end)
            heading = _heading(text[body:end if heading_end < 0 else heading_end])
            topic = heading or f"Section {len(nodes)}"
            node = H.Node(H.unique_key(topic[:80], seen), topic[:80], start, end, "section",
                          role=H.heading_role(topic), attributes={"heading": topic})
            node.children = _topics(text, end if heading_end < 0 else heading_end, end)
            H.leaf_roles(text, node)
            nodes.append(node)
        return [H.to_parsed(document, info, node) for node in nodes]


def _problem(document: Document) -> str | None:
    """Why this is not a Vim help file, else None."""
    text = document.text
    if document.page_starts or not H.is_vim_help(text):
        return ("not a Vim help file: no '*name.txt*' first line that says 'For Vim version', or no "
                "'vim:...ft=help' mode line")
    if not _SEPARATOR.search(text) and not _ANCHOR.search(text, text.find("\n") + 1):
        return "a Vim help file without sections ('====' lines) or tagged topics"
    return None


def _first_filled_line(text: str, start: int, end: int) -> int:
    """Where the first line with text at or after ``start`` begins (a heading after blank lines is the heading)."""
    filled = _FILLED_LINE.search(text, start, end)
    return filled.start() if filled else end


def _closing_links(region: str) -> str | None:
    """The title of a section that is only the links closing a user manual chapter (no text of its own to index):
    its first link's label ("Next chapter"), or "Mode line"; None for any other section."""
    matches = [_CHAPTER_LINK.match(line) for line in region.splitlines() if line.strip()]
    if not matches or not all(matches):
        return None
    return next((m.group("label").capitalize() for m in matches if m.group("label")), "Mode line")


def _heading(line: str) -> str:
    """A section's heading line read as a reader sees it: "2. Defining autocommands" without its tag or a header's
    ``~``, and a user manual's ``*03.1*	Word movement`` as "03.1 Word movement"; none when the line is a sentence
    (version8.txt's last section opens "Patch 8.2.0001 and later can be found at |patches-after-8.2|.")."""
    tags = _TAG.findall(line)
    words = _HEADER_MARK.sub("", " ".join(_TAG.sub(" ", line).split()))
    if not tags and _SENTENCE_END.search(words):
        return ""
    numbered = [tag for tag in tags if re.fullmatch(r"\d+\.\d+", tag)]
    if numbered and not words.startswith(numbered[0]):
        words = f"{numbered[0]} {words}".strip()
    return words or " ".join(tags)


def _title(text: str, end: int, name: str) -> str:
    """The file's title: the words after its tag on the first line ("A Windows PowerShell syntax plugin for Vim",
    not "For Vim version ..."), else the first line after "VIM ... MANUAL" that is set off as a title (centred, or
    with tags after it: "Automatic commands  *autocommand*"), else its name and the tags of its first tag line
    ("uganda, copying, copyright, license"); "Vim" in front when the title does not name it."""
    first_end = text.find("\n")
    opening = re.split(r"\s{2,}|\t", _DATE.sub("", text[:first_end].split("*", 2)[-1]).strip())[0].strip()
    title = "" if not opening or _VERSION.match(opening) else opening
    manual = _MANUAL.search(text, 0, end)
    after = text.find("\n", manual.end()) + 1 if manual else first_end + 1
    lines = [line for line in text[after:end].splitlines() if line.strip()][:TITLE_LINES]
    title = title or next((words for line in lines if (words := _set_off_title(line))), "")
    if not title:
        tags = next((_TAG.findall(line) for line in lines if _TAGS.fullmatch(line.strip())), [])
        title = ", ".join(dict.fromkeys(tag.casefold() for tag in [name, *tags]))
    return title if "vim" in title.casefold() else f"Vim: {title}"


def _set_off_title(line: str) -> str:
    """A front-matter line's words when it is set off as a title (centred, or with tags after it) and reads like one
    (no link bar, sentence, byline, address or e-mail), else ""."""
    words = " ".join(_TAG.sub(" ", line).split())
    set_off = _TAGS.search(line) is not None or len(line.expandtabs()) - len(line.expandtabs().lstrip()) >= 8
    if (words and set_off and "|" not in words and not words.endswith(".") and not _BYLINE.match(words)
            and "://" not in words and "@" not in words):
        return words
    return ""


def _topics(text: str, start: int, end: int, headers: bool = True) -> list:
    """One ``entry`` per tagged topic or header line (``headers``: ending in ``~``, or a headline in capitals) of a
    section's body ``[start, end)``, each to the next one; a header right over a tag line names that topic ("1.1
    Variable types ~" over ``*E712*``)."""
    topics = {m.start(): (m.group("text"), _TAG.findall(m.group("tags"))) for m in _ANCHOR.finditer(text, start, end)}
    headings = sorted([*_HEADER.finditer(text, start, end), *_HEADLINE.finditer(text, start, end)],
                      key=lambda match: match.start())
    for m in headings if headers else ():
        if text[text.rfind("\n", 0, max(m.start() - 1, 0)) + 1:m.start()].strip():
            continue  # not after a blank line: a line of a paragraph or an example
        below = _BLANKS.match(text, m.end()).end()
        below = text.rfind("\n", m.end(), below) + 1 or below  # where the next line with text starts
        said, tags = topics.pop(below, ("", []))
        topics[m.start()] = (said if said.strip() else m.group("text"), tags)
    anchors = sorted(topics.items())
    nodes: list = []
    seen: dict[str, int] = {}
    ends = [anchor_start for anchor_start, _ in anchors[1:]] + [end]
    for (anchor_start, (text_before, tags)), region_end in zip(anchors, ends):
        s, e = H.trim(text, anchor_start, region_end)
        if e <= s:
            continue
        said = " ".join(text_before.strip(" \t<>").split())
        topic = (said or " ".join(tags))[:80]
        nodes.append(H.Node(H.unique_key(topic, seen), topic, s, e, "entry",
                            attributes={"heading": topic, "tags": " ".join(tags)}))
    return nodes

"""The names a document is asked about by, derived by rule from its file name and its title line.

A question says "GPL version 2", "GPLv2", "LGPL 2.1", "the MPL 1.1" or "the FHS"; the document is ``GPL-2.txt``
whose first line reads "GNU GENERAL PUBLIC LICENSE / Version 2, June 1991". Nothing is listed by hand: names
come from

- the file name: its stem (``GPL-2``, ``fhs-3.0``) split into a base and a trailing version, and the whole
  name when its suffix is not a mere format (``apt.copyright``);
- the title line: the first line of the text that reads like a title (not a ``Field: value`` line, a URL or a
  sentence), and the title the loader recorded apart from the text (an HTML page's ``<title>``) read the same
  way, with a version from the same line or one of the next lines (``Version 2``, ``Release 4.6.2.0``); its words,
  its words without the first one when three remain (``GNU``), and the acronyms of both (``GGPL``, ``GPL``);
- a record's name fields: a text that opens with ``Field: value`` lines (a machine-readable Debian copyright
  file) is named by its ``Upstream-Name`` (``libtalloc2.copyright`` is talloc's, ``libtdb1.copyright`` tdb's);
- each base with and without its versions;
- a title's leading words followed by the acronym of the rest (three words or more): "GNU Library General Public
  License" is also the "Library GPL", "GNU Lesser General Public License" the "Lesser GPL".

Names are compared as *name tokens* (``name_tokens``): case, accents, ``v``/``version`` markers and trailing
``.0`` parts are ignored, letters and digits are split, so "GPL-2.0", "GPLv2" and "GPL version 2" are all
``gpl 2``. A name of one word without a version must be an acronym (upper case in the file name, or the title's
acronym), so package file names such as ``file.copyright`` or ``time.copyright`` name nothing on their own; such a
one-word name counts only in the possessive ("dash's src/mksignames.c", "curl’s scripts": name tokens
``dash s``), where a question uses it as the name of a thing, not as a word.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath

NAMES_VERSION = "5"
"""Changes with these rules (names are derived when needed, so nothing stored has to be rebuilt)."""

HEAD_CHARS = 1500
"""Only the start of a document is read for its title line."""

FORMAT_SUFFIXES = frozenset({"txt", "text", "md", "markdown", "rst", "pdf", "html", "htm", "xhtml", "docx", "doc",
                             "odt", "rtf", "tex", "xml", "json", "epub"})
"""File suffixes that tell a format, not a name (``apt.copyright`` keeps ``copyright`` as part of its name)."""

POSSESSIVE = "s"
"""The name token of the possessive "'s" ("dash's" is ``dash s``)."""
_FILLER = frozenset({"the", "a", "an", "of", "for", "and", "on", "to", "in"})
_MARKERS = re.compile(r"(?<=[^\W\d_])v(?=\d)|\bv(?=\d)|\b(?:version|release|revision|ver|v)\b\.?")
_NAME_TOKEN = re.compile(r"\d+(?:\.\d+)*|[^\W\d_]+")
_FIELD_LINE = re.compile(r"^[A-Za-z][\w-]*:(\s|$)")
_DECORATION = re.compile(r"^[\s#*_=~`>|+•»«-]+|[\s#*_=~`|+•»«-]+$")
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.)\s+", re.IGNORECASE)
_VERSION = re.compile(r"\b(?:version|release|revision|v)\.?\s*(\d+(?:\.\d+)*)", re.IGNORECASE)
_MAN_HEADER = re.compile(r"^(\S+)\((\d\w*)\)\s.*\s\1\(\2\)$", re.IGNORECASE)
"""A manual page's header line, "epoll(7)  Miscellaneous Information Manual  epoll(7)": the page is named by its
name; the manual's name between is no title (its acronym, "mime", named epoll(7) in questions about MIME types)."""
_NAME_FIELD = re.compile(r"^(?:Upstream-Name|Name):[ \t]*(\S[^\n]*)$", re.MULTILINE | re.IGNORECASE)
"""A record header's name field (DEP-5 ``Upstream-Name``, or ``Name``)."""
_MIN_ACRONYM_TAIL = 3
"""Words a partial acronym abbreviates at least ("Library GPL": three words as ``gpl``)."""
_VERSION_LOOKAHEAD = 5
_MAX_TITLE_WORDS = 12
_MIN_SHORTENED = 3
"""A title keeps a name without its first word only when that still has this many words ("General Public
License", not "Public License")."""


def name_tokens(text: str) -> tuple[str, ...]:
    """``text`` as name tokens: "GPL-2.0+", "GPLv2" and "GPL version 2" are all ``("gpl", "2")``."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    tokens = []
    for token in _NAME_TOKEN.findall(_MARKERS.sub(" ", text)):
        if token[0].isdigit():
            token = re.sub(r"(?:\.0+)+$", "", token)
        elif token in _FILLER:
            continue
        tokens.append(token)
    return tuple(tokens)


@dataclass(frozen=True)
class DocumentNames:
    """A document's title line and every name (as name tokens) that refers to it."""

    document_id: str
    title: str
    names: frozenset[tuple[str, ...]]
    capitals: frozenset[str] = frozenset()
    """Acronyms made from the title's words ("net" of "Notices for Eclipse Temurin", "man" of "A guide to masked
    arrays in NumPy"): said alone, they name the document only when the question writes them in capitals."""


def document_names(document_id: str, head: str, title: str | None = None) -> DocumentNames:
    """The names of a document from its id (path) and the start of its text (see the module docstring), and from
    ``title`` as another title line when its loader recorded one apart from the text (an HTML page's ``<title>``:
    "Underscore.js", whose Markdown opens with "v1.13.4 Downloads")."""
    if title:
        own = document_names(document_id, head)
        other = document_names(document_id, title)
        return DocumentNames(document_id, own.title or other.title, own.names | other.names,
                             (own.capitals | other.capitals) - _stem_acronyms(own.names | other.names, document_id))
    names: set[tuple[str, ...]] = set()
    title, title_versions = title_line(head[:HEAD_CHARS], _stem_words(document_id))
    title_words = tuple(t for t in name_tokens(title) if not t[0].isdigit())
    title_bases = [title_words, title_words[1:]] if len(title_words) > _MIN_SHORTENED else [title_words]
    acronyms = {"".join(w[0] for w in words) for words in title_bases if 2 <= len(words) <= 8}
    acronyms = {a for a in acronyms if len(a) >= 3}
    partial = {words[:cut] + ("".join(w[0] for w in words[cut:]),)
               for words in title_bases for cut in range(1, len(words) - _MIN_ACRONYM_TAIL + 1)}
    stem, whole = _file_names(document_id)
    stem_tokens = name_tokens(stem)
    stem_base, stem_version = _split_version(stem_tokens)
    versions = set(title_versions) | ({stem_version} if stem_version else set())
    bases = [words for words in title_bases if len(words) >= 2] + [(a,) for a in sorted(acronyms)] + sorted(partial)
    if stem_base and (len(stem_base) > 1 or _is_acronym(stem, stem_base[0], acronyms)):
        bases.append(stem_base)
    elif len(stem_base) == 1 and not stem_base[0][0].isdigit():
        names.add(stem_base + (POSSESSIVE,))
    for base in bases:
        names.add(base)
        names.update(base + (version,) for version in versions)
    if stem_base and stem_version:
        names.add(stem_base + (stem_version,))
    if len(whole) > 1:
        names.add(whole)
    for record_name in _record_names(head[:HEAD_CHARS]):
        names.add(record_name if len(record_name) > 1 else record_name + (POSSESSIVE,))
    names = frozenset(name for name in names if name)
    return DocumentNames(document_id, title, names, frozenset(acronyms) - _stem_acronyms(names, document_id))


def _stem_acronyms(names: frozenset[tuple[str, ...]], document_id: str) -> frozenset[str]:
    """The one-word names the file name itself says (``GPL-2.txt``'s ``gpl``): no capitals needed for those."""
    stem_base, _ = _split_version(name_tokens(_file_names(document_id)[0]))
    return frozenset(stem_base) if len(stem_base) == 1 and stem_base in names else frozenset()


def title_line(head: str, stem_words: frozenset[str] = frozenset()) -> tuple[str, tuple[str, ...]]:
    """The first line that reads like a title (without its version), and the versions stated on it or on one of
    the next lines. A text that opens with ``Field: value`` lines (a record format) has no title line. When the
    opening line is a sentence, a title-like line that shares a word with the file name (``stem_words``) comes
    first: a Sphinx text export opens with "The HTML version of ... can be found in ..." and a "Navigation" line,
    and names itself further down."""
    lines = [line for line in (_clean(raw) for raw in head.splitlines()) if line]
    if not lines or _FIELD_LINE.match(lines[0]):
        return "", ()
    if man_page := _MAN_HEADER.match(lines[0]):
        return man_page.group(1), ()
    order = list(range(len(lines)))
    if stem_words and not _looks_like_title(lines[0]):
        order.sort(key=lambda i: not (stem_words & set(name_tokens(lines[i].replace("_", " ")))))
    for index in order:
        line = lines[index].replace("_", " ") if index else lines[index]
        if _looks_like_title(line):
            match = _VERSION.search(line)
            title = line[:match.start()].strip(" ,;:-") if match else line
            if not name_tokens(title):
                continue
            versions = [match.group(1)] if match else []
            for later in lines[index + 1:index + 1 + _VERSION_LOOKAHEAD]:
                found = _VERSION.match(later)
                if found:
                    versions.append(found.group(1))
                    break
            return title, tuple(dict.fromkeys(name_tokens(v)[0] for v in versions if name_tokens(v)))
    return "", ()


def _record_names(head: str) -> list[tuple[str, ...]]:
    """The name fields of a text that opens with ``Field: value`` lines, as name tokens (none for other texts)."""
    first = next((line for line in head.splitlines() if line.strip()), "")
    if not _FIELD_LINE.match(first.strip()):
        return []
    return [tokens for tokens in (name_tokens(m.group(1)) for m in _NAME_FIELD.finditer(head)) if tokens]


def _stem_words(document_id: str) -> frozenset[str]:
    """The words (three letters or more) of a document's file name."""
    return frozenset(t for t in name_tokens(_file_names(document_id)[0]) if len(t) >= 3 and not t[0].isdigit())


def _clean(line: str) -> str:
    line = _DECORATION.sub("", line.strip()).replace('"', "").replace("“", "").replace("”", "")
    return _NUMBERING.sub("", line).strip()


def _looks_like_title(line: str) -> bool:
    words = line.split()
    return (bool(re.search(r"[^\W\d_]", line)) and len(words) <= _MAX_TITLE_WORDS and not line.endswith(".")
            and "://" not in line and "@" not in line and not _FIELD_LINE.match(line) and not line.startswith("<"))


def _file_names(document_id: str) -> tuple[str, tuple[str, ...]]:
    """The file stem without a format suffix, and the whole file name's tokens when its suffix is not a format."""
    name = PurePosixPath(document_id).name
    stem, dot, suffix = name.rpartition(".")
    if not dot or not suffix.isalpha():
        return name, ()
    if suffix.casefold() in FORMAT_SUFFIXES:
        return stem, ()
    return stem, name_tokens(name)


def _split_version(tokens: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    if len(tokens) > 1 and tokens[-1][0].isdigit():
        return tokens[:-1], tokens[-1]
    return tokens, None


def leading_capitals(text: str) -> str:
    """The letters ``text`` opens with when they are all capitals ("GPL" of "GPL-2", "MAN" of "MANv2" is not: "MANv"),
    else ""."""
    letters = re.match(r"[^\W\d_]+", text)
    return letters.group(0) if letters and letters.group(0).isupper() else ""


def _is_acronym(stem: str, token: str, acronyms: set[str]) -> bool:
    """A one-word base names the document alone when written in capitals in the file name, or the title's acronym."""
    return token in acronyms or len(leading_capitals(stem)) >= 2

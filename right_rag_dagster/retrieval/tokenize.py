"""The one tokenizer of BM25, run on chunk text at index time and on questions at query time.

DuckDB's fts tokenizer keeps only ``a-z`` runs, which loses section numbers (``4.9.1``), identifiers
(``DEB_BUILD_OPTIONS``) and every Thai word. So tokens are made here and fts indexes the space-joined result:
Thai runs are segmented with PyThaiNLP's dictionary segmenter (``newmm``), Thai digits become ASCII digits,
Chinese and Japanese runs give character bigrams, plus, in texts that are mostly CJK, the words of dictionaries
shipped in their packages (``cjk.py``: jieba, Janome), compounds keep their whole form and add their parts
(``deb_build_options deb build options``), camel-case names add their words (``getelementbyid get element by
id``; ``camel_case=False`` leaves them out, as BM25 reads a question), dotted numbers add their parents (``4.9.1
4.9``), a number glued to its unit adds both (``4gb 4 gb``), a one-letter option keeps its dash (``-D`` is
``-d``), a version written ``v9`` adds its number (``v9 9``: "version 9" asks for it),
British spellings become American ones (``spelling.py``: "licence" is ``license``) and a short form adds the word
it shortens (``abbreviations.py``: "config" is ``configuration config``) and a word ``man`` hyphenated at a line's end
is one word again. fts then only stems (Porter) and drops English stopwords.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .abbreviations import full_form
from .cjk import CJK_RANGES, cjk_words, has_kana, mostly_cjk
from .spelling import american

TOKENIZER_VERSION = "rr-tok-12"
"""Part of every BM25 index's identity: change it when tokens change, so indexes are rebuilt."""

_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_W = rf"[^\W\u0e00-\u0e7f{CJK_RANGES}]"  # a word character that is neither Thai nor Chinese/Japanese
_TOKEN = re.compile(rf"(?P<option>(?<![\w\-])-[a-z](?![\w\-]))|(?P<thai>[\u0e00-\u0e7f]+)|(?P<cjk>[{CJK_RANGES}]+)"
                    rf"|(?P<word>{_W}+(?:[._\-/:+@]{_W}+)*)")
"""``option``: a one-letter command-line option (``-D``, ``grep -q``) keeps its dash, as ``-d``: the letter alone is
an English stopword, so "the new -D option" lost the one word that says which."""
_PARTS = re.compile(r"[._\-/:+@]")
_DOTTED_NUMBER = re.compile(r"\d+(?:\.\d+)+")
_VERSION = re.compile(r"v(\d+(?:\.\d+)*)")
_GLUED = re.compile(r"(\d+)(?!st$|nd$|rd$|th$)([a-z]{2,})")
"""A number glued to its unit (``4gb``, ``44100hz``, ``64bit``): users write both ``4 GB`` and ``4GB``. Ordinals
(``21st``) stay whole, and so do names that end in a number (``liblcms2``, ``python3``: measured, splitting them
lost more than it found)."""


_BROKEN_WORD = re.compile(r"(?<=\w)[\u2010\u00ad][ \t]*\n[ \t]*(?=\w)")
"""A word ``man`` hyphenated at a line's end ("applica‐" over "tions"): its two halves are one word. Only the
hyphen and the soft hyphen that typesetting inserts; an ASCII hyphen at a line's end may be a compound's."""


def rejoin_broken_words(text: str) -> str:
    """``text`` with each word ``man`` hyphenated at a line's end whole again (``_BROKEN_WORD``) and without soft
    hyphens, which are never shown but where a line breaks."""
    if "\u2010" not in text and "\u00ad" not in text:
        return text
    return _BROKEN_WORD.sub("", text).replace("\u00ad", "")


def tokenize(text: str, camel_case: bool = True) -> list[str]:
    """Lower-cased tokens of ``text`` in order (compounds followed by their parts; camel-case names by their words
    unless ``camel_case`` is false)."""
    text = unicodedata.normalize("NFKC", rejoin_broken_words(text))
    camel = camel_parts(text) if camel_case else {}
    text = text.casefold().translate(_THAI_DIGITS)
    tokens: list[str] = []
    japanese: bool | None = None  # whether the text has kana, looked at only when a CJK run appears
    dictionaries: bool | None = None  # whether CJK is more than incidental in the text (see cjk.mostly_cjk)
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "word":
            word_tokens = _word_tokens(match.group())
            tokens.extend(word_tokens)
            if camel:
                for token in word_tokens:
                    if token in camel:
                        tokens.extend(camel[token])
        elif kind == "option":
            tokens.append(match.group())
        elif kind == "thai":
            tokens.extend(_thai_words(match.group()))
        else:
            japanese = has_kana(text) if japanese is None else japanese
            dictionaries = mostly_cjk(text) if dictionaries is None else dictionaries
            tokens.extend(cjk_words(match.group(), japanese, dictionaries))
    return tokens


_CAMEL_HINT = re.compile(r"[a-z][A-Z]")
_LETTERS = re.compile(r"[A-Za-z]*")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def camel_parts(text: str) -> dict[str, tuple[str, ...]]:
    """The words of ``text`` written in camel case (``getElementById``, ``XMLHttpRequest``), lower-cased, each with
    the tokens of its parts (``get element by id``; ``setColour`` gives ``color``, as a question's "colour" does): a
    name a program gives a thing says what it is in words a user asks with. Found from their lower-to-upper steps,
    which few texts have (a pattern for whole camel-case words doubled the tokenizer's time), each word once."""
    words: dict[str, tuple[str, ...]] = {}
    end = 0
    for step in _CAMEL_HINT.finditer(text):
        if step.start() < end:
            continue  # a later step of the word just read
        start = step.start()
        while start and text[start - 1].isascii() and text[start - 1].isalpha():
            start -= 1
        word = _LETTERS.match(text, start).group()
        end = start + len(word)
        if (key := word.casefold()) not in words:
            words[key] = tuple(token for part in _CAMEL_PART.findall(word) for token in _word_tokens(part.casefold()))
    return words


def token_text(text: str) -> str:
    """The pre-tokenized form stored in the BM25 table and sent as the fts query: tokens joined by spaces."""
    return " ".join(tokenize(text))


@lru_cache(maxsize=1 << 16)
def _word_tokens(word: str) -> tuple[str, ...]:
    """A word's tokens; cached, as most words of a corpus repeat (a third of tokenizing time was spent here)."""
    if not word.isascii():
        word = _strip_accents(word)
    if (version := _VERSION.fullmatch(word)) is not None:
        return (word, *_word_tokens(version.group(1)))
    if _PARTS.search(word) is None:
        return (*_normal(word), *_glued(word))
    if _DOTTED_NUMBER.fullmatch(word):
        parts = word.split(".")
        return tuple(".".join(parts[:n]) for n in range(len(parts), 1, -1))
    return (word, *(token for part in _PARTS.split(word) if part for token in (american(part), *_glued(part))))


def _normal(word: str) -> tuple[str, ...]:
    """A word as BM25 compares it: American spelling, and a short form both written out and as written ("config"
    gives ``configuration config``: the written-out word meets a passage's "configuration", the short one the
    "config" of ``config.yaml`` or ``git-config``, whose parts are names and stay as written)."""
    spelt = american(word)
    written_out = full_form(spelt)
    return (written_out, spelt) if written_out != spelt else (spelt,)


def _glued(word: str) -> tuple[str, ...]:
    """A glued number's two parts (``4gb`` gives ``4 gb``), else nothing."""
    match = _GLUED.fullmatch(word)
    return match.groups() if match else ()


def _strip_accents(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _thai_words(run: str) -> list[str]:
    if len(run) <= 2:
        return [run]
    return list(_segment_thai(run))


@lru_cache(maxsize=65536)
def _segment_thai(run: str) -> tuple[str, ...]:
    from pythainlp.tokenize import (
        word_tokenize,  # loads a dictionary: only when Thai text appears
    )

    return tuple(w for w in word_tokenize(run, engine="newmm", keep_whitespace=False) if w.strip())

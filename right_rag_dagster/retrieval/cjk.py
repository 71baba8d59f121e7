"""Chinese and Japanese word segmentation for BM25, with dictionaries shipped inside their packages (offline).

A run of Han characters and kana has no spaces, so without a segmenter it would be one token and no word in it
could ever be found. A run holding kana is Japanese: Janome (IPADIC inside the wheel) splits it into morphemes,
keeps each one's dictionary form (``定め`` -> ``定める``) and drops particles, auxiliaries and symbols. Chinese
goes to jieba's search mode, which gives the words and the longer words they form (``信息处理`` -> ``信息 处理
信息处理``), as compounds elsewhere keep their whole form and add their parts. A run of Han characters alone is
Japanese in a text that has kana elsewhere; in a text without any (a Chinese passage, or a short question such
as ``生年月日``) it could be either, so it gets the words of both segmenters, and a kanji question still meets
the words Janome cut from a Japanese passage. Both load a dictionary (about a second), so they are imported only
when such text appears.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from ..errors import ConfigError

CJK_RANGES = "\u3005\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Characters segmented here: 々, hiragana, katakana (with ー), Han (CJK unified, extension A, compatibility)."""

_KANA = (("\u3040", "\u309f"), ("\u30a0", "\u30ff"))
DICTIONARY_SHARE = 0.2
"""Texts at least this much CJK are segmented with the dictionaries; below, CJK is incidental (bigrams only)."""
_JAPANESE_DROPPED = frozenset({"助詞", "助動詞", "記号"})  # particles, auxiliary verbs, symbols
_lock = threading.Lock()
_segmenters: dict[str, Any] = {}


def has_kana(text: str) -> bool:
    """Whether ``text`` holds hiragana or katakana (so its Han runs are Japanese)."""
    return any(low <= ch <= high for ch in text for low, high in _KANA)


def cjk_words(run: str, japanese: bool = False, dictionaries: bool = True) -> list[str]:
    """The words of a run of CJK characters, then its character bigrams. The words are Japanese when the run
    (or, with ``japanese``, its text) has kana, else those of both segmenters (see the module docstring).

    Without ``dictionaries`` (a text where CJK is incidental: a translator's name in an English licence), the
    bigrams alone: the segmenters' dictionaries take about 150 MB once loaded. Bigrams are always there, so a
    question and a passage meet whether or not either was segmented with the dictionaries."""
    if len(run) == 1:
        return [run]
    bigrams = [run[i:i + 2] for i in range(len(run) - 1)]
    if not dictionaries:
        return list(dict.fromkeys(bigrams))
    if japanese or has_kana(run):
        return list(dict.fromkeys([*_japanese(run), *bigrams]))
    return list(dict.fromkeys([*_chinese(run), *_japanese(run), *bigrams]))


def mostly_cjk(text: str) -> bool:
    """Whether CJK characters make up at least ``DICTIONARY_SHARE`` of the text's word characters."""
    letters = cjk = 0
    for ch in text:
        if ch.isalnum():
            letters += 1
            if _is_cjk(ch):
                cjk += 1
    return letters > 0 and cjk >= DICTIONARY_SHARE * letters


def _is_cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or ch == "\u3005"


@lru_cache(maxsize=65536)
def _japanese(run: str) -> tuple[str, ...]:
    words = []
    for token in _segmenter("janome").tokenize(run):
        if token.part_of_speech.split(",", 1)[0] in _JAPANESE_DROPPED:
            continue
        base = token.base_form if token.base_form and token.base_form != "*" else token.surface
        words.append(base)
    return tuple(words) or (run,)


@lru_cache(maxsize=65536)
def _chinese(run: str) -> tuple[str, ...]:
    words = [w for w in _segmenter("jieba").cut_for_search(run) if w.strip()]
    return tuple(dict.fromkeys(words)) or (run,)


def _segmenter(name: str) -> Any:
    with _lock:
        if name not in _segmenters:
            _segmenters[name] = _load(name)
        return _segmenters[name]


def _load(name: str) -> Any:
    try:
        if name == "janome":
            from janome.tokenizer import Tokenizer

            return Tokenizer()
        import jieba

        jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" lines in CLI or Dagster logs
        return jieba.Tokenizer()
    except ImportError as exc:
        raise ConfigError(f"Chinese/Japanese text needs the {name} package: pip install right-rag-dagster "
                          "(it is a dependency; reinstall if it is missing)") from exc

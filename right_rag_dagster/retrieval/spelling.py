"""British spellings folded into American ones, so "licence" finds "License" and "behaviour" finds "behavior".

Porter stems "licence" to ``licenc`` and "license" to ``licens``: a question written in British English missed
every passage of a licence written in American English (and the reverse). BM25 runs each token through
``american`` at index and at query time. Only unambiguous families are folded: a few word stems that differ by
spelling alone, and ``-ise``/``-isation`` only on stems listed here (``promise``, ``exercise``, ``otherwise`` and
``premise`` are spelt so in both).
"""

from __future__ import annotations

import re

_STEMS = {
    "licenc": "licens", "defenc": "defens", "offenc": "offens", "pretenc": "pretens",
    "colour": "color", "behaviour": "behavior", "favour": "favor", "honour": "honor", "labour": "labor",
    "neighbour": "neighbor", "rumour": "rumor", "endeavour": "endeavor", "harbour": "harbor",
    "centre": "center", "fibre": "fiber", "metre": "meter", "litre": "liter",
    "catalogue": "catalog", "dialogue": "dialog", "analogue": "analog", "programme": "program",
    "analys": "analyz", "paralys": "paralyz", "travell": "travel", "cancell": "cancel", "modell": "model",
    "labell": "label", "signall": "signal",
}
"""British stem -> American stem, applied when a word starts with the stem and ends with one of ``_ENDINGS``."""

_ENDINGS = ("", "s", "e", "es", "ed", "ing", "er", "ers", "ee", "ees", "or", "ors", "able", "ful", "ation")

_ISE_STEMS = ("organ", "recogn", "author", "custom", "initial", "optim", "normal", "serial", "standard", "util",
              "minim", "maxim", "priorit", "summar", "synchron", "final", "special", "local", "categor",
              "character", "real", "apolog", "critic", "visual", "central", "capital", "emphas", "memor",
              "modern", "legal", "neutral", "stabil", "steril", "symbol", "parallel", "virtual", "sanit", "random",
              "internal", "external", "general", "global", "monet")
_ISE = re.compile(rf"^({'|'.join(_ISE_STEMS)})is(e|es|ed|ing|er|ers|ation|ations|able)$")
_ISATION = re.compile(r"^(\w{3,})isation(s?)$")
_STEM_RE = re.compile(rf"^({'|'.join(sorted(_STEMS, key=len, reverse=True))})(\w*)$")


def american(word: str) -> str:
    """``word`` (lower case) with a British spelling folded into the American one; other words unchanged."""
    if len(word) < 4 or not word.isalpha():
        return word
    match = _STEM_RE.match(word)
    if match and match.group(2) in _ENDINGS:
        return _STEMS[match.group(1)] + match.group(2)
    match = _ISE.match(word)
    if match:
        return f"{match.group(1)}iz{match.group(2)}"
    match = _ISATION.match(word)
    if match:
        return f"{match.group(1)}ization{match.group(2)}"
    return word

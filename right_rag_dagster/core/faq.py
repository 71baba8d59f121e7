"""How a FAQ marks its entries: ``Q:`` (``Q.``, ``Question 1:``) opens a question, ``A:`` its answer; or, without
markers, a line of its own that asks (``Why do long usernames get printed as numbers?``) over its answer's
paragraphs (procps' FAQ). The generic parser makes an entry one unit by them; the extractive answer reads an entry's
question as the heading of its answer."""

from __future__ import annotations

import re

QUESTION = re.compile(r"(?:Q|Question)(?:[ \t]*\d{1,3})?[ \t]*[:.)][ \t]+(?=\S)")
"""The marker that opens a question, with the blanks after it (``match`` at the block's start)."""
ANSWER = re.compile(r"(?:A|Answer)(?:[ \t]*\d{1,3})?[ \t]*(?:[:.)][ \t]+(?=\S)|:[ \t]*$)", re.MULTILINE)
"""The marker that opens an answer, with the blanks after it; a colon may end its line, the answer below it
("A7:" over glibc's answer in libc6's README.Debian)."""
ANSWER_LINE = re.compile(rf"^[ \t]*{ANSWER.pattern}", re.MULTILINE)
"""A line that opens an answer, anywhere in a text (``search``)."""
_NOT_A_FIELD = r"(?![A-Za-z][\w-]{0,40}:[ \t])"  # "Comment: Is this right?" is a record's field, not a question
QUESTION_LINE = re.compile(rf"{_NOT_A_FIELD}[A-Z0-9\"'(`][^\n]{{0,148}}\?[ \t]*")
"""A question on a line of its own: the whole of a block that opens a FAQ entry without markers (``fullmatch``)."""
OPENING_QUESTION = re.compile(rf"[ \t]*{_NOT_A_FIELD}[A-Z0-9\"'(`][^\n]{{0,148}}\?[ \t]*\n(?=[ \t]*\n?[ \t]*\S)")
"""A text that opens with such a line over more text (``match``): the question of an entry's chunk."""

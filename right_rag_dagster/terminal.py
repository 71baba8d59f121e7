"""Text from files and plugins made safe for a terminal: control characters (an escape sequence in a file name)
are shown escaped, never interpreted."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def safe(text: object) -> str:
    """``text`` with control and bidirectional-override characters written as ``\\xNN``/``\\uNNNN`` escapes."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(text))


_CONTROL_KEEP_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def safe_text(text: str) -> str:
    """Like ``safe`` for a whole printout: its own line breaks and tabs are kept."""
    return _CONTROL_KEEP_LINES.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)

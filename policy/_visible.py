"""Text somebody else chose, made safe to show a person.

An agent chooses the arguments, cwd and session an approver reads, and anybody who
reaches the service chooses the path a log line names. Shown as they are, control
characters drive the reader's terminal (ESC sequences, an 8-bit CSI), and invisible or
reordering characters show another text than the one that will run (a right-to-left
override, zero-width spaces, combining marks that strike a character out, Hangul
fillers that render as nothing). Every such character is written as an escape the
reader can see: `\\x1b`, `\\u202e`, `\\U000e0041` in text; `\\u202e` (a surrogate pair
beyond the BMP) in JSON, which any JSON reader reads back as the same string.
"""

from __future__ import annotations

import unicodedata

__all__ = ["hidden", "visible", "visible_json"]

#: Printable to Python, yet drawn as nothing (Unicode's default-ignorable fillers and
#: the braille blank).
_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
#: Categories that draw nothing of their own or change what is around them.
_SHAPING = frozenset({"Mn", "Me", "Cf", "Co", "Cs", "Cn"})


def hidden(char: str) -> bool:
    """Whether `char` must be escaped before a person reads it."""
    if char.isascii():
        return not char.isprintable()
    return (
        not char.isprintable()
        or char in _BLANK
        or unicodedata.category(char) in _SHAPING
        or unicodedata.combining(char) != 0  # spacing marks that still attach (U+1D165)
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every hidden character escaped, for a terminal."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(c) if hidden(c) else c for c in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # outside the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(text: str) -> str:
    """JSON text with every hidden character inside its strings escaped (`\\uXXXX`).
    Outside strings JSON has only printable characters and whitespace, which is kept."""
    return "".join(
        _json_escape(c) if hidden(c) and c not in "\n\r\t " else c for c in text
    )

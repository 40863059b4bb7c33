"""User text on its way to a terminal, and names that look alike.

:func:`visible` escapes the characters a terminal would act on instead of
showing -- control characters (C0, C1, DEL), format characters (bidirectional
overrides, zero-width characters) and line or paragraph separators -- as
``\\xNN`` / ``\\uNNNN``: an edition's names, a rule file's titles and messages
are passed through it when they are read, so whatever prints them prints
plain text.

:func:`skeleton` is what a name looks like (after Unicode's confusable
detection, UTS #39, for the letters people type): NFKC, case folded,
combining marks dropped, Cyrillic and Greek look-alikes of Latin letters,
``0`` and ``1``, and ``rn`` mapped to what they resemble.  Two player names
with the same skeleton are refused (``facts.player_name_problem``).
"""
from __future__ import annotations

import unicodedata

_SHOWN = frozenset("\n")  # kept as they are: none but a line break, which one-line texts never hold


def _escape(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control, format and separator character escaped
    (a line break kept when ``keep_newlines``)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (keep_newlines and ch in _SHOWN):
            out.append(ch)
        elif ch == " ":
            out.append(ch)
        else:
            out.append(_escape(ch))
    return "".join(out)


#: Look-alikes of Latin letters (lower case, after case folding): Cyrillic, Greek, and a few others.
_CONFUSABLE = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "ӏ": "l",
    "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w",
    "х": "x", "ԁ": "d", "ց": "g", "ɡ": "g", "ь": "b", "п": "n", "ү": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ϳ": "j",
    # others people meet
    "ı": "i", "ȷ": "j", "ℓ": "l", "0": "o", "1": "l", "|": "l", "ǀ": "l",
})


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons are names a reader may take for one another."""
    text = unicodedata.normalize("NFKD", str(name).casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(_CONFUSABLE)
    text = unicodedata.normalize("NFKC", text).translate(_CONFUSABLE)
    return text.replace("rn", "m")

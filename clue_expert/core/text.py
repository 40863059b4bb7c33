"""User text on its way to a terminal, and names that look alike.

:func:`visible` escapes the characters a terminal would act on instead of
showing -- control characters (C0, C1, DEL), format characters (bidirectional
overrides, zero-width characters) and line or paragraph separators -- as
``\\xNN`` / ``\\uNNNN``: an edition's names, a rule file's titles and messages
are passed through it when they are read, so whatever prints them prints
plain text.

:func:`looks_alike` says whether two names look alike, by Unicode's
confusable detection (UTS #39's data, through the ``confusables``
package): two player names that look alike are refused
(``facts.player_name_problem``).
"""
from __future__ import annotations

import confusables  # type: ignore[import-untyped]

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


def looks_alike(a: str, b: str) -> bool:
    """True when a reader may take ``a`` for ``b``: Unicode's confusable
    detection (UTS #39's confusables data, through the ``confusables``
    package) after case folding -- ``Bob`` and ``Bоb`` with a Cyrillic
    ``о``, ``mark`` and ``rnark``, ``Joe`` and ``J0e``."""
    return bool(confusables.is_confusable(str(a).casefold(), str(b).casefold()))

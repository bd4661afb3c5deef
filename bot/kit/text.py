"""Text that users typed: how names compare, and how to show user text safely.

Pure functions (no Discord import), so rules engines and services can use them too.

- :func:`name_key` is the one way names are compared: the same in any script, whatever the
  case, width or composed/decomposed form ("Äpfel", "äpfel" and "A\u0308pfel" are one name).
- :func:`clean_name` is how a typed name is stored and shown (trimmed, inner whitespace collapsed,
  NFKC-normalised).
- :func:`escape` makes user text (event names, card names, reasons) render as typed: no
  markdown, no masked links, no pings.
- :func:`plural` and :func:`article` are the one way counts and "a/an" are written.
"""

from __future__ import annotations

import re
import unicodedata

# Markdown that Discord renders: emphasis, code, spoilers, quotes, headings, lists, masked links.
_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]()<])")
# "@everyone", "@here" and "<@…>", "<@&…>", "<#…>" mentions: a zero-width space defuses them even
# where allowed mentions are not set (they are set to none by default, see bot.app).
_MENTION = re.compile(r"(?<=@)(?=(?:everyone|here)\b)|(?<=<)(?=[@#])")
_ZERO_WIDTH_SPACE = "\u200b"


def clean_name(text: str) -> str:
    """A typed name as stored and shown: NFKC, trimmed, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def name_key(text: str) -> str:
    """The comparison key of a name: NFKC + casefold (re-normalised, as casefold can denormalise)."""
    return unicodedata.normalize("NFKC", clean_name(text).casefold())


def escape(text: str) -> str:
    """`text` shown literally in message content, embed descriptions and field values.

    Not for embed titles, field names, button labels or select options: Discord renders no
    links or mentions there, and would show the backslashes."""
    escaped = _MARKDOWN.sub(r"\\\1", text)
    return _MENTION.sub(_ZERO_WIDTH_SPACE, escaped)


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 pick", "2 picks", "0 picks"; `many` for irregular plurals ("1 match", "2 matches")."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def plural_word(count: int, word: str, many: str | None = None) -> str:
    """The word alone, agreeing with `count` ("card" or "cards")."""
    return word if count == 1 else (many or word + "s")


def article(word: str) -> str:
    """ "an event", "a league": by the first letter's sound, which is right for this bot's words."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"

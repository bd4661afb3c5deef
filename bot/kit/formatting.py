"""Small text helpers for messages (no rules, no SQL)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.kit import limits
from bot.kit.text import escape


def format_duration(seconds: float) -> str:
    seconds = int(seconds)
    days, seconds = divmod(seconds, 86_400)
    hours, seconds = divmod(seconds, 3_600)
    minutes, seconds = divmod(seconds, 60)
    parts = [f"{days}d"] if days else []
    if hours or days:
        parts.append(f"{hours}h")
    if minutes or hours or days:
        parts.append(f"{minutes}m")
    parts.append(f"{seconds}s")
    return " ".join(parts)


def channel_mention(channel_id: int | None) -> str:
    return f"<#{channel_id}>" if channel_id else "not set"


def role_mention(role_id: int | None) -> str:
    return f"<@&{role_id}>" if role_id else "not set (Manage Server only)"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def numbered(cards: Sequence[str], mark=lambda i: f"{i + 1}.", arrow: int | None = None) -> list[str]:
    """One escaped line per card: `1. name` (the marked one with an arrow)."""
    return [f"{mark(i)} {'➡️ ' if i == arrow else ''}{escape(card)}" for i, card in enumerate(cards)]


def cards_text(cards: Sequence[str], limit: int = limits.FIELD_VALUE) -> str:
    """Escaped names joined by commas, as many whole names as fit, then how many there are."""
    if not cards:
        return "empty"
    names = [escape(card) for card in cards]
    if len(", ".join(names)) <= limit:
        return ", ".join(names)
    more = f" … ({len(cards)})"
    shown = names[0]
    for name in names[1:]:
        if len(shown) + 2 + len(name) + len(more) > limit:
            break
        shown += ", " + name
    return limits.clip(shown, limit - len(more)) + more  # clipped only if the first name alone is too long

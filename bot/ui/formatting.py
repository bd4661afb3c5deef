"""Small text helpers for messages (no rules, no SQL)."""

from __future__ import annotations


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

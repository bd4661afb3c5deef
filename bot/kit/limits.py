"""Discord's message limits, and one way to stay inside them whatever users typed.

Long card names (up to 200 characters), long event names and big pools must never make Discord
answer 400. Every renderer builds its text with these helpers: links are shortened to plain text
before anything is dropped, lines are clipped only as a last resort, and long lists are split into
several messages or pages. `fit_embed` is the final guard every outgoing embed passes through.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import discord

CONTENT = 2000
TITLE = 256
DESCRIPTION = 4096
FIELD_NAME = 256
FIELD_VALUE = 1024
FIELDS = 25
FOOTER = 2048
AUTHOR = 256
EMBED_TOTAL = 6000  # all embeds of one message together
EMBEDS = 10
BUTTON_LABEL = 80
SELECT_LABEL = 100
ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with an ellipsis when too long."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def fit_lines(lines: Sequence[str], limit: int, plain: Sequence[str] | None = None) -> str:
    """Join `lines` with newlines within `limit`: first swap the longest lines for their `plain`
    versions (a card name without its link), then clip every line evenly."""
    lines = list(lines)
    if len(_joined(lines)) <= limit:
        return _joined(lines)
    if plain is not None:
        by_gain = sorted(range(len(lines)), key=lambda i: len(lines[i]) - len(plain[i]), reverse=True)
        for i in by_gain:
            lines[i] = plain[i]
            if len(_joined(lines)) <= limit:
                return _joined(lines)
    per_line = max(limit // max(len(lines), 1) - 1, 1)
    return clip(_joined([clip(line, per_line) for line in lines]), limit)


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines)


def chunk_lines(lines: Iterable[str], limit: int = CONTENT) -> list[str]:
    """Group lines into as few texts of at most `limit` characters as possible (for several
    messages or pages); a single line longer than `limit` is clipped."""
    chunks: list[str] = []
    current = ""
    for line in lines:
        line = clip(line, limit)
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


def embed_size(embed: discord.Embed) -> int:
    """What counts towards Discord's 6,000 characters per message."""
    size = len(embed.title or "") + len(embed.description or "")
    size += len(embed.footer.text or "") if embed.footer else 0
    size += len(embed.author.name or "") if embed.author else 0
    return size + sum(len(f.name or "") + len(f.value or "") for f in embed.fields)


def fit_embed(embed: discord.Embed, budget: int = EMBED_TOTAL) -> discord.Embed:
    """Clip an embed's parts to their limits and its total to `budget` (last fields first)."""
    if embed.title:
        embed.title = clip(embed.title, TITLE)
    if embed.description:
        embed.description = clip(embed.description, DESCRIPTION)
    if embed.footer and embed.footer.text:
        embed.set_footer(text=clip(embed.footer.text, FOOTER), icon_url=embed.footer.icon_url)
    fields = [(clip(f.name or "-", FIELD_NAME), clip(f.value or "-", FIELD_VALUE), f.inline) for f in embed.fields]
    embed.clear_fields()
    for name, value, inline in fields[:FIELDS]:
        embed.add_field(name=name, value=value, inline=inline)
    while embed_size(embed) > budget and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if embed_size(embed) > budget and embed.description:
        embed.description = clip(embed.description, max(len(embed.description) - (embed_size(embed) - budget), 1))
    return embed


def fit_embeds(embeds: Sequence[discord.Embed]) -> list[discord.Embed]:
    """At most 10 embeds sharing the 6,000 characters of one message."""
    fitted: list[discord.Embed] = []
    left = EMBED_TOTAL
    for embed in list(embeds)[:EMBEDS]:
        fitted.append(fit_embed(embed, left))
        left -= embed_size(fitted[-1])
        if left <= 0:
            break
    return fitted


def ping(*user_ids: int) -> discord.AllowedMentions:
    """Opt in to pinging exactly these users (the client's default pings nobody)."""
    return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(id=u) for u in user_ids])

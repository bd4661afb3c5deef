"""Reading a file a user attached to a command, within the size every list may have."""

from __future__ import annotations

import discord

from bot.cards.parse import MAX_BYTES
from bot.kit.errors import UserError


async def read_upload(file: discord.Attachment, what: str = "file") -> bytes:
    """The attachment's bytes, or a UserError: too big, or Discord would not hand it over."""
    if file.size > MAX_BYTES:
        raise UserError(f"The {what} is {file.size:,} bytes; the limit is {MAX_BYTES:,} bytes.")
    try:
        return await file.read()
    except discord.HTTPException:
        raise UserError("Discord would not give me that file; try uploading it again.") from None

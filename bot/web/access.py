"""Who can see a server's web pages.

A server's pages are off until an admin turns them on (`/config set web on`), which mints an
unguessable address: 256 random bits, the `web_address` of its settings row. Every page of the
server lives under it (`/s/<address>/…`); another address, a forged one or an old one after
`/web rotate` finds nothing. Turning the pages off forgets the address (on again mints a new one).

A player's own pages (their pool during a draft) are signed links: a `Grant` (which page, whose,
of what, until when) and its HMAC under the server's key, itself minted with the address (and mixed
with the `WEB_SECRET` setting when one is set, so a copy of the database alone can't forge links).
They live under the server's address, so a rotation ends them too. A form on such a page (a
Rotisserie pick) carries a `form_token`: the page's token and what the form acts on, signed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.errors import NotFound
from bot.store.db import Database
from bot.store.models import GuildSettings

SECRET_BYTES = 32  # 256 random bits for an address and for a key
ADDRESS_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # token_urlsafe(32)
TITLE_LENGTH = 100
OFF = "This server's web pages are off: someone with Manage Server can turn them on with `/config set web on`."


@dataclass(frozen=True)
class Site:
    guild_id: int
    address: str
    key: str  # signs players' links (see `signing_key`)
    title: str  # the server's name as the pages show it


def mint() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def _site(row: GuildSettings) -> Site:
    return Site(row.guild_id, row.web_address, row.web_key, row.web_title or "Discord server")


async def _row(session: AsyncSession, guild_id: int) -> GuildSettings:
    row = await session.get(GuildSettings, guild_id)
    if row is None:
        row = GuildSettings(guild_id=guild_id)
        session.add(row)
    return row


async def turn_on(db: Database, guild_id: int, title: str) -> tuple[Site, bool]:
    """The server's site, on: (it, whether it was off until now). An address it has stays."""
    async with db.write() as session:
        row = await _row(session, guild_id)
        was_off = row.web_address is None
        if was_off:
            row.web_address, row.web_key = mint(), mint()
        row.web_title = title[:TITLE_LENGTH]
        await session.flush()
        return _site(row), was_off


async def turn_off(db: Database, guild_id: int) -> bool:
    """Forget the server's address (every link to its pages stops working); whether it was on."""
    async with db.write() as session:
        row = await session.get(GuildSettings, guild_id)
        if row is None or row.web_address is None:
            return False
        row.web_address = row.web_key = None
        return True


async def rotate(db: Database, guild_id: int, title: str | None = None) -> Site:
    """A new address and key: every link given out so far stops working."""
    async with db.write() as session:
        row = await session.get(GuildSettings, guild_id)
        if row is None or row.web_address is None:
            raise NotFound(OFF)
        row.web_address, row.web_key = mint(), mint()
        if title is not None:
            row.web_title = title[:TITLE_LENGTH]
        await session.flush()
        return _site(row)


async def site_of(db: Database, guild_id: int) -> Site | None:
    """The server's site, None while it is off."""
    async with db.read() as session:
        row = await session.get(GuildSettings, guild_id)
        return _site(row) if row is not None and row.web_address is not None else None


async def site_at(session: AsyncSession, address: str) -> Site | None:
    """The site an address in a URL names, None for any other text (checked before it is looked up)."""
    if not ADDRESS_SHAPE.fullmatch(address):
        return None
    row = (await session.execute(select(GuildSettings).where(GuildSettings.web_address == address))).scalar_one_or_none()
    return _site(row) if row is not None else None


async def remember_title(db: Database, guild_id: int, title: str) -> None:
    """The server's name changed: its pages (if on) show the new one."""
    async with db.write() as session:
        await session.execute(
            update(GuildSettings)
            .where(GuildSettings.guild_id == guild_id, GuildSettings.web_address.is_not(None),
                   GuildSettings.web_title.is_distinct_from(title[:TITLE_LENGTH]))
            .values(web_title=title[:TITLE_LENGTH])
        )


# --- players' own pages: signed, expiring links ----------------------------------------------------

KIND_SHAPE = re.compile(r"[a-z0-9_-]{1,32}")
_TOKEN = re.compile(r"(?P<kind>[a-z0-9_-]{1,32})\.(?P<user>\d{1,20})\.(?P<ref>\d{1,20})\.(?P<expires>\d{1,12})"
                    r"\.(?P<mac>[A-Za-z0-9_-]{22})")
MAC_BYTES = 16  # 128 bits


@dataclass(frozen=True)
class Grant:
    """What a signed link shows: page `kind` (a format names it, e.g. "draft-pool"), to player
    `user_id`, of object `ref` (a pod id, …), until `expires` (Unix seconds)."""

    kind: str
    user_id: int
    ref: int
    expires: int

    def __post_init__(self) -> None:
        if not KIND_SHAPE.fullmatch(self.kind):
            raise ValueError(f"a signed page's kind is 1-32 of a-z, 0-9, _ and -: {self.kind!r}")
        for number in (self.user_id, self.ref, self.expires):
            if not 0 <= number < 2**63:
                raise ValueError(f"out of range: {number}")

    @property
    def body(self) -> str:
        return f"{self.kind}.{self.user_id}.{self.ref}.{self.expires}"


def signing_key(site: Site, secret: str | None) -> bytes:
    """The server's key, mixed with `WEB_SECRET` when the host set one."""
    key = site.key.encode()
    return hmac.new(secret.encode(), key, hashlib.sha256).digest() if secret else key


def _mac(key: bytes, body: str) -> str:
    digest = hmac.new(key, body.encode(), hashlib.sha256).digest()[:MAC_BYTES]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def sign(site: Site, grant: Grant, secret: str | None) -> str:
    """The token of a signed link (URL-safe, about 80 characters)."""
    return f"{grant.body}.{_mac(signing_key(site, secret), grant.body)}"


def form_token(site: Site, token: str, bound: str, secret: str | None) -> str:
    """What a form of a signed page carries to act (`registry.private_action`): the page's token and
    what the form acts on (`bound`, e.g. a pod's pick number) signed together, so a form works only
    from that player's page and only for that state of the object (a stale or replayed form, or one
    forged for another player, is refused)."""
    return _mac(signing_key(site, secret), f"form.{token}.{bound}")


def form_token_valid(site: Site, token: str, bound: str, secret: str | None, given: str) -> bool:
    return hmac.compare_digest(form_token(site, token, bound, secret).encode(), given.encode())


def verify(site: Site, token: str, secret: str | None, *, now: float | None = None) -> Grant | None:
    """The grant a token carries, if this server signed it and it has not expired; else None."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return None
    try:
        grant = Grant(match["kind"], int(match["user"]), int(match["ref"]), int(match["expires"]))
    except ValueError:
        return None
    if not hmac.compare_digest(_mac(signing_key(site, secret), grant.body), match["mac"]):
        return None
    return grant if grant.expires > (time.time() if now is None else now) else None

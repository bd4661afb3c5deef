"""A server's address (minted unguessable, kept while on, changed by a rotation, forgotten when off)
and the signed links of players' own pages (only this server's key, unaltered and unexpired)."""

from __future__ import annotations

import base64
import dataclasses

import pytest

from bot.features.config import service as guild_config
from bot.kit.errors import NotFound
from bot.web import access
from tests.common import GUILD, OTHER_GUILD


async def test_an_address_is_minted_kept_rotated_and_forgotten(db):
    assert await access.site_of(db, GUILD) is None
    site, was_off = await access.turn_on(db, GUILD, "MTG Club")
    assert was_off and site.title == "MTG Club"
    assert access.ADDRESS_SHAPE.fullmatch(site.address)
    assert len(base64.urlsafe_b64decode(site.address + "=")) * 8 >= 128  # 256 random bits
    assert site.key != site.address
    assert (await guild_config.get_config(db, GUILD)).web

    again, was_off = await access.turn_on(db, GUILD, "MTG Club 2")
    assert not was_off and again.address == site.address and again.title == "MTG Club 2"

    rotated = await access.rotate(db, GUILD)
    assert rotated.address != site.address and rotated.key != site.key
    async with db.read() as session:
        assert await access.site_at(session, site.address) is None
        assert (await access.site_at(session, rotated.address)).guild_id == GUILD
        assert await access.site_at(session, "../" + rotated.address) is None

    assert await access.turn_off(db, GUILD)
    assert not await access.turn_off(db, GUILD)
    async with db.read() as session:
        assert await access.site_at(session, rotated.address) is None
    with pytest.raises(NotFound, match="/config set web on"):
        await access.rotate(db, GUILD)
    back, was_off = await access.turn_on(db, GUILD, "MTG Club")
    assert was_off and back.address not in (site.address, rotated.address)


async def test_every_server_has_its_own_address_and_a_reset_turns_the_pages_off(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    theirs, _ = await access.turn_on(db, OTHER_GUILD, "Theirs")
    assert mine.address != theirs.address and mine.key != theirs.key
    await guild_config.reset_config(db, GUILD)
    assert await access.site_of(db, GUILD) is None
    assert await access.site_of(db, OTHER_GUILD) == theirs


async def test_a_new_server_name_shows_once_the_pages_are_on(db):
    await access.remember_title(db, GUILD, "Ignored while off")
    assert await access.site_of(db, GUILD) is None
    await access.turn_on(db, GUILD, "Old")
    await access.remember_title(db, GUILD, "New name")
    assert (await access.site_of(db, GUILD)).title == "New name"


SITE = access.Site(GUILD, "a" * 43, "k" * 43, "MTG Club")
OTHER = access.Site(OTHER_GUILD, "b" * 43, "j" * 43, "Other")
GRANT = access.Grant("draft-pool", 1001, 7, 2_000_000_000)


def test_a_signed_link_carries_its_grant_until_it_expires():
    token = access.sign(SITE, GRANT, None)
    assert len(token) < 100 and token.startswith("draft-pool.1001.7.")
    assert access.verify(SITE, token, None, now=1_999_999_999) == GRANT
    assert access.verify(SITE, token, None, now=2_000_000_000) is None  # expired


@pytest.mark.parametrize("change", [
    {"kind": "draft-deck"}, {"user_id": 1002}, {"ref": 8}, {"expires": 2_000_000_001},
])
def test_a_link_altered_in_any_part_is_refused(change):
    token = access.sign(SITE, GRANT, None)
    altered = dataclasses.replace(GRANT, **change)
    forged = f"{altered.body}.{token.rsplit('.', 1)[1]}"
    assert access.verify(SITE, forged, None, now=0) is None


def test_a_link_signed_for_another_server_or_under_another_secret_is_refused():
    token = access.sign(SITE, GRANT, None)
    assert access.verify(OTHER, token, None, now=0) is None
    assert access.verify(SITE, token, "host secret", now=0) is None  # WEB_SECRET set since
    with_secret = access.sign(SITE, GRANT, "host secret")
    assert access.verify(SITE, with_secret, "host secret", now=0) == GRANT
    assert access.verify(SITE, with_secret, None, now=0) is None  # the database's key alone can't sign it
    assert access.verify(SITE, with_secret, "another", now=0) is None


@pytest.mark.parametrize("token", ["", "x", "draft-pool.1.2.3", "draft-pool.1.2.3." + "A" * 21,
                                   "Draft.1.2.3." + "A" * 22, "draft-pool.-1.2.3." + "A" * 22,
                                   "draft-pool.99999999999999999999.2.3." + "A" * 22, "a" * 500])
def test_malformed_tokens_are_refused(token):
    assert access.verify(SITE, token, None, now=0) is None


def test_a_grant_is_bounded():
    with pytest.raises(ValueError):
        access.Grant("Draft Pool", 1, 1, 1)
    with pytest.raises(ValueError):
        access.Grant("pool", 2**63, 1, 1)

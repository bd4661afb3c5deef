"""The kit's record of which message shows what (`bot.kit.shown`), on SQLite and PostgreSQL: one
message per key has live buttons, a message that arrives after its key moved on is retired at
once, retiring skips the message the click came from, and owners never see each other's records."""

from __future__ import annotations

from bot.kit import shown
from bot.kit.shown import Owner, Shown

GAME, OTHER = Owner("vortex", 1), Owner("421", 1)
PICK, LOOK = "vortex.pick", "vortex.look"


async def test_one_message_per_key_shows_the_wanted_version(db):
    async with db.write() as session:
        assert await shown.want(session, GAME, PICK, 1) == []
        assert await shown.still_wanted(session, GAME, PICK, 1)
        assert not await shown.still_wanted(session, GAME, PICK, 2)
        assert not await shown.still_wanted(session, OTHER, PICK, 1)  # another owner's key
        assert await shown.record(session, GAME, PICK, 1, 70, 501) == []
        assert await shown.record(session, GAME, PICK, 1, 70, 501) == []  # the same record again: nothing
        # A copy sent again (a resend) takes over; the first copy is retired.
        assert await shown.record(session, GAME, PICK, 1, 70, 502) == [Shown(PICK, 1, 70, 501)]
        assert await shown.showing(session, GAME) == [Shown(PICK, 1, 70, 502)]
        # The same version wanted again (the pick queued once more) keeps its message until the new one comes.
        assert await shown.want(session, GAME, PICK, 1) == []
        assert await shown.showing(session, GAME) == [Shown(PICK, 1, 70, 502)]
        # The next version: the message showing the older one is retired at once.
        assert await shown.want(session, GAME, PICK, 2) == [Shown(PICK, 1, 70, 502)]
        assert await shown.showing(session, GAME) == []
        assert await shown.wanted(session, GAME) == {PICK: 2}


async def test_a_message_that_arrives_after_its_key_moved_on_is_retired_at_once(db):
    async with db.write() as session:
        await shown.want(session, GAME, LOOK, 1)
        await shown.want(session, GAME, LOOK, 2)
        assert await shown.record(session, GAME, LOOK, 1, 70, 601) == [Shown(LOOK, 1, 70, 601)]
        assert await shown.showing(session, GAME) == []
        assert await shown.retire(session, GAME, LOOK) == []  # nothing shown: nothing to retire
        assert await shown.record(session, GAME, LOOK, 2, 70, 602) == [Shown(LOOK, 2, 70, 602)]  # retired meanwhile
        assert await shown.wanted(session, GAME) == {}
        assert await shown.record(session, OTHER, LOOK, 1, 70, 603) == [Shown(LOOK, 1, 70, 603)]  # never wanted


async def test_retiring_returns_every_message_but_the_one_clicked(db):
    async with db.write() as session:
        for key, message_id in ((PICK, 701), (LOOK, 702)):
            await shown.want(session, GAME, key, 3)
            await shown.record(session, GAME, key, 3, 70, message_id, payload={"redraw": key})
        await shown.want(session, OTHER, "421.menu", 0)
        await shown.record(session, OTHER, "421.menu", 0, 80, 801)
    async with db.write() as session:
        assert await shown.retire(session, GAME, PICK, answered=701) == []  # the click's answer shows the outcome
        assert await shown.showing(session, GAME) == [Shown(LOOK, 3, 70, 702, {"redraw": LOOK})]
        # Wanted again in the same transaction as its retirement (a new look right after the old one).
        assert await shown.retire(session, GAME) == [Shown(LOOK, 3, 70, 702, {"redraw": LOOK})]
        assert await shown.want(session, GAME, LOOK, 4) == []
    async with db.read() as session:
        assert await shown.wanted(session, GAME) == {LOOK: 4}
        assert await shown.showing(session, OTHER) == [Shown("421.menu", 0, 80, 801)]  # untouched


async def test_show_keeps_the_newest_rendering(db):
    """`show` (Treasure Battler's DMs, versioned by the game's version when rendered): a newer
    rendering replaces the record, an older one arriving late changes nothing and is returned."""
    dm = "setup.1001"
    async with db.write() as session:
        assert await shown.show(session, GAME, dm, 4, 70, 901) == []
        assert await shown.show(session, GAME, dm, 4, 70, 902) == [Shown(dm, 4, 70, 901)]  # sent again
        assert await shown.show(session, GAME, dm, 6, 70, 902) == []  # re-rendered in place
        assert await shown.show(session, GAME, dm, 5, 70, 903) == [Shown(dm, 5, 70, 903)]  # late: not recorded
        assert await shown.message_of(session, GAME, dm) == Shown(dm, 6, 70, 902)
        assert await shown.message_of(session, GAME, "draft.1001") is None


async def test_several_keys_are_wanted_in_one_read_and_asked_with_their_message(db):
    """A draft's pick moves two seats' packs: `want_each` wants both; `wanted_now` answers with the
    version and the message recorded for it (None: no record at all)."""
    seat_0, seat_1 = "pack:0", "pack:1"
    async with db.write() as session:
        assert await shown.want_each(session, GAME, {seat_0: 1001, seat_1: 2001}) == []
        await shown.record(session, GAME, seat_0, 1001, 70, 901)
        assert await shown.wanted_now(session, GAME, seat_0) == (1001, Shown(seat_0, 1001, 70, 901))
        assert await shown.wanted_now(session, GAME, seat_1) == (2001, None)  # wanted, not sent yet
        assert await shown.wanted_now(session, GAME, "pack:2") is None
        # The next pick: seat 0's message is returned to retire, seat 1's version stays.
        assert await shown.want_each(session, GAME, {seat_0: 1002, seat_1: 2001}) == [Shown(seat_0, 1001, 70, 901)]
    async with db.read() as session:
        assert await shown.wanted(session, GAME) == {seat_0: 1002, seat_1: 2001}


async def test_wanting_quietly_is_wanting_without_a_read(db):
    """The draft's pick path: the same record as `want_each`, in one statement per key (the older
    message is the draft's to retire: nothing is returned)."""
    async with db.write() as session:
        await shown.want_quietly(session, GAME, {"pack:0": 1001, "pack:1": 2001})
        await shown.record(session, GAME, "pack:0", 1001, 70, 901)
        await shown.want_quietly(session, GAME, {"pack:0": 1001})  # the same version: its message stays
        assert await shown.wanted_now(session, GAME, "pack:0") == (1001, Shown("pack:0", 1001, 70, 901))
        await shown.want_quietly(session, GAME, {"pack:0": 1002})  # the next: no message shows it yet
        assert await shown.wanted_now(session, GAME, "pack:0") == (1002, None)
    async with db.read() as session:
        assert await shown.wanted(session, GAME) == {"pack:0": 1002, "pack:1": 2001}

"""Goldfish events, submissions and the leaderboard, against SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from bot.features.config import service as guild_config
from bot.features.leaderboard import service as leaderboard
from bot.games.draft import service as drafts
from bot.games.goldfish import service as goldfish
from bot.kit import outbox
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.store.types import utcnow
from tests.common import GUILD, OTHER_GUILD
from tests.games.draft.test_service import ADMIN, ORGANIZER, new_pod, play_out


async def paper_event(db, name="Friday paper draft", turns=7):
    return await goldfish.create_event(db, actor=ADMIN, channel_id=10, name=name, turns=turns)


async def submit(db, event, user, writeup="T1 bolt, T2 bolt", **counts):
    values = {"life_lost": 0, "cards_milled": 0, "poison": 0, "game_wins": 0} | counts
    return await goldfish.submit(db, GUILD, event.id, user, writeup=writeup, **values)


async def test_submission_scores_with_the_default_table(db):
    event = await paper_event(db)
    result = await submit(db, event, 5, life_lost=23, cards_milled=3, poison=2)
    assert result.score == 23 + 1.5 + 4
    assert result.breakdown == {"life": 23.0, "mill": 1.5, "poison": 4.0, "win": 0.0, "total": 28.5}


async def test_resubmission_keeps_history_and_counts_the_newest(db):
    event = await paper_event(db)
    await submit(db, event, 5, life_lost=10)
    await submit(db, event, 5, life_lost=30, writeup="better line")
    _, standings = await goldfish.scores(db, GUILD, event.id)
    assert [(s.submission.user_id, s.submission.score) for s in standings] == [(5, 30.0)]
    assert await goldfish.history_count(db, event.id, 5) == 2
    assert (await goldfish.writeup(db, GUILD, event.id, 5)).writeup == "better line"


async def test_losing_or_a_prevented_win_scores_zero(db):
    event = await paper_event(db)
    assert (await goldfish.submit(db, GUILD, event.id, 5, life_lost=40, cards_milled=0, poison=0, game_wins=0,
                                  writeup="lost", lost_or_drew=True)).score == 0
    assert (await goldfish.submit(db, GUILD, event.id, 6, life_lost=40, cards_milled=0, poison=0, game_wins=1,
                                  writeup="platinum angel", prevented=True)).score == 0


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"life_lost": -1}, "negative"),
        ({"cards_milled": 2.5}, "whole"),
        ({"poison": 10**9}, "believable"),
    ],
)
async def test_bad_numbers_are_refused_and_change_nothing(db, counts, message):
    event = await paper_event(db)
    with pytest.raises(UserError, match=message):
        await submit(db, event, 5, **counts)
    with pytest.raises(UserError, match="empty"):
        await submit(db, event, 5, writeup="   ")
    assert (await goldfish.scores(db, GUILD, event.id))[1] == []


async def test_cancel_deletes_the_event_and_its_scores_and_records_nothing(db):
    await leaderboard.start_season(db, GUILD, "Winter")
    event = await paper_event(db)
    await submit(db, event, 1, life_lost=20)
    await submit(db, event, 1, life_lost=25)  # a correction: two reports, one counting score
    await submit(db, event, 2, life_lost=35)
    with pytest.raises(PermissionDenied):
        await goldfish.cancel(db, GUILD, event.id, actor=Actor(1, GUILD))
    assert await goldfish.cancel(db, GUILD, event.id, actor=Actor(ADMIN.user_id, GUILD)) == 2
    with pytest.raises(NotFound):
        await goldfish.get_event(db, GUILD, event.id)
    assert await goldfish.history_count(db, event.id, 1) == 0  # every report is gone with it
    assert (await leaderboard.standings(db, GUILD, format="goldfish"))[1] == []
    # The channel is told, in the same transaction.
    [note] = [q for q in await outbox.take_due(db, created_before=utcnow() + timedelta(seconds=1))
              if q.message.kind == goldfish.CANCELLED]
    assert note.message.channel_id == 10
    assert note.message.payload == {"event_name": event.name, "by": ADMIN.user_id, "scores": 2}
    # Its name is free again.
    assert (await paper_event(db)).name == event.name


async def test_only_pod_players_submit_to_a_draft_event(db):
    pod = await new_pod(db, players=2, goldfish=drafts.GoldfishOptions(turns=7))
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(1))
    event = await goldfish.default_event(db, GUILD, 10)
    assert event.pod_id == pod.id and event.turns == 7
    with pytest.raises(PermissionDenied, match="did not play"):
        await goldfish.check_can_submit(db, GUILD, event.id, 999)
    with pytest.raises(PermissionDenied, match="did not play"):
        await submit(db, event, 999, life_lost=5)
    assert (await goldfish.check_can_submit(db, GUILD, event.id, 1001)).id == event.id
    await submit(db, event, 1001, life_lost=5)


async def test_an_organizer_who_played_does_not_reject_their_own_score(db):
    """Issue 34: as in every claims flow, an organizer who played is a player there: another
    organizer (or a member with Manage Server) judges their score."""
    event = await paper_event(db)
    await submit(db, event, ORGANIZER, life_lost=30)
    with pytest.raises(UserError, match="so you cannot reject your own score"):
        await goldfish.reject(db, GUILD, event.id, ORGANIZER, reason="mine", actor=Actor(ORGANIZER, GUILD))
    rejected = await goldfish.reject(db, GUILD, event.id, ORGANIZER, reason="seen", actor=Actor(300, GUILD, True))
    assert rejected.submission.status == "rejected"


async def test_reject_close_and_leaderboard(db):
    await guild_config.update_config(db, GUILD, leaderboard_channel_id=77)
    await leaderboard.start_season(db, GUILD, "Autumn")
    event = await paper_event(db)
    await submit(db, event, 1, life_lost=20)
    await submit(db, event, 2, life_lost=35)
    await submit(db, event, 3, life_lost=20)
    with pytest.raises(PermissionDenied):
        await goldfish.reject(db, GUILD, event.id, 2, reason="no", actor=Actor(3, GUILD))
    rejected = await goldfish.reject(db, GUILD, event.id, 2, reason="loop done twice", actor=Actor(ORGANIZER, GUILD))
    assert rejected.submission.status == "rejected"
    # The DM is owed in the same transaction (held for the organizer's command to send).
    assert rejected.dm.message == outbox.Message(
        goldfish.REJECTED, {"event_id": event.id, "event_name": event.name, "reason": "loop done twice"},
        user_id=2, guild_id=GUILD,
    )
    await submit(db, event, 2, life_lost=25)
    with pytest.raises(PermissionDenied):
        await goldfish.close(db, GUILD, event.id, actor=Actor(1, GUILD))
    closed = await goldfish.close(db, GUILD, event.id, actor=Actor(ORGANIZER, GUILD))
    assert (closed.post_channel_id, closed.results_channel_id) == (10, 77)
    assert [(s.placement, s.submission.user_id) for s in closed.standings] == [(1, 2), (2, 1), (2, 3)]
    finals = [q for q in await outbox.take_due(db, created_before=utcnow() + timedelta(seconds=1))
              if q.message.kind == goldfish.FINAL]
    what = f"the final standings of **{event.name}**"
    # The event's channel (the post that pings the winner) and a copy in the results channel; who
    # closed it hears a refusal of either.
    assert sorted((q.message.channel_id, q.message.payload) for q in finals) == [
        (10, outbox.telling({"event_id": event.id, "ping": True}, ORGANIZER, what)),
        (77, outbox.telling({"event_id": event.id, "ping": False}, ORGANIZER, what)),
    ]
    shown, standings = await goldfish.final_standings(db, event.id)
    assert shown.status == "closed" and standings == closed.standings
    with pytest.raises(Conflict, match="has ended; scores are no longer taken"):
        await goldfish.check_can_submit(db, GUILD, event.id, 1)
    with pytest.raises(Conflict, match="has ended"):
        await submit(db, event, 1, life_lost=50)
    with pytest.raises(Conflict, match="already ended"):
        await goldfish.close(db, GUILD, event.id, actor=ADMIN)
    with pytest.raises(Conflict, match="results are recorded, so it can't be cancelled"):
        await goldfish.cancel(db, GUILD, event.id, actor=ADMIN)

    period, rows = await leaderboard.standings(db, GUILD, format="goldfish")
    assert period == "season Autumn"
    assert [(r.rank, r.user_id, r.wins, r.points, r.best_score) for r in rows] == [
        (1, 2, 1, 3.0, 25.0), (2, 1, 0, 1.0, 20.0), (3, 3, 0, 1.0, 20.0)
    ]  # sharing 2nd, they finished ahead of nobody: 1 point each
    await leaderboard.end_season(db, GUILD)
    # No season running: "current" is all time, and the title says so.
    period, rows = await leaderboard.standings(db, GUILD, season="current")
    assert period == "all time (no season running)" and len(rows) == 3
    assert len((await leaderboard.standings(db, GUILD, season="all"))[1]) == 3
    assert len((await leaderboard.standings(db, GUILD, season="Autumn"))[1]) == 3
    assert (await leaderboard.standings(db, 2, season="all"))[1] == []  # other guilds see nothing


async def test_seasons_do_not_overlap(db):
    await leaderboard.start_season(db, GUILD, "One")
    with pytest.raises(Conflict, match="still running"):
        await leaderboard.start_season(db, GUILD, "Two")
    await leaderboard.end_season(db, GUILD)
    with pytest.raises(Conflict, match="already a season"):
        await leaderboard.start_season(db, GUILD, "One")
    with pytest.raises(NotFound):
        await leaderboard.end_season(db, GUILD)


async def test_events_are_guild_scoped(db):
    event = await paper_event(db)
    with pytest.raises(NotFound):
        await goldfish.check_can_submit(db, 2, event.id, 5)
    with pytest.raises(NotFound):
        await goldfish.submit(db, 2, event.id, 5, life_lost=1, cards_milled=0, poison=0, game_wins=0, writeup="x")


async def test_event_names_are_unique_by_key_and_stored_cleaned(db):
    first = await paper_event(db, name="  Straße   night ")
    assert first.name == "Straße night" and first.play_order == "first"
    for same in ("STRASSE NIGHT", "strasse night", "Straße night"):
        with pytest.raises(Conflict, match="already an event"):
            await paper_event(db, name=same)
    for bad in ("", "   ", "x" * 101):
        with pytest.raises(UserError, match="1–100"):
            await paper_event(db, name=bad)
    with pytest.raises(UserError, match="play order"):
        await goldfish.create_event(
            db, actor=ADMIN, channel_id=10, name="Other", turns=7, play_order="last"
        )
    second = await goldfish.create_event(
        db, actor=ADMIN, channel_id=10, name="Second", turns=10, play_order="second"
    )
    assert (await goldfish.get_event(db, GUILD, second.id)).play_order == "second"
    await goldfish.create_event(db, actor=Actor(ORGANIZER, 2, manage_guild=True), channel_id=10, name="Straße night",
                                turns=7)
    assert [e.name for e in await goldfish.list_events(db, GUILD)] == ["Second", "Straße night"]


async def test_a_draft_event_whose_name_is_taken_is_numbered(db):
    pod = await new_pod(db, players=2, goldfish=drafts.GoldfishOptions(turns=7))
    await paper_event(db, name=f"DRAFT #{pod.id} (TEST)")
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(1))
    event = await goldfish.default_event(db, GUILD, 10)
    assert event.pod_id == pod.id and event.name == f"Draft #{pod.id} (test) (2)"


async def test_forged_event_ids_are_not_found(db):
    for event_id in (0, -1, 10**30):
        with pytest.raises(NotFound):
            await goldfish.get_event(db, GUILD, event_id)


async def test_reject_reasons_are_bounded(db):
    event = await paper_event(db)
    await submit(db, event, 5, life_lost=3)
    too_long = "x" * (goldfish.MAX_REJECT_REASON + 1)
    with pytest.raises(UserError, match="the limit is 500"):
        await goldfish.reject(db, GUILD, event.id, 5, reason=too_long, actor=ADMIN)
    assert (await goldfish.writeup(db, GUILD, event.id, 5)).status == "active"
    longest = "y" * goldfish.MAX_REJECT_REASON
    rejected = await goldfish.reject(db, GUILD, event.id, 5, reason=longest, actor=ADMIN)
    assert rejected.submission.reject_reason == longest


async def pending_keys(db) -> list[tuple[int, int]]:
    from sqlalchemy import select

    from bot.games.goldfish.models import GoldfishPendingWriteup as Pending

    async with db.read() as session:
        rows = await session.execute(select(Pending.user_id, Pending.key).order_by(Pending.key))
        return [tuple(row) for row in rows]


async def submit_held(db, event, user, key, **counts):
    values = {"life_lost": 1, "cards_milled": 0, "poison": 0, "game_wins": 0} | counts
    return await goldfish.submit(db, GUILD, event.id, user, writeup_key=key, **values)


async def test_uploaded_writeups_wait_in_the_database_and_are_used_once(db):
    event = await paper_event(db)
    await goldfish.hold_writeup(db, GUILD, 5, 111, "  T1: bolt  ")
    saved = await submit_held(db, event, 5, 111)
    assert saved.writeup == "T1: bolt"
    assert await pending_keys(db) == []  # deleted with the submission that used it
    with pytest.raises(NotFound, match="no longer held"):
        await submit_held(db, event, 5, 111)
    # Another player's upload, a forged key or another server: refused, nothing changes.
    await goldfish.hold_writeup(db, GUILD, 6, 222, "mine")
    for user, key, guild in ((5, 222, GUILD), (6, 10**30, GUILD), (6, 0, GUILD)):
        with pytest.raises(NotFound, match="no longer held"):
            await goldfish.submit(db, guild, event.id, user, writeup_key=key, life_lost=1, cards_milled=0,
                                  poison=0, game_wins=0)
    # A refused score keeps the upload (the player's form closed, but nothing was lost yet).
    with pytest.raises(UserError, match="negative"):
        await submit_held(db, event, 6, 222, life_lost=-1)
    assert await pending_keys(db) == [(6, 222)]
    with pytest.raises(UserError, match="can't be empty"):
        await goldfish.hold_writeup(db, GUILD, 6, 333, " \n ")
    with pytest.raises(UserError, match="the limit is"):
        await goldfish.hold_writeup(db, GUILD, 6, 334, "x" * (goldfish.MAX_WRITEUP_CHARS + 1))
    assert await pending_keys(db) == [(6, 222)]


async def test_a_new_upload_evicts_only_its_own_players_oldest(db):
    event = await paper_event(db)
    await goldfish.hold_writeup(db, GUILD, 6, 50, "the other player's")
    for key in range(100, 100 + goldfish.MAX_PENDING_WRITEUPS_PER_USER + 2):
        await goldfish.hold_writeup(db, GUILD, 5, key, f"upload {key}")
    newest = list(range(102, 100 + goldfish.MAX_PENDING_WRITEUPS_PER_USER + 2))
    assert await pending_keys(db) == [(6, 50)] + [(5, key) for key in newest]
    with pytest.raises(NotFound, match="only your 3 newest"):
        await submit_held(db, event, 5, 100)
    assert (await submit_held(db, event, 6, 50)).writeup == "the other player's"
    assert (await submit_held(db, event, 5, newest[0])).writeup == f"upload {newest[0]}"


async def test_expired_uploads_say_so_and_are_cleaned_up_lazily(db):
    from datetime import timedelta

    from sqlalchemy import update

    from bot.games.goldfish.models import GoldfishPendingWriteup as Pending
    from bot.store.types import utcnow

    event = await paper_event(db)
    await goldfish.hold_writeup(db, GUILD, 5, 100, "late")
    await goldfish.hold_writeup(db, GUILD, 6, 200, "long gone")
    async with db.write() as session:
        await session.execute(update(Pending).where(Pending.key == 100).values(expires_at=utcnow() - timedelta(minutes=1)))
        await session.execute(update(Pending).where(Pending.key == 200).values(expires_at=utcnow() - timedelta(hours=2)))
    with pytest.raises(UserError, match="expired: uploads wait 60 minutes") as refused:
        await submit_held(db, event, 5, 100)
    assert "restarted" not in str(refused.value)
    assert (await goldfish.scores(db, GUILD, event.id))[1] == []
    await goldfish.hold_writeup(db, GUILD, 7, 300, "fresh")  # any upload cleans up long-expired ones
    assert await pending_keys(db) == [(5, 100), (7, 300)]


@pytest.mark.parametrize(
    ("cube_source", "options", "expected"),
    [
        ("shipped", drafts.GoldfishOptions(), (7, "sum", "first")),  # the Goldfish Cube: 7 turns
        ("upload", drafts.GoldfishOptions(), (10, "sum", "first")),  # any other pool: 10
        ("upload", drafts.GoldfishOptions(turns=7, method="product", play_order="flip"), (7, "product", "flip")),
    ],
)
async def test_a_goldfish_draft_opens_its_event_with_the_organizers_choices(db, cube_source, options, expected):
    from dataclasses import replace

    from tests.games.draft.test_service import make_cube

    cube = replace(make_cube(240), name="goldfish", source=cube_source)
    pod = await drafts.create_pod(db, ADMIN, channel_id=10, cube=cube, seed=3, goldfish=options)
    for user in (1001, 1002):
        await drafts.join(db, pod.id, Actor(user, GUILD))
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(2))
    event = await goldfish.default_event(db, GUILD, 10)
    assert (event.pod_id, event.turns, event.method, event.play_order) == (pod.id, *expected)


async def test_goldfish_draft_options_are_checked(db):
    from tests.games.draft.test_service import make_cube

    with pytest.raises(UserError, match="scoring|method"):
        await drafts.create_pod(db, ADMIN, channel_id=10, cube=make_cube(240), goldfish=drafts.GoldfishOptions(method="avg"))
    for turns in (-1, 21):
        with pytest.raises(UserError, match="1 to 20 turns"):
            await drafts.create_pod(db, ADMIN, channel_id=10, cube=make_cube(240),
                                    goldfish=drafts.GoldfishOptions(turns=turns))
    pod = await drafts.create_pod(db, ADMIN, channel_id=10, cube=make_cube(240),
                                  goldfish=drafts.GoldfishOptions(turns=12))
    assert pod.turns == 12  # any length from 1 to 20, not only 7 or 10


@pytest.mark.parametrize("turns", [1, 8, 20])
async def test_a_paper_event_lasts_any_number_of_turns_from_1_to_20(db, turns):
    event = await paper_event(db, name=f"Paper {turns}", turns=turns)
    assert (await goldfish.get_event(db, GUILD, event.id)).turns == turns


@pytest.mark.parametrize("turns", [0, 21, -3])
async def test_a_paper_event_outside_1_to_20_turns_is_refused(db, turns):
    with pytest.raises(UserError, match="1 to 20 turns"):
        await paper_event(db, turns=turns)
    assert await goldfish.list_events(db, GUILD, status=None) == []


async def test_only_organizers_create_events_and_only_theirs_or_organizers_manage_them(db):
    """The tables' organizer rule: Manage Server or the server's organizer role, in that server;
    an event's own organizer manages it too."""
    role = 555
    await guild_config.update_config(db, GUILD, organizer_role_id=role)
    member, other_role = Actor(7, GUILD), Actor(7, GUILD, role_ids=frozenset({role + 1}))
    role_holder, manager = Actor(8, GUILD, role_ids=frozenset({role})), Actor(9, GUILD, manage_guild=True)
    for refused in (member, other_role):
        with pytest.raises(PermissionDenied, match="Only organizers can create events"):
            await goldfish.create_event(db, actor=refused, channel_id=10, name="Sneaky", turns=7)
    with pytest.raises(UserError, match="only works in a server"):
        await goldfish.create_event(db, actor=Actor(9, None, manage_guild=True), channel_id=10, name="DM", turns=7)
    assert await goldfish.list_events(db, GUILD) == []

    by_role = await goldfish.create_event(db, actor=role_holder, channel_id=10, name="By role", turns=7)
    by_manager = await goldfish.create_event(db, actor=manager, channel_id=10, name="By manager", turns=7)
    assert (by_role.organizer_id, by_manager.organizer_id) == (8, 9)
    for event in (by_role, by_manager):
        await submit(db, event, 5, life_lost=10)
        await submit(db, event, 6, life_lost=12)
    for refused in (member, other_role, Actor(9, OTHER_GUILD, manage_guild=True)):
        with pytest.raises(PermissionDenied):
            await goldfish.reject(db, GUILD, by_manager.id, 5, reason="no", actor=refused)
        with pytest.raises(PermissionDenied):
            await goldfish.close(db, GUILD, by_manager.id, actor=refused)
    assert (await goldfish.writeup(db, GUILD, by_manager.id, 5)).status == "active"
    # A role holder manages an event someone else organizes; Manage Server likewise.
    await goldfish.reject(db, GUILD, by_manager.id, 5, reason="loop done twice", actor=role_holder)
    await goldfish.reject(db, GUILD, by_role.id, 6, reason="no write-up", actor=manager)
    assert (await goldfish.close(db, GUILD, by_manager.id, actor=role_holder)).event.status == "closed"
    assert (await goldfish.close(db, GUILD, by_role.id, actor=manager)).event.status == "closed"


async def test_the_end_is_posted_once_in_the_events_channel_without_a_separate_results_channel(db):
    event = await paper_event(db)
    await submit(db, event, 1, life_lost=20)
    closed = await goldfish.close(db, GUILD, event.id, actor=ADMIN)
    assert (closed.post_channel_id, closed.results_channel_id) == (10, None)
    finals = [q.message for q in await outbox.take_due(db, created_before=utcnow() + timedelta(seconds=1))
              if q.message.kind == goldfish.FINAL]
    assert [(m.channel_id, m.payload["ping"]) for m in finals] == [(10, True)]


def test_every_number_typed_wrong_is_named_at_once():
    assert goldfish.parse_counts({"life_lost": "2,5", "poison": " "}) == {
        "life_lost": 2.5, "cards_milled": 0, "poison": 0, "game_wins": 0}
    with pytest.raises(goldfish.BadReport) as refused:
        goldfish.parse_counts({"life_lost": "l4", "cards_milled": "2.5", "poison": "1"})
    assert str(refused.value) == "Life lost: 'l4' is not a number. Cards milled must be a whole number (got 2.5)."


async def test_a_refused_form_is_kept_as_typed_for_its_player_alone_and_only_the_newest(db):
    event = await paper_event(db)
    typed = goldfish.HeldForm(event.id, False, True, None, {"life_lost": "l4", "writeup": "T1 go"})
    await goldfish.hold_form(db, GUILD, 5, 111, typed)
    assert await goldfish.held_form(db, GUILD, 5, 111) == typed
    for guild, user, key in ((GUILD, 6, 111), (OTHER_GUILD, 5, 111), (GUILD, 5, 112), (GUILD, 5, 2**70)):
        with pytest.raises(NotFound, match="no longer kept"):
            await goldfish.held_form(db, guild, user, key)
    # Not a write-up upload: a forged file key naming it is refused.
    with pytest.raises(NotFound, match="no longer held"):
        await goldfish.submit(db, GUILD, event.id, 5, life_lost=1, cards_milled=0, poison=0, game_wins=0,
                              writeup_key=111)
    upload = 120
    await goldfish.hold_writeup(db, GUILD, 5, upload, "A long write-up")
    newer = goldfish.HeldForm(event.id, True, False, upload, {"writeup": ""})
    await goldfish.hold_form(db, GUILD, 5, 113, newer)
    with pytest.raises(NotFound):
        await goldfish.held_form(db, GUILD, 5, 111)  # only the newest refused form is kept
    assert await goldfish.held_form(db, GUILD, 5, 113) == newer
    await submit_held(db, event, 5, upload, life_lost=3)  # and the upload still waits for its form


async def test_the_saved_report_is_the_counting_one_else_the_newest(db):
    event = await paper_event(db)
    assert await goldfish.saved_report(db, GUILD, event.id, 5) is None
    await submit(db, event, 5, life_lost=10, writeup="first")
    await submit(db, event, 5, life_lost=12, writeup="second")
    assert (await goldfish.saved_report(db, GUILD, event.id, 5)).writeup == "second"
    await goldfish.reject(db, GUILD, event.id, 5, reason="no", actor=ADMIN)
    assert (await goldfish.saved_report(db, GUILD, event.id, 5)).life_lost == 12

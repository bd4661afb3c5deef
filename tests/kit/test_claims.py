"""The kit's claims flow (issue 34): who answers a report, who decides a match, whom a dispute calls,
on both backends (the organizer role is read from the server's settings)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from bot.features.config import service as guild_config
from bot.kit import claims, claims_ui, outbox
from bot.kit.delivery import Outbox
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.tables import Actor
from tests.common import CHANNEL, GUILD, OTHER_GUILD

ORGANIZER, OTHER_ORGANIZER, REPORTER, OPPONENT, OUTSIDER = 100, 300, 1001, 1002, 1003
ROW = SimpleNamespace(organizer_id=ORGANIZER, guild_id=GUILD, channel_id=CHANNEL)


async def test_who_answers_a_report(db):
    async with db.read() as session:
        async def role(actor: Actor, action: str = claims.CONFIRM, players=(REPORTER, OPPONENT)) -> str:
            return await claims.answerer(session, "event", ROW, actor, players=players, reporter=REPORTER,
                                         action=action)

        assert await role(Actor(OPPONENT, GUILD)) == claims.OPPONENT
        assert await role(Actor(OPPONENT, GUILD), claims.DISPUTE) == claims.OPPONENT
        assert await role(Actor(ORGANIZER, GUILD)) == claims.REFEREE  # the table's organizer, not playing
        assert await role(Actor(OTHER_ORGANIZER, GUILD, manage_guild=True)) == claims.REFEREE
        # An organizer who plays is a player there: as the opponent they answer, never as a referee.
        assert await role(Actor(ORGANIZER, GUILD), players=(REPORTER, ORGANIZER)) == claims.OPPONENT
        with pytest.raises(UserError, match="cannot confirm your own report"):
            await role(Actor(REPORTER, GUILD, manage_guild=True))
        with pytest.raises(PermissionDenied, match="Only the reporter's opponent can dispute"):
            await role(Actor(ORGANIZER, GUILD), claims.DISPUTE)
        with pytest.raises(PermissionDenied, match="opponent or an organizer who does not play"):
            await role(Actor(OUTSIDER, GUILD))
        with pytest.raises(PermissionDenied, match="another server"):
            await role(Actor(OPPONENT, OTHER_GUILD))


async def test_who_decides_a_match_and_whom_a_dispute_calls(db):
    async with db.read() as session:
        await claims.require_referee(session, "event", ROW, Actor(ORGANIZER, GUILD), players=(REPORTER, OPPONENT),
                                     match="match 1")
        with pytest.raises(UserError, match="You play in match 1, so you cannot decide it"):
            await claims.require_referee(session, "event", ROW, Actor(ORGANIZER, GUILD),
                                         players=(REPORTER, ORGANIZER), match="match 1")
        with pytest.raises(PermissionDenied):
            await claims.require_referee(session, "event", ROW, Actor(OUTSIDER, GUILD), players=(REPORTER, OPPONENT),
                                         match="match 1")
        assert await claims.dispute_call(session, ROW, (REPORTER, OPPONENT)) == claims.Call(users=(ORGANIZER,))
        nobody = await claims.dispute_call(session, ROW, (REPORTER, ORGANIZER))
        assert nobody == claims.Call() and nobody.text() == claims.REFEREE_WORDS
    await guild_config.update_config(db, GUILD, organizer_role_id=777)
    async with db.read() as session:
        role = await claims.dispute_call(session, ROW, (REPORTER, ORGANIZER))
        assert role == claims.Call(role=777) and role.text().startswith("<@&777>")


def test_the_book_keeps_one_open_claim_per_match_and_remembers_the_ended_a_while():
    """The kit's record of a table's claims (`claims.Book`, in its bookkeeping): numbered, typed
    results, one open per match (a new report replaces it), a dispute and an end remembered for a
    late click, the last `MAX_ANSWERED` only. A claim kept before its messages were the kit's records
    (its `shown` list) still decodes: keys a claim no longer has are ignored."""
    bookkeeping: dict = {}
    book = claims.Book(bookkeeping)
    first = book.add("A", 1, (REPORTER, OPPONENT), REPORTER, {"winner": REPORTER})
    assert (first.number, first.opponent, first.status, first.result_as(dict)) == (1, OPPONENT, claims.REPORTED,
                                                                                     {"winner": REPORTER})
    bookkeeping[claims.BOOK]["open"]["A"]["shown"] = [[CHANNEL, 5]]  # as Turnabout kept its messages before
    assert book.find(first.number) == first
    disputed = book.dispute(book.find(first.number), OPPONENT)
    assert book.of("A") == disputed and disputed.status == claims.DISPUTED and book.ended(1).how == claims.DISPUTE
    second = book.add("A", 1, (REPORTER, OPPONENT), OPPONENT, None)
    assert book.waiting() == [second] and second.number == 2
    ended = book.end(second, "confirm", REPORTER)
    assert ended.status == claims.CONFIRMED and book.waiting() == [] and claims.Book(bookkeeping).ended(2) == ended
    for number in range(3, claims.MAX_ANSWERED + 5):
        book.end(book.add(f"M{number}", 1, (REPORTER, OPPONENT), REPORTER, None), "decide", ORGANIZER)
    assert book.ended(1) is None and book.ended(claims.MAX_ANSWERED + 4).status == claims.DECIDED
    assert len(bookkeeping[claims.BOOK]["ended"]) == claims.MAX_ANSWERED


def test_the_report_step_is_the_kits_a_matching_report_counts_by_itself_a_repeated_one_is_the_same_claim():
    """The report step, one for every format (`Book.report`): a report meeting a waiting claim of its
    match is not a second claim. The reporter's own again is that claim (`differs` when they say
    otherwise now); the opponent's matching report ends it, "agreed"; a contrary one, or any report
    while a dispute waits, is the format's to handle; a disputer who now agrees ends the dispute."""
    book = claims.Book({})
    players = (REPORTER, OPPONENT)

    def report(reporter: int, winner: int | None, round: int = 1) -> claims.Met:
        return book.report("A", round, players, reporter, winner, same=lambda claim: claim.result_as(int | None) == winner)

    new = report(REPORTER, REPORTER)
    assert (new.how, new.claim.number, book.waiting()) == (claims.NEW, 1, [new.claim])
    assert report(REPORTER, REPORTER) == claims.Met(claims.AGAIN, new.claim, differs=False)
    assert report(REPORTER, None) == claims.Met(claims.AGAIN, new.claim, differs=True)
    assert report(OPPONENT, None) == claims.Met(claims.CONTRARY, new.claim, differs=True)
    agreed = report(OPPONENT, REPORTER)
    assert agreed.how == claims.AGREED and agreed.claim.status == claims.CONFIRMED and book.waiting() == []
    assert (agreed.claim.how, agreed.claim.by, book.ended(1).how) == ("agreed", OPPONENT, "agreed")

    disputed = book.dispute(report(REPORTER, REPORTER).claim, OPPONENT)
    assert report(REPORTER, REPORTER).how == report(OPPONENT, None).how == claims.DISPUTED
    ended = report(OPPONENT, REPORTER)  # the disputer reports what the claim says: it counts
    assert ended.how == claims.AGREED and ended.claim.number == disputed.number and book.waiting() == []
    assert report(REPORTER, None, round=2).how == claims.NEW  # a claim of an earlier round does not wait


async def test_the_absent_players_dm_says_who_decided_what_and_how_to_dispute_it():
    told = claims.AbsentConfirmed(GUILD, CHANNEL, OPPONENT, ORGANIZER, "Turnabout #3", "match 1, game 1: <@1001> won",
                                  "If that is wrong, tell an organizer who does not play in your match.")
    sent = await claims_ui.absent_confirmed(told, None)
    assert sent.content == (f"ℹ️ Turnabout #3 (<#{CHANNEL}>): you had not answered, so <@{ORGANIZER}>, an organizer who "
                            "does not play in your match, confirmed it for you: match 1, game 1: <@1001> won. If that "
                            "is wrong, tell an organizer who does not play in your match.")
    message = claims.absent_dm(ROW, absent=OPPONENT, by=ORGANIZER, table="Turnabout #3", result="r", dispute="d")
    assert (message.kind, message.user_id, message.guild_id) == (claims.ABSENT_DM, OPPONENT, GUILD)
    assert claims.AbsentConfirmed.from_payload(message.payload).channel_id == CHANNEL


def test_a_reports_words_are_the_kits_a_format_gives_only_its_matchs_name_and_its_result():
    """Issue 34: one set of words for a report's message in every format."""
    what, result = "Match 2, game 1", "<@1> **won**"
    assert claims_ui.waiting_text(what, 1, result, 2) == (
        "📝 Match 2, game 1: <@1> reports <@1> **won**. <@2> confirms or disputes it, or reports it too (an organizer "
        "who does not play in it can confirm it for them if they are absent).")
    assert "**won** (still waiting). <@2>" in claims_ui.waiting_text(what, 1, result, 2, again=True)
    answered = {
        (claims.CONFIRM, None): "✅ Match 2, game 1: <@1> **won**, confirmed by <@2>.",
        (claims.CONFIRM, 2): "✅ Match 2, game 1: <@1> **won**, confirmed for <@2> (absent) by <@9>.",
        (claims_ui.AGREED, None): "✅ Match 2, game 1: <@1> **won**, confirmed by <@2>'s matching report.",
        (claims_ui.UNOPPOSED, None): "✅ Match 2, game 1: <@1> **won**, reported by <@2>: final, as their opponent has "
                                     "dropped.",
        ("decide", None): "⚖️ Match 2, game 1: <@1> **won**, decided by <@9>.",
        (claims.DISPUTE, None): "⚠️ Match 2, game 1: <@1> reported <@1> **won**; <@2> disputed it. An organizer who "
                                "does not play in it decides it.",
        (claims_ui.VOID, None): "⚖️ Match 2, game 1: voided by <@9>; its players report it again.",
    }
    for (how, absent), text in answered.items():
        by = 9 if absent is not None or how in ("decide", claims_ui.VOID) else 2
        assert claims_ui.answered_text(what, result, how, by, absent=absent, reporter=1) == text
    assert claims_ui.answered_text(what, result, "decide").endswith("decided by an organizer.")
    assert claims_ui.answered_text(what, result, claims.ENDED, reporter=1) == (
        "⏹️ Match 2, game 1: <@1> reported <@1> **won**; it was not confirmed in time and does not count.")
    assert "It was shown again: the newest copy has its buttons." in claims_ui.answered_text(
        what, result, claims.AGAIN_SHOWN, reporter=1)


async def test_the_kit_edits_a_reports_copies_to_what_became_of_it():
    """A copy of a report's message (`claims.ANSWERED`, queued by `claims.close`) is rendered by the kit:
    the same words as the message its button edited, no buttons; a claim forgotten since says so."""

    def render(payload: dict):
        row = outbox.Queued(1, outbox.Message(claims.ANSWERED, payload, channel_id=5), 0, datetime(2026, 1, 2, tzinfo=UTC))
        return Outbox(SimpleNamespace(db=None), claims_ui.RENDERERS)._render(row, True)

    words = claims.Words("Report #3", "**<@1> beat <@2>**", claims.DECIDE, 9, reporter=1)
    edit = await render(json.loads(json.dumps(claims.Closed(5, 98, words).to_payload())))
    assert edit.edit == (5, 98) and edit.view is None and edit.content == claims_ui.said(words)
    assert edit.content == "⚖️ Report #3: **<@1> beat <@2>**, decided by <@9>."
    forgotten = await render(claims.Closed(5, 99).to_payload())
    assert forgotten.edit == (5, 99) and forgotten.content == claims_ui.GONE


def test_a_format_declares_how_it_answers_and_the_kit_binds_its_one_press_handler():
    """Issue 34: no cog wires [Confirm] [Dispute]; the kit's handler answers the formats that declare an
    `Answering`, and a `Pressed` a format still answers in its cog is left to the cog."""

    async def answer(press, for_absent):
        return claims_ui.Answered("answered")

    async def late(press):
        return None

    async def decide(press, decision):
        return claims_ui.Answered("decided")

    answering = claims_ui.Answering("pods", answer, late)
    declared = [answering, claims_ui.answers("vortex")]
    assert claims_ui.targets(declared) == [claims_ui.answers("pods"), claims_ui.answers("vortex")]
    bound = claims_ui.bind(declared, db=None)
    assert set(bound) == {claims_ui.answers("pods")}
    assert bound[claims_ui.answers("pods")].func is claims_ui.on_press
    assert bound[claims_ui.answers("pods")].keywords["answering"] is answering
    # Decide buttons too: a `Deciding` is bound to the kit's one decide handler (no cog wires them).
    deciding = claims_ui.Deciding("pods", decide)
    assert claims_ui.targets([deciding]) == [claims_ui.decides("pods")]
    bound = claims_ui.bind([deciding], db=None)
    assert bound[claims_ui.decides("pods")].func is claims_ui.on_decide
    assert bound[claims_ui.decides("pods")].keywords["deciding"] is deciding


async def test_the_kits_decide_step_refuses_an_organizer_who_plays_and_closes_the_claims_copies(db):
    """`claims.decide`, the one decide step (Battler's decide buttons, `/421 settle`, `/pod decide`): an
    organizer who plays in the match is refused and nothing changes; another organizer decides it (a
    draw, None, is a decision too), the claim ends as theirs, and its copy that still shows buttons is
    edited by the kit to the decision, but the one whose button decided it."""
    from sqlalchemy import select

    from bot.kit import shown
    from bot.store.models import OutboxMessage

    document: dict = {}
    row = SimpleNamespace(id=7, organizer_id=ORGANIZER, guild_id=GUILD, channel_id=CHANNEL)
    loaded = SimpleNamespace(row=row, bookkeeping=document)
    rules = SimpleNamespace(noun="league", kind="test", title=lambda loaded, claim: f"Match {claim.key}",
                            reads=lambda loaded, claim: f"winner {claim.result}")
    claim = claims.Book(document).add("A", 1, (REPORTER, ORGANIZER), REPORTER, REPORTER)
    async with db.write() as session:
        for copy in (55, 56):
            await shown.show(session, shown.Owner("test", 7), f"claim.{claim.number}", 0, CHANNEL, copy)
    async with db.write() as session:
        with pytest.raises(UserError, match="You play in Match A, so you cannot decide it"):
            await claims.decide(session, rules, loaded, claim, Actor(ORGANIZER, GUILD), match="Match A", result=None)
    assert claims.Book(document).find(claim.number) == claim
    async with db.write() as session:
        ended = await claims.decide(session, rules, loaded, claim, Actor(OTHER_ORGANIZER, GUILD, manage_guild=True),
                                    match="Match A", result=None, answered_in=57)
        edits = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == claims.ANSWERED))).scalars()
        closed = [claims.Closed.from_payload(m.payload) for m in edits]
    assert (ended.status, ended.how, ended.by, ended.result) == (claims.DECIDED, claims.DECIDE, OTHER_ORGANIZER, None)
    assert claims.Book(document).find(claim.number) is None and claims.Book(document).ended(claim.number) == ended
    assert [(c.message_id, c.words) for c in closed] == [
        (56, claims.Words("Match A", "winner None", claims.DECIDE, OTHER_ORGANIZER, reporter=REPORTER))]
    with pytest.raises(UserError, match="no longer waiting"):
        async with db.write() as session:
            await claims.decide(session, rules, loaded, None, Actor(OTHER_ORGANIZER, GUILD), match="Match A")

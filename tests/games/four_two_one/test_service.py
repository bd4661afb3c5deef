"""421 service against real SQLite and PostgreSQL databases: set lists per server, the lobby (a
one-set league takes at most 3 players, any league at most 6), begin, building with every card
problem reported, reports confirmed (or rejected) by the opponent, the loser's options, take-apart,
the winner written to the leaderboard, the organizer's end and cancel, and permissions judged in the
league's own server. Every refusal leaves the stored league exactly as it was."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select

from bot.cards.model import Card
from bot.cards.sets import CardSet
from bot.features.config import service as guild_config
from bot.features.sets import service as set_lists
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as league_service
from bot.games.four_two_one.models import FourTwoOneLeague
from bot.kit import claims, outbox
from bot.kit import shown as shown_records
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.store.models import EventResult, OutboxMessage
from tests.common import BOARD, CHANNEL, GUILD, ORG, ORGANIZER, OTHER_GUILD, player

BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")


def card_set(code: str, commons: int = 60, uncommons: int = 10, rares: int = 6, mythics: int = 2) -> CardSet:
    cards = [
        Card(f"{code.upper()} {rarity.title()} {i:02d}", rarity)
        for rarity, count in (("common", commons), ("uncommon", uncommons), ("rare", rares), ("mythic", mythics))
        for i in range(1, count + 1)
    ]
    return CardSet(code=code, name=f"Set {code.upper()}", cards=tuple(cards), basics=BASICS, source="text")


def decklist(state: engine.LeagueState, *, avoid: tuple[str, ...] = ()) -> str:
    """60 available cards as `N Name` lines: up to 4 of each non-basic, then basics."""
    deck: Counter[str] = Counter()
    for name in sorted(state.pool, key=lambda n: (n in BASICS, n)):
        room = engine.DECK_SIZE - sum(deck.values())
        cap = state.pool[name] if name in BASICS else min(state.pool[name], 4)
        if name not in avoid:
            deck[name] += min(cap, room)
    assert sum(deck.values()) == engine.DECK_SIZE
    return "\n".join(f"{count} {name}" for name, count in deck.items() if count)


async def stored(db, league_id: int) -> dict:
    async with db.read() as session:
        row = await session.get(FourTwoOneLeague, league_id)
        return {"state": row.state, "bookkeeping": row.bookkeeping, "status": row.status, "version": row.version}


async def queued(db, kind: str) -> list[OutboxMessage]:
    async with db.read() as session:
        rows = await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(OutboxMessage.id))
        return list(rows.scalars())


async def refused(db, league_id: int, action, error: type[Exception], words: str) -> str:
    before = await stored(db, league_id)
    with pytest.raises(error, match=words) as caught:
        await action()
    assert await stored(db, league_id) == before
    return str(caught.value)


async def begun(db, n: int, sets: list[CardSet] | None = None, **options) -> league_service.LeagueView:
    league = await league_service.create_league(db, ORG, channel_id=CHANNEL, sets=sets or [card_set("aaa"), card_set("bbb")],
                                                seed=5, **options)
    for i in range(n):
        await league_service.tables.join(db, league_service.SPEC, league.id, player(1000 + i))
        await league_service.remember_name(db, league.id, 1000 + i, f"Player *{i}*")
    await league_service.tables.begin(db, league_service.SPEC, league.id, ORG)
    return await league_service.get_league(db, league.id)


async def build_all(db, league: league_service.LeagueView) -> league_service.LeagueView:
    while league.state.phase == "building":
        seat = league.state.step.seat
        league = (await league_service.build(db, league.id, player(league.user_of(seat)), decklist(league.state))).league
    return league


def copies_conserved(state: engine.LeagueState) -> bool:
    held = Counter(state.pool)
    for deck in state.decks:
        held.update(deck.cards)
    return +held == +Counter(engine.total_copies(state))


# --- set lists -------------------------------------------------------------------------------------


async def test_set_lists_are_kept_per_server_by_a_key_in_any_case(db):
    with pytest.raises(PermissionDenied):
        await set_lists.add_set(db, player(5), "ala", card_set("x"), source_ref=None)
    summary = await set_lists.add_set(db, ORG, "ALA", card_set("x"), source_ref="ala.txt")
    assert (summary.key, summary.name, summary.card_count) == ("ala", "Set X", 78)
    with pytest.raises(Conflict, match="already has a set called `ala`"):
        await set_lists.ensure_key_free(db, ORG, "Ala")
    with pytest.raises(Conflict):
        await set_lists.add_set(db, ORG, "ala", card_set("y"), source_ref=None)
    with pytest.raises(UserError, match="can't name a set"):
        await set_lists.ensure_key_free(db, ORG, "no spaces please")
    [loaded] = await set_lists.get_sets(db, GUILD, ["AlA"])
    assert loaded.code == "ala" and len(loaded.cards) == 78 and loaded.basics == BASICS
    assert await set_lists.missing_keys(db, GUILD, ["ala", "con"]) == ["con"]
    with pytest.raises(NotFound, match="no set called `con`"):
        await set_lists.get_sets(db, GUILD, ["ala", "con"])
    assert await set_lists.list_sets(db, OTHER_GUILD) == []  # another server sees none of it
    with pytest.raises(NotFound):  # an organizer elsewhere only reaches their own server's sets
        await set_lists.remove_set(db, Actor(ORGANIZER, OTHER_GUILD, manage_guild=True), "ala")
    with pytest.raises(PermissionDenied):
        await set_lists.remove_set(db, player(5), "ala")
    assert [s.key for s in await set_lists.set_keys(db, GUILD, "set x")] == ["ala"]
    await set_lists.remove_set(db, ORG, "ALA")
    assert await set_lists.list_sets(db, GUILD) == []


def test_unknown_keys_must_be_scryfall_codes():
    set_lists.require_importable(["ala", "m21"])
    with pytest.raises(NotFound, match="not a Scryfall set code"):
        set_lists.require_importable(["ala", "my-set"])


def test_split_keys():
    assert set_lists.split_keys("ala, con;arb  ") == ["ala", "con", "arb"]
    with pytest.raises(UserError, match="named twice"):
        set_lists.split_keys("ala ALA")
    with pytest.raises(UserError, match="at least one set"):
        set_lists.split_keys(" , ")
    with pytest.raises(UserError, match="at most 12"):
        set_lists.split_keys(" ".join(f"s{i}" for i in range(13)))


# --- the lobby -------------------------------------------------------------------------------------


async def test_one_set_leagues_take_three_players_and_others_six(db):
    one = await league_service.create_league(db, ORG, channel_id=CHANNEL, sets=[card_set("aaa")])
    assert one.max_seats == 3 and one.target_score == 21 and one.sets[0].key == "aaa"
    for i in range(3):
        await league_service.tables.join(db, league_service.SPEC, one.id, player(1000 + i))
    with pytest.raises(Conflict, match="with only one set, 421 is for two or three players"):
        await league_service.tables.join(db, league_service.SPEC, one.id, player(1003))
    two = await league_service.create_league(db, ORG, channel_id=CHANNEL + 1, sets=[card_set("aaa"), card_set("bbb")])
    for i in range(6):
        await league_service.tables.join(db, league_service.SPEC, two.id, player(1000 + i))
    with pytest.raises(Conflict, match="at most 6 players"):
        await league_service.tables.join(db, league_service.SPEC, two.id, player(1006))
    with pytest.raises(PermissionDenied):
        await league_service.create_league(db, player(5), channel_id=CHANNEL + 2, sets=[card_set("aaa")])
    with pytest.raises(Conflict, match="already running in this channel"):
        await league_service.check_can_start(db, ORG, channel_id=CHANNEL)
    with pytest.raises(UserError, match="target score"):
        await league_service.create_league(db, ORG, channel_id=CHANNEL + 2, sets=[card_set("aaa")], target_score=0)
    with pytest.raises(UserError, match="listed twice"):
        await league_service.create_league(db, ORG, channel_id=CHANNEL + 2, sets=[card_set("aaa"), card_set("aaa")])


async def test_begin_seats_the_players_and_the_first_builds(db):
    league = await begun(db, 3)
    state = league.state
    assert league.status == "running" and [p.name for p in state.players] != []
    assert sorted(p.name for p in state.players) == ["Player *0*", "Player *1*", "Player *2*"]
    [announce] = await queued(db, league_service.ANNOUNCE)
    news = league_service.Announcement.from_payload(announce.payload)
    assert news.events[0] == engine.ActionPending("build", 0, None, 1, 1)
    assert news.ping == (league.user_of(0),)  # only the player who must act


# --- decks ---------------------------------------------------------------------------------------------


async def test_building_reports_every_problem_and_changes_nothing(db):
    league = await begun(db, 2)
    first, second = league.user_of(0), league.user_of(1)
    await refused(db, league.id, lambda: league_service.build(db, league.id, player(second), decklist(league.state)),
                  UserError, "turn to build a new deck")
    await refused(db, league.id, lambda: league_service.build(db, league.id, player(999), decklist(league.state)),
                  PermissionDenied, "not a player")
    short = "4 AAA Common 01\n55 Island\n"
    long = "4 AAA Common 01\n57 Island\n"
    message = await refused(db, league.id, lambda: league_service.build(db, league.id, player(first), short),
                            league_service.DeckProblems, "59 cards")
    assert "exactly 60" in message
    await refused(db, league.id, lambda: league_service.build(db, league.id, player(first), long),
                  league_service.DeckProblems, "61 cards")
    typo = "4 AAA Comon 01\n4 Lightning Bolt\n52 Island\n"
    message = await refused(db, league.id, lambda: league_service.build(db, league.id, player(first), typo),
                            league_service.DeckProblems, "not a card of this league")
    assert "AAA Comon 01 is not a card of this league. Did you mean AAA Common 01" in message
    assert "Lightning Bolt is not a card of this league" in message
    later = "1 BBB Rare 01\n59 Island\n"
    await refused(db, league.id, lambda: league_service.build(db, league.id, player(first), later),
                  league_service.DeckProblems, "not in the pool yet")
    await refused(db, league.id, lambda: league_service.build(db, league.id, player(first), b"\x00\x01binary"),
                  UserError, "can't read that decklist")
    built = await league_service.build(db, league.id, player(first), "4 AAA Common 01\n1 AAA Rare 01\n48 Island\n7 Swamp\n")
    assert engine.DeckBuilt(0, 1, 1) in built.events
    taken = "4 AAA Common 01\n56 Swamp\n"
    message = await refused(db, league.id, lambda: league_service.build(db, league.id, player(second), taken),
                            league_service.DeckProblems, "none left in the pool")
    assert "4 in deck #1 (Player \\*" in message  # which deck holds them, and whose
    assert copies_conserved((await league_service.get_league(db, league.id)).state)


async def test_a_long_list_of_problems_fits_one_message(db):
    league = await begun(db, 2)
    bad = "\n".join(f"1 Unknown card {'x' * 150} {i}" for i in range(60))
    message = await refused(db, league.id, lambda: league_service.build(db, league.id, player(league.user_of(0)), bad),
                            league_service.DeckProblems, "Unknown card")
    assert len(message) <= league_service.MAX_ERROR_CHARS and "more problems" in message


# --- matches, options, take-apart, the winner ---------------------------------------------------------------


async def test_a_report_waits_for_the_opponent_and_the_loser_chooses(db):
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    await refused(db, league.id, lambda: league_service.report(db, league.id, player(a), result="maybe"),
                  UserError, "Report one of")
    pending = await league_service.report(db, league.id, player(a), result="won")
    claim = pending.claim
    assert claim is not None and (claim.reporter, claim.opponent, claim.winner) == (a, b, a)
    assert pending.league.state.matches[0].result is None  # nothing counts yet
    await refused(db, league.id, lambda: league_service.confirm(db, league.id, claim.number, player(a)),
                  UserError, "your opponent must")
    await refused(db, league.id, lambda: league_service.confirm(db, league.id, claim.number, player(5)),
                  PermissionDenied, "opponent or an organizer")
    await refused(db, league.id, lambda: league_service.confirm(db, league.id, claim.number, Actor(b, OTHER_GUILD)),
                  PermissionDenied, "another server")
    await league_service.dispute(db, league.id, claim.number, player(b))
    await refused(db, league.id, lambda: league_service.confirm(db, league.id, claim.number, player(b)),
                  Conflict, "no longer waiting")
    assert (await league_service.get_league(db, league.id)).disputes == ("A",)
    again = await league_service.report(db, league.id, player(b), result="draw")  # replaces the disputed report
    assert again.claim is not None and not again.again and again.claim.number != claim.number
    await league_service.dispute(db, league.id, again.claim.number, player(a))
    # The opponent's report matching the disputed one counts: they agree after all.
    confirmed = await league_service.report(db, league.id, player(a), result="draw")
    assert confirmed.claim is None and engine.MatchReported("A", match.a, match.b, None) in confirmed.events
    state = confirmed.league.state
    assert [p.score for p in state.players] == [0, 0] and state.step is None
    assert state.round == 2  # after a draw nobody chooses: the next round
    match = state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    await league_service.report(db, league.id, player(a), result="won")
    confirmed = await league_service.report(db, league.id, player(b), result="lost")  # the same result: confirms
    assert confirmed.claim is None
    state = confirmed.league.state
    assert [p.score for p in sorted(state.players, key=lambda p: p.user_id != a)] == [2, -1]
    assert state.step.kind == "choose"
    await refused(db, league.id, lambda: league_service.choose(db, league.id, player(a), "B"),
                  UserError, "who lost Match A, chooses now")
    await refused(db, league.id, lambda: league_service.choose(db, league.id, player(b), "C", 1),
                  UserError, "was used in Match A")
    chosen = await league_service.choose(db, league.id, player(b), "D")
    assert chosen.league.state.step.kind == "build" and chosen.league.state.step.seat == match.a
    news = [league_service.Announcement.from_payload(m.payload) for m in await queued(db, league_service.ANNOUNCE)]
    assert news[-1].ping == (a,)  # the winner must build


async def test_a_report_repeated_while_it_waits_is_shown_again_with_its_buttons(db):
    """Its first message may be lost (issue 23): the reporter's same report, or any report of the
    opponent's, shows the waiting report again, and changes nothing."""
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    pending = await league_service.report(db, league.id, player(a), result="won")
    before = await stored(db, league.id)
    for user, result in ((a, "won"), (b, "draw"), (b, "won")):
        shown = await league_service.report(db, league.id, player(user), result=result)
        assert shown.again and shown.claim == pending.claim and not shown.events
    assert await stored(db, league.id) == before
    message = await refused(db, league.id, lambda: league_service.report(db, league.id, player(a), result="draw"),
                            Conflict, "can't be changed")
    assert f"that <@{a}> won" in message and "Report the same result to show it again" in message
    confirmed = await league_service.confirm(db, league.id, pending.claim.number, player(b))
    assert engine.MatchReported("A", match.a, match.b, match.a) in confirmed.events


async def test_an_organizer_who_plays_never_confirms_their_own_report(db):
    """Issue 22: nobody confirms their own report, organizer or not; an organizer who does not play
    in the match may confirm it, and the announcement names them."""
    league = await league_service.create_league(db, ORG, channel_id=CHANNEL, sets=[card_set("aaa"), card_set("bbb")],
                                                seed=5)
    for actor in (ORG, player(1001)):
        await league_service.tables.join(db, league_service.SPEC, league.id, actor)
    await league_service.tables.begin(db, league_service.SPEC, league.id, ORG)
    league = await build_all(db, await league_service.get_league(db, league.id))
    pending = await league_service.report(db, league.id, ORG, result="won")
    number = pending.claim.number
    for answer, words in ((league_service.confirm, "cannot confirm your own report"),
                          (league_service.dispute, "cannot dispute your own report")):
        await refused(db, league.id, lambda a=answer: a(db, league.id, number, ORG), UserError, words)
    other_organizer = Actor(300, GUILD, manage_guild=True)
    # Issue 34 item 3: for an organizer who does not play in it, confirming is for the absent opponent, asked first.
    await refused(db, league.id, lambda: league_service.confirm(db, league.id, number, other_organizer),
                  claims.AbsentConfirmNeeded, "for <@1001> \\(absent\\) asks first")
    confirmed = await league_service.confirm(db, league.id, number, other_organizer, for_absent=True)
    assert confirmed.league.state.matches[0].result is not None
    [*_, announced] = await queued(db, league_service.ANNOUNCE)
    news = league_service.Announcement.from_payload(announced.payload)
    reported = next(e for e in news.events if isinstance(e, engine.MatchReported))
    assert news.decided == league_service.Decided(300, "confirmed", 1001) and reported.winner == engine.seat_of(
        confirmed.league.state, ORGANIZER)
    [dm] = await queued(db, claims.ABSENT_DM)
    assert dm.user_id == 1001 and dm.payload["by"] == 300
    assert dm.payload["result"] == f"round 1, Match A: <@{ORGANIZER}> won, as <@{ORGANIZER}> reported it"


async def test_a_rejected_report_is_a_dispute_an_organizer_who_does_not_play_settles(db):
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    pending = await league_service.report(db, league.id, player(a), result="won")
    no_dispute = lambda: league_service.settle(db, league.id, ORG, match="A", winner_id=b)  # noqa: E731
    await refused(db, league.id, no_dispute, UserError, "no dispute to settle")  # a report waits: not a dispute
    await league_service.dispute(db, league.id, pending.claim.number, player(b))
    await refused(db, league.id, lambda: league_service.settle(db, league.id, player(5), match="A", winner_id=b),
                  PermissionDenied, "organizer")
    await refused(db, league.id, lambda: league_service.settle(db, league.id, ORG, match="B", winner_id=b),
                  UserError, "no Match B in round 1")
    await refused(db, league.id, lambda: league_service.settle(db, league.id, ORG, match="A", winner_id=5),
                  UserError, "not playing in Match A")
    playing_organizer = Actor(a, GUILD, manage_guild=True)
    await refused(db, league.id, lambda: league_service.settle(db, league.id, playing_organizer, match="A", winner_id=a),
                  UserError, "You play in Match A, so you cannot settle it")
    await refused(db, league.id, lambda: league_service.settle(db, league.id, Actor(ORGANIZER, OTHER_GUILD,
                  manage_guild=True), match="A", winner_id=b), PermissionDenied, "another server")
    settled = await league_service.settle(db, league.id, ORG, match="a", winner_id=b)
    state = settled.league.state
    assert engine.MatchReported("A", match.a, match.b, match.b) in settled.events and settled.league.disputes == ()
    assert (state.players[match.b].score, state.players[match.a].score) == (2, -1)
    assert state.step.kind == "choose" and state.step.seat == match.a
    [*_, announced] = await queued(db, league_service.ANNOUNCE)
    assert announced.payload["decided"] == {"by": ORGANIZER, "how": "settled", "absent": None}
    # Settled through the kit's decide step: the claim ended as the organizer's decision, in the kit's words.
    ended = await claims.late_words(db, league_service.GAMES, league_service.RULES, league.id, pending.claim.number, GUILD)
    assert (ended.how, ended.by, ended.result) == (claims.DECIDE, ORGANIZER, f"**<@{b}> won**")
    await refused(db, league.id, no_dispute, UserError, "no dispute to settle")  # already decided


async def test_a_disputed_match_may_be_reported_again_and_settled_as_a_draw(db):
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    pending = await league_service.report(db, league.id, player(a), result="won")
    await league_service.dispute(db, league.id, pending.claim.number, player(b))
    again = await league_service.report(db, league.id, player(a), result="won")  # a new report replaces the dispute
    assert again.claim.number != pending.claim.number and not again.again
    await league_service.dispute(db, league.id, again.claim.number, player(b))
    settled = await league_service.settle(db, league.id, ORG, match="A", winner_id=None)
    assert engine.MatchReported("A", match.a, match.b, None) in settled.events
    ended = await claims.late_words(db, league_service.GAMES, league_service.RULES, league.id, again.claim.number, GUILD)
    assert (ended.how, ended.result) == (claims.DECIDE, "a **draw**")  # the decision, not the report


async def test_the_weatherlight_saga_schedule_is_chosen_at_the_start(db):
    """FORMATS.md §5 Variants: each block of three sets after the first joins only once a player has
    reached the block's points; the organizer chooses it, and the points, when the league starts."""
    sets = [card_set(code) for code in ("mir", "vis", "wth", "tmp")]
    create = league_service.create_league
    with pytest.raises(UserError, match="above the target score .21.: it could never join"):
        await create(db, ORG, channel_id=CHANNEL, sets=sets, schedule="saga", saga_points=30)
    with pytest.raises(UserError, match="when new sets join"):
        await create(db, ORG, channel_id=CHANNEL, sets=sets, schedule="weekly")
    with pytest.raises(UserError, match="points per block"):
        await create(db, ORG, channel_id=CHANNEL, sets=sets, schedule="saga", saga_points=0)
    league = await begun(db, 2, sets=sets, target_score=50, schedule="saga", saga_points=4)
    assert (league.schedule.kind, league.schedule.points) == ("saga", 4)
    settings = league.state.settings
    assert settings.additions == [engine.SetAddition(6, 10), engine.SetAddition(11, 10), engine.SetAddition(11, 15, 4)]
    assert settings.first_deck_limit == 10 and settings.target_score == 50
    await league_service.tables.cancel(db, league_service.SPEC, league.id, ORG)
    standard = await begun(db, 2, sets=sets)
    assert standard.schedule.kind == "decks" and standard.state.settings.additions == engine.default_schedule(4)[1]


async def test_take_apart_set_addition_and_the_winner_on_the_leaderboard(db):
    await guild_config.update_config(db, GUILD, leaderboard_channel_id=BOARD)
    league = await build_all(db, await begun(db, 2, sets=[card_set("aaa"), card_set("bbb"), card_set("ccc")]))
    state = league.state
    winner_seat = state.matches[0].a
    w, loser = league.user_of(winner_seat), league.user_of(1 - winner_seat)
    for _ in range(11):  # the loser rebuilds each time: decks 3 … 12, taking apart at 11 and 12
        pending = await league_service.report(db, league.id, player(w), result="won")
        result = await league_service.confirm(db, league.id, pending.claim.number, player(loser))
        if result.league.status == "finished":
            break
        result = await league_service.choose(db, league.id, player(loser), "B")
        if result.league.state.step.kind == "take_apart":
            unused = [d.id for d in engine.unused_decks(result.league.state)]
            await refused(db, league.id, lambda u=unused: league_service.take_apart(db, league.id, player(loser), u[:1]),
                          UserError, "two different decks")
            result = await league_service.take_apart(db, league.id, player(loser), unused[:2])
        await league_service.build(db, league.id, player(loser), decklist(result.league.state))
        assert copies_conserved((await league_service.get_league(db, league.id)).state)
    final = await league_service.get_league(db, league.id)
    assert final.status == "finished" and final.state.winner == winner_seat
    added = [e for m in await queued(db, league_service.ANNOUNCE)
             for e in league_service.Announcement.from_payload(m.payload).events if isinstance(e, engine.SetAdded)]
    assert [(e.code, e.deck_number) for e in added] == [("bbb", 6), ("ccc", 11)]
    assert len(final.state.decks) == 10 and final.state.next_deck_id == 13
    async with db.read() as session:
        rows = {r.user_id: r for r in (await session.execute(select(EventResult))).scalars()}
    assert rows[w].placement == 1 and rows[w].score == 22 and rows[w].format == "421"
    assert rows[loser].placement == 2 and rows[loser].points == 1
    # The final standings in the league's channel, its winner pinged, and a quiet copy in the results channel;
    # the end is not also a line of the channel's news.
    here, board = await queued(db, league_service.FINAL)
    assert (here.channel_id, board.channel_id) == (CHANNEL, BOARD)
    assert league_service.Announcement.from_payload(here.payload).ping == (w,)
    assert league_service.Announcement.from_payload(board.payload).ping == ()
    assert not any(isinstance(e, engine.LeagueWon) for m in await queued(db, league_service.ANNOUNCE)
                   for e in league_service.Announcement.from_payload(m.payload).events)
    with pytest.raises(UserError, match="over"):
        await league_service.report(db, league.id, player(w), result="won")


async def test_the_organizer_ends_or_cancels(db):
    league = await build_all(db, await begun(db, 2))
    a = league.user_of(0)
    await refused(db, league.id, lambda: league_service.end(db, league.id, player(a)), PermissionDenied, "organizer")
    ended = await league_service.end(db, league.id, ORG)
    assert ended.league.status == "finished" and engine.LeagueEnded(None) in ended.events
    async with db.read() as session:
        assert len((await session.execute(select(EventResult))).scalars().all()) == 2
    other = await league_service.create_league(db, ORG, channel_id=CHANNEL, sets=[card_set("aaa")])
    with pytest.raises(UserError, match="cancel it instead"):
        await league_service.end(db, other.id, ORG)
    cancelled = await league_service.tables.cancel(db, league_service.SPEC, other.id, ORG)
    assert cancelled.status == "cancelled"
    assert await queued(db, league_service.CANCELLED) == []  # a lobby cancelled: the channel saw the lobby


async def test_a_running_league_cancelled_drops_its_waiting_reports_and_tells_the_channel(db):
    league = await build_all(db, await begun(db, 2))
    await league_service.report(db, league.id, player(league.user_of(league.state.matches[0].a)), result="won")
    assert (await stored(db, league.id))["bookkeeping"]["claim_book"]["open"]["A"]["number"] == 1
    await league_service.tables.cancel(db, league_service.SPEC, league.id, ORG)
    assert (await stored(db, league.id))["bookkeeping"]["claim_book"]["open"] == {}
    [told] = await queued(db, league_service.CANCELLED)
    assert told.payload == {"table_id": league.id} and told.channel_id == CHANNEL


# --- one voice (issue 25) -------------------------------------------------------------------------------


def arena_export(main: str, side: str) -> str:
    """A deck as Arena (and Draftmancer, Moxfield) exports it: About, Deck and Sideboard, set codes."""
    lines = [f"{line} (AAA) 12" for line in main.splitlines()]
    return "About\nName My *deck*\n\nDeck\n" + "\n".join(lines) + "\n\nSideboard\n" + side + "\n"


async def test_an_arena_export_builds_its_deck_and_its_sideboard_is_ignored(db):
    league = await begun(db, 2)
    first, second = league.user_of(0), league.user_of(1)
    main = decklist(league.state)
    built = await league_service.build(db, league.id, player(first), arena_export(main, "2 AAA Common 10\n1 AAA Rare 02"))
    assert built.ignored == 3
    deck = built.league.state.decks[0].cards
    assert sum(deck.values()) == 60 and "\n".join(f"{c} {n}" for n, c in deck.items() if c) == main
    # MTGO's and Draftmancer's text: the sideboard after a blank line, no header.
    state = built.league.state
    mtgo = decklist(state) + "\n\n4 AAA Common 20\n4 AAA Common 21\n"
    built = await league_service.build(db, league.id, player(second), mtgo)
    assert built.ignored == 8 and sum(built.league.state.decks[1].cards.values()) == 60
    # A list with a blank line and no sideboard is one list; SB: lines are a sideboard too.
    assert league_service.read_decklist("4 AAA Common 01\n\n56 Island\n") == league_service.Decklist(
        ["AAA Common 01"] * 4 + ["Island"] * 56)
    assert league_service.read_decklist("60 Island\nSB: 2 Swamp\n").ignored == 2
    with pytest.raises(UserError, match="no cards outside its sideboard"):
        league_service.read_decklist("Sideboard\n4 AAA Common 01\n")


async def test_a_refused_list_with_a_sideboard_says_the_sideboard_was_not_read(db):
    league = await begun(db, 2)
    short = arena_export("4 AAA Common 01\n50 Island", "15 Swamp")
    message = await refused(db, league.id, lambda: league_service.build(db, league.id, player(league.user_of(0)), short),
                            league_service.DeckProblems, "54 cards")
    assert message.endswith("(The sideboard, 15 cards, was not read: a 421 deck is its 60 cards.)")


async def test_altering_reads_an_arena_export_without_its_sideboard(db):
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    await league_service.report(db, league.id, player(a), result="won")
    chosen = await league_service.report(db, league.id, player(b), result="lost")
    await league_service.choose(db, league.id, player(b), "A")
    deck = chosen.league.state.deck(chosen.league.state.players[match.b].deck).cards
    main = "\n".join(f"{count} {name}" for name, count in deck.items())
    altered = await league_service.alter(db, league.id, player(b), arena_export(main, "1 AAA Rare 05"))
    assert altered.ignored == 1 and engine.DeckAltered(match.b, 2, (), ()) in altered.events


async def claim_edits(db) -> list[tuple[int, str | None, int | None]]:
    """The kit's edits of report copies: (message, how the report ended, by whom)."""
    closed = [claims.Closed.from_payload(m.payload) for m in await queued(db, claims.ANSWERED)]
    return [(c.message_id, c.words.how if c.words else None, c.words.by if c.words else None) for c in closed]


async def test_a_reports_messages_lose_their_buttons_once_it_no_longer_waits(db):
    """Every message that showed a waiting report with Confirm / Dispute is edited by the kit once the
    report no longer waits, whichever way: confirmed, disputed, both players reporting it, the league
    over; one copy has live buttons (an older one says it was shown again); a message shown after it
    stopped waiting is closed at once (issue 25)."""
    league = await build_all(db, await begun(db, 2))
    match = league.state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    pending = await league_service.report(db, league.id, player(a), result="won")
    again = await league_service.report(db, league.id, player(a), result="won")  # shown once more
    await league_service.claim_shown(db, pending.claim, channel_id=CHANNEL, message_id=501)
    assert await claim_edits(db) == []
    await league_service.claim_shown(db, again.claim, channel_id=CHANNEL, message_id=502)
    assert await claim_edits(db) == [(501, claims.AGAIN_SHOWN, None)]
    await league_service.report(db, league.id, player(b), result="lost")  # the opponent agrees: it counts
    assert (await claim_edits(db))[1:] == [(502, "agreed", b)]
    # A message whose id comes after the report stopped waiting (its buttons were that fast) is closed
    # at once, saying what became of the report, as the other copies do.
    await league_service.claim_shown(db, pending.claim, channel_id=CHANNEL, message_id=503)
    assert (await claim_edits(db))[2:] == [(503, "agreed", b)]
    await league_service.choose(db, league.id, player(b), "B")
    state = (await league_service.get_league(db, league.id)).state
    await league_service.build(db, league.id, player(b), decklist(state))
    state = (await league_service.get_league(db, league.id)).state
    match = state.matches[0]
    a, b = league.user_of(match.a), league.user_of(match.b)
    rejected = await league_service.report(db, league.id, player(a), result="won")
    await league_service.claim_shown(db, rejected.claim, channel_id=CHANNEL, message_id=504)
    await league_service.dispute(db, league.id, rejected.claim.number, player(b))
    assert (await claim_edits(db))[3:] == [(504, "dispute", b)]
    confirmed = await league_service.report(db, league.id, player(b), result="won")
    await league_service.claim_shown(db, confirmed.claim, channel_id=CHANNEL, message_id=505)
    await league_service.claim_shown(db, confirmed.claim, channel_id=CHANNEL, message_id=509)  # shown again
    await league_service.confirm(db, league.id, confirmed.claim.number, player(a), answered_in=509)
    assert (await claim_edits(db))[4:] == [(505, claims.AGAIN_SHOWN, None)]  # 509 is edited by the click
    await league_service.claim_shown(db, rejected.claim, channel_id=CHANNEL, message_id=507)  # late ids: as it ended
    await league_service.claim_shown(db, confirmed.claim, channel_id=CHANNEL, message_id=508)
    assert (await claim_edits(db))[5:] == [(507, "dispute", b), (508, "confirm", a)]
    await league_service.choose(db, league.id, player(a), "A")
    state = (await league_service.get_league(db, league.id)).state
    kept = state.deck(state.players[match.a if league.user_of(match.a) == a else match.b].deck).cards
    await league_service.alter(db, league.id, player(a), "\n".join(f"{c} {n}" for n, c in kept.items()))
    waiting = await league_service.report(db, league.id, player(a), result="won")  # next round's, left waiting
    await league_service.claim_shown(db, waiting.claim, channel_id=CHANNEL, message_id=506)
    await league_service.end(db, league.id, ORG)
    assert (await claim_edits(db))[7:] == [(506, claims.ENDED, None)]


async def test_a_cancelled_league_closes_its_waiting_reports_messages(db):
    league = await build_all(db, await begun(db, 2))
    pending = await league_service.report(db, league.id, player(league.user_of(league.state.matches[0].a)), result="won")
    await league_service.claim_shown(db, pending.claim, channel_id=CHANNEL, message_id=601)
    await league_service.tables.cancel(db, league_service.SPEC, league.id, ORG)
    assert await claim_edits(db) == [(601, claims.ENDED, None)]


async def posted(db, row: OutboxMessage, message_id: int) -> None:
    """The outbox sent `row` as `message_id` (its kind's hooks run as they do after a real send)."""
    queued_row = outbox.Queued(row.id, outbox.Message(row.kind, row.payload, channel_id=row.channel_id), 0, row.created_at)
    await outbox.settle(db, [outbox.Outcome(queued_row, channel_id=row.channel_id, message_id=message_id)])


async def test_the_take_apart_menu_leaves_its_announcement_once_the_decks_are_taken_apart(db):
    league = await build_all(db, await begun(db, 2, sets=[card_set("aaa")]))
    w = league.user_of(league.state.matches[0].a)
    loser = league.user_of(league.state.matches[0].b)
    while True:  # the loser rebuilds until a sixth deck would be one too many
        await league_service.report(db, league.id, player(w), result="won")
        await league_service.report(db, league.id, player(loser), result="lost")
        result = await league_service.choose(db, league.id, player(loser), "B")
        if result.league.state.step.kind == "take_apart":
            break
        await league_service.build(db, league.id, player(loser), decklist(result.league.state))
    *_, menu = await queued(db, league_service.ANNOUNCE)
    assert len(league_service.Announcement.from_payload(menu.payload).take_apart) >= 2
    def closed(rows) -> list[int]:
        return [league_service.ShownMenu.from_payload(m.payload).message_id for m in rows]

    for row in await queued(db, league_service.ANNOUNCE):
        await posted(db, row, 700 + row.id)  # every announcement sent: the calls to choose are over already
    early = closed(await queued(db, league_service.MENU_DONE))
    assert 700 + menu.id not in early
    owner = shown_records.Owner(league_service.KIND, league.id)
    async with db.read() as session:  # the menu's and the round's post are remembered
        records = {r.key: r.message_id for r in await shown_records.showing(session, owner)}
    assert records.pop(league_service.MENU) == 700 + menu.id and set(records) == {league_service.ROUND}
    unused = [d.id for d in engine.unused_decks(result.league.state)]
    await league_service.take_apart(db, league.id, player(loser), unused[:2])
    [done] = (await queued(db, league_service.MENU_DONE))[len(early):]
    shown = league_service.ShownMenu.from_payload(done.payload)
    assert (shown.channel_id, shown.message_id) == (CHANNEL, 700 + menu.id) and done.channel_id == CHANNEL
    assert shown.news == league_service.Announcement.from_payload(menu.payload)
    async with db.read() as session:  # forgotten (the kit's record of what shows the menu); the round's stays
        assert [r.key for r in await shown_records.showing(session, owner)] == [league_service.ROUND]
    await posted(db, menu, 800)  # the menu's announcement sent (again) after the take-apart: closed at once
    assert closed(await queued(db, league_service.MENU_DONE))[len(early):] == [700 + menu.id, 800]


async def test_only_who_must_act_next_is_pinged(db):
    """The player due to build, the loser who must choose, a new round's players; nobody else: not
    the one who just acted, not the winner of a match whose loser chooses, not the one sitting out."""
    league = await build_all(db, await begun(db, 3))
    state = league.state
    match = state.matches[0]
    a, b, bye = league.user_of(match.a), league.user_of(match.b), league.user_of(state.bye)
    *_, round_one = [league_service.Announcement.from_payload(m.payload) for m in await queued(db, league_service.ANNOUNCE)]
    assert any(isinstance(e, engine.RoundStarted) for e in round_one.events) and set(round_one.ping) == {a, b, bye}  # the bye is told
    await league_service.report(db, league.id, player(a), result="won")
    await league_service.report(db, league.id, player(b), result="lost")
    *_, result = [league_service.Announcement.from_payload(m.payload) for m in await queued(db, league_service.ANNOUNCE)]
    assert result.ping == (b,)  # the loser, who chooses
    await league_service.choose(db, league.id, player(b), "D")
    *_, chosen = [league_service.Announcement.from_payload(m.payload) for m in await queued(db, league_service.ANNOUNCE)]
    assert chosen.ping == (a,)  # the winner, who builds
    state = (await league_service.get_league(db, league.id)).state
    await league_service.build(db, league.id, player(a), decklist(state))
    *_, next_round = [league_service.Announcement.from_payload(m.payload) for m in await queued(db, league_service.ANNOUNCE)]
    paired = next(e for e in next_round.events if isinstance(e, engine.RoundStarted))
    playing = {league.user_of(s) for _, x, y in paired.matches for s in (x, y)}
    assert set(next_round.ping) == playing | {league.user_of(paired.bye)}  # who plays, and who sits out
    assert bye in playing  # the one who sat out plays now


async def test_a_rounds_buttons_and_a_call_to_choose_leave_their_posts_once_done(db):
    """Issue 35: nothing live-looking does nothing. The round's post keeps its report and choose
    buttons while the round is played; the call to choose loses its button once the loser chose; a
    cancelled league's round post loses them too."""
    league = await build_all(db, await begun(db, 2))
    *_, round_one = await queued(db, league_service.ANNOUNCE)
    assert league_service.live_parts(league_service.Announcement.from_payload(round_one.payload)) == [
        (league_service.ROUND, 1)]
    await posted(db, round_one, 901)
    winner, loser = (league.user_of(seat) for seat in league.state.matches[0].seats())
    await league_service.report(db, league.id, player(winner), result="won")
    await league_service.report(db, league.id, player(loser), result="lost")
    *_, call = await queued(db, league_service.ANNOUNCE)
    assert (league_service.CHOOSING, 0) in league_service.live_parts(league_service.Announcement.from_payload(call.payload))
    await posted(db, call, 902)
    assert await queued(db, league_service.MENU_DONE) == []  # both still to be acted on
    await league_service.choose(db, league.id, player(loser), "D")
    [chosen] = await queued(db, league_service.MENU_DONE)
    assert league_service.ShownMenu.from_payload(chosen.payload).message_id == 902
    await league_service.tables.cancel(db, league_service.SPEC, league.id, ORG)
    assert [league_service.ShownMenu.from_payload(m.payload).message_id
            for m in await queued(db, league_service.MENU_DONE)] == [902, 901]

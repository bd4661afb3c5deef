"""A draft pod's matches against SQLite and PostgreSQL: from the draft's hook to the leaderboard."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bot.features.leaderboard import service as leaderboard
from bot.games.draft import service as drafts
from bot.games.pod_matches import rules
from bot.games.pod_matches import service as pods
from bot.kit import claims
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.kit.tables import Actor
from tests.common import CHANNEL, GUILD, player
from tests.games.draft.test_service import ADMIN, new_pod, play_out

STAND_IN = 2001


async def drafted(db, players: int, **options) -> pods.PodView:
    pod = await new_pod(db, players=players, packs=1, pack_size=3, **options)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(1))
    return await pods.pod_here(db, GUILD, CHANNEL)


def other(view: pods.PodView, user: int) -> int:
    pairing = view.state.match_of(user)
    return pairing.b if pairing.a == user else pairing.a


async def play_round(db, view: pods.PodView, results) -> pods.PodView:
    """`results(a, b)`: (a's games, b's games) of each match; a reports, b confirms."""
    for pairing in [p for p in view.state.current() if p.b is not None and p.result is None]:
        won, lost = results(pairing.a, pairing.b)
        reported = await pods.report(db, view.id, player(pairing.a), won, lost)
        view = await pods.confirm(db, view.id, reported.claim.number, player(pairing.b))
    return view


def by_hand(state: rules.PodState) -> dict[int, tuple[int, Fraction, Fraction, Fraction]]:
    """Match points, OMW%, GW%, OGW%, as the tournament rules compute them (floored at 1/3)."""
    points, games_won, games, rounds, met = {}, {}, {}, {}, {}
    for p in state.entrants:
        points[p], games_won[p], games[p], rounds[p], met[p] = 0, 0, 0, 0, []
    for rnd in state.played:
        for pairing in rnd:
            if pairing.b is None:
                points[pairing.a] += 3; games_won[pairing.a] += 2; games[pairing.a] += 2; rounds[pairing.a] += 1  # noqa: E702
                continue
            ga, gb, _ = pairing.result
            for me, mine, theirs, them in ((pairing.a, ga, gb, pairing.b), (pairing.b, gb, ga, pairing.a)):
                points[me] += 3 if mine > theirs else 1 if mine == theirs else 0
                games_won[me] += mine
                games[me] += mine + theirs
                rounds[me] += 1
                met[me].append(them)
    third = Fraction(1, 3)
    mw = {p: max(third, Fraction(points[p], 3 * rounds[p])) if rounds[p] else third for p in points}
    gw = {p: max(third, Fraction(3 * games_won[p], 3 * games[p])) if games[p] else third for p in points}
    return {p: (points[p], sum((mw[o] for o in met[p]), Fraction(0)) / len(met[p]) if met[p] else third, gw[p],
                sum((gw[o] for o in met[p]), Fraction(0)) / len(met[p]) if met[p] else third) for p in points}


async def test_an_eight_seat_swiss_pod_plays_to_the_leaderboard(db):
    """Six players and two bots' seats, one played by a stand-in: seven entrants, three rounds with
    a bye each, a disputed match decided by the organizer, a drop, final standings as by hand."""
    await leaderboard.start_season(db, GUILD, "Winter")
    view = await drafted(db, 6, bots=2)
    assert view.status == pods.WAITING and len(view.seats) == 8 and len(view.bots) == 2
    with pytest.raises(PermissionDenied):
        await pods.start(db, view.id, player(1001))
    view = await pods.start(db, view.id, ADMIN, stand_ins={view.bots[0]: STAND_IN})
    state = view.state
    assert len(state.entrants) == 7 and STAND_IN in state.entrants and view.bots[1] not in state.entrants
    assert state.rounds == 3 and state.round == 1
    [bye] = [p.a for p in state.current() if p.b is None]
    with pytest.raises(UserError, match="bye"):
        await pods.report(db, view.id, player(bye), 2, 0)
    # Round 1: the better seat wins 2–1; one match is disputed and decided by the organizer.
    pairs = [p for p in state.current() if p.b is not None]
    first, rest = pairs[0], pairs[1:]
    reported = await pods.report(db, view.id, player(first.a), 2, 0)
    with pytest.raises(UserError, match="your own report"):
        await pods.confirm(db, view.id, reported.claim.number, player(first.a))
    disputed = await pods.dispute(db, view.id, reported.claim.number, player(first.b))
    assert [c.status for c in disputed.waiting] == [claims.DISPUTED] and disputed.answered.how == claims.DISPUTE
    with pytest.raises(Conflict):
        await pods.confirm(db, view.id, reported.claim.number, player(first.b))
    view = await pods.decide(db, view.id, ADMIN, first.b, 2, 1)
    for pairing in rest:
        reported = await pods.report(db, view.id, player(pairing.a), 2, 1)
        # The opponent's matching report counts by itself.
        again = await pods.report(db, view.id, player(pairing.b), 1, 2)
        assert again.how == claims.AGREED
    view = await pods.get_pod(db, view.id)
    assert view.state.round_complete() and view.state.round == 1
    view = await pods.pair_next(db, view.id, ADMIN)
    assert view.state.round == 2
    view = await play_round(db, view, lambda a, b: (2, 0) if a < b else (1, 1))
    dropper = view.state.entrants[2]
    view = await pods.drop(db, view.id, player(dropper))
    view = await pods.pair_next(db, view.id, ADMIN)
    assert all(dropper not in p.players() for p in view.state.current())
    view = await play_round(db, view, lambda a, b: (0, 2))
    assert view.status == pods.ENDED and view.state.over
    expected = by_hand(view.state)
    standings = view.state.standings()
    for row in standings:
        assert (row.match_points, row.opponents_match_win, row.game_win, row.opponents_game_win) == expected[row.player]
    keys = [expected[row.player] for row in standings]
    assert keys == sorted(keys, reverse=True)
    board = (await leaderboard.standings(db, GUILD, format=pods.KIND))[1]
    assert len(board) == 7
    with pytest.raises(Conflict, match="over"):
        await pods.report(db, view.id, player(1001), 2, 0)


async def test_matches_swiss_at_draft_start_pairs_round_one_when_the_draft_ends(db):
    view = await drafted(db, 4, follow={"matches": "swiss"})
    assert view.status == pods.RUNNING and view.state.round == 1 and view.state.auto_pair
    view = await play_round(db, view, lambda a, b: (2, 0))
    assert view.state.round == 2  # paired at once


async def test_a_team_pod_plays_its_cross_pairings_to_a_team_result(db):
    view = await drafted(db, 6, max_seats=6, follow={"teams": 2})
    state = view.state
    assert state.kind == rules.TEAMS and state.rounds == 3
    first, second = state.teams
    met = set()
    for _ in range(3):
        for p in view.state.current():
            assert (p.a in first) != (p.b in first)
            met.add(frozenset(p.players()))
        view = await play_round(db, view, lambda a, b: (2, 0) if a in first else (0, 2))
    assert len(met) == 9 and view.status == pods.ENDED
    assert view.state.team_score().wins == (9, 0) and view.state.team_score().winner == 0


async def test_an_organizer_who_plays_cannot_decide_their_own_match(db):
    view = await drafted(db, 2, bots=1, max_seats=3)
    view = await pods.start(db, view.id, ADMIN, stand_ins={view.bots[0]: ADMIN.user_id})
    if not any(ADMIN.user_id in p.players() and p.b is not None for p in view.state.current()):
        view = await play_round(db, view, lambda a, b: (2, 0))  # the organizer had the bye
        view = await pods.pair_next(db, view.id, ADMIN)
    opponent = other(view, ADMIN.user_id)
    with pytest.raises(UserError, match="You play in"):
        await pods.decide(db, view.id, ADMIN, ADMIN.user_id, 2, 0)
    reported = await pods.report(db, view.id, player(opponent), 2, 0)
    with pytest.raises(claims.AbsentConfirmNeeded):  # an organizer who does not play is asked first
        await pods.confirm(db, view.id, reported.claim.number, Actor(555, GUILD, manage_guild=True))
    view = await pods.confirm(db, view.id, reported.claim.number, ADMIN)  # the opponent's own confirm
    assert view.state.round_complete()
    with pytest.raises(UserError, match="best-of-three"):
        await pods.report(db, view.id, player(1001), 3, 0)


DECK = b"4 Lightning Bolt\n2 <b>Fireball</b> [x](https://e.vil)\n1 Lightning Bolt\n\nSideboard\n1 Opt\n"


async def test_a_deck_attached_to_a_report_is_hidden_until_the_pod_ends(db):
    view = await pods.start(db, (await drafted(db, 4)).id, ADMIN)
    a, b = next((p.a, p.b) for p in view.state.current() if p.b is not None)
    for bad, refusal in ((b"\x00\x01\x02binary", "can't read that decklist"),
                         (b"Opt\n" * (pods.MAX_DECK_CARDS + 1), "at most")):
        with pytest.raises(UserError, match=refusal):
            await pods.report(db, view.id, player(a), 2, 0, deck=bad)
        unchanged = await pods.get_pod(db, view.id)
        assert unchanged.waiting == () and unchanged.state == view.state  # nothing reported, nothing kept
    reported = await pods.report(db, view.id, player(a), 2, 0, deck=DECK)
    assert reported.pod.decks == {} and (await pods.get_pod(db, view.id)).decks == {}  # nobody sees it yet
    view = await pods.confirm(db, view.id, reported.claim.number, player(b))
    view = await play_round(db, view, lambda x, y: (2, 1))  # the rest of round 1
    assert view.decks == {}
    view = await pods.end(db, view.id, ADMIN)
    assert view.status == pods.ENDED
    deck = view.decks[a]
    assert deck.main == ((5, "Lightning Bolt"), (2, "<b>Fireball</b> [x](https://e.vil)"))
    assert deck.sideboard == ((1, "Opt"),) and deck.size == 7 and set(view.decks) == {a}

"""A whole 3-player 421 league through the fake Discord, to 21 points: set lists uploaded and imported
from a loopback fake Scryfall (progress shown), the lobby, every deck built (attached or pasted in
the form) with bad lists refused card by card, a draw, byes, reports confirmed (and one rejected) by
the opponent, all four options (C through its menu), the second set added by the builder of deck 6,
the third set and the take-apart (through the announcement's menu) at deck 11, a kill -9 with a
report waiting, the status and the leaderboard, and bad input and forged custom_ids that change
nothing. After every step the pool is checked against the sets (4/2/1/1 and the basics, counted
here by hand): every copy is in the pool or in exactly one deck."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from sqlalchemy import select

from bot.cards.parse import parse_cube_text
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import ui
from bot.kit.claims_ui import AnswerButton
from bot.store.models import EventResult
from tests.e2e.drivers.common import component, embed_text, forged_click, forged_select, parts_of
from tests.e2e.drivers.four_two_one import BASICS, FourTwoOneDriver, as_text, legal_deck
from tests.e2e.fake_scryfall import FakeScryfall, FakeSet, default_sets, serve_fake_scryfall
from tests.fake_discord import CommandNotAvailable

pytestmark = pytest.mark.e2e

COUNTS = {"common": 50, "uncommon": 20, "rare": 10, "mythic": 4}
LETTER = {"common": "C", "uncommon": "U", "rare": "R", "mythic": "M"}
ALPHA = {f"Alpha {r.title()} {i:02d}": r for r, n in COUNTS.items() for i in range(1, n + 1)}
ALPHA_FILE = ("# the large set\n" + "\n".join(f"{LETTER[r]},{name}" for name, r in ALPHA.items()) + "\nL,Island\n").encode()
BETA = FakeSet.make("bet", "Beta Block", commons=50, uncommons=20, rares=10, mythics=4)
COPIES = {"common": 4, "uncommon": 2, "rare": 1, "mythic": 1}
CHOICES = ["B", "C", "D", "B", "A", "D", "B", "B", "D", "B", "B", "D"]  # the losers' options, in order
UPSETS = (2, 3)  # rounds the trailing player wins (so the league lasts long enough for deck 11)


def expected_copies(sets_added: int) -> Counter[str]:
    """FORMATS.md §5 by hand: 4/2/1/1 per set in the pool, 48 of each basic, and 12 more of each
    basic a later set brings (Shards of Alara, the third set, lists the five)."""
    ala = {c["name"]: c["rarity"] for c in default_sets()["ala"].cards if c["name"] not in BASICS}
    beta = {c["name"]: c["rarity"] for c in BETA.cards}
    total: Counter[str] = Counter(dict.fromkeys(BASICS, 48))
    for number, cards in enumerate((ALPHA, beta, ala)[:sets_added]):
        for name, rarity in cards.items():
            total[name] += COPIES[rarity]
        if number == 2:
            total.update(dict.fromkeys(BASICS, 12))
    return total


async def conserved(t: FourTwoOneDriver) -> engine.LeagueState:
    """Every copy is in the pool or in exactly one deck; no deck is held twice; at most 10 decks."""
    state = await t.state()
    held = Counter(state.pool)
    for deck in state.decks:
        held.update(deck.cards)
    assert +held == expected_copies(state.sets_added)
    holders = [p.deck for p in state.players if p.deck is not None]
    assert len(holders) == len(set(holders)) and len(state.decks) <= 10
    return state


@pytest.fixture
async def scryfall() -> FakeScryfall:
    async with serve_fake_scryfall(page_size=40) as fake_scryfall:
        fake_scryfall.sets["bet"] = BETA
        yield fake_scryfall


@pytest.fixture
def bot_env(scryfall: FakeScryfall) -> dict[str, str]:
    return {"SCRYFALL_BASE": scryfall.base}


async def test_three_player_league_to_21(fake, bot, world, scryfall):
    t = FourTwoOneDriver(fake, world, bot.database_url)
    try:
        await _run_league(t, fake, bot, world)
    finally:
        await t.close()


async def _run_league(t: FourTwoOneDriver, fake, bot, world) -> None:
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})
    await _set_lists(t, fake, world)
    await _lobbies_that_refuse(t, fake, world)
    players = world.players[:3]
    unknown = await t.slash(world.admin, "start", sets="alp my-set")
    assert unknown.ephemeral and "no set called `my-set` here, and it is not a Scryfall set code" in unknown.content
    failed = await t.settled(await t.slash(world.admin, "start", sets="alp zzz"))  # not on Scryfall either
    assert "Could not import `zzz`: Scryfall knows no booster cards" in failed.content
    assert failed.message is None and failed.followups[0]["flags"] & 64  # the progress went; the error is private
    refused = await t.slash(world.member, "start", sets="alp")
    assert refused.ephemeral and "organizer" in refused.content
    since = len(fake.rest_log)
    lobby = await t.start(sets="alp, bet ala", target=21)  # `ala` is not stored yet: imported now
    progress = [c.json.get("content") or "" for c in fake.calls("PATCH", since=since) if isinstance(c.json, dict)]
    assert any("Importing `ala` from Scryfall: 40 of 234 cards (page 1)" in text for text in progress), progress
    shown = embed_text(lobby)
    assert "`alp` Alpha \\*Set\\* (84 cards) → `bet` Beta Block (84 cards) → `ala` Shards of Alara (229 cards)" in shown
    await t.join_all(players)
    again = await t.lobby(None, players[0], "join")
    assert again.ephemeral and "already in this league" in again.content
    early = await t.slash(players[0], "report", result="won")
    assert early.ephemeral and "has not begun" in early.content
    not_org = await t.slash(players[0], "begin")
    assert not_org.ephemeral and "organizer" in not_org.content
    begun = await t.slash(world.admin, "begin")
    assert "has begun" in begun.content
    await _build_first_decks(t, fake, world)
    await _play_rounds(t, fake, bot, world)


async def _set_lists(t: FourTwoOneDriver, fake, world) -> None:
    refused = await t.set_add(world.member, name="alp", file=("alp.txt", ALPHA_FILE))
    assert refused.ephemeral and "organizer" in refused.content
    bad = await t.set_add(world.admin, name="alp", file=("alp.txt", b"X,Some Card\nC\n"))
    assert bad.ephemeral and "Line 1" in bad.content and "is not a rarity" in bad.content and "Line 2" in bad.content
    both = await t.set_add(world.admin, name="alp", file=("alp.txt", ALPHA_FILE), code="bet")
    assert both.ephemeral and "exactly one of" in both.content
    added = await t.set_add(world.admin, name="alp", file=("alp.txt", ALPHA_FILE), title="Alpha *Set*")
    assert "Added the set `alp`: **Alpha \\*Set\\***, 84 cards (50 common, 20 uncommon, 10 rare, 4 mythic)" in added.content
    taken = await t.set_add(world.admin, name="ALP", code="bet")
    assert taken.ephemeral and "already has a set called `alp`" in taken.content
    imported = await t.set_add(world.admin, code="bet")
    assert "Added the set `bet`: **Beta Block**, 84 cards" in imported.content
    unknown = await t.set_add(world.admin, code="zzz")
    assert "Scryfall knows no booster cards for the set code 'zzz'" in unknown.content
    spare = await t.set_add(world.admin, name="tmp", file=("tmp.csv", b"Name,Rarity\nSpare Card,rare\n"))
    assert "Added the set `tmp`: **TMP**, 1 card (1 rare)" in spare.content, spare.content
    not_org = await t.slash(world.member, "set remove", name="tmp")
    assert not_org.ephemeral and "organizer" in not_org.content
    _, removed = await t.confirmed_command(world.admin, "set remove", name="tmp")
    assert "Removed the set `tmp`" in removed.content
    listing = await fake.slash(world.member, "421 set list", guild_id=world.guild, channel_id=world.channel)
    text = embed_text(listing.message)
    assert "`alp` — Alpha \\*Set\\*: 84 cards (uploaded list)" in text and "`bet` — Beta Block: 84 cards (Scryfall)" in text
    choices = await fake.autocomplete(world.admin, "421 start", focused="sets", options={"sets": "alp, b"},
                                      guild_id=world.guild, channel_id=world.channel)
    assert [c["value"] for c in choices] == ["alp, bet"]


async def _lobbies_that_refuse(t: FourTwoOneDriver, fake, world) -> None:
    """A one-set league takes no 4th player; any league no 7th."""
    for channel, sets, room in ((world.channel + 100, "alp", 3), (world.channel + 101, "alp bet", 6)):
        fake.add_channel(world.guild, channel, f"league-{room}")
        started = await fake.slash(world.admin, "421 start", guild_id=world.guild, channel_id=channel,
                                   options={"sets": sets})
        league = int(re.search(r"#(\d+)", started.content).group(1))
        custom_id = ui.LobbyButton.custom_id_for(table=league, action="join")
        for user in world.players[:room]:
            joined = await fake.click(user, started.message, custom_id)
            assert not joined.ephemeral, joined.content
        extra = await fake.click(world.players[room], started.message, custom_id)
        words = "with only one set, 421 is for two or three players" if room == 3 else "at most 6 players"
        assert extra.ephemeral and words in extra.content, extra.content
        prompt = await fake.slash(world.admin, "421 cancel", guild_id=world.guild, channel_id=channel)
        confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
        done = await fake.click(world.admin, prompt.message, confirm)
        assert "was cancelled" in done.content


async def _build_first_decks(t: FourTwoOneDriver, fake, world) -> None:
    """Everyone builds before round 1, in seat order; bad lists are refused card by card."""
    state = await conserved(t)
    users = [p.user_id for p in state.players]
    first, second = users[0], users[1]
    out_of_turn = await t.deck(second, "build", as_text(legal_deck(state)))
    assert out_of_turn.ephemeral and "turn to build a new deck" in out_of_turn.content
    form_out_of_turn = await t.slash(second, "build")
    assert form_out_of_turn.modal is None and "turn to build" in form_out_of_turn.content
    deck = legal_deck(state)
    spell = next(n for n in deck if n not in BASICS)
    short = dict(deck, **{spell: deck[spell] - 1})
    long = dict(deck, Island=deck.get("Island", 0) + 1)
    for wrong, words in ((short, "The list has 59 cards; a 421 deck has exactly 60"),
                         (long, "The list has 61 cards; a 421 deck has exactly 60")):
        refused = await t.deck(first, "build", as_text(wrong))
        assert refused.ephemeral and words in refused.content, refused.content
    typo = dict(deck)
    typo["Alpha Comon 01"] = typo.pop(spell)
    refused = await t.deck(first, "build", as_text(typo) + "\n1 BET Common 001", form=True)
    assert "Alpha Comon 01 is not a card of this league. Did you mean Alpha Common 01" in refused.content
    assert "BET Common 001 comes with Beta Block, which is not in the pool yet" in refused.content
    [attached] = refused.message["attachments"]
    assert fake.attachment_bytes(attached).decode().startswith(as_text(typo)[:20])  # the list is handed back
    assert (await t.state()).decks == []
    for forged_id in (f"{ui.DECK_FORM.prefix}:{t.league_id}:steal", f"{ui.DECK_FORM.prefix}:{'9' * 30}:build"):
        opened = await t.slash(first, "build")
        opened.modal["custom_id"] = forged_id  # a modified client's form
        forged = await fake.submit_modal(first, opened, {"list": as_text(deck)})
        assert forged.ephemeral and "not valid" in forged.content, forged.content
    assert (await t.state()).decks == []
    built = await t.deck(first, "build", as_text(deck), form=True)
    assert f"Deck #1 of 421 league #{t.league_id} is built; its list is public." == built.content
    state = await conserved(t)
    taken = {spell: 4, "Island": 56}
    refused = await t.deck(second, "build", as_text(taken))
    assert f"{spell}: you listed 4, none left in the pool (4 in deck #1 (" in refused.content, refused.content
    # An Arena export, as a deck builder writes it: its sideboard is ignored, and the reply says so.
    arena = "Deck\n" + "\n".join(f"{line} (ALP) 1" for line in as_text(legal_deck(state, skip=30)).splitlines())
    done = await t.deck(second, "build", arena + "\n\nSideboard\n2 Alpha Common 40\n1 Alpha Rare 03\n")
    assert "Deck #2 of" in done.content and "The sideboard (3 cards) was ignored" in done.content, done.content
    assert sum((await conserved(t)).deck(2).cards.values()) == 60
    done = await t.deck(users[2], "build", as_text(legal_deck(await t.state(), skip=60)))
    assert "is built" in done.content, done.content
    await conserved(t)
    await t.wait_channel("round 1**")


async def _play_rounds(t: FourTwoOneDriver, fake, bot, world) -> None:
    scores: Counter[int] = Counter()
    choices = iter(CHOICES)
    used: list[str] = []
    seen_byes: set[int] = set()
    previous_bye = None
    skip = 90
    while True:
        state = await conserved(t)
        round_number = state.round
        match = state.matches[0]
        user = {seat: state.players[seat].user_id for seat in range(3)}
        a, b, bye = user[match.a], user[match.b], user[state.bye]
        announcement = await t.wait_channel(f"round {round_number}**")
        assert f"Match A: <@{a}> vs <@{b}>" in announcement["content"]
        assert f"<@{bye}> sits out this round" in announcement["content"]
        assert fake.pinged_users(announcement) == {a, b, bye}  # the players called to play, and the one told of the bye
        assert bye != previous_bye  # never two byes in a row
        seen_byes.add(bye)
        if round_number > 1:  # the one who sat out plays the higher score of the other two
            assert previous_bye in (a, b)
            assert scores[b if a == previous_bye else a] >= scores[bye]
        sitting = await t.report(bye, "won")
        assert sitting.ephemeral and "sitting out this round" in sitting.content

        if round_number == 1:
            claim = await t.report(a, "draw")
            reply = await t.answer(b, claim.message)
            assert "confirmed by" in reply.content
        else:
            higher = a if scores[a] >= scores[b] else b
            winner = (b if higher == a else a) if round_number in UPSETS else higher
            loser = b if winner == a else a
            await _report_win(t, fake, bot, world, round_number, winner, loser)
            scores[winner] += 2
            scores[loser] -= 1
        scores[bye] += 2
        previous_bye = bye
        state = await conserved(t)
        assert {p.user_id: p.score for p in state.players} == {u: scores[u] for u in user.values()}
        if state.phase == "over":
            break
        if round_number == 1:
            continue
        option = next(choices)
        used.append(option)
        skip += 37
        await _choose(t, fake, world, state, loser, winner, bye, option, skip)
    assert set(used) == {"A", "B", "C", "D"} and len(seen_byes) >= 2
    state = await t.state()
    assert state.sets_added == 3 and state.next_deck_id - 1 >= 11  # deck 11 was built (as deck 9)
    assert len(state.decks) <= 10 and bot.starts == 2  # and the bot was killed once on the way
    await _the_end(t, fake, world, scores)



async def _report_win(t: FourTwoOneDriver, fake, bot, world, round_number: int, winner: int, loser: int) -> None:
    if round_number == 2:  # a false report is disputed, then both report the same result
        claim = await t.report(loser, "won")
        assert f"reports **<@{loser}> won**" in claim.content and fake.pinged_users(claim.message) == {winner}
        own = await t.answer(loser, claim.message)
        assert own.ephemeral and "your opponent must" in own.content
        outsider = await t.answer(world.member, claim.message)
        assert outsider.ephemeral and "opponent or an organizer" in outsider.content
        twice = await t.report(winner, "won")
        assert twice.ephemeral and "already has a report waiting" in twice.content
        confirm_id = t.claim_button(claim.message, "confirm")
        disputed = await t.answer(winner, claim.message, "dispute")
        assert f"<@{winner}> disputed it" in disputed.content
        assert disputed.content.startswith(f"⚠️ 421 league #{t.league_id}, round 2, Match A: <@{loser}> reported "
                                           f"**<@{loser}> won**; <@{winner}> disputed it.")
        assert "both of you" not in disputed.content
        # The dispute calls the league's organizer, who does not play in it.
        [call] = await disputed.wait_followup()
        assert f"Match A is disputed: <@{world.admin}> decides it" in call["content"]
        assert "(or its players report it again)" in call["content"]
        assert fake.pinged_users(call) == {world.admin}
        # Issue 34 item 2: a late Confirm on the answered report is answered privately; the copy shows the dispute.
        stale = await forged_click(fake, winner, claim.message, confirm_id)
        [late] = await stale.wait_followup()
        assert late["flags"] & 64 and "already answered" in late["content"]
        assert f"<@{winner}> disputed it" in stale.message["content"] and not stale.components
        again = await t.report(loser, "lost")
        assert f"<@{winner}> confirms or disputes it" in again.content  # the channel hears it in the third person
        both = await t.report(winner, "won")
        assert both.ephemeral and "same result" in both.content
        # The report both players agreed on keeps no live buttons: its message says it counts.
        closed = await fake.wait_for(lambda: (m := fake.message(again.message["id"])) and not m.get("components")
                                     and m, what="the agreed report without its buttons")
        assert closed["content"].endswith(f"**<@{winner}> won**, confirmed by <@{winner}>'s matching report.")
        return
    claim = await t.report(winner, "won")
    if round_number == 3:  # forged custom_ids change nothing
        before = await t.stored()
        for custom_id in (AnswerButton.custom_id_for(format="421", table=10**30, claim=1, action="confirm"),
                          f"{AnswerButton.prefix}:421:{t.league_id}:1:approve",
                          AnswerButton.custom_id_for(format="421", table=t.league_id, claim=0, action="confirm"),
                          f"421r:{t.league_id}:0:confirm"):
            forged = await forged_click(fake, loser, claim.message, custom_id)
            assert forged.ephemeral and "not valid" in forged.content, forged.content
        elsewhere = await forged_click(fake, loser, claim.message,
                                       AnswerButton.custom_id_for(format="421", table=t.league_id + 999, claim=1, action="confirm"))
        assert elsewhere.ephemeral and "There is no league" in elsewhere.content
        assert await t.stored() == before
    if round_number == 6:
        await bot.restart()  # kill -9 with a report waiting: its buttons still work
        # A report posted before the kit's buttons (custom_id "421r:<league>:<claim>:confirm") still confirms.
        number = parts_of(AnswerButton, t.claim_button(claim.message, "confirm"))["claim"]
        old_id = f"421r:{t.league_id}:{number}:confirm"
        old = fake.message(claim.message["id"])
        old["components"] = [{"type": 1, "components": [{"type": 2, "style": 3, "label": "Confirm", "custom_id": old_id}]}]
        reply = await fake.click(loser, old, old_id)
    else:
        reply = await t.answer(loser, claim.message)
    assert reply.content.startswith(f"✅ 421 league #{t.league_id}, round "), reply.content
    # The report's text gives way to the verdict: no "confirms or disputes it" left, and no buttons.
    assert "confirms or disputes" not in reply.content and not reply.message["components"]
    assert f"**<@{winner}> won**, confirmed by <@{loser}>." in reply.content


async def _choose(t: FourTwoOneDriver, fake, world, state: engine.LeagueState, loser: int, winner: int, bye: int,
                  option: str, skip: int) -> None:
    winner_choice = await t.choose(winner, "B")
    assert winner_choice.ephemeral and "who lost Match A, chooses now" in winner_choice.content
    since = len(fake.messages(world.channel))
    if option == "C":
        bye_deck = next(p.deck for p in state.players if p.user_id == bye)
        own_deck = next(p.deck for p in state.players if p.user_id == loser)
        before = await t.stored()
        sitting = await t.choose(loser, "C", bye_deck)
        assert "who is sitting out this round: nobody may claim it" in sitting.content, sitting.content
        used = await t.choose(loser, "C", own_deck)
        assert "was used in Match A" in used.content
        assert await t.stored() == before
        offered = await fake.autocomplete(loser, "421 choose", focused="deck", options={"option": "C", "deck": ""},
                                          guild_id=world.guild, channel_id=world.channel)
        assert offered and bye_deck not in [c["value"] for c in offered]
        assert await fake.autocomplete(winner, "421 choose", focused="deck", options={"option": "C", "deck": ""},
                                       guild_id=world.guild, channel_id=world.channel) == []
        menu = await t.choose(loser, "C")
        options = component(menu.message, ui.ClaimDeckSelect, league=t.league_id)["options"]
        claimable = [int(o["value"]) for o in options]
        assert bye_deck not in claimable and own_deck not in claimable and claimable
        assert [c["value"] for c in offered] == claimable
        custom_id = component(menu.message, ui.ClaimDeckSelect, league=t.league_id)["custom_id"]
        forged = await forged_select(fake, loser, menu.message, custom_id, "x1")
        assert forged.ephemeral and "not valid" in forged.content
        claimed = await fake.select(loser, menu.message, custom_id, [str(claimable[0])])
        assert "You chose C" in claimed.content
        assert (await t.state()).players[[p.user_id for p in state.players].index(loser)].deck == claimable[0]
        await t.wait_channel(f"<@{loser}> claims deck #{claimable[0]}", since)
        return
    chosen = await t.choose(loser, option)
    assert f"You chose {option}" in chosen.content
    builder = winner if option == "D" else loser
    told = await t.wait_channel(f"<@{loser}> chose option {option}: ", since)
    assert fake.pinged_users(told) == {builder}  # who acts next (the loser who alters, or the builder), nobody else
    if option == "D":  # the channel hears it in the third person
        assert (f"<@{loser}> chose option D: <@{winner}> sets their winning deck aside and builds a new one; "
                f"<@{loser}> keeps their deck.") in told["content"]
    state = await conserved(t)
    if option == "A":
        await _alter(t, state, loser)
        return
    if len(state.decks) == 10 and state.sets_added == 3 and state.next_deck_id == 11:
        await t.wait_channel(f"The league has 10 decks: <@{builder}> adds **Shards of Alara** to the pool before "
                             "building the next one", since)
    if state.step.kind == "take_apart":
        await _take_apart(t, fake, world, state, builder, bye, since)
        state = await conserved(t)
    pending = await t.wait_channel(f"<@{builder}> builds deck #{state.next_deck_id} next: `/421 build`", since)
    assert builder in fake.pinged_users(pending)
    assert not re.search(r"\bdeck \d|\byour?\b", pending["content"])  # one number per deck; the third person
    deck = legal_deck(state, skip=skip)
    if len(state.decks) == 5:  # the builder of the sixth deck brought the second set and may use it first
        await t.wait_channel(f"The league has 5 decks: <@{builder}> adds **Beta Block** to the pool before building "
                             "the next one", since)
        other = next(u for u in (winner, loser, bye) if u != builder)
        refused = await t.deck(other, "build", as_text(deck))
        assert refused.ephemeral and "turn to build" in refused.content
        deck = _with_card(deck, "BET Mythic 001", state)
    done = await t.deck(builder, "build", as_text(deck), form=state.next_deck_id % 2 == 0)
    assert f"Deck #{state.next_deck_id} of 421 league #{t.league_id} is built" in done.content, done.content
    state = await conserved(t)
    await _decks_show(t, fake, state)


def _with_card(deck: dict[str, int], card: str, state: engine.LeagueState) -> dict[str, int]:
    """`deck` with one copy of `card` in place of a basic land."""
    assert state.pool[card] == 1
    if card in deck:
        return deck
    basic = next(b for b in BASICS if deck.get(b))
    deck = dict(deck)
    deck[basic] -= 1
    deck[card] = 1
    return {n: c for n, c in deck.items() if c}


async def _alter(t: FourTwoOneDriver, state: engine.LeagueState, loser: int) -> None:
    """Option A through the form, which starts from the deck as it is: four cards swapped."""
    seat = [p.user_id for p in state.players].index(loser)
    deck = dict(state.deck(state.players[seat].deck).cards)
    shown = await t.slash(loser, "alter")
    assert shown.modal is not None
    prefilled = next(c for c in shown.components if c.get("custom_id") == "list")["value"]
    assert prefilled == as_text(deck)
    out = next(n for n, c in deck.items() if n not in BASICS and c == 4)
    add = next(n for n, c in sorted(state.pool.items()) if c >= 4 and n not in deck and n not in BASICS)
    deck.pop(out)
    deck[add] = 4
    pool_out = state.pool.get(out, 0)
    done = await t.fake.submit_modal(loser, shown, {"list": as_text(deck)})
    assert "is altered" in done.content, done.content
    after = await conserved(t)
    assert after.pool.get(out, 0) == pool_out + 4 and after.pool.get(add, 0) == state.pool[add] - 4


async def _take_apart(t: FourTwoOneDriver, fake, world, state: engine.LeagueState, builder: int, bye: int,
                     since: int) -> None:
    """Deck 11 would be one too many: two unused decks go back, chosen in the announcement's menu."""
    message = await t.wait_channel(f"A new deck would be one too many: <@{builder}> first takes apart", since)
    assert builder in fake.pinged_users(message)
    unused = [d.id for d in engine.unused_decks(state)]
    options = [int(o["value"]) for o in component(message, ui.TakeApartSelect, league=t.league_id)["options"]]
    assert options == unused
    bye_deck = next(p.deck for p in state.players if p.user_id == bye)
    custom_id = component(message, ui.TakeApartSelect, league=t.league_id)["custom_id"]
    before = await t.stored()
    early = await t.deck(builder, "build", as_text(legal_deck(state)))
    assert early.ephemeral and "you are to take apart two decks nobody is using" in early.content
    one = await forged_select(fake, builder, message, custom_id, str(unused[0]))
    assert one.ephemeral and "not valid" in one.content  # two decks, not one
    untouchable = await forged_pair(fake, builder, message, custom_id, [bye_deck, unused[0]])
    assert untouchable.ephemeral and "sitting out this round: nobody may take it apart" in untouchable.content
    stranger = await fake.select(world.member, message, custom_id, [str(unused[0]), str(unused[1])])
    assert stranger.ephemeral and "not a player" in stranger.content
    assert await t.stored() == before
    # The menu via the command offers the same decks, never the sitting-out player's.
    menu = await t.slash(builder, "takeapart")
    offered = [int(o["value"]) for o in component(menu.message, ui.TakeApartSelect, league=t.league_id)["options"]]
    assert offered == unused and bye_deck not in offered
    returned = sum(sum(state.deck(d).cards.values()) for d in unused[:2])
    done = await fake.select(builder, menu.message, component(menu.message, ui.TakeApartSelect,
                                                              league=t.league_id)["custom_id"],
                             [str(unused[0]), str(unused[1])])
    [followup] = await done.wait_followup()
    assert (f"Decks #{unused[0]} and #{unused[1]} are taken apart: now build deck #{state.next_deck_id} with "
            "`/421 build`.") == followup["content"]
    assert not fake.message(menu.message["id"]).get("components")  # the menu used is gone
    # … and so is the announcement's, which nothing could use any more; its text stays.
    gone = await fake.wait_for(lambda: not fake.message(message["id"]).get("components"),
                               what="the announcement's take-apart menu removed")
    assert gone and fake.message(message["id"])["content"] == message["content"]
    await t.wait_channel(f"took apart decks #{unused[0]} and #{unused[1]}: {returned} cards are back in the pool", since)


async def forged_pair(fake, user: int, message: dict, custom_id: str, decks: list[int]):
    """Choose two decks the menu does not offer, as a modified client can."""
    stored = fake.message(message["id"])
    shown = stored.get("components", [])
    options = [{"label": str(d), "value": str(d)} for d in decks]
    select = {"type": 3, "custom_id": custom_id, "options": options, "min_values": 2, "max_values": 2}
    stored["components"] = [{"type": 1, "components": [select]}]
    try:
        return await fake.select(user, stored, custom_id, [str(d) for d in decks])
    finally:
        stored["components"] = shown


async def _decks_show(t: FourTwoOneDriver, fake, state: engine.LeagueState) -> None:
    """/421 decks: every deck's public list on one page or a few, and who uses it; /421 pool agrees
    with the database, a card all used up included; both come as files too."""
    shown = await t.slash(t.world.member, "decks")
    assert shown.ephemeral
    text, message = embed_text(shown.message), shown.message
    footer = (message["embeds"][0].get("footer") or {}).get("text", "Page 1 of 1")
    pages = int(footer.rsplit(" ", 1)[1])
    assert pages <= (len(state.decks) + 3) // 4, footer  # about four decks a page at least, not one
    for _ in range(1, pages):  # the other pages, as a player turns them
        button = next(c for row in message["components"] for c in row["components"] if "Next" in c.get("label", ""))
        await fake.click(t.world.member, message, button["custom_id"])
        message = fake.message(message["id"])
        text += "\n" + embed_text(message)
    for deck in state.decks:
        holder = engine.holder_of(state, deck.id)
        status = ("set aside" if holder is None else f"<@{state.players[holder].user_id}>'s, sitting out: untouchable"
                  if holder == state.bye else f"in use by <@{state.players[holder].user_id}>")
        built_by = state.players[deck.built_by].user_id
        assert f"Deck #{deck.id} · 60 cards\n{status} · built by <@{built_by}>\n" in text, (deck.id, status)
        for name, count in deck.cards.items():
            assert f"{count} {name}" in text
    name = next(n for n in sorted(state.pool) if n not in BASICS and state.pool[n])
    pool = await t.slash(t.world.member, "pool", search=name)
    total = expected_copies(state.sets_added)[name]
    assert f"`{state.pool[name]}/{total}` {name}" in embed_text(pool.message)
    used_up = next(n for n in sorted(state.pool) if n not in BASICS and not state.pool[n])
    pool = await t.slash(t.world.member, "pool", search=used_up)
    assert f"`0/{expected_copies(state.sets_added)[used_up]}` {used_up}" in embed_text(pool.message)
    files = await t.slash(t.world.member, "pool", file=True)
    assert files.ephemeral
    arena, plain = (fake.attachment_bytes(a).decode() for a in files.message["attachments"])
    left = {name: count for name, count in state.pool.items() if count}
    assert Counter(parse_cube_text(arena).names()) == Counter(left)  # what a deck builder imports: the pool
    assert f"0/{expected_copies(state.sets_added)[used_up]} {used_up} (" in plain
    decks = await t.slash(t.world.member, "decks", file=True)
    listed = fake.attachment_bytes(decks.message["attachments"][0]).decode()
    assert all(f"Deck #{d.id} (" in listed for d in state.decks)


async def _the_end(t: FourTwoOneDriver, fake, world, scores: Counter[int]) -> None:
    state = await t.state()
    winner = state.players[state.winner].user_id
    assert scores[winner] >= 21 and all(scores[u] < scores[winner] for u in scores if u != winner)
    await t.wait_channel(f"🏆 **<@{winner}> wins 421 league #{t.league_id} with {scores[winner]} points!**")
    final = await fake.wait_for(
        lambda: [m for m in fake.messages(world.leaderboard_channel) if "final standings" in (m.get("content") or "")],
        what="final standings")
    assert f"1. <@{winner}> — **{scores[winner]}** points" in final[0]["content"]
    assert final[0]["content"].count("🏆") == 1  # issue 35 item 3: one trophy line
    async with t.db.read() as session:
        rows = {r.user_id: r for r in (await session.execute(
            select(EventResult).where(EventResult.format == "421", EventResult.event_id == t.league_id))).scalars()}
    assert rows[winner].placement == 1 and rows[winner].points == 3 and rows[winner].score == scores[winner]
    assert {u: r.score for u, r in rows.items()} == {u: float(s) for u, s in scores.items()}
    status = await t.slash(world.member, "status")
    assert f"1. <@{winner}> — **{scores[winner]}** points" in embed_text(status.message)
    with pytest.raises(CommandNotAvailable):  # the old name is gone, not an alias
        await t.slash(world.member, "standings")
    after = await t.report(winner, "won")
    assert after.ephemeral and f"has ended: its final standings are posted in <#{world.channel}>" in after.content, after.content

"""Treasure Battler's messages stay inside Discord's limits and show card names literally, with the
longest names a cube may hold (200 characters, full of markdown) and 16 players."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import UTC, datetime
from types import SimpleNamespace

import discord
import pytest

from bot.games.battler import FORMAT, ui
from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler.service import (
    Announcement,
    Costs,
    Dispute,
    GameView,
    PendingReport,
    PrivatePrompt,
    Standing,
)
from bot.kit import limits, outbox
from bot.kit.delivery import Outbox
from bot.kit.formats import renderers_of
from bot.kit.tables import TableRef
from bot.kit.text import escape
from tests.fake_discord.validation import validate_components, validate_embeds

PLAYERS = 16
USERS = [900_000_000_000_000_200 + i for i in range(PLAYERS)]
# A masked link, a mass ping and emphasis in every name; each name is 200 characters.
TRAPS = ("[Lightning Bolt](http://evil.example/phish) ", "@everyone ", "**__~~||")
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def long_name(i: int) -> str:
    start = f"{TRAPS[i % len(TRAPS)]}{i:03d} "
    return start + "*_`>-" * ((200 - len(start)) // 5) + "x" * ((200 - len(start)) % 5)


CUBE = [long_name(i) for i in range(engine.MIN_CARDS_PER_PLAYER * PLAYERS)]


def assert_fits(*, content: str | None = None, embeds: list[discord.Embed] = (), view: discord.ui.View | None = None):
    """What the fake Discord (like Discord) answers 400 to."""
    errors: dict = {}
    validate_embeds(errors, [e.to_dict() for e in embeds])
    if view is not None:
        validate_components(errors, view.to_components(), v2=False)
    assert errors == {}
    assert content is None or len(content) <= limits.CONTENT


def assert_literal(text: str) -> None:
    """No card name renders as a link, a ping or formatting."""
    assert "](http" not in text and "@everyone" not in text.replace("@\u200beveryone", "")
    assert "[Lightning Bolt]" not in text and "**__~~||" not in text


def game_state(phase: str, *, carousel: str = "round", source: str = "packyard") -> engine.BattlerState:
    """16 players in `phase` (draft, carousel or play), with full stashes of long names."""
    settings = engine.BattlerSettings(carousel=carousel, carousel_from=source, interest_threshold=3, win_streak=True)
    state = engine.new_game(CUBE, USERS, seed=7, settings=settings)
    for seat in range(PLAYERS):
        engine.choose_basics(state, seat, ["Plains", "Island"])
    for pr in state.pairings:
        engine.report(state, pr.a, "won")
    for p in state.players:  # 15 cards each (the packpile still deals every pack)
        missing = engine.POOL_MAX - len(p.stash)
        p.stash += state.packpile[:missing]
        del state.packpile[:missing]
        p.basics += ["Swamp", "Mountain", "Forest"]
    if phase == "draft":
        return state
    for p in state.players:
        engine.done(state, p.seat)
    if phase == "carousel":
        return state
    engine.force_end_carousel(state)
    return state


def view_of(state: engine.BattlerState, reports: tuple[PendingReport, ...] = ()) -> GameView:
    return GameView(
        id=123_456, guild_id=1, channel_id=2, organizer_id=3, lobby_message_id=4, cube_name="C" * 100,
        status="running", max_seats=PLAYERS, settings=state.settings, seed=2**53, version=10**9,
        player_ids=tuple(USERS), state=state, reports=reports,
    )


def prompt_of(state: engine.BattlerState, seat: int, kind: str) -> PrivatePrompt:
    p = state.players[seat]
    extra = {}
    if kind == "carousel":
        extra = {"carousel": tuple(state.carousel_cards), "pick": state.carousel_turn + 1,
                 "picks": len(state.carousel_order)}
    return PrivatePrompt(
        game_id=123_456, guild_id=1, channel_id=2, user_id=p.user_id, seat=seat, kind=kind, version=10**9,
        stage=state.stage, round=state.round, stash=tuple(p.stash), pack=tuple(p.pack), basics=tuple(p.basics),
        treasures=p.treasures, poison=p.poison, costs=Costs.of(state, seat), done=p.done, **extra,
    )


def test_long_names_are_the_longest_a_cube_holds():
    assert {len(card) for card in CUBE} == {200}


def test_setup_and_draft_dms_fit_and_escape():
    state = engine.new_game(CUBE, USERS, seed=3)
    setup = prompt_of(state, 0, "setup")
    for options in ({}, {"combo": 4}):
        embed = ui.prompt_embed(setup, **options)
        assert_fits(embeds=[embed], view=ui.prompt_view(setup, **options))
        assert all(escape(card) in embed.description for card in setup.stash)
    draft = game_state("draft")
    prompt = prompt_of(draft, 5, "draft")
    note = ui.action_note([engine.CardsTraded(5, prompt.stash[0], prompt.pack[0])], 5)
    for options in ({}, {"stash_index": 14}):
        embed = ui.prompt_embed(prompt, note=note, **options)
        assert_fits(embeds=[embed], view=ui.prompt_view(prompt, **options))
        text = embed.description + "".join(f.value for f in embed.fields)
        assert_literal(text)
        # 20 names that escape to ~400 characters each: each line is shortened, none is dropped.
        assert all(escape(card)[:60] in text for card in prompt.stash + prompt.pack)


def test_carousel_dm_pages_buttons_and_the_give_back_step_fit():
    state = game_state("carousel")
    seat = engine.carousel_picker(state)
    prompt = prompt_of(state, seat, "carousel")
    assert len(prompt.carousel) == 80 and prompt.pool_full and ui.carousel_pages(prompt) == 4
    for options in ({"page": 0}, {"page": 3}, {"chosen": 79}):
        embed = ui.prompt_embed(prompt, note="You took **x**.", **options)
        view = ui.prompt_view(prompt, **options)
        assert_fits(embeds=[embed], view=view)
        assert_literal(embed.description)
    first = ui.prompt_view(prompt, page=0)
    ids = [item.custom_id for item in first.children]
    assert len([i for i in ids if ":swap:" in i]) == ui.CAROUSEL_PAGE  # full pool: a card first asks what to give
    assert any(":page:1" in i for i in ids) and any(i.endswith(":pass") for i in ids)
    labels = [item.item.label for item in first.children if ":swap:" in item.custom_id]
    assert labels[0] == limits.clip(f"1. {prompt.carousel[0]}", limits.BUTTON_LABEL)  # labels are not escaped
    small = PrivatePrompt(**{**prompt.__dict__, "stash": prompt.stash[:3]})
    ids = [item.custom_id for item in ui.prompt_view(small).children]
    assert any(":take:0" in i for i in ids) and not any(i.endswith(":pass") for i in ids)


def test_status_with_16_players_in_every_phase_fits():
    for phase in ("draft", "carousel", "play"):
        state = game_state(phase)
        reports = ()
        if phase == "play":  # a long packyard next to every game's disputed report
            state.packyard, state.packpile = state.packpile, []
            reports = tuple(
                PendingReport(i + 1, pr.a, pr.b, pr.a, "a", None, (), "disputed", pr.b, "b")
                for i, pr in enumerate(state.pairings)
            )
        embed = ui.status_embed(view_of(state, reports))
        assert_fits(embeds=[embed])
        assert embed.description == ui.status_description(state)
        assert all(f"<@{u}>" in embed.description for u in USERS)
        names = [f.name for f in embed.fields]
        assert any(n.startswith("Packyard") for n in names)
        assert ("Carousel (80)" in names) == (phase == "carousel")
        assert limits.embed_size(embed) > 4500 or phase != "play"
        assert_literal("".join(f.value for f in embed.fields))


def test_stash_and_lobby_fit():
    state = game_state("draft")
    embed = ui.stash_embed(view_of(state), 3)
    assert_fits(embeds=[embed])
    assert_literal(embed.description + embed.fields[0].value)
    lobby = view_of(state)
    assert_fits(embeds=[ui.lobby_embed(lobby, note="❌ Cancelled by the organizer.")])


def test_announcements_list_every_card_escaped_in_messages_that_fit():
    state = game_state("carousel")
    events = [engine.PhaseChanged("carousel", 1, 3),
              engine.CarouselStarted(tuple(CUBE), tuple(range(PLAYERS)) * 3, 3, "packyard", True),
              engine.CarouselTurn(0, 1)]
    seat = engine.carousel_picker(state)
    events += engine.carousel_pick(state, seat, state.carousel_cards[0], give_back=state.players[seat].stash[0])
    news = Announcement(1, 3, tuple(USERS), 1, 3, "fibonacci", tuple(events), (USERS[0],))
    chunks = ui.split_messages(ui.event_lines(news))
    assert len(chunks) > 10
    for chunk in chunks:
        assert_fits(content=chunk)
        assert_literal(chunk)
    text = "\n".join(chunks)
    assert all(escape(card) in text for card in CUBE)  # all 320 names, whole
    assert f"1. <@{USERS[0]}>" in text and "(equal poison: in random order)" in text


def test_final_standings_and_rules_fit():
    standings = [Standing(i + 1, (u,), float(PLAYERS - i)) for i, u in enumerate(USERS)]
    for chunk in ui.split_messages(ui.final_lines(view_of(game_state("draft")), standings)):
        assert_fits(content=chunk)
    settings = engine.BattlerSettings(progression="flat2", interest_threshold=5, win_streak=True, carousel="stage",
                                      carousel_from="packyard")
    assert len(ui.rules_text("flat2", settings)) <= limits.CONTENT
    assert "tokens made in the game too" in ui.rules_text("fibonacci")


@pytest.mark.parametrize("seed", range(5))
def test_cards_text_keeps_whole_names_and_says_how_many(seed):
    cards = random.Random(seed).sample(CUBE, 60)
    for limit in (100, 500, limits.FIELD_VALUE):
        text = ui.cards_text(cards, limit)
        assert len(text) <= limit and text.endswith(" … (60)")
        shown = text.removesuffix(" … (60)")
        if len(escape(cards[0])) + 7 <= limit:  # whole names only
            assert all(name in map(escape, cards) for name in shown.split(", ")), shown
        else:  # a first name longer than the room is clipped
            assert shown == limits.clip(escape(cards[0]), limit - 7)
    short = ["A", "B [x](y)"]
    assert ui.cards_text(short) == "A, B \\[x\\]\\(y\\)" and ui.cards_text([]) == "empty"


# --- payloads queued before the kit's codec ----------------------------------------------------------


def shown(out) -> tuple:
    """What Discord is sent for a rendered row."""
    view = out.view.to_components() if out.view is not None else None
    mentions = out.allowed_mentions.to_dict() if out.allowed_mentions is not None else None
    return out.content, out.continued, [e.to_dict() for e in out.embeds], view, mentions


async def rendered(kind: str, payload: dict):
    queued = outbox.Queued(7, outbox.Message(kind, payload, channel_id=2, guild_id=1), 0, NOW)
    return shown(await Outbox(SimpleNamespace(db=None), renderers_of([FORMAT]))._render(queued, True))


def old_event(event: engine.Event) -> dict:
    """An event as the outbox held it before the kit's codec: its bare class name, `asdict`."""
    return {"type": type(event).__name__, **json.loads(json.dumps(dataclasses.asdict(event)))}


async def test_rows_queued_before_typed_payloads_render_the_same():
    """The outbox may send rows the version before the kit's codec queued (bare event names, the
    payloads written by hand) after an upgrade: they render as the typed payloads do."""
    state = game_state("carousel")
    seat = engine.carousel_picker(state)
    events = [engine.PhaseChanged("carousel", 1, 3), engine.CarouselTurn(seat, 1),
              *engine.carousel_pick(state, seat, state.carousel_cards[0], give_back=state.players[seat].stash[0]),
              engine.PairingsMade((engine.Pairing(0, 1, "d20", 0, 20, 0, 1, chooser=1),), "d20"),
              engine.ResultReported(0, 1, "a", 1), engine.PlayerPoisoned(1, 2, 9)]
    news = Announcement(123_456, 3, tuple(USERS), 1, 3, "fibonacci", tuple(events), (USERS[seat],))
    old_news = {"game_id": 123_456, "organizer_id": 3, "users": list(USERS), "stage": 1, "round": 3,
                "progression": "fibonacci", "events": [old_event(e) for e in events], "ping": [USERS[seat]]}
    assert news.to_payload()["events"][0]["type"] == "battler.PhaseChanged"
    assert Announcement.from_payload(old_news) == news
    assert await rendered(battler.ANNOUNCE, old_news) == await rendered(battler.ANNOUNCE, news.to_payload())

    prompt = prompt_of(state, seat, "carousel")
    old_prompt = {**json.loads(json.dumps(dataclasses.asdict(prompt))),
                  "costs": engine.action_costs(state, seat)}  # the engine's dict, as it was queued
    assert PrivatePrompt.from_payload(old_prompt) == prompt
    assert await rendered(battler.PROMPT, old_prompt) == await rendered(battler.PROMPT, prompt.to_payload())

    report = PendingReport(4, 0, 1, 0, "a", None, ((0, 2), (1, 0)), "disputed", 1, "b")
    old_report = {"id": 4, "a": 0, "b": 1, "reporter": 0, "claim": "a", "conceded_by": None,
                  "treasures": [[0, 2], [1, 0]], "status": "disputed", "disputed_by": 1, "counter_claim": "b"}
    old_dispute = {**old_news, "events": [], "ping": [], "report": old_report}
    dispute = Dispute(123_456, 3, tuple(USERS), 1, 3, "fibonacci", (), (), report=report)
    assert Dispute.from_payload(old_dispute) == dispute
    assert await rendered(battler.DISPUTE, old_dispute) == await rendered(battler.DISPUTE, dispute.to_payload())

    ended = await rendered(battler.ENDED, {"game_id": 123_456})
    assert ended[0] == ("❌ Treasure Battler #123456 was cancelled by an organizer without a winner: nothing was "
                        "recorded.")
    closed = await rendered(battler.DMS_CLOSED, {"user_id": USERS[1]})
    assert closed[0] == (f"<@{USERS[1]}>, I can't DM you your Treasure Battler choices. Turn on Direct Messages from "
                         "server members, then run `/battler resend`.")
    told = outbox.telling({"game_id": 123_456}, 3, "the results of Treasure Battler #123456")
    assert TableRef.from_payload(told) == TableRef(123_456)  # the final standings, read from the game


# --- one voice (issue 25): the command names, no internal words, counts, the third person ------------------


def test_the_lobby_is_cancelled_and_dms_are_resent_by_their_own_commands():
    from bot.games.battler.cog import BattlerCog

    commands = {c.name: c for c in BattlerCog.group.commands}
    assert {"cancel", "resend", "stash"} <= set(commands) and "end" not in commands
    assert "resend" not in {p.name for p in commands["stash"].parameters}
    assert not commands["resend"].parameters


def test_dms_and_embeds_show_no_internal_words():
    state = engine.new_game(CUBE, USERS, seed=3)
    footer = ui.prompt_embed(prompt_of(state, 0, "setup")).footer.text
    assert footer == "Your seat at the table: 1" and "state" not in footer and str(10**9) not in footer
    assert ui.status_embed(view_of(game_state("draft"))).title == "Treasure Battler #123456 · In progress"
    lobby = dataclasses.replace(view_of(state), status="over")
    assert [f.value for f in ui.lobby_embed(lobby).fields if f.name == "Status"] == ["Over"]


def test_announcements_count_through_plural_and_speak_of_players_in_the_third_person():
    news = Announcement(1, 3, tuple(USERS), 1, 3, "fibonacci", (
        engine.PackyardReshuffled(1, 41), engine.TreasuresChanged(0, -1, 1, "cap"), engine.CarouselTurn(2, 1),
        engine.CarouselEnded(("x",)), engine.ReplayRequired(0, 1, "draw"), engine.PhaseChanged("draft", 1, 2),
    ), ())
    text = "\n".join(ui.event_lines(news))
    assert ("The packyard (the used packs: 1 card) was shuffled into the packpile (the cards still to deal: 41 cards)."
            in text)
    assert f"<@{USERS[0]}> keeps 1 treasure (1 over the cap)." in text
    assert f"<@{USERS[2]}> picks from the carousel (pick 1): their choice is in their DMs." in text
    assert "1 card left goes to the packyard (the used packs)" in text
    assert "Each player trades, re-rolls, shifts or buys basics in their DMs, then presses Done." in text
    assert "your" not in text.lower() and " you " not in text.lower()
    assert ui.pairing_lines(news, ())[-1] == ("Each player reports with the buttons below (or `/battler report`); their "
                                              "opponent confirms.")
    with pytest.raises(engine.NotEnoughTreasures, match="costs 1 treasure;"):
        engine._check_affordable(state_player(), 1, "A re-roll")


def state_player() -> engine.Player:
    player = engine.new_game(CUBE, USERS, seed=3).players[0]
    player.treasures = 0
    return player


def test_the_winner_can_report_a_concession_and_the_channel_names_the_conceder():
    from bot.games.battler.cog import RESULT_CHOICES
    assert ("I won: my opponent conceded", "opponent_conceded") in [(c.name, c.value) for c in RESULT_CHOICES]
    news = Announcement(1, 3, tuple(USERS), 1, 3, "fibonacci", (engine.ResultReported(0, 1, "a", 1),), ())
    assert ui.event_lines(news) == [f"✅ <@{USERS[0]}> beat <@{USERS[1]}> (<@{USERS[1]}> conceded: no treasure next "
                                    "draft)."]

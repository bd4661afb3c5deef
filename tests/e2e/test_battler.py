"""A whole 4-player Treasure Battler game through the fake Discord, next to a local engine replay:
lobby rules, basics chosen by DM, reports confirmed by button and by matching reports, a draw, a
concession, a dispute decided by an organizer, trades, re-rolls, a basic-land shift and purchase,
a stale DM, a kill -9 in the middle of a draft phase (the old DM buttons keep working), and the
results on the leaderboard."""

from __future__ import annotations

import asyncio

import pytest

from bot.games.battler import rules as engine
from bot.games.battler import ui
from bot.kit.claims_ui import DecideButton
from bot.kit.text import escape
from tests.e2e.drivers.battler import ActionButton, ActionSelect, Table
from tests.e2e.drivers.common import component, embed_text, forged_click

pytestmark = pytest.mark.e2e
SEED = 20_240_601


async def test_four_player_game_from_lobby_to_winner(fake, bot, world):
    table = Table(fake, world, bot.database_url)
    try:
        await _play(table, fake, bot, world)
    finally:
        await table.close()


async def _confirm(fake, table, user: int, report_message: dict, action: str = "confirm", treasures_left=None):
    return await table.answer(user, report_message, action, treasures_left)


async def _play(table: Table, fake, bot, world) -> None:
    players = world.players[:4]
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})

    # --- lobby: organizers only begin, an even number of players is needed --------------------
    lobby = await table.start(cube="battler", poison="flat2", seats=4, seed=SEED)
    gid = table.game_id
    refused = await table.lobby(lobby, world.member, "begin")
    assert refused.ephemeral and "organizer" in refused.content
    for player in players[:3]:
        await table.lobby(lobby, player, "join")
    odd = await table.lobby(lobby, world.admin, "begin")
    assert odd.ephemeral and "even number" in odd.content
    twice = await table.lobby(lobby, players[0], "join")
    assert twice.ephemeral and "already in" in twice.content
    await table.lobby(lobby, players[3], "join")
    begun = await table.lobby(lobby, world.admin, "begin")
    assert "has begun" in begun.content and not fake.message(lobby["id"])["components"]
    await table.build_mirror()
    mirror = table.mirror

    # --- setup by DM: two basics each; a choice can be changed until everyone has chosen ---------
    message = await table.choose_basics(players[0], 5)
    setup_dms = {players[0]: await table.choose_basics(players[0], 7, message=message)}
    for index, player in enumerate(players[1:]):
        setup_dms[player] = await table.choose_basics(player, index * 4)
    assert mirror.phase == "play"
    play = await table.wait_channel("Stage 1, round 1: PLAY")
    # Issue 35 item 4: when the phase ends, every player's DM says so (none keeps "waiting"), buttons gone.
    for player, dm in setup_dms.items():
        await fake.wait_for(lambda dm=dm: "PLAY** phase" in embed_text(fake.message(dm["id"]))
                            and not fake.message(dm["id"])["components"], what=f"{player}'s setup DM moved on")
        assert "waiting for the other players" not in embed_text(fake.message(dm["id"]))
    assert "Starting hand: **3 cards**" in play["content"]
    for pr in mirror.pairings:
        assert f"<@{table.user(pr.a)}> vs <@{table.user(pr.b)}>" in play["content"]
    await table.check()

    # --- play, stage 1 round 1: a confirmed win (with treasures spent) and a draw ----------------
    pr1, pr2 = mirror.pairings
    a, b, c, d = table.user(pr1.a), table.user(pr1.b), table.user(pr2.a), table.user(pr2.b)
    outsider = await table.report(world.member, "won")
    assert outsider.ephemeral and "not a player" in outsider.content
    report = await table.report(a, "won", treasures_left=0)
    assert f"<@{b}> confirms or disputes it" in report.content
    await table.check()  # nothing applied before confirmation
    own = await _confirm(fake, table, a, report.message)
    assert own.ephemeral and "your opponent must" in own.content
    confirmed = await _confirm(fake, table, b, report.message)
    assert "confirmed" in confirmed.content
    engine.report(mirror, pr1.a, "won", treasures={pr1.a: 0})
    await table.report(c, "draw")
    matched = await table.report(d, "draw")
    assert "matches" in matched.content
    engine.report(mirror, pr2.a, "draw")
    await table.wait_channel("Stage 1, round 2: DRAFT")
    await table.check()

    # --- draft, stage 1 round 2 ---------------------------------------------------------------
    dms = {p: await table.wait_prompt(p, "Stage 1, round 2") for p in players}
    for dm in dms.values():
        buy = component(dm, ActionSelect, game=table.game_id, what="buy")
        assert buy.get("disabled") and "Buy basic: 3 💰" in embed_text(dm)  # 3 treasures needed, nobody has them
    dms[a] = (await table.trade(a, dms[a], 0, 1)).message
    dms[b] = (await table.reroll(b, dms[b])).message
    current = mirror.players[table.seat(c)].basics
    new_basics = ["Mountain", "Mountain"] if current != ["Mountain", "Mountain"] else ["Plains", "Plains"]
    dms[c] = (await table.shift(c, dms[c], new_basics)).message
    assert f"Your basics are now {', '.join(new_basics)} (paid 1 💰)" in embed_text(dms[c])
    dms[a] = (await table.reroll(a, dms[a])).message  # a's last treasure
    assert mirror.players[table.seat(a)].treasures == 0
    assert table._button(dms[a], "reroll").get("disabled") and table._button(dms[a], "shift").get("disabled")

    # A second DM (resend), used; the first one is now out of date.
    stash = await fake.slash(d, "battler stash", guild_id=world.guild, channel_id=world.channel)
    assert stash.ephemeral and all(escape(card) in stash.content for card in mirror.players[table.seat(d)].stash)
    resend = await fake.slash(d, "battler resend", guild_id=world.guild, channel_id=world.channel)
    assert resend.ephemeral and "Sent: check your DMs" in (await resend.wait_followup())[0]["content"]
    old = dms[d]
    resent = await fake.wait_for(lambda: (m := table.prompt_messages(d)) and m[-1]["id"] != old["id"] and m[-1],
                                 what="the re-sent DM")
    dms[d] = (await table.trade(d, resent, 1, 0)).message
    stale = await fake.click(d, old, table._button(old, "done")["custom_id"])
    assert stale.ephemeral and "out of date, here is the current one" in stale.content
    fresh = await fake.wait_for(
        lambda: (m := table.prompt_messages(d)) and m[-1]["id"] not in (old["id"], resent["id"]) and m[-1],
        what="a fresh DM after the stale click",
    )
    assert all(escape(card) in embed_text(fresh) for card in mirror.players[table.seat(d)].stash)
    dms[d] = fresh
    await table.check()

    await bot.restart()  # kill -9 in the middle of the draft phase

    # The DM buttons sent before the crash keep working.
    dms[a] = (await table.trade(a, dms[a], 2, 3)).message
    before = len(fake.messages(world.channel))
    for player in players:
        await table.done(player, dms[player])
    assert mirror.phase == "play"
    play = await table.wait_channel("Stage 1, round 2: PLAY", since=before)
    roller = next((pr for pr in mirror.pairings if pr.d20_roll is not None), None)
    assert roller is not None and f"rolled **{roller.d20_roll}**" in play["content"]
    assert f"Even = <@{table.user(roller.even_seat)}>" in play["content"]
    await table.check()

    # --- play, stage 1 round 2: a concession and a dispute the organizer decides ----------------
    pr1, pr2 = mirror.pairings
    x, y, u, v = table.user(pr1.a), table.user(pr1.b), table.user(pr2.a), table.user(pr2.b)
    report = await table.report(x, "conceded")
    await _confirm(fake, table, y, report.message)
    engine.report(mirror, pr1.a, "conceded")
    report = await table.report(u, "won")
    before = len(fake.messages(world.channel))
    disputed = await _confirm(fake, table, v, report.message, "dispute")
    assert "disputed" in disputed.content
    ask = await table.wait_channel("is **disputed**", since=before)
    assert f"<@{world.admin}>" in ask["content"]
    decide = component(ask, DecideButton, table=gid, decision="b")["custom_id"]
    not_allowed = await fake.click(world.member, ask, decide)
    assert not_allowed.ephemeral and "organizer" in not_allowed.content
    await fake.click(world.admin, ask, decide)
    engine.report(mirror, pr2.b, "won")
    await table.wait_channel("Stage 1, round 3: DRAFT", since=before)
    await table.check()

    # --- the rest of the game: lower seat wins each game; one basic land is bought ---------------
    bought = double_clicked = False
    for _ in range(60):
        if mirror.phase == "over":
            break
        before = len(fake.messages(world.channel))
        if mirror.phase == "draft":
            title = f"Stage {mirror.stage}, round {mirror.round}"
            for player in [p.user_id for p in mirror.players if p.status in ("alive", "ghost")]:
                dm = await table.wait_prompt(player, title)
                if not bought and engine.action_costs(mirror, table.seat(player))["buy_basic"] is not None:
                    dm = (await table.buy(player, dm, "Forest")).message
                    assert "Forest" in embed_text(dm)
                    bought = True
                if not double_clicked:  # two clicks on Done at once: one counts, both show the DM as it is now
                    button = table._button(dm, "done")["custom_id"]
                    answers = await asyncio.gather(fake.click(player, dm, button), fake.click(player, dm, button))
                    assert all("Done: waiting" in r.content and r.callback_type == 7 for r in answers), answers
                    engine.done(mirror, table.seat(player))
                    double_clicked = True
                    continue
                await table.done(player, dm)
        else:
            for pr in [p for p in mirror.pairings if p.result is None]:
                report = await table.report(table.user(pr.a), "won")
                await _confirm(fake, table, table.user(pr.b), report.message)
                engine.report(mirror, pr.a, "won")
        needle = {"draft": f"Stage {mirror.stage}, round {mirror.round}: DRAFT",
                  "play": f"Stage {mirror.stage}, round {mirror.round}: PLAY", "over": "wins Treasure Battler"}
        await table.wait_channel(needle[mirror.phase], since=before)
        await table.check()
    assert mirror.phase == "over" and bought and double_clicked

    # --- the end: winner, standings to the leaderboard channel and the leaderboard table ---------
    winner = table.user(mirror.winner)
    win = await table.wait_channel("wins Treasure Battler")
    assert f"<@{winner}>" in win["content"]
    final = await fake.wait_for(
        lambda: [m for m in fake.messages(world.leaderboard_channel) if "final standings" in m.get("content", "")],
        what="final standings in the leaderboard channel",
    )
    assert f"1. <@{winner}>" in final[-1]["content"]
    expected, place = {}, 1
    for group in engine.standings(mirror):
        for seat in group:
            expected[table.user(seat)] = place
        place += len(group)
    assert await table.results() == expected
    late = await table.report(winner, "won")  # after the end: it says so, and where the result is
    assert late.ephemeral and late.content == (f"Treasure Battler #{table.game_id} has ended: its result is posted in "
                                               f"<#{world.channel}>."), late.content


async def test_closed_dms_are_resent_at_startup_and_end_rules_cancel(fake, bot, world):
    table = Table(fake, world, bot.database_url)
    try:
        choices = await fake.autocomplete(world.admin, "battler start", focused="cube", options={"cube": "batt"},
                                          guild_id=world.guild, channel_id=world.channel)
        assert "battler" in [c["value"] for c in choices]
        first, closed = world.players[:2]
        fake.set_dms_closed(closed)
        lobby = await table.start(cube="battler", seats=2)
        for player in (first, closed):
            await table.lobby(lobby, player, "join")
        await table.lobby(lobby, world.admin, "begin")
        await table.wait_channel(f"<@{closed}>, I can't DM you")
        await table.build_mirror()
        await table.choose_basics(first, 1)

        # The closed player opens their DMs; the bot crashes and comes back: the missing DM is re-sent.
        fake.set_dms_closed(closed, False)
        await bot.restart()
        await table.choose_basics(closed, 2)
        await table.wait_channel("Stage 1, round 1: PLAY")
        await table.check()
        # The delivered DM was not sent twice (it now says that the setup is over).
        setup = [m for m in fake.dms(first) if (m.get("embeds") or [{}])[0].get("title", "").startswith(
            f"Treasure Battler #{table.game_id}")]
        assert len(setup) == 1 and "That phase is over" in embed_text(setup[0])

        rules = await fake.slash(first, "battler rules", guild_id=world.guild, channel_id=world.channel)
        assert rules.ephemeral and "1, 1, 2, 3, 5" in rules.content
        assert "    5 |     3 |    7 |   15 |               2 |               5" in rules.content

        # /battler force asks first (issue 34), its button named by what it does; Cancel changes nothing.
        await _play_phase(fake, table)
        await table.wait_channel("Stage 1, round 2: DRAFT")
        refused = await fake.slash(first, "battler force", guild_id=world.guild, channel_id=world.channel)
        assert refused.ephemeral and "organizer" in refused.content and not refused.components
        version = await table.version()
        prompt = await fake.slash(world.admin, "battler force", guild_id=world.guild, channel_id=world.channel)
        assert prompt.ephemeral and prompt.content.startswith(f"End the DRAFT phase of Treasure Battler #{table.game_id}")
        assert [c.get("label") for c in prompt.components] == ["End the draft", "Keep waiting"]
        cancel = next(c["custom_id"] for c in prompt.components if c.get("label") == "Keep waiting")
        await fake.click(world.admin, prompt.message, cancel)
        assert await table.version() == version
        prompt = await fake.slash(world.admin, "battler force", guild_id=world.guild, channel_id=world.channel)
        confirm = next(c["custom_id"] for c in prompt.components if c.get("label") == "End the draft")
        forced = await fake.click(world.admin, prompt.message, confirm)
        assert forced.content == "The draft phase was ended by an organizer."
        engine.force_end_draft(table.mirror)
        await table.wait_channel("Stage 1, round 2: PLAY")
        await table.check()

        # /battler cancel: organizers only, asks first; no winner and nothing on the leaderboard.
        refused = await fake.slash(first, "battler cancel", guild_id=world.guild, channel_id=world.channel)
        assert refused.ephemeral and "organizer" in refused.content
        prompt = await fake.slash(world.admin, "battler cancel", guild_id=world.guild, channel_id=world.channel)
        assert prompt.content.startswith(f"Cancel Treasure Battler #{table.game_id} now?")
        confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
        ended = await fake.click(world.admin, prompt.message, confirm)
        assert "was cancelled" in ended.content
        await table.wait_channel("was cancelled by an organizer without a winner")
        # Issue 35 item 4: the lobby's first line says so too, never "has begun: choose your basic lands".
        await fake.wait_for(lambda: fake.message(lobby["id"])["content"] == f"Treasure Battler #{table.game_id} was cancelled.",
                            what="the cancelled lobby's first line")
        status = await fake.slash(world.member, "battler status", guild_id=world.guild, channel_id=world.channel)
        assert "Cancelled" in status.content and "cancelled ·" not in status.content
        assert await table.results() == {}
        late = await table.report(first, "won")
        assert late.ephemeral and f"Treasure Battler #{table.game_id} was cancelled" in late.content, late.content

        # A new lobby can open in the channel and be cancelled from its Cancel button.
        lobby = await table.start(cube="battler")
        cancel = await table.lobby(lobby, world.admin, "cancel")
        confirm = next(c["custom_id"] for c in cancel.components if c.get("label") == "Cancel the game")
        await fake.click(world.admin, cancel.message, confirm)
        await fake.wait_for(lambda: not fake.message(lobby["id"])["components"], what="lobby closed")
    finally:
        await table.close()


async def _play_phase(fake, table: Table) -> None:
    """Every open game: the lower seat wins, the opponent confirms (and the mirror follows)."""
    for pr in [p for p in table.mirror.pairings if p.result is None]:
        report = await table.report(table.user(pr.a), "won")
        await _confirm(fake, table, table.user(pr.b), report.message)
        engine.report(table.mirror, pr.a, "won")


def _carousel_order_after_draft(mirror: engine.BattlerState) -> list[int]:
    """The carousel's order once everyone is done (the engine, on a copy: it is seeded)."""
    copy = engine.BattlerState.from_dict(mirror.to_dict())
    for p in engine.players_in_play(copy):
        if not p.done:
            engine.done(copy, p.seat)
    return copy.carousel_order


async def test_a_stage_carousel_from_the_packyard_through_discord_matches_the_engine(fake, bot, world):
    table = Table(fake, world, bot.database_url)
    try:
        await _stage_carousel(table, fake, bot, world)
    finally:
        await table.close()


async def _stage_carousel(table: Table, fake, bot, world) -> None:
    players = world.players[:4]
    lobby = await table.start(cube="battler", seats=4, carousel="stage", carousel_from="packyard", seed=SEED + 1)
    assert "carousel every stage (3 cards each, from the packyard)" in embed_text(lobby)
    for player in players:
        await table.lobby(lobby, player, "join")
    await table.lobby(lobby, world.admin, "begin")
    await table.build_mirror()
    mirror = table.mirror
    for index, player in enumerate(players):
        await table.choose_basics(player, index)
    await table.wait_channel("Stage 1, round 1: PLAY")

    # Round 2: no carousel in a stage carousel (and no random card with any carousel).
    await _play_phase(fake, table)
    await table.wait_channel("Stage 1, round 2: DRAFT")
    assert all(len(p.stash) == 5 for p in mirror.players)
    dms = {p: await table.wait_prompt(p, "Stage 1, round 2") for p in players}
    before = len(fake.messages(world.channel))
    for player in players:
        await table.done(player, dms[player])
    assert mirror.phase == "play"
    await table.wait_channel("Stage 1, round 2: PLAY", since=before)

    # Round 3, the stage's last: its draft ends with the carousel. The last of the first lap gets a
    # full pool (15 cards), so they swap and pass, and pick twice in a row where the order snakes.
    await _play_phase(fake, table)
    await table.wait_channel("Stage 1, round 3: DRAFT")
    dms = {p: await table.wait_prompt(p, "Stage 1, round 3") for p in players}
    full = _carousel_order_after_draft(mirror)[3]

    def fill(state: engine.BattlerState) -> None:
        missing = engine.POOL_MAX - len(state.players[full].stash)
        state.players[full].stash += state.packpile[:missing]
        del state.packpile[:missing]

    await table.edit_state(fill)
    before = len(fake.messages(world.channel))
    for player in players:
        await table.done(player, dms[player])
    assert mirror.phase == "carousel" and len(mirror.carousel_cards) == 40  # the packyard: two rounds of packs
    order = list(mirror.carousel_order)
    assert order[4:8] == order[3::-1] and order[8:] == order[:4]  # snake
    start = await table.wait_channel("CAROUSEL", since=before)
    lap = ", ".join(f"{i + 1}. <@{table.user(seat)}>" for i, seat in enumerate(order[:4]))
    assert f"Order: {lap}" in start["content"]
    # The announcement pings only the first picker.
    posted = [c for c in fake.calls("POST", rf"/channels/{world.channel}/messages$") if "CAROUSEL" in c.json.get("content", "")]
    assert posted[-1].json["allowed_mentions"]["users"] == [table.user(order[0])]
    await table.check()

    first = await table.wait_pick_prompt()
    # A player whose turn it is not is refused, even with a button for the current version.
    other = table.user(order[1])
    version = await table.version()
    take = ActionButton.custom_id_for(game=table.game_id, seat=order[1], version=version, action="take", arg=0)
    refused = await forged_click(fake, other, dms[other], take)
    assert refused.ephemeral and "not your turn" in refused.content
    # A card the carousel does not have is refused (a forged index).
    custom_id = ActionButton.custom_id_for(game=table.game_id, seat=order[0], version=version, action="take", arg=999)
    refused = await forged_click(fake, table.user(order[0]), first, custom_id)
    assert refused.ephemeral and "not valid" in refused.content
    await table.check()

    message = first
    old_button = component(first, ActionButton, game=table.game_id, action="take")["custom_id"]
    for turn, seat in enumerate(order):
        user = table.user(seat)
        if turn and seat != order[turn - 1]:
            message = await table.wait_pick_prompt()
        if seat != full:
            result = await table.take(user, message, (turn * 7) % len(mirror.carousel_cards))
        elif turn == 3:
            for action, arg in (("swap", 40), ("page", 2)):  # a card or a page the carousel does not have
                custom_id = ActionButton.custom_id_for(game=table.game_id, seat=seat, version=await table.version(),
                                                          action=action, arg=arg)
                refused = await forged_click(fake, user, message, custom_id)
                assert refused.ephemeral and "not valid" in refused.content
            result = await table.swap(user, message, 25, 2)  # on the second page
        elif turn == 4:
            result = await table.pass_pick(user, message)
        else:
            result = await table.swap(user, message, 0, 0)
        if turn + 1 < len(order) and order[turn + 1] == seat:
            message = result.message  # the same player again: their DM was re-rendered in place
            assert f"carousel pick {turn + 2}/12" in embed_text(message)
        elif turn == 0:  # a copy of the first picker's DM from before their pick is out of date
            stale = await forged_click(fake, user, first, old_button)
            assert stale.ephemeral and "out of date: the game is now in the CAROUSEL phase" in stale.content
        if turn < len(order) - 1:
            await table.check()
    assert mirror.phase == "play" and len(mirror.players[full].stash) == engine.POOL_MAX
    assert [len(p.stash) for p in mirror.players if p.seat != full] == [8, 8, 8]
    await table.wait_channel("Stage 1, round 3: PLAY")
    await table.check()


TRAPS = ("@everyone ", "[Lightning Bolt](http://evil.example/phish) ", "**__~~||")


def _long_name(i: int) -> str:
    """200 characters of markdown, a masked link or a mass ping: the worst a cube may hold."""
    start = f"{TRAPS[i % len(TRAPS)]}{i:03d} "
    return start + "*_`>-" * ((200 - len(start)) // 5) + "x" * ((200 - len(start)) % 5)


def _shown_literally(text: str) -> bool:
    return "](http" not in text and "@everyone" not in text and "**__~~||" not in text


async def test_sixteen_players_and_200_character_card_names_stay_within_discord_limits(fake, bot, world):
    table = Table(fake, world, bot.database_url)
    try:
        await _sixteen_long_names(table, fake, world)
    finally:
        await table.close()


async def _sixteen_long_names(table: Table, fake, world) -> None:
    players = world.players
    names = [_long_name(i) for i in range(engine.MIN_CARDS_PER_PLAYER * len(players))]
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Long"}, attachments={"file": ("long.txt", "\n".join(names).encode())})
    assert "320 cards" in added.content, added.content
    lobby = await table.start(cube="Long", seats=16, carousel="round", seed=SEED + 2)
    for player in players:
        await table.lobby(lobby, player, "join")
    await table.lobby(lobby, world.admin, "begin")
    await table.build_mirror()
    mirror = table.mirror
    assert sorted(mirror.packpile + [c for p in mirror.players for c in p.stash]) == sorted(names)
    for index, player in enumerate(players):
        await table.choose_basics(player, index % len(ui.BASIC_COMBOS))
    await table.wait_channel("Stage 1, round 1: PLAY")
    await table.check()  # 16 players in the status

    await _play_phase(fake, table)
    await table.wait_channel("Stage 1, round 2: DRAFT")
    dms = {p: await table.wait_prompt(p, "Stage 1, round 2") for p in players}
    dms[players[0]] = (await table.trade(players[0], dms[players[0]], 4, 4)).message
    stash = await fake.slash(players[0], "battler stash", guild_id=world.guild, channel_id=world.channel)
    assert stash.ephemeral and all(escape(card)[:50] in stash.content for card in mirror.players[table.seat(players[0])].stash)
    for player in players:
        await table.done(player, dms[player])
    assert mirror.phase == "carousel"
    await table.wait_channel("CAROUSEL")
    await table.check()
    while mirror.phase == "carousel":
        user = table.picker()
        await table.take(user, await table.wait_pick_prompt(), 0)
    await table.wait_channel("Stage 1, round 2: PLAY")
    await table.check()

    # Discord would have refused nothing, and no name was rendered as a link, a ping or formatting.
    assert [str(c) for c in fake.rest_log if c.status >= 400] == []
    sent = fake.messages(world.channel) + [m for p in players for m in fake.dms(p)]
    for message in sent:
        assert _shown_literally(message.get("content", "") + embed_text(message)), message

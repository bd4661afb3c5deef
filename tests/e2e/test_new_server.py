"""A new server's first hour, through the real bot process and the fake Discord (issue 25, "Done
when"): the bot joins and greets the server once in its system channel; the admin reads `/help` and
`/help format:<each>`, sets the server up (`/config set organizer_role`, `leaderboard_channel`,
`pictures`) and adds a cube; then the organizer runs a first event of every format to its end with
the commands of issue 25's one vocabulary (start, join, begin, report, status, end), each as short
as its rules allow: a 2-seat draft of a tiny cube, a Goldfish event, a whole 2-player Treasure
Battler game, a 1-round Turnabout event, a 421 league to its first result, a Vortex game to its
first turn. What the players read is checked at each step (key sentences), the synced command tree
has none of the old names, and the leaderboard shows every finished format."""

from __future__ import annotations

import dataclasses
import re

import pytest

from bot.games.battler import rules as battler_engine
from bot.server import help
from tests.e2e.conftest import World
from tests.e2e.drivers.battler import BattlerDriver
from tests.e2e.drivers.common import embed_text, eventually, message_text
from tests.e2e.drivers.draft import card_of, live_pack_messages, pick_buttons
from tests.e2e.drivers.four_two_one import FourTwoOneDriver, as_text, legal_deck
from tests.e2e.drivers.turnabout import TurnaboutDriver
from tests.e2e.drivers.vortex import VortexDriver
from tests.fake_discord import MANAGE_GUILD, CommandNotAvailable

pytestmark = pytest.mark.e2e

# Subcommand names issue 25 retired (no dead aliases): no command group has them any more.
OLD_NAMES = {"register", "drop", "standings", "scores", "submit", "close", "event"}
FORMAT_KEYS = ["goldfish", "draft", "battler", "turnabout", "421", "vortex"]
CUBE = [f"Club Card {i:02d}" for i in range(24)]
CUBE_FILE = "\n".join([*CUBE, "8 Island", "8 Forest"]).encode()  # 40 cards: a draft's and a Vortex game's
SET_FILE = ("\n".join(f"C,Walk Common {i:02d}" for i in range(1, 31)) + "\n"
            + "\n".join(f"U,Walk Uncommon {i:02d}" for i in range(1, 11)) + "\nR,Walk Rare\nM,Walk Mythic\n").encode()


@dataclasses.dataclass(frozen=True)
class Club:
    """The new server: its ids, a channel per format (the first one, general, is its system channel)."""

    world: World  # guild, results channel, organizer role and users (channel: general)
    channels: dict[str, int]

    def at(self, fmt: str) -> World:
        """The server as a format's driver sees it: that format's channel."""
        return dataclasses.replace(self.world, channel=self.channels[fmt])


def new_club(fake, world: World) -> Club:
    """A server that does not have the bot yet: its channels, an Organizer role and members (the
    users of `world`, who are in the test's first server too)."""
    shift = 500
    club = dataclasses.replace(world, guild=world.guild + shift, channel=world.channel + shift,
                               leaderboard_channel=world.leaderboard_channel + shift,
                               organizer_role=world.organizer_role + shift)
    fake.add_guild(club.guild, "New Club", owner_id=club.admin, announce=False)
    channels = {"general": club.channel}
    fake.add_channel(club.guild, club.channel, "general")  # the first text channel: the system channel
    fake.add_channel(club.guild, club.leaderboard_channel, "results")
    for number, fmt in enumerate(["draft", "goldfish", "battler", "turnabout", "421", "vortex"], start=1):
        channels[fmt] = club.channel + number
        fake.add_channel(club.guild, channels[fmt], f"{fmt}-events")
    fake.add_role(club.guild, club.organizer_role, "Organizer")
    fake.add_member(club.guild, club.admin, "admin", permissions=MANAGE_GUILD)
    fake.add_member(club.guild, club.organizer, "organizer", roles=[club.organizer_role])
    fake.add_member(club.guild, club.member, "member")
    for index, user in enumerate(club.players[:6]):
        fake.add_member(club.guild, user, f"player{index}")
    return Club(club, channels)


async def slash(fake, club: Club, user: int, command: str, fmt: str = "general", **options):
    return await fake.slash(user, command, guild_id=club.world.guild, channel_id=club.channels[fmt],
                            options=options or None)


def subcommands(fake) -> dict[str, set[str]]:
    """Each synced command group -> every subcommand path under it ("set add" for /421 set add)."""
    found: dict[str, set[str]] = {}

    def walk(group: str, prefix: str, options: list) -> None:
        for option in options:
            if option["type"] in (1, 2):  # a subcommand, a subcommand group
                path = f"{prefix}{option['name']}"
                found.setdefault(group, set()).add(path)
                walk(group, f"{path} ", option.get("options") or [])

    for command in fake.synced_commands():
        walk(command["name"], "", command.get("options") or [])
    return found


def old_names_in(paths: set[str]) -> set[str]:
    return {path for path in paths if set(path.split()) & OLD_NAMES}


async def gone(driver, user: int, *commands: str | tuple[str, dict]) -> None:
    """Each old command (or old option, as `(command, options)`) is refused by the Discord client
    itself: the bot no longer has it, not even as an alias."""
    for command in commands:
        name, options = command if isinstance(command, tuple) else (command, {})
        with pytest.raises(CommandNotAvailable):
            await driver.slash(user, name, **options)


async def ready(bot) -> None:
    """Until the bot is past discord.py's wait for its servers after READY: a server added from then
    on is a server that adds the bot (before, discord.py takes it for one of its own)."""
    async def logged() -> bool:
        return "ready as" in bot.log_path.read_text(errors="replace")

    await eventually(logged, timeout=30, what="the bot ready")


async def test_a_new_server_from_help_to_a_first_event_of_every_format(fake, bot, world):
    await ready(bot)  # this test's own bot process (one for the whole walk)
    club = new_club(fake, world)
    await _joins_and_greets(fake, club)
    await _help(fake, club)
    await _setup(fake, club)
    tree = subcommands(fake)
    for group, paths in tree.items():
        assert not old_names_in(paths), (group, old_names_in(paths))
    assert {"start", "join", "leave", "begin", "status", "end", "cancel"} <= tree["turnabout"]
    assert {"resend", "cancel"} <= tree["vortex"] & tree["battler"]

    await _draft(fake, club)
    await _goldfish(fake, club)
    await _battler(fake, club, bot.database_url)
    await _turnabout(fake, club, bot.database_url)
    await _four_two_one(fake, club, bot.database_url)
    await _vortex(fake, club, bot.database_url)
    await _leaderboard(fake, club, ["goldfish", "battler", "turnabout", "421", "vortex"])
    # Greeted once: the bot's only post of its own in general (the rest there answered commands).
    assert [m["content"] for m in fake.messages(club.channels["general"]) if m["type"] == 0] == [help.GREETING]


# ------------------------------------------------------------------------------- first contact


async def _joins_and_greets(fake, club: Club) -> None:
    assert fake.bot_joins(club.world.guild)
    [greeting] = await fake.wait_for(lambda: fake.messages(club.channels["general"]), what="the greeting")
    text = greeting["content"]
    assert text.startswith("Hello! I run casual Magic: The Gathering formats")
    assert "**To set me up** (someone with Manage Server):" in text
    for number, step in enumerate(help.SETUP_STEPS, start=1):
        assert f"{number}. {step}" in text
    assert "`/help` shows how to start each format." in text
    assert fake.pinged_users(greeting) == set()


async def _help(fake, club: Club) -> None:
    shown = await slash(fake, club, club.world.admin, "help")
    assert shown.ephemeral
    for start in ("/draft start", "/goldfish start", "/battler start", "/turnabout start", "/421 start",
                  "/vortex start"):
        assert start in shown.content
    for step in ("/config set organizer_role", "/config set leaderboard_channel", "/config set pictures"):
        assert step in shown.content
    for key in FORMAT_KEYS:
        page = await slash(fake, club, club.world.admin, "help", format=key)
        text = page.content
        assert page.ephemeral and "**Full rules:**" in text and f"docs/rules/{key}.md" in text
        group = key
        flow = [f"/{group} start", f"/{'draft' if key == 'goldfish' else group} join", "begin"]
        positions = [text.index(word) for word in flow]
        assert positions == sorted(positions), (key, flow)
        for old in OLD_NAMES:  # the help cites no retired command
            assert f"/{group} {old}`" not in text and f"/{group} {old} " not in text, (key, old)
    for key, commands in {"goldfish": ["/goldfish report", "/goldfish status", "/goldfish end", "/goldfish cancel"],
                          "turnabout": ["/turnabout join", "/turnabout pair", "/turnabout report",
                                        "/turnabout status", "/turnabout end"],
                          "421": ["/421 build", "the round post's buttons", "**Lost? Choose A–D**", "/421 status",
                                  "/421 end"],
                          "vortex": ["**Draw**", "**Pass**", "**Play a card**", "/vortex draw", "/vortex life",
                                     "/vortex status", "/vortex end"],
                          "battler": ["the PLAY post's buttons", "/battler status", "/battler cancel"]}.items():
        text = (await slash(fake, club, club.world.member, "help", format=key)).content
        for command in commands:
            assert command in text, (key, command)


async def _setup(fake, club: Club) -> None:
    w = club.world
    # Before the setup only Manage Server runs events: the Organizer role means nothing yet.
    early = await slash(fake, club, w.organizer, "turnabout start", "turnabout")
    assert early.ephemeral and "organizer" in early.content.lower(), early.content
    refused = await fake.slash(w.member, "config set", guild_id=w.guild, channel_id=club.channels["general"],
                               options={"pictures": "off"}, enforce_permissions=False)
    assert refused.ephemeral and "Manage Server" in refused.content
    saved = await slash(fake, club, w.admin, "config set", organizer_role=w.organizer_role,
                        leaderboard_channel=w.leaderboard_channel, pictures="off")
    assert saved.ephemeral and "Settings saved" in saved.content
    settings = embed_text(saved.message)
    assert f"Organizer role\n<@&{w.organizer_role}>" in settings
    assert f"Leaderboard channel\n<#{w.leaderboard_channel}>" in settings and "Card pictures\noff" in settings
    shown = embed_text((await slash(fake, club, w.admin, "config show")).message)
    assert f"<@&{w.organizer_role}>" in shown and f"<#{w.leaderboard_channel}>" in shown
    assert "Missing permissions\nNone: I have what I need in every channel I post in." in shown
    added = await fake.slash(w.organizer, "cube add", guild_id=w.guild, channel_id=club.channels["draft"],
                             options={"name": "Club cube"}, attachments={"file": ("club.txt", CUBE_FILE)})
    assert "40 cards" in added.content, added.content
    listed = await slash(fake, club, w.member, "cube list")
    assert "Club cube" in message_text(listed.message or {"content": listed.content})


# ------------------------------------------------------------------------------- the formats


async def _draft(fake, club: Club) -> None:
    """A 2-seat, 1 pack of 3 draft of the server's cube, picked by DM buttons, to its pools."""
    w, here = club.world, club.at("draft")
    players = w.players[:2]
    started = await slash(fake, club, w.organizer, "draft start", "draft", cube="Club cube", packs=1,
                          pack_size=3, seats=2)
    assert not started.ephemeral and started.message is not None, started.content
    pod = int(re.search(r"#(\d+)", started.content).group(1))
    lobby = message_text(started.message)
    assert f"Draft #{pod} · cube Club cube" in lobby and "1 pack of 3 cards · up to 2 players" in lobby, lobby
    first = await slash(fake, club, players[0], "draft join", "draft")
    assert first.ephemeral and first.content == f"You joined draft #{pod}.", first.content
    left = await slash(fake, club, players[0], "draft leave", "draft")
    assert left.ephemeral and left.content == f"You left draft #{pod}.", left.content
    for player in players:  # the second join fills the lobby: the draft begins by itself
        await slash(fake, club, player, "draft join", "draft")
    status = message_text((await slash(fake, club, w.member, "draft status", "draft")).message)
    assert f"Draft #{pod} · In progress" in status and "Waiting on" in status, status
    picked: dict[int, list[str]] = {p: [] for p in players}

    def ready() -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in players if (msgs := live_pack_messages(fake, p))]

    while sum(map(len, picked.values())) < 6:
        player, message = (await fake.wait_for(ready, timeout=20, what="a pack DM"))[0]
        assert not message.get("attachments")  # pictures are off on this server: the pack is text
        assert all(card_of(b) in CUBE or card_of(b) in ("Island", "Forest") for b in pick_buttons(message))
        button = pick_buttons(message)[0]
        result = await fake.click(player, message, button["custom_id"])
        assert "you took" in result.content, result.content
        picked[player].append(card_of(button))
    summary = await fake.wait_for(
        lambda: [m for m in fake.messages(here.channel) if "is complete" in (m.get("content") or "")],
        what="the draft's summary")
    assert summary[0]["content"].startswith(f"🏁 **Draft #{pod} is complete.**"), summary[0]["content"]
    assert all(f"<@{player}>: 3 cards, first picks" in summary[0]["content"] for player in players)
    for player in players:
        final = await fake.wait_for(
            lambda p=player: [m for m in fake.dms(p) if m.get("attachments") and "complete" in str(m.get("embeds"))],
            what=f"the pool DM of {player}")
        assert fake.attachment_bytes(final[-1]["attachments"][0]).decode().splitlines() == picked[player]


async def _battler(fake, club: Club, database_url: str) -> None:
    """A whole 2-player game: start, join, begin, basics by DM, every game reported and confirmed, every
    draft phase done, to the winner and the final standings."""
    w = club.world
    t = BattlerDriver(fake, club.at("battler"), database_url)
    try:
        players = w.players[:2]
        lobby = await t.start(w.organizer, cube="battler", seats=2, seed=7)
        assert "Treasure Battler" in message_text(lobby)
        await gone(t, w.organizer, "end")  # the lobby's `end` is `cancel` now
        joined = await t.slash(players[0], "join")
        assert joined.ephemeral and joined.content == f"You joined game #{t.game_id}.", joined.content
        await t.join_all(players[1:])
        begun = await t.slash(w.organizer, "begin")
        assert "has begun" in begun.content, begun.content
        await t.build_mirror()
        for index, player in enumerate(players):
            await t.choose_basics(player, index)
        await gone(t, players[0], ("stash", {"resend": True}))  # `/battler resend` instead
        mirror = t.mirror
        for _ in range(40):
            if mirror.phase == "over":
                break
            before = len(fake.messages(t.world.channel))
            if mirror.phase == "draft":
                title = f"Stage {mirror.stage}, round {mirror.round}"
                for player in [p.user_id for p in mirror.players if p.status in ("alive", "ghost")]:
                    await t.done(player, await t.wait_prompt(player, title))
            else:
                assert mirror.phase == "play", mirror.phase
                for pr in [p for p in mirror.pairings if p.result is None]:
                    report = await t.report(t.user(pr.a), "won")
                    assert f"<@{t.user(pr.b)}> confirms or disputes it" in report.content, report.content
                    confirmed = await t.answer(t.user(pr.b), report.message)
                    assert "confirmed" in confirmed.content, confirmed.content
                    battler_engine.report(mirror, pr.a, "won")
            needle = {"draft": f"Stage {mirror.stage}, round {mirror.round}: DRAFT",
                      "play": f"Stage {mirror.stage}, round {mirror.round}: PLAY", "over": "wins Treasure Battler"}
            await t.wait_channel(needle[mirror.phase], since=before)
        assert mirror.phase == "over"
        await t.check()  # /battler status shows the game as the engine has it
        winner = t.user(mirror.winner)
        assert f"<@{winner}>" in (await t.wait_channel("wins Treasure Battler"))["content"]
        final = await _results_post(fake, club, "final standings", "Treasure Battler")
        assert f"1. <@{winner}>" in final
        assert await t.results() == {winner: 1, next(p for p in players if p != winner): 2}
    finally:
        await t.close()


async def _turnabout(fake, club: Club, database_url: str) -> None:
    """A 1-round event of 4: join with a deck, begin, pair, report (confirmed by the opponent), status, end."""
    w = club.world
    t = TurnaboutDriver(fake, club.at("turnabout"), database_url)
    try:
        players = w.players[:4]
        lobby = await t.start(w.organizer, rounds=1)
        await gone(t, players[0], ("register", {"deck": "Burn"}), "drop", "standings")
        assert lobby["embeds"][0]["footer"]["text"].startswith("Join with /turnabout join deck")
        for index, user in enumerate(players):
            joined = await t.join(user, f"Deck {index}", "dominaria")
            assert joined.ephemeral and joined.content.startswith("You joined"), joined.content
        left = await t.slash(players[3], "leave")  # before the event begins: at once, nothing to confirm
        assert left.ephemeral and left.content.startswith(f"You left Turnabout #{t.event_id}"), left.content
        few = await t.slash(w.organizer, "begin")
        assert few.ephemeral and "at least 4 registered players; 3 so far" in few.content, few.content
        again = await t.join(players[3], "Deck 3", "dominaria")
        assert again.content.startswith("You joined"), again.content
        closed = await t.slash(w.organizer, "begin")
        assert closed.ephemeral and "has begun" in closed.content, closed.content  # the channel hears it once
        await t.wait_channel("registration is closed with 4 players")
        paired = await t.slash(w.organizer, "pair")
        assert paired.ephemeral and "Round 1 of" in paired.content, paired.content
        await t.wait_channel("round 1 of 1")
        state = await t.state()
        vp: dict[int, int] = {}
        for m in state.round_matches():
            a, b = state.players[m.a].user_id, state.players[m.b].user_id
            for game in (1, 2):
                report = await t.report(a, "won", 7, game)
                assert f"<@{a}> **won** with 7" in report.content and "**17 match points**" in report.content, report.content
                reply = await t.answer(b, report.message)
                assert reply.content.startswith(f"✅ Match {m.number}, game {game}: <@{a}> **won** with 7 "), reply.content
                assert f"confirmed by <@{b}>." in reply.content and not reply.components
            # 34 MP to 0: 25–5 VP (FORMATS.md §3's table), in the match's own post (not in the report's too).
            assert "Victory Points" not in reply.content, reply.content
            result = await t.wait_channel(f"🏁 Match {m.number}:")
            assert "**25–5 Victory Points**" in result["content"], result["content"]
            vp |= {a: 25, b: 5}
        complete = await t.wait_channel("Round 1 is complete")
        assert f"<@{w.organizer}> ends the event with `/turnabout end`" in complete["content"]
        assert fake.pinged_users(complete) == {w.organizer}
        status = embed_text((await t.slash(w.member, "status")).message)
        for user, points in vp.items():
            assert re.search(rf"<@{user}> — Deck \d: \*\*{points} VP\*\*", status), (user, status)
        _, ended = await t.confirmed_command(w.organizer, "end")
        assert "has ended" in ended.content, ended.content
        final = await _results_post(fake, club, "final ranking", "Turnabout")
        assert all(f"<@{user}>" in final for user in players)
    finally:
        await t.close()


async def _four_two_one(fake, club: Club, database_url: str) -> None:
    """A 2-player league of an uploaded set: start, join, begin, build, the first match reported and
    confirmed, status, end."""
    w = club.world
    t = FourTwoOneDriver(fake, club.at("421"), database_url)
    try:
        added = await t.set_add(w.organizer, name="walk", file=("walk.txt", SET_FILE), title="Walk Set")
        assert "Added the set `walk`: **Walk Set**, 42 cards" in added.content, added.content
        lobby = await t.start(w.organizer, sets="walk")
        assert "`walk` Walk Set (42 cards)" in embed_text(lobby)
        players = w.players[:2]
        await t.join_all(players)
        begun = await t.slash(w.organizer, "begin")
        assert "has begun" in begun.content, begun.content
        order = [p.user_id for p in (await t.state()).players]
        for index, user in enumerate(order):
            built = await t.deck(user, "build", as_text(legal_deck(await t.state(), skip=index * 5)))
            assert built.content.startswith(f"Deck #{index + 1} of 421 league #{t.league_id} is built"), built.content
        round_one = await t.wait_channel("round 1**")
        state = await t.state()
        a, b = (state.players[s].user_id for s in (state.matches[0].a, state.matches[0].b))
        assert f"Match A: <@{a}> vs <@{b}>" in round_one["content"]
        claim = await t.report(a, "won")
        assert f"reports **<@{a}> won**" in claim.content, claim.content
        reply = await t.answer(b, claim.message)
        assert reply.content.endswith(f"Match A: **<@{a}> won**, confirmed by <@{b}>."), reply.content
        status = embed_text((await t.slash(w.member, "status")).message)
        assert f"1. <@{a}> — **2** points" in status, status
        await gone(t, w.member, "standings")
        _, ended = await t.confirmed_command(w.organizer, "end")
        assert "ended" in ended.content, ended.content
        final = await _results_post(fake, club, "final standings", "421")
        assert f"1. <@{a}> — **2** points" in final
    finally:
        await t.close()


async def _vortex(fake, club: Club, database_url: str) -> None:
    """A 2-player game of the server's cube: start, join, begin, the opening picks and basic lands by
    DM, then the first turn (draw, play, life, pass), status, and the end with a winner."""
    w = club.world
    t = VortexDriver(fake, club.at("vortex"), database_url)
    try:
        players = w.players[:2]
        lobby = await t.start(w.organizer, cube="Club cube", seed=11)
        assert "40 cards" in embed_text(lobby)
        await t.join_all(players)
        begun = await t.slash(w.organizer, "begin")
        assert "has begun" in begun.content, begun.content
        await t.wait_channel("has begun. Turn order:")
        while (state := await t.state()).draft is not None and state.phase != "basics":
            await t.pick_pending()
        await t.wait_channel("each player chooses 3 basic lands")
        for user in players:
            await t.choose_basics(user, ["Island", "Island", "Forest"])
        state = await t.state()
        a = t.active(state)
        began = await t.wait_channel("play begins")  # the opening's message, edited: it pings nobody
        assert not fake.pinged_users(began)
        turn = await t.wait_channel("**Turn 1**")  # the first turn's message pings its player alone
        assert fake.pinged_users(turn) == {a}
        drawn = await t.slash(a, "draw")
        assert drawn.ephemeral and "pick 1 of 1" in drawn.content, drawn.content
        await t.wait_channel(f"<@{a}> draws 1")
        await gone(t, a, ("hand", {"resend": True}))  # `/vortex resend` instead
        resent = await t.slash(a, "resend")
        assert resent.ephemeral and "Sent: check your DMs" in (await resent.wait_followup())[0]["content"]
        await t.pick(a)
        card = next(c for c in t.player(await t.state(), a).hand if c.startswith("Club Card"))
        played = await t.slash(a, "play", card=card)
        assert played.ephemeral and "is on the battlefield" in played.content, played.content
        await t.wait_channel(f"🃏 <@{a}> plays **{card}**.")
        lost = await t.slash(a, "life", amount=-3)
        assert lost.ephemeral and "Your life is now 17" in lost.content, lost.content
        await t.wait_channel(f"<@{a}> loses 3 life (life 17).")
        passed = await t.slash(a, "pass")
        assert passed.ephemeral and "You passed" in passed.content, passed.content
        await t.wait_channel("**Turn 2**")
        status = embed_text((await t.slash(w.member, "status")).message)
        assert f"<@{a}> — life **17** · pack" in status and "battlefield 1" in status, status
        _, ended = await t.confirmed_command(w.organizer, "end", winner=a)
        assert "has ended" in ended.content, ended.content
        told = await t.wait_channel("is over")
        assert f"<@{a}> wins" in told["content"]
        final = await _results_post(fake, club, "is over", "Vortex")
        assert f"<@{a}> wins" in final
    finally:
        await t.close()


GOLDFISH_FORM = {"life_lost": "0", "cards_milled": "0", "poison": "0", "game_wins": "0"}
GOLDFISH_LINE = re.compile(r"\*\*(\d+)\.\*\* <@(\d+)> — \*\*([\d.]+)\*\*")


async def _goldfish(fake, club: Club) -> None:
    """A Goldfish event for a draft played in paper: start, each player's report (the form), status,
    end; and a second event cancelled (nothing recorded)."""
    w, here = club.world, club.at("goldfish")
    p0, p1 = w.players[:2]

    async def goldfish(user: int, command: str, **options):
        return await fake.slash(user, f"goldfish {command}", guild_id=w.guild, channel_id=here.channel,
                                options=options or None)

    for old in ("event", "submit", "scores", "close"):  # now start, report, status, end
        with pytest.raises(CommandNotAvailable):
            await goldfish(w.organizer, old, **({"name": "Old", "turns": 7} if old == "event" else {}))
    refused = await goldfish(w.member, "start", name="Paper night", turns=7)
    assert refused.ephemeral and "organizer" in refused.content.lower(), refused.content
    started = await goldfish(w.organizer, "start", name="Paper night", turns=7)
    assert not started.ephemeral and re.match(r"Goldfish event \*\*#\d+ Paper night\*\* is open for scores \(7 turns",
                                              started.content), started.content
    assert started.content.endswith("play their game, then `/goldfish report`."), started.content
    for player, values, score in ((p0, {"life_lost": "20", "cards_milled": "4"}, "22"),
                                  (p1, {"life_lost": "7", "poison": "3"}, "13")):
        opened = await goldfish(player, "report")
        assert opened.modal is not None, opened.content
        saved = await fake.submit_modal(player, opened, {**GOLDFISH_FORM, **values, "writeup": "T3 Fireball"})
        assert saved.ephemeral and f"Saved your score for **Paper night**: **{score}**" in saved.content, saved.content
    status = await goldfish(w.member, "status")
    assert status.ephemeral  # a look-up is quiet unless asked to post it
    assert GOLDFISH_LINE.findall(embed_text(status.message)) == [("1", str(p0), "22"), ("2", str(p1), "13")]
    not_organizer = await goldfish(p0, "end")
    assert not_organizer.ephemeral and "organizer" in not_organizer.content.lower(), not_organizer.content
    prompt = await goldfish(w.organizer, "end")
    assert prompt.ephemeral and prompt.content.startswith("End **Paper night** now?"), prompt.content
    confirm = next(c["custom_id"] for c in prompt.components if c.get("label") == "End the event")
    ended = await fake.click(w.organizer, prompt.message, confirm)
    assert "**Paper night** has ended" in ended.content and f"<#{w.leaderboard_channel}>" in ended.content, ended.content
    final = await fake.wait_for(lambda: [m for m in fake.messages(w.leaderboard_channel)
                                         if "Final standings" in str(m.get("embeds"))], what="Goldfish's final standings")
    assert GOLDFISH_LINE.findall(embed_text(final[-1]))[:2] == [("1", str(p0), "22"), ("2", str(p1), "13")]
    late = await goldfish(p1, "report")
    assert late.modal is None and late.ephemeral, late.content

    # A second event, cancelled: asks first, deletes it, nothing goes to the leaderboard.
    await goldfish(w.organizer, "start", name="Rainy night", turns=10)
    prompt = await goldfish(w.organizer, "cancel")
    assert prompt.ephemeral and prompt.content.startswith("Cancel **Rainy night**?"), prompt.content
    confirm = next(c["custom_id"] for c in prompt.components if c.get("label") == "Cancel the event")
    cancelled = await fake.click(w.organizer, prompt.message, confirm)
    assert "**Rainy night** is cancelled" in cancelled.content and "nothing was recorded" in cancelled.content
    tree = subcommands(fake)["goldfish"]
    assert not old_names_in(tree) and {"start", "report", "status", "end", "cancel"} <= tree


# ------------------------------------------------------------------------------- results


async def _results_post(fake, club: Club, needle: str, name: str) -> str:
    """The newest post in the results channel with `needle` and `name`."""
    def found():
        posts = [m["content"] for m in fake.messages(club.world.leaderboard_channel)
                 if needle in (m.get("content") or "") and name in m["content"]]
        return posts[-1] if posts else None

    return await fake.wait_for(found, what=f"{needle!r} of {name} in the results channel")


async def _leaderboard(fake, club: Club, formats: list[str]) -> None:
    w = club.world
    everyone = await slash(fake, club, w.member, "leaderboard")
    assert everyone.ephemeral and "all formats" in everyone.content  # a look-up: only the asker sees it, everyone.content
    # The two players who played every format: one finished event per format each.
    for player in w.players[:2]:
        assert re.search(rf"<@{player}> · [\d.]+ pts? · {len(formats)} events", everyone.content), everyone.content
    for fmt in formats:
        board = await slash(fake, club, w.member, "leaderboard", format=fmt)
        assert "No finished events yet" not in board.content, (fmt, board.content)
        assert re.search(rf"<@{w.players[0]}> · [\d.]+ pts? · 1 event", board.content), (fmt, board.content)

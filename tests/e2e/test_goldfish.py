"""Goldfish Draft end to end through the fake Discord: a small draft picked by clicking the DM
buttons, scores reported through the modal, a rejection (with a DM), a new report, the end (the
final standings in the leaderboard channel) and the season leaderboard; paper events, write-ups
that page, coin flips and dice, and bad input that changes nothing."""

from __future__ import annotations

import re

import pytest

from bot.kit.text import escape
from tests.e2e.drivers.common import eventually
from tests.e2e.drivers.draft import join_all, live_pack_messages, pick_buttons, start_lobby
from tests.fake_discord import CommandNotAvailable
from tests.fake_discord.models import flatten_components

pytestmark = pytest.mark.e2e

STANDING_LINE = re.compile(r"\*\*(\d+)\.\*\* <@(\d+)> — \*\*([\d.]+)\*\*")
BOARD_LINE = re.compile(
    r"\*\*(\d+)\.\*\* <@(\d+)> · ([\d.]+) pts? · (\d+) events? · (\d+) wins?(?: · best ([\d.]+))?"
)
SCORE = {"life_lost": "0", "cards_milled": "0", "poison": "0", "game_wins": "0"}


async def gf(fake, world, user, command, *, options=None, attachments=None, **kwargs):
    return await fake.slash(
        user,
        f"goldfish {command}",
        guild_id=world.guild,
        channel_id=world.channel,
        options=options or {},
        attachments=attachments,
        **kwargs,
    )


async def end(fake, world, user, *, options=None):
    """/goldfish end, and Confirm when it asks (a refusal comes at once, without a prompt)."""
    prompt = await gf(fake, world, user, "end", options=options)
    confirm = [c for c in prompt.components if c.get("label") == "End the event"]
    if not confirm:
        return prompt
    assert prompt.ephemeral and "End **" in prompt.content, prompt.content
    return await fake.click(user, prompt.message, confirm[0]["custom_id"])


async def report(fake, world, user, values: dict, *, options=None, attachments=None):
    """`/goldfish report`, then fill in and send the modal; returns the modal submission's result."""
    opened = await gf(fake, world, user, "report", options=options, attachments=attachments)
    assert opened.modal is not None, opened.content
    return await fake.submit_modal(user, opened, {**SCORE, **values})


def standings(message_or_text) -> list[tuple[int, int, float]]:
    text = (
        message_or_text
        if isinstance(message_or_text, str)
        else "\n".join((e.get("description") or "") for e in message_or_text.get("embeds") or [])
    )
    return [(int(p), int(u), float(s)) for p, u, s in STANDING_LINE.findall(text)]


async def status(fake, world, event: int | None = None) -> str:
    options = {"event": event} if event is not None else {}
    return (await gf(fake, world, world.member, "status", options=options)).content


async def run_goldfish_draft(fake, world, players: list[int]) -> int:
    """A 1 × 3 Goldfish draft for three players, every pick a DM button click; returns the pod id."""
    pod_id, lobby = await start_lobby(fake, world, turns=7, packs=1, pack_size=3, seats=len(players))
    await join_all(fake, lobby, pod_id, players)
    picks, total = 0, len(players) * 3

    def ready() -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in players if (msgs := live_pack_messages(fake, p))]

    while picks < total:
        player, message = (await fake.wait_for(ready, timeout=20, what="a pack DM"))[0]
        button = pick_buttons(message)[0]
        result = await fake.click(player, message, button["custom_id"])
        assert "you took" in result.content, result.content
        picks += 1
    await fake.wait_for(
        lambda: any(
            "is complete" in m.get("content", "") and "/goldfish report" in m["content"]
            for m in fake.messages(world.channel)
        ),
        what="the draft summary with the Goldfish prompt",
    )
    return pod_id


async def test_goldfish_draft_scoring_rejection_end_and_season_leaderboard(fake, bot, world):
    p0, p1, p2 = world.players[:3]
    await fake.slash(
        world.admin,
        "config set",
        guild_id=world.guild,
        channel_id=world.channel,
        options={"leaderboard_channel": world.leaderboard_channel},
    )
    season = await fake.slash(
        world.admin,
        "config season start",
        guild_id=world.guild,
        channel_id=world.channel,
        options={"name": "Winter"},
    )
    assert "Season **Winter** has started" in season.content

    pod_id = await run_goldfish_draft(fake, world, [p0, p1, p2])
    event_name = f"Draft #{pod_id} (goldfish)"
    assert "No scores yet" in await status(fake, world)

    # Every player reports through the modal.
    first = await report(
        fake, world, p0, {"life_lost": "20", "cards_milled": "4", "writeup": "T3 Fireball for 20"}
    )
    assert first.ephemeral and "Saved your score" in first.content and "**22**" in first.content
    await report(fake, world, p1, {"life_lost": "7", "poison": "3", "writeup": "Infect beats"})
    cheat = await report(fake, world, p2, {"game_wins": "5", "writeup": "I won a lot"})
    assert "**100**" in cheat.content
    shown = await status(fake, world)
    assert event_name in shown
    assert standings(shown) == [(1, p2, 100.0), (2, p0, 22.0), (3, p1, 13.0)]

    # Not a player of this draft: refused, nothing changes.
    outsider = await gf(fake, world, world.member, "report")
    assert outsider.ephemeral and "did not play" in outsider.content, outsider.content
    assert await status(fake, world) == shown

    # Only an organizer may reject; the organizer's rejection DMs the player the reason.
    refused = await gf(fake, world, p0, "reject", options={"player": p2, "reason": "jealous"})
    assert refused.ephemeral and "Only the event's organizer" in refused.content
    rejected = await gf(
        fake, world, world.admin, "reject", options={"player": p2, "reason": "One win effect, not five"}
    )
    assert rejected.ephemeral and "Rejected" in rejected.content
    dm = await fake.wait_for(
        lambda: [m for m in fake.dms(p2) if "rejected" in m.get("content", "")], what="the rejection DM"
    )
    assert "One win effect, not five" in dm[-1]["content"] and escape(event_name) in dm[-1]["content"]
    assert standings(await status(fake, world)) == [(1, p0, 22.0), (2, p1, 13.0)]
    again = await gf(fake, world, world.admin, "reject", options={"player": p2, "reason": "twice"})
    assert again.ephemeral and "no counting score" in again.content

    # The player reports again; the rejected write-up is no longer the one shown.
    reported_again = await report(
        fake, world, p2, {"life_lost": "25", "cards_milled": "1", "writeup": "Honest line"}
    )
    assert "**25.5**" in reported_again.content
    assert standings(await status(fake, world)) == [(1, p2, 25.5), (2, p0, 22.0), (3, p1, 13.0)]
    writeup = await gf(fake, world, world.member, "writeup", options={"player": p2})
    assert "Honest line" in writeup.content and "I won a lot" not in writeup.content

    # Closing: only the organizer; the final standings go to the leaderboard channel.
    not_yours = await end(fake, world, p0)
    assert not_yours.ephemeral and "Only the event's organizer" in not_yours.content
    closed = await end(fake, world, world.admin)
    assert "has ended" in closed.content and f"<#{world.leaderboard_channel}>" in closed.content
    posts = await fake.wait_for(
        lambda: [
            m for m in fake.messages(world.leaderboard_channel) if "Final standings" in str(m.get("embeds"))
        ],
        what="final standings in the leaderboard channel",
    )
    assert len(posts) == 1
    assert event_name in posts[0]["embeds"][0]["title"]
    assert standings(posts[0]) == [(1, p2, 25.5), (2, p0, 22.0), (3, p1, 13.0)]

    # Ended: no more reports, rejections or ending.
    late = await gf(fake, world, p0, "report", options={"event": _event_id(posts[0])})
    assert late.ephemeral and "has ended" in late.content and late.modal is None
    assert (
        "already ended"
        in (await end(fake, world, world.admin, options={"event": _event_id(posts[0])})).content
    )

    # The season's Goldfish leaderboard: placement points 3/2/1.
    board = await fake.slash(
        world.member,
        "leaderboard",
        guild_id=world.guild,
        channel_id=world.channel,
        options={"format": "goldfish"},
    )
    assert "Goldfish Draft" in board.content and "season Winter" in board.content
    rows = [
        (int(r), int(u), float(pts), int(ev), int(w), float(b))
        for r, u, pts, ev, w, b in BOARD_LINE.findall(board.content)
    ]
    assert rows == [(1, p2, 3.0, 1, 1, 25.5), (2, p0, 2.0, 1, 0, 22.0), (3, p1, 1.0, 1, 0, 13.0)]
    everything = await fake.slash(
        world.member, "leaderboard", guild_id=world.guild, channel_id=world.channel, options={"season": "all"}
    )
    assert "all time" in everything.content and len(BOARD_LINE.findall(everything.content)) == 3

    # After the season ends its table stays readable by name; "current" is then all time, and says so.
    prompt = await fake.slash(
        world.admin, "config season end", guild_id=world.guild, channel_id=world.channel
    )
    confirm = next(c["custom_id"] for c in prompt.components if c.get("label") == "End the season")
    ended = await fake.click(world.admin, prompt.message, confirm)
    assert "Season **Winter** has ended" in ended.content
    current = await fake.slash(
        world.member,
        "leaderboard",
        guild_id=world.guild,
        channel_id=world.channel,
        options={"format": "goldfish"},
    )
    assert current.ephemeral and "all time (no season running)" in current.content
    assert len(BOARD_LINE.findall(current.content)) == 3
    past = await fake.slash(
        world.member,
        "leaderboard",
        guild_id=world.guild,
        channel_id=world.channel,
        options={"format": "goldfish", "season": "Winter"},
    )
    assert len(BOARD_LINE.findall(past.content)) == 3


async def test_the_organizer_cancels_an_event_after_asking_and_nothing_is_recorded(fake, bot, world):
    p0, p1 = world.players[:2]
    await fake.slash(world.admin, "config season start", guild_id=world.guild, channel_id=world.channel,
                     options={"name": "Spring"})
    created = await gf(fake, world, world.admin, "start", options={"name": "Rained out", "turns": 7})
    assert "is open for scores (7 turns, score: life lost, cards milled, poison and wins added up, players play first)" in created.content
    assert "`/goldfish report`" in created.content
    await report(fake, world, p0, {"life_lost": "20", "writeup": "Bolt, bolt"})
    await report(fake, world, p1, {"life_lost": "9", "writeup": "Slow hand"})
    shown = await gf(fake, world, world.member, "status")
    assert shown.message["embeds"][0]["footer"]["text"].endswith("· 7 turns · score: life lost, cards milled, poison and wins added up · taking scores")

    # Only the organizer, and only after saying yes.
    refused = await gf(fake, world, p0, "cancel")
    assert refused.ephemeral and "Only the event's organizer" in refused.content and not refused.components
    prompt = await gf(fake, world, world.admin, "cancel")
    assert prompt.ephemeral and prompt.content == (
        "Cancel **Rained out**? The event and its 2 scores are deleted for good, and nothing goes to the leaderboard.")
    keep = next(c["custom_id"] for c in prompt.components if c.get("label") == "Keep it")
    assert "nothing was changed" in (await fake.click(world.admin, prompt.message, keep)).content
    assert standings(await status(fake, world)) == [(1, p0, 20.0), (2, p1, 9.0)]

    prompt = await gf(fake, world, world.admin, "cancel")
    confirm = next(c["custom_id"] for c in prompt.components if c.get("label") == "Cancel the event")
    done = await fake.click(world.admin, prompt.message, confirm)
    assert done.content == "**Rained out** is cancelled: it and its scores are deleted, and nothing was recorded."
    # The channel reads it, in the third person, pinging nobody.
    [note] = await fake.wait_for(
        lambda: [m for m in fake.messages(world.channel) if "cancelled the Goldfish event" in m.get("content", "")],
        what="the cancellation in the channel")
    assert note["content"] == (f"🚫 <@{world.admin}> cancelled the Goldfish event **Rained out**: its 2 scores were "
                               "deleted, and nothing went to the leaderboard.")
    assert fake.pinged_users(note) == set()
    # The event is gone: nothing to report to or read, nothing on the leaderboard.
    gone = await gf(fake, world, p0, "report")
    assert gone.ephemeral and "There is no Goldfish event here" in gone.content and "`/goldfish start`" in gone.content
    assert "There is no Goldfish event here" in await status(fake, world)
    board = await fake.slash(world.member, "leaderboard", guild_id=world.guild, channel_id=world.channel,
                             options={"format": "goldfish"})
    assert not BOARD_LINE.findall(board.content)
    again = await gf(fake, world, world.admin, "start", options={"name": "Rained out", "turns": 7})
    assert "Rained out" in again.content and not again.ephemeral  # its name is free again

    # An event that has ended keeps its results: it can't be cancelled.
    await report(fake, world, p0, {"life_lost": "5", "writeup": "Short"})
    await end(fake, world, world.admin)
    late = await gf(fake, world, world.admin, "cancel", options={"event": int(re.search(r"#(\d+)", again.content)[1])})
    assert late.ephemeral and "has already ended" in late.content and not late.components


def _event_id(post: dict) -> int:
    return int(re.search(r"Event #(\d+)", post["embeds"][0]["footer"]["text"]).group(1))


async def test_paper_event_scores_long_writeup_and_helpers(fake, bot, world):
    p0, p1 = world.players[:2]
    refused = await gf(fake, world, world.member, "start", options={"name": "Paper night", "turns": 10})
    assert refused.ephemeral and "Only organizers" in refused.content
    created = await gf(fake, world, world.admin, "start", options={"name": "Paper night", "turns": 10})
    assert "**#" in created.content and "Paper night" in created.content and "10 turns" in created.content
    event_id = int(re.search(r"#(\d+)", created.content).group(1))
    choices = await fake.autocomplete(
        world.member,
        "goldfish status",
        focused="event",
        options={"event": "paper"},
        guild_id=world.guild,
        channel_id=world.channel,
    )
    assert [c["value"] for c in choices] == [event_id]
    assert [c["name"] for c in choices] == [f"#{event_id} Paper night (taking scores)"]  # not "(open)"

    # A long write-up from a file (no write-up field in the modal then).
    lines, long_text = long_writeup()
    assert 9_000 < len(long_text) < 11_000
    opened = await gf(
        fake, world, p0, "report", attachments={"writeup_file": ("writeup.txt", long_text.encode())}
    )
    assert "writeup" not in [c.get("custom_id") for c in opened.components]
    saved = await fake.submit_modal(p0, opened, {**SCORE, "life_lost": "39"})
    assert "**39**" in saved.content
    await report(fake, world, p1, {"poison": "10", "cards_milled": "3", "writeup": "Glistener Elf"})
    assert standings(await status(fake, world, event_id)) == [(1, p0, 39.0), (2, p1, 21.5)]

    # The write-up opens on its first page (the paging itself: test_long_writeup_pages_with_buttons).
    first = await gf(fake, world, world.member, "writeup", options={"player": p0, "event": event_id})
    assert lines[0] in first.content or "Sorry, something went wrong" in first.content
    assert first.ephemeral  # a look-up is quiet unless asked to post it

    # Looking up is quiet: the standings and a write-up are posted only when asked to.
    posts = len(fake.messages(world.channel))
    quiet = await gf(fake, world, world.member, "status", options={"event": event_id})
    assert quiet.ephemeral and len(fake.messages(world.channel)) == posts
    posted = await gf(fake, world, world.member, "status", options={"event": event_id, "post": True})
    shared = await gf(fake, world, world.member, "writeup", options={"player": p1, "event": event_id, "post": True})
    assert not posted.ephemeral and not shared.ephemeral and "Glistener Elf" in shared.content
    assert len(fake.messages(world.channel)) == posts + 2

    # No write-up for someone who did not report.
    nothing = await gf(fake, world, world.member, "writeup", options={"player": world.players[5]})
    assert nothing.ephemeral and "has not reported" in nothing.content

    # Coin flips: the player's choice first, then alternating. Dice: the choice, then up by one, 6 → 1.
    flips = await gf(fake, world, p0, "flip", options={"first": "tails", "count": 5})
    assert "Flips: tails, heads, tails, heads, tails" in flips.content and "calls tails" in flips.content
    single = await gf(fake, world, p0, "flip", options={"first": "heads"})
    assert "Flips: heads (" in single.content
    rolls = await gf(fake, world, p0, "roll", options={"first": 4, "count": 8})
    assert "Rolls: 4, 5, 6, 1, 2, 3, 4, 5" in rolls.content
    assert "Rolls: 6" in (await gf(fake, world, p0, "roll", options={"first": 6})).content


def flatten(message: dict) -> list[dict]:
    return flatten_components(message.get("components"))


def long_writeup() -> tuple[list[str], str]:
    lines = [
        f"Turn {i // 40 + 1}, step {i}: tap Mountain, cast Lightning Bolt at the goldfish's face (3)."
        for i in range(130)
    ]
    return lines, "\n".join(lines)


async def test_long_writeup_pages_with_buttons(fake, bot, world):
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Paper night", "turns": 7})
    lines, long_text = long_writeup()
    opened = await gf(
        fake, world, p0, "report", attachments={"writeup_file": ("writeup.txt", long_text.encode())}
    )
    await fake.submit_modal(p0, opened, {**SCORE, "life_lost": "39"})

    # Three pages of at most 3,500 characters, cut at line breaks; nothing is lost between pages.
    first = await gf(fake, world, world.member, "writeup", options={"player": p0})
    assert "Page 1 of 3" in first.content and lines[0] in first.content and "39" in first.content
    pages = [first.message["embeds"][0]["description"]]
    message = first.message
    for number in (2, 3):
        next_id = next(c["custom_id"] for c in flatten(message) if "Next" in c["label"])
        clicked = await fake.click(world.member, message, next_id)
        assert f"Page {number} of 3" in clicked.content
        message = clicked.message
        pages.append(message["embeds"][0]["description"])
    assert "\n".join(pages) == long_text
    assert next(c for c in flatten(message) if "Next" in c["label"]).get("disabled")
    previous = next(c["custom_id"] for c in flatten(message) if "Previous" in c["label"])
    back = await fake.click(world.member, message, previous)
    assert "Page 2 of 3" in back.content and back.message["embeds"][0]["description"] == pages[1]


BAD_SCORES = [
    pytest.param({"life_lost": "-5"}, "cannot be negative (got \u22125", id="negative-life"),  # one minus sign
    pytest.param({"poison": "-1"}, "cannot be negative (got \u22121", id="negative-poison"),
    pytest.param({"cards_milled": "lots"}, "is not a number", id="not-a-number"),
    pytest.param({"life_lost": "twenty"}, "is not a number", id="words"),
    pytest.param({"cards_milled": "2.5"}, "whole number", id="half-a-card"),
    pytest.param({"life_lost": "nan"}, "finite", id="nan"),
    pytest.param({"life_lost": "1e400"}, "finite", id="infinite"),
    pytest.param({"life_lost": "99999999999"}, "not believable", id="absurd-life"),
    pytest.param({"game_wins": "5000"}, "not believable", id="absurd-wins"),
    pytest.param({"writeup": "   "}, "write-up can't be empty", id="blank-writeup"),
]


@pytest.mark.parametrize(("values", "message"), BAD_SCORES)
async def test_bad_scores_are_refused_and_change_nothing(fake, bot, world, values, message):
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    await report(fake, world, p0, {"life_lost": "12", "writeup": "Good line"})
    before = await status(fake, world)
    assert standings(before) == [(1, p0, 12.0)]

    result = await report(fake, world, p0, {"writeup": "Some line", **values})
    assert result.ephemeral and message in result.content, result.content
    assert "Sorry, something went wrong" not in result.content
    assert await status(fake, world) == before
    writeup = await gf(fake, world, world.member, "writeup", options={"player": p0})
    assert "Good line" in writeup.content


async def test_bad_reports_elsewhere_change_nothing(fake, bot, world):
    p0, p1 = world.players[:2]
    # No event at all yet.
    none = await gf(fake, world, p0, "report")
    assert none.ephemeral and "no Goldfish event" in none.content

    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    await report(fake, world, p0, {"life_lost": "12", "writeup": "Good line"})
    before = await status(fake, world)

    # An empty write-up file, a binary one and an unknown event id.
    for data in (b"", b" \n\n "):
        empty = await gf(fake, world, p1, "report", attachments={"writeup_file": ("w.txt", data)})
        assert empty.ephemeral and empty.modal is None and "can't be empty" in empty.content, empty.content
    for data in (b"\xff\xfe\x00\x01garbage", b"PK\x03\x04\x00\x00zip"):
        binary = await gf(fake, world, p1, "report", attachments={"writeup_file": ("w.txt", data)})
        assert binary.ephemeral and binary.modal is None and "UTF-8" in binary.content, binary.content
    unknown = await gf(fake, world, p1, "report", options={"event": 987654})
    assert unknown.ephemeral and "no Goldfish event #987654" in unknown.content
    assert await status(fake, world) == before

    # A modal opened while the event was open, sent after it ended.
    opened = await gf(fake, world, p1, "report")
    await end(fake, world, world.admin)
    late = await fake.submit_modal(p1, opened, {**SCORE, "life_lost": "50", "writeup": "Too late"})
    assert late.ephemeral and "has ended" in late.content
    final = await status(fake, world)
    assert standings(final) == standings(before) and "Final standings" in final

    # Flip and roll refuse what the Discord client would refuse.
    with pytest.raises(CommandNotAvailable):
        await gf(fake, world, p0, "roll", options={"first": 7})
    with pytest.raises(CommandNotAvailable):
        await gf(fake, world, p0, "flip", options={"first": "edge"})


async def test_open_forms_are_independent_and_survive_a_restart(fake, bot, world):
    """Two players with the score form open at once each get their own submission (with their own
    write-up and flags), and a form opened before a bot restart still saves after it."""
    p0, p1, p2 = world.players[:3]
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    form0 = await gf(fake, world, p0, "report")
    form1 = await gf(
        fake, world, p1, "report", options={"prevented": True},
        attachments={"writeup_file": ("w.txt", b"Platinum Angel on their side")},
    )
    form2 = await gf(fake, world, p2, "report", options={"lost_or_drew": True})

    saved0 = await fake.submit_modal(p0, form0, {**SCORE, "life_lost": "20", "writeup": "My own line"})
    assert "**20**" in saved0.content
    saved1 = await fake.submit_modal(p1, form1, {**SCORE, "life_lost": "30"})
    assert "**0**" in saved1.content and "win prevented" in saved1.content

    await bot.restart()  # p2's form is still open
    saved2 = await fake.submit_modal(p2, form2, {"writeup": "Decked myself"})  # lost: only the write-up asked
    assert "**0**" in saved2.content and "lost/drew" in saved2.content, saved2.content

    assert standings(await status(fake, world)) == [(1, p0, 20.0), (2, p1, 0.0), (2, p2, 0.0)]
    for player, text in ((p0, "My own line"), (p1, "Platinum Angel on their side"), (p2, "Decked myself")):
        shown = await gf(fake, world, world.member, "writeup", options={"player": player})
        assert text in shown.content, (player, shown.content)

    # A form with an uploaded write-up file, opened before a restart: the file waited in the database.
    form = await gf(fake, world, p0, "report", attachments={"writeup_file": ("w.txt", b"Second try")})
    await bot.restart()
    saved = await fake.submit_modal(p0, form, {**SCORE, "life_lost": "50"})
    assert "**50**" in saved.content, saved.content
    assert standings(await status(fake, world))[0] == (1, p0, 50.0)
    shown = await gf(fake, world, world.member, "writeup", options={"player": p0})
    assert "Second try" in shown.content


def payloads_showing(fake, text: str) -> list[dict]:
    """Every message the bot sent (channel or DM message, interaction answer or follow-up) whose
    content shows `text`."""
    found = []
    for call in fake.calls("POST") + fake.calls("PATCH"):
        body = call.json if isinstance(call.json, dict) else {}
        data = body.get("data") if call.path.endswith("/callback") else body
        if isinstance(data, dict) and text in (data.get("content") or ""):
            found.append(data)
    return found


async def test_event_names_and_reasons_never_ping_and_show_as_typed(fake, bot, world):
    """A mention, @everyone and markdown in an event name (or a rejection reason) are shown as
    typed, and no message that shows them may ping anyone."""
    p0, p1 = world.players[:2]
    name = f"<@{p1}> @everyone **night**"
    created = await gf(fake, world, world.admin, "start", options={"name": name, "turns": 7})
    assert escape(name) in created.content, created.content
    assert created.message["mentions"] == [] and not created.message["mention_everyone"]
    await report(fake, world, p0, {"life_lost": "12", "writeup": "line"})
    reason = f"<@{p1}> says *no*"
    rejected = await gf(fake, world, world.admin, "reject", options={"player": p0, "reason": reason})
    assert "Rejected" in rejected.content, rejected.content
    dm = await fake.wait_for(lambda: [m for m in fake.dms(p0) if "rejected" in m["content"]], what="the DM")
    assert escape(name) in dm[-1]["content"] and escape(reason) in dm[-1]["content"]
    assert dm[-1]["mentions"] == []
    closed = await end(fake, world, world.admin)
    assert "has ended" in closed.content and closed.message["mentions"] == []

    shown = payloads_showing(fake, escape(name))
    assert len(shown) >= 4  # started, saved, rejected (and its DM), ended
    assert [p["content"][:40] for p in shown if p.get("allowed_mentions") != {"parse": []}] == []
    assert f"<@{p1}>" not in "".join(p["content"] for p in shown)


async def test_rejection_reasons_are_bounded_and_a_failed_dm_says_why(fake, bot, world):
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "*" * 100, "turns": 7})
    # Discord's client refuses a reason over the option's 500 characters.
    await report(fake, world, p0, {"life_lost": "12", "writeup": "line"})
    with pytest.raises(CommandNotAvailable, match="max_length 500"):
        await gf(fake, world, world.admin, "reject", options={"player": p0, "reason": "x" * 3000})
    # The longest reason, every character escaped, still fits one DM.
    longest = "<@" * 250
    rejected = await gf(fake, world, world.admin, "reject", options={"player": p0, "reason": longest})
    assert rejected.ephemeral and "Rejected" in rejected.content
    dm = await fake.wait_for(lambda: [m for m in fake.dms(p0) if "rejected" in m["content"]], what="the DM")
    assert escape(longest) in dm[-1]["content"] and len(dm[-1]["content"]) <= 2000
    assert not rejected.followups  # no "couldn't DM"

    # Closed DMs: the organizer is told that, and where the player can read the reason.
    await report(fake, world, p0, {"life_lost": "13", "writeup": "line"})
    fake.set_dms_closed(p0)
    closed = await gf(fake, world, world.admin, "reject", options={"player": p0, "reason": "Two loops"})
    text = (await closed.wait_followup())[-1]["content"]
    assert "DMs are closed" in text and "/goldfish writeup" in text, text
    # Any other failure is not blamed on the player's settings.
    fake.set_dms_closed(p0, False)
    await report(fake, world, p0, {"life_lost": "14", "writeup": "line"})
    fake.inject_error("POST", r"^/channels/\d+/messages$", status=403)
    refused = await gf(fake, world, world.admin, "reject", options={"player": p0, "reason": "Three loops"})
    text = (await refused.wait_followup())[-1]["content"]
    assert "Discord refused the message (HTTP 403" in text and "DMs are closed" not in text, text


async def test_goldfish_rules_in_the_command_and_the_form(fake, bot, world):
    general = await gf(fake, world, world.member, "rules")
    assert general.ephemeral and "7 turns" in general.content and "8th **normal** turn" in general.content
    for rule in ("infinite library of basic lands", "minimises your score", "Restarting the game resets your score",
                 "from 1 to 20 turns",
                 # FORMATS.md §1: 20 per effect that would have ended the game, of either kind.
                 '20 per effect that would have ended the game: each "you win the game" effect, and each '
                 '"lose the game" effect on the goldfish ("target player loses the game")'):
        assert rule in general.content, rule
    # Any length from 1 to 20 turns; the Discord client refuses the rest.
    for turns in (0, 21):
        with pytest.raises(CommandNotAvailable):
            await gf(fake, world, world.admin, "start", options={"name": f"Odd {turns}", "turns": turns})
    created = await gf(fake, world, world.admin, "start", options={"name": "Short", "turns": 3})
    assert "(3 turns," in created.content, created.content
    assert "3 turns" in (await gf(fake, world, world.member, "rules")).content
    await gf(
        fake, world, world.admin, "start", options={"name": "Second", "turns": 10, "play_order": "second"}
    )
    for_event = await gf(fake, world, world.member, "rules")
    assert "10 turns" in for_event.content and "start of the goldfish's 11th turn" in for_event.content
    assert '"lose the game" effect on the goldfish' in for_event.content

    opened = await gf(fake, world, world.players[0], "report")
    labels = [c for c in opened.modal["components"] if c.get("type") == 18]
    assert len(labels) == 5
    # Each field's hint describes that field (the game's rules are in /goldfish rules, which the
    # write-up's hint names).
    help_text = " ".join(c.get("description") or "" for c in labels)
    for hint in ("life the goldfish lost", "1 point each", "½ point each", "2 points each",
                 "made the goldfish lose it: 20 each", "/goldfish rules"):
        assert hint in help_text, hint
    assert "Win / lose the game effects" in [c["label"] for c in labels]
    # A Goldfish Draft takes any length from 1 to 20 turns too.
    _, lobby = await start_lobby(fake, world, turns=12)
    assert "Goldfish Draft (12 turns)" in str(lobby), lobby
    assert all(len(c["label"]) <= 45 and len(c.get("description") or "") <= 100 for c in labels)


async def test_an_expired_upload_says_it_expired(fake, bot, world):
    from datetime import timedelta

    from sqlalchemy import update

    from bot.games.goldfish.models import GoldfishPendingWriteup
    from bot.store.db import Database
    from bot.store.types import utcnow

    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    form = await gf(fake, world, p0, "report", attachments={"writeup_file": ("w.txt", b"Slow typist")})
    db = Database(bot.database_url)
    try:
        async with db.write() as session:
            await session.execute(update(GoldfishPendingWriteup).values(expires_at=utcnow() - timedelta(seconds=1)))
    finally:
        await db.dispose()
    late = await fake.submit_modal(p0, form, {**SCORE, "life_lost": "50"})
    assert late.ephemeral and "expired" in late.content and "writeup_file" in late.content, late.content
    assert "restarted" not in late.content
    assert "No scores yet" in await status(fake, world)


async def outbox_rows(bot, kind: str) -> list[tuple[str, int]]:
    """(status, attempts) of the bot's owed messages of `kind`, from its own database."""
    from sqlalchemy import select

    from bot.store.db import Database
    from bot.store.models import OutboxMessage

    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            rows = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind))).scalars().all()
            return [(row.status, row.attempts) for row in rows]
    finally:
        await db.dispose()


def final_posts(fake, world) -> list[dict]:
    """The bot's own posts (type 0, not answers to commands) of final standings."""
    return [m for m in fake.messages(world.channel) if m["type"] == 0 and "Final standings" in str(m.get("embeds"))]


async def test_final_standings_are_posted_once_after_a_crash_mid_post(fake, bot, world):
    """The bot dies (SIGKILL) after closing the event is committed, while Discord holds the post:
    after the restart the standings are posted, exactly once."""
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Crash night", "turns": 7})
    await report(fake, world, p0, {"life_lost": "12", "writeup": "line"})
    held = fake.hold_next("POST", rf"^/channels/{world.channel}/messages$")
    closed = await end(fake, world, world.admin)
    assert "has ended" in closed.content
    await held.arrived.wait()
    await bot.kill()
    held.release()  # Discord never posted it
    assert final_posts(fake, world) == [] and await outbox_rows(bot, "goldfish_final") == [("pending", 0)]

    await bot.start()
    posted = await fake.wait_for(lambda: final_posts(fake, world), what="the final standings after the restart")
    assert standings(posted[0]) == [(1, p0, 12.0)]
    async def recorded_sent():
        return (rows := await outbox_rows(bot, "goldfish_final")) and rows[0][0] != "pending" and rows

    assert [status for status, _ in await eventually(recorded_sent, what="the post recorded")] == ["sent"]
    await bot.restart()  # a sent message is never sent again
    assert (await gf(fake, world, world.member, "status")).content
    assert len(final_posts(fake, world)) == 1


async def test_a_post_discord_refuses_for_good_is_tried_once(fake, bot, world):
    """A 403 (say the bot lost its permission in the channel) is not retried, not even after a restart."""
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "No access", "turns": 7})
    await report(fake, world, p0, {"life_lost": "3", "writeup": "line"})
    posts = rf"^/channels/{world.channel}/messages$"
    before = fake.count_calls("POST", posts)
    fake.inject_error("POST", posts, status=403)
    await end(fake, world, world.admin)

    async def settled():
        return (rows := await outbox_rows(bot, "goldfish_final")) and rows[0][0] != "pending" and rows

    assert await eventually(settled, what="the refused post recorded") == [("failed", 1)]
    await bot.restart()
    assert (await gf(fake, world, world.member, "status")).content  # the bot is up and answering
    assert await outbox_rows(bot, "goldfish_final") == [("failed", 1)]
    assert fake.count_calls("POST", posts) - before == 1 and final_posts(fake, world) == []

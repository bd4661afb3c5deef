"""Draft messages for the end of a player's picks, the end of the draft and a seat taken back:
inside Discord's limits whatever the card names, and saying the right thing in every case."""

from __future__ import annotations

import dataclasses

from bot.cards.export import mtgo_export
from bot.games.draft import ui
from bot.games.draft.service import PackPrompt, PodView, PoolView, RejoinResult, SeatView, SeatWait
from bot.kit import limits
from bot.store.types import utcnow

NASTY = "@everyone **bold** [link](https://evil.example/x) " + "é" * 150  # 200 characters of traps
SCRYFALL = "https://api.scryfall.com"


def prompt(*, dm_closed: bool = False) -> PackPrompt:
    return PackPrompt(pod_id=3, guild_id=1, channel_id=2, user_id=7, seat=0, pack_id=0, pack_pick=0, round=0,
                      pick_number=1, pack_size=15, packs=2, cards=("A",), queued_behind=0, pick_mode="both",
                      dm_closed=dm_closed, direction="left")


def rejoined(bot_picks: int, **options) -> RejoinResult:
    defaults = {"prompt": None, "wait": SeatWait(SeatWait.WAITING, 3, (8, 9))}
    return RejoinResult(3, 7, bot_picks, **(defaults | options))


def test_the_rejoin_announcement_counts_the_bots_picks_and_says_what_comes_next():
    assert ui.rejoined_announcement(rejoined(1)) == (
        "🔙 <@7> took their seat back in draft #3; the bot's 1 pick for them stays in their pool. "
        "Their next pack comes to their DMs once <@8> picks.")
    assert ui.rejoined_announcement(rejoined(4), by=5).startswith("🔙 <@5> gave <@7> their seat back in draft #3; "
                                                                  "the bot's 4 picks")
    assert ui.rejoined_announcement(rejoined(0)).startswith("🔙 <@7> took their seat back in draft #3. Their next")
    assert ui.rejoined_announcement(rejoined(2, prompt=prompt())).endswith("Their current pack is in their DMs.")
    assert "`/draft pick`" in ui.rejoined_announcement(rejoined(2, prompt=prompt(dm_closed=True)))
    assert ui.rejoined_announcement(rejoined(30, wait=SeatWait(SeatWait.DONE, 3))).endswith(
        "The bot made all their picks: their pool comes when the draft ends.")
    assert ui.rejoined_announcement(rejoined(2, wait=SeatWait(SeatWait.WAITING, 3))).endswith(
        "when the others pass it.")


def test_what_follows_a_pick_is_said_plainly():
    footers = {after: ui.picked_embed(0, 3, NASTY, 3, SCRYFALL, after).footer.text
               for after in (ui.WAITING, ui.WAITING_NEW, ui.LAST_PICK, ui.DRAFT_OVER, ui.NEXT_MESSAGE)}
    assert footers[ui.WAITING] == "Waiting for the next pack to reach you…"
    assert footers[ui.LAST_PICK].startswith("That was your last pick. The others are still drafting")
    assert "complete" in footers[ui.DRAFT_OVER] and "Waiting" not in footers[ui.LAST_PICK] + footers[ui.DRAFT_OVER]
    assert len(set(footers.values())) == 5


def test_the_final_pool_with_the_last_pick_fits_whatever_the_names():
    cards = [f"{NASTY} {i}" for i in range(45)]
    pool = PoolView(3, 7, cards, {card: {"colour": "WUBRG"[i % 5]} for i, card in enumerate(cards)})
    line = ui.picked_line(1, 15, cards[-1], SCRYFALL)
    embed = ui.pool_embed(pool, SCRYFALL, ui.final_pool_title(3), last_pick=line, footer=ui.FINAL_POOL_FOOTER)
    assert len(embed) <= limits.EMBED_TOTAL and len(embed.fields) <= 25
    assert embed.fields[0].name == "Last pick" and embed.footer.text == ui.FINAL_POOL_FOOTER
    assert all(len(f.value) <= limits.FIELD_VALUE for f in embed.fields)


def pod_view(status: str, *, seats: int = 1, picks: int = 1, queued: int = 1, max_seats: int = 8, turns=1) -> PodView:
    now = utcnow()
    seat_views = tuple(SeatView(100 + i, i if status != "lobby" else None, picks, False, False, queued, queued > 0,
                                now, now, 0) for i in range(seats))
    return PodView(3, 1, 2, 9, None, status, max_seats, "Test cube", 1, 1, None, turns, "both", seat_views)


def all_text(embed) -> str:
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{field.name} {field.value}" for field in embed.fields]
    return "\n".join(parts)


def test_the_lobby_says_a_full_lobby_begins_by_itself_and_counts_in_words():
    lobby = ui.lobby_embed(pod_view("lobby", max_seats=1))
    assert lobby.footer.text == ("The draft begins by itself once 1 player has joined, or earlier when the organizer "
                                 "presses Begin. Picks happen in DMs.")
    assert "begins by itself once 8 players have joined" in ui.lobby_embed(pod_view("lobby")).footer.text
    assert lobby.title == "Goldfish Draft (1 turn) #3 · cube Test cube"
    assert lobby.description == "1 pack of 1 card · up to 1 player · no pick timer · picks by button or reaction"


def test_draft_embeds_show_no_raw_status_words_and_count_in_words():
    for status, shown in (("lobby", "Open for players"), ("drafting", "In progress"), ("complete", "Complete"),
                          ("cancelled", "Cancelled")):
        status_embed = ui.status_embed(pod_view(status), 1)
        assert status_embed.title == f"Draft #3 · {shown}"
        text = all_text(status_embed) + all_text(ui.lobby_embed(pod_view(status)))
        assert not any(word in text.split() for word in ("drafting", "complete", "lobby", "running"))
    running = ui.status_embed(pod_view("drafting"), 1)
    assert "· 1 pick · " in running.description and "· 1 pack waiting ·" in running.description
    assert running.footer.text == "1 of 1 pick made"
    assert "1 picks" not in all_text(running) and "1 cards" not in all_text(running)
    pool = PoolView(3, 7, ["Card"], {"Card": {"colour": "W"}})
    assert ui.pool_embed(pool, SCRYFALL).title == "Your pool · draft #3 (1 card)"
    one_more = PackPrompt(pod_id=3, guild_id=1, channel_id=2, user_id=7, seat=0, pack_id=0, pack_pick=0, round=0,
                          pick_number=1, pack_size=15, packs=2, cards=("A",), queued_behind=1, pick_mode="both",
                          dm_closed=False, direction="left")
    assert ui.pack_embed(one_more, SCRYFALL).footer.text.endswith("1 more pack waiting after this one.")


def test_the_mtgo_exports_answer_names_what_the_dek_leaves_out_within_discords_limits():
    complete = mtgo_export(["Opt", "Opt"], mtgo_ids={"Opt": 65543})
    text, files = ui.mtgo_export_answer(3, 2, complete)
    assert text == "Your 2 picks from draft #3, for Magic Online." and [f.filename for f in files] == ["draft-3-pool.dek"]
    pool = ["Opt"] + [f"{NASTY} {i}" for i in range(45)]
    partial = mtgo_export(pool, mtgo_ids={"Opt": 65543})
    text, files = ui.mtgo_export_answer(3, len(pool), partial)
    assert [f.filename for f in files] == ["draft-3-pool.dek", "draft-3-pool-mtgo.txt"]
    assert "leaves out 45 cards without a known Magic Online id" in text and len(text) <= limits.CONTENT
    assert "**bold**" not in text and "[link](" not in text and "@everyone" not in text.replace("@\u200beveryone", "")
    text, files = ui.mtgo_export_answer(3, 1, mtgo_export(["Made Up"]))
    assert [f.filename for f in files] == ["draft-3-pool-mtgo.txt"] and "there is no .dek" in text


def test_a_one_pack_draft_names_no_second_pack():
    one_pack = pod_view("running")
    assert one_pack.packs == 1
    assert "pack 2" not in all_text(ui.lobby_embed(one_pack))
    assert "Seating (the pack passes left)" in all_text(ui.lobby_embed(one_pack))
    two_packs = dataclasses.replace(one_pack, packs=2)
    assert "pack 1 passes left, pack 2 right" in all_text(ui.lobby_embed(two_packs))


def test_the_last_card_is_named_by_its_letter_alone():
    last = ui.pack_embed(prompt(), SCRYFALL).footer.text
    assert "React with a letter 🇦 or press a button." in last and "🇦–🇦" not in last
    two = dataclasses.replace(prompt(), cards=("A", "B"))
    assert "React with a letter 🇦–🇧 or" in ui.pack_embed(two, SCRYFALL).footer.text
    assert ui.no_card_text(3, 1) == "There is no card 🇩 in this pack: react with 🇦."


def test_the_completion_post_keeps_card_names_with_commas_whole():
    assert ui.first_picks_line(7, ["Urza, Lord High Artificer", "Opt", "Ponder", "Brainstorm"]) == (
        "<@7>: 4 cards, first picks Urza, Lord High Artificer; Opt; Ponder")
    assert ui.first_picks_line(7, ["Opt", "Ponder"]) == "<@7>: 2 cards, first picks Opt, Ponder"

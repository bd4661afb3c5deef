"""Draft messages for the end of a player's picks, the end of the draft and a seat taken back:
inside Discord's limits whatever the card names, and saying the right thing in every case."""

from __future__ import annotations

from bot.games.draft import ui
from bot.games.draft.service import PackPrompt, PoolView, RejoinResult, SeatWait
from bot.kit import limits

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
        "🔙 <@7> took their seat back in draft #3; the bot's 1 pick for them stay in their pool. "
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

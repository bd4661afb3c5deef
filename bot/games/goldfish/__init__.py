"""Goldfish Draft: the format as the rest of the bot sees it (`FORMAT`), declared once here. A Goldfish
draft is a draft pod whose scoring this package opens when the draft's "draft.complete" hook fires
(`service.open_event_for_pod`); the draft's `/draft start` offers its options through that hook
(`service.DRAFT_OPTIONS`). Neither package imports the other."""

from __future__ import annotations

from bot.games.goldfish import service, ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Goldfish Draft",
    order=0,
    cog=f"{__name__}.cog",
    web=f"{__name__}.web",
    components=(ui.FormAgainButton,),
    forms=(ui.SCORE_FORM,),
    outbox_kinds=(service.FINAL, service.REJECTED, service.CANCELLED),
    leaderboard="Goldfish Draft",
    help=FormatHelp(
        key="goldfish",
        name="Goldfish Draft",
        start="`/draft start cube:goldfish goldfish:True`, or `/goldfish start` to score a draft played elsewhere",
        about="A booster draft of 2 packs of 15, then each player plays one game alone against a "
              "\"goldfish\" that does nothing, and scores what the goldfish suffered.",
        flow=(
            "**Start:** `/draft start cube:goldfish goldfish:True` (an organizer); for a draft played in "
            "paper, `/goldfish start name turns` opens the scoring alone.",
            "**Join:** `/draft join` or the lobby's Join button; `/draft leave` to give the seat up.",
            "**Begin:** `/draft begin` (the lobby also begins by itself once it is full). Picks come by DM.",
            "**Play:** when the draft is over the scoring event opens; each player plays their game "
            "and sends `/goldfish report` with the numbers and a turn-by-turn write-up (again to correct it).",
            "**Follow:** `/goldfish status` shows the scores; `/goldfish writeup` reads a player's game.",
            "**End:** `/goldfish end` (the organizer; asks first) makes the standings final and sends them to "
            "the leaderboard. `/goldfish cancel` (asks first) deletes the event and its scores, with nothing recorded.",
        ),
        rules="The game lasts 7 turns with the Goldfish Cube, 10 otherwise (the event says). You stack your "
              "deck and may add basic lands; the goldfish has endless basic lands, plays one a turn and "
              "always chooses what scores you least. Score: 1 per life it lost, ½ per card milled, 2 per "
              "poison counter, 20 per \"win the game\" or \"lose the game\" effect; 0 if you lose or draw. "
              "Restarting resets your score. Highest score wins.",
        more="`/goldfish rules` the full game rules · `/goldfish reject` (organizer) refuses a score with a "
             "reason · `/goldfish flip`, `/goldfish roll` fixed coin flips and dice for write-ups.",
    ),
)

"""Goldfish Draft: the format as the rest of the bot sees it (`FORMAT`), declared once here. A Goldfish
draft is a draft pod whose scoring this package opens when the draft's "draft.complete" hook fires
(`service.open_event_for_pod`); the draft's `/draft start` offers its options through that hook
(`service.DRAFT_OPTIONS`). Neither package imports the other."""

from __future__ import annotations

from bot.games.goldfish import messages, service, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Goldfish Draft",
    order=0,
    cog=f"{__name__}.cog",
    web=web.PAGES,
    components=(ui.FormAgainButton,),
    forms=(ui.SCORE_FORM,),
    outbox_kinds=(service.FINAL, service.REJECTED, service.CANCELLED),
    renderers=messages.RENDERERS,
    page_lists=(ui.WRITEUP_PAGES,),
    follows=(service.FOLLOWS_DRAFT,),
    channels=(service.scoring_channels,),
    leaderboard="Goldfish Draft",
    help=FormatHelp(
        key="goldfish",
        name="Goldfish Draft",
        start="`/draft start cube:goldfish goldfish:True`, or `/goldfish start` to score a draft played elsewhere",
        about="A booster draft of 2 packs of 15, then each player plays one game alone against a "
              "\"goldfish\" that does nothing, and scores what the goldfish suffered.",
        flow=(
            "**Start:** `/draft start cube:goldfish goldfish:True` (an organizer); for a draft played in "
            "paper, `/goldfish start name turns`.",
            "**Join:** `/draft join` or the Join button; `/draft leave`.",
            "**Begin:** `/draft begin`, or by itself when full. Picks come by DM.",
            "**Play:** after the draft, play alone and `/goldfish report` your numbers and write-up.",
            "**Follow:** `/goldfish status` the scores; `/goldfish writeup` a player's game.",
            "**End:** `/goldfish end` (organizer; asks first) makes the standings final; `/goldfish cancel` "
            "records nothing.",
        ),
        more="`/goldfish rules` the game's rules · `/goldfish reject` (organizer) refuses a score · "
             "`/goldfish flip`, `/goldfish roll`.",
    ),
)

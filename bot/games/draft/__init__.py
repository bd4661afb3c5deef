"""Draft pods (and, until it moves to a package of its own, Goldfish Draft, the scoring of a
draft's games): the formats as the rest of the bot sees them (`FORMAT`, `GOLDFISH`), declared once here."""

from __future__ import annotations

from bot.games.draft import goldfish_service, goldfish_ui, ui
from bot.games.draft import service as drafts
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=drafts.SPEC.kind,
    name="Draft",
    order=1,
    cog=f"{__name__}.cog",
    spec=drafts.SPEC,
    components=(ui.LobbyButton, ui.PickButton, ui.PickSelect),
    outbox_kinds=(drafts.PACK, drafts.RETIRE, drafts.CLOSE_PACK, drafts.DMS_CLOSED, drafts.REMINDER, drafts.TIMED_OUT,
                  drafts.FINAL_POOL, drafts.SUMMARY, drafts.NOTICE, drafts.CONFIRM),
    deadline_kinds=(drafts.state.TIMER, drafts.deliveries.RECOVER),
    web=f"{__name__}.web",
    help=FormatHelp(
        key="draft",
        name="Draft pods",
        start="`/draft start cube:<cube>`: a booster draft picked in DMs at each player's pace",
        about="An asynchronous booster draft: everyone picks when they like, by reacting to or clicking "
              "the pack the bot DMs them. Any cube works: `/cube list` shows them.",
        flow=(
            "**Start:** `/draft start cube` (an organizer): packs, pack size, seats, a pick timer.",
            "**Join:** `/draft join` or the Join button; `/draft leave`.",
            "**Begin:** `/draft begin` (2+ players), or by itself when the lobby is full.",
            "**Pick:** each pack comes by DM; pick with its letter or button. `/draft resend` DMs it again.",
            "**Follow:** `/draft status` whom it waits on; `/draft pool` your picks.",
            "**End:** after the last pick everyone gets their pool; `/draft export` a deck file. "
            "`/draft cancel` (organizer; asks first) stops it.",
        ),
        more="`/draft pick` when your DMs are closed · `/draft replace`, `/draft rejoin`, `/draft seat` for "
             "bot seats · `/draft log` the whole draft.",
    ),
)

# Its cog is the draft's (`bot.games.draft.cog` adds both). The one package holding two formats
# (until Goldfish has a package of its own): the list of formats reads `MORE_FORMATS` too.
GOLDFISH = Format(
    key=goldfish_service.KIND,
    name="Goldfish Draft",
    order=0,
    cog=f"{__name__}.cog",
    forms=(goldfish_ui.SCORE_FORM,),
    outbox_kinds=(goldfish_service.FINAL, goldfish_service.REJECTED, goldfish_service.CANCELLED),
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
            "**Play:** after the draft, play your game alone and `/goldfish report` its numbers and write-up.",
            "**Follow:** `/goldfish status` the scores; `/goldfish writeup` a player's game.",
            "**End:** `/goldfish end` (organizer; asks first) makes the standings final; `/goldfish cancel` "
            "records nothing.",
        ),
        more="`/goldfish rules` the game's rules · `/goldfish reject` (organizer) refuses a score · "
             "`/goldfish flip`, `/goldfish roll`.",
    ),
)
MORE_FORMATS = (GOLDFISH,)

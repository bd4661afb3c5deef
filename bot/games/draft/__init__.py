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
        start="`/draft start cube:<cube>` or `set:<set>`: a booster draft picked in DMs at each player's pace",
        about="An asynchronous booster draft: everyone picks when they like, by reacting to or clicking "
              "the pack the bot DMs them. Any cube works (`/cube list` shows them), or a set's boosters.",
        flow=(
            "**Start:** `/draft start cube` or `/draft start set` (a set's boosters: 1 rare or mythic, 3 uncommons, "
            "10 commons, 1 basic land; an organizer), with packs, pack size, seats and an optional pick timer.",
            "**Join:** `/draft join` or the Join button; `/draft leave` before it begins.",
            "**Begin:** `/draft begin` (at least 2 players), or it begins by itself when the lobby is full.",
            "**Pick:** each pack comes by DM; pick with its letter or button. `/draft resend` DMs your pack "
            "again; `/draft pick` picks in the server when your DMs are closed.",
            "**Follow:** `/draft status` shows who the draft waits on; `/draft pool` your picks.",
            "**End:** the draft ends by itself after the last pick and every player gets their pool; "
            "`/draft export` gives it as a deck file. `/draft cancel` (organizer; asks first) stops it.",
        ),
        rules="Pack 1 passes left, pack 2 right, pack 3 left. A pack passed to a busy player waits in their "
              "queue; nobody picks from a later pack while an earlier one can still reach them. With a pick "
              "timer, a player who runs out of time gets a pick made for them; after 3 in a row a bot takes "
              "the seat until they come back with `/draft rejoin`.",
        more="`/draft start … bots:N` seats bot drafters · `/draft replace` (organizer) hands a seat to a bot · "
             "`/draft rejoin` takes it back · `/draft seat` (organizer) gives a bot's seat to a new player · "
             "`/draft log` the complete draft as a Draftmancer, MTGO or text log.",
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
MORE_FORMATS = (GOLDFISH,)

"""Draft pods: the format as the rest of the bot sees it (`FORMAT`), declared once here. What follows a
draft (Goldfish Draft's scoring) follows its "draft.complete" hook from its own package."""

from __future__ import annotations

from bot.games.draft import service as drafts
from bot.games.draft import ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=drafts.SPEC.kind,
    name="Draft",
    order=1,
    cog=f"{__name__}.cog",
    spec=drafts.SPEC,
    components=(ui.LobbyButton, ui.PickButton, ui.PickSelect),
    outbox_kinds=(drafts.PACK, drafts.RETIRE, drafts.CLOSE_PACK, drafts.DMS_CLOSED, drafts.REMINDER, drafts.TIMED_OUT,
                  drafts.FINAL_POOL, drafts.SUMMARY, drafts.NOTICE, drafts.CONFIRM, drafts.turns.TURN),
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
        more="`/draft rotisserie cube:` (organizer) opens a Rotisserie draft: the cube face up, everyone takes one card "
             "at a time in snake order (1, 2, 3, 3, 2, 1, …), pinged here on their turn, with `/draft take` "
             "(it suggests the cards on offer by name, colour or type) · "
             "`/draft start … bots:N` seats bot drafters · `/draft replace` (organizer) hands a seat to a bot · "
             "`/draft rejoin` takes it back · `/draft seat` (organizer) gives a bot's seat to a new player · "
             "`/draft log` the complete draft as a Draftmancer, MTGO or text log.",
    ),
)

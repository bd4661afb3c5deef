"""Draft pods: the format as the rest of the bot sees it (`FORMAT`), declared once here. What follows a
draft (Goldfish Draft's scoring) follows its "draft.complete" hook from its own package."""

from __future__ import annotations

from bot.games.draft import messages, rotisserie_cog, rules, ui, web
from bot.games.draft import service as drafts
from bot.games.draft.service import deliveries, timers
from bot.kit.deadlines import Handlers
from bot.kit.delivery import Renderers
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
    renderers=Renderers(messages.RENDERERS, rotisserie_cog.RENDERERS),
    events=(rules.PickEvent,),
    hooks=(drafts.COMPLETE,),  # "draft.complete": Goldfish and Pods follow it
    deadlines=Handlers(timers.DEADLINES, deliveries.DEADLINES),
    web=web.PAGES,
    help=FormatHelp(
        key="draft",
        name="Draft pods",
        start="`/draft start cube:<cube>` or `set:<set>`: a booster draft picked in DMs at each player's pace",
        about="An asynchronous booster draft: everyone picks when they like, by clicking the pack the bot "
              "DMs them. Any cube (`/cube list`) or a set's boosters.",
        flow=(
            "**Start:** `/draft start cube` or `set` (an organizer): packs, pack size, seats, a pick timer.",
            "**Join:** `/draft join` or the Join button; `/draft leave`.",
            "**Begin:** `/draft begin` (2+ players), or by itself when the lobby is full.",
            "**Pick:** each pack comes by DM; pick with its letter or button. `/draft resend` DMs it again.",
            "**Follow:** `/draft status` whom it waits on; `/draft pool` your picks.",
            "**End:** after the last pick everyone gets their pool; `/draft export` a deck file. "
            "`/draft cancel` (organizer; asks first) stops it.",
        ),
        more="`/draft rotisserie`: the cube face up, a card each in snake order (`/draft take`) · "
             "`/draft replace`, `rejoin`, `seat` for bot seats · `/draft log`.",
    ),
)

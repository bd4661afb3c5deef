"""Draft pods: the format as the rest of the bot sees it (`FORMAT`), declared once here. What follows a
draft (Goldfish Draft's scoring) follows its "draft.complete" hook from its own package."""

from __future__ import annotations

from bot.games.draft import kinds_cog, messages, rotisserie_cog, rules, ui, web
from bot.games.draft import service as drafts
from bot.games.draft.service import deliveries, kind_turns, timers
from bot.kit.deadlines import Handlers
from bot.kit.delivery import Renderers
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=drafts.SPEC.kind,
    name="Draft",
    order=1,
    cog=f"{__name__}.cog",
    spec=drafts.SPEC,
    components=(ui.LobbyButton, ui.PickButton, ui.PickSelect, kinds_cog.ChoiceButton),
    outbox_kinds=(drafts.PACK, drafts.RETIRE, drafts.CLOSE_PACK, drafts.DMS_CLOSED, drafts.REMINDER, drafts.TIMED_OUT,
                  drafts.FINAL_POOL, drafts.SUMMARY, drafts.NOTICE, drafts.CONFIRM, drafts.turns.TURN, *kind_turns.KINDS),
    deadline_kinds=(drafts.state.TIMER, drafts.deliveries.RECOVER),
    renderers=Renderers(messages.RENDERERS, rotisserie_cog.RENDERERS, kinds_cog.RENDERERS),
    events=(rules.DraftEvent,),
    hooks=(drafts.COMPLETE,),  # "draft.complete": Goldfish and Pods follow it
    deadlines=Handlers(timers.DEADLINES, deliveries.DEADLINES),
    web=web.PAGES,
    help=FormatHelp(
        key="draft",
        name="Draft pods",
        start="`/draft start cube:<cube>` or `set:<set>`: a booster draft picked in DMs at each player's pace",
        about="An asynchronous booster draft: everyone picks when they like, from the packs the bot DMs "
              "them. A cube (`/cube list`) or a set's boosters.",
        flow=(
            "**Start:** `/draft start cube` or `set` (organizers): packs, pack size, seats, a timer.",
            "**Join:** `/draft join` or the Join button; `/draft leave`.",
            "**Begin:** `/draft begin` (2+ players), or by itself when full.",
            "**Pick:** by DM, with a pack's letters or buttons; `/draft resend` sends it again.",
            "**Follow:** `/draft status`; `/draft pool` your picks.",
            "**End:** everyone gets their pool; `/draft export` a deck file. `/draft cancel` asks first.",
        ),
        more="Variants: `/draft rotisserie` (cube face up, one card a turn: `/draft take`, or the web via a bare "
             "`/draft take`), `winston` (2 players, hidden piles by DM), `grid` (lines of 3×3 grids) · "
             "`/draft replace`, `rejoin`, `seat` for bot seats · `/draft log`.",
    ),
)

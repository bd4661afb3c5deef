"""A draft pod's matches after its draft (issue 38): the format as the rest of the bot sees it
(`FORMAT`). It follows the draft's "draft.complete" hook (`service.open_for_draft`), as Goldfish
does, and the draft's `/draft start` offers its options through it (`service.DRAFT_OPTIONS`):
neither package imports the other."""

from __future__ import annotations

from bot.games.pod_matches import service
from bot.kit import claims_ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Pods",
    order=1,
    cog=f"{__name__}.cog",
    web=f"{__name__}.web",
    claims=(claims_ui.answers(service.KIND),),
    outbox_kinds=(service.PAIRED, service.FINAL, service.NEWS),
    leaderboard="Pods",
    help=FormatHelp(
        key="pod",
        name="Pods",
        start="`/pod start`",
        about="After a draft, its players play best-of-three matches: Swiss (or team against team), "
              "with standings by match points and the usual tiebreakers.",
        flow=(
            "**Start:** `/draft start … matches:swiss` pairs round 1 when the draft ends; else the organizer "
            "`/pod start`s (bots' seats need a `stand_in`).",
            "**Report:** `/pod report won lost`; your opponent confirms or disputes.",
            "**Follow:** `/pod status` the pairings and standings; `/pod drop` to stop playing.",
            "**Rounds:** 3 (fewer for small pods), never a rematch; the organizer `/pod pair`s the next one "
            "(or it comes by itself with `matches:swiss`).",
            "**End:** after the last round (or `/pod end`, organizer): the standings go to the leaderboard.",
        ),
        more="`/pod decide` (an organizer who does not play) decides a disputed match.",
    ),
)

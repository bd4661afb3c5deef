"""A draft pod's matches after its draft (issue 38): the format as the rest of the bot sees it
(`FORMAT`). It follows the draft's "draft.complete" hook (`service.open_for_draft`), as Goldfish
does, and the draft's `/draft start` offers its options through it (`service.DRAFT_OPTIONS`):
neither package imports the other."""

from __future__ import annotations

from bot.games.pod_matches import messages, service, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Pods",
    order=1,
    cog=f"{__name__}.cog",
    web=web.PAGES,
    claims=(ui.ANSWERING,),
    outbox_kinds=(service.PAIRED, service.FINAL, service.NEWS),
    renderers=messages.RENDERERS,
    follows=(service.FOLLOWS_DRAFT,),
    leaderboard="Pods",
    help=FormatHelp(
        key="pod",
        name="Pods",
        start="`/pod start`",
        about="After a draft, its players play best-of-three matches: Swiss (or team against team), "
              "with standings by match points and the usual tiebreakers.",
        flow=(
            "**Start:** after the draft its organizer uses `/pod start` (a bot's seat plays with a stand-in, "
            "`bot1:`), or `/draft start … matches:swiss` (or `teams:2`) starts them itself.",
            "**Join:** the draft's players play (`/draft join` before it begins); `/pod leave` to stop.",
            "**Rounds:** best of three; `/pod pair` pairs the next round once this one is in (or by itself).",
            "**Report:** `/pod report won lost` (`deck:` a decklist, shown after the end); your opponent "
            "confirms or disputes; `/pod decide` (an organizer who does not play) decides.",
            "**End:** after the last round (or `/pod end`): the standings go to the leaderboard.",
        ),
        more="`/pod status` the pairings and standings (W–L–D, tiebreakers). 3 rounds, no rematch.",
    ),
)

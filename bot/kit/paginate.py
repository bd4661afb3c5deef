"""Paginated embeds whose Previous/Next buttons keep working after a restart.

A list shown in pages is a `PageList` a format (or feature) declares (`Format.page_lists`), answered
by the cog method that `handles` it (`bot.kit.dispatch`): `async (interaction, key, page) -> Page`,
bound when the bot starts like a component's handler (nothing is registered at import). The buttons
are `DynamicItem`s with the list's kind, page and key in their custom_id, so any process can
re-render any page straight from the database. A key identifies what is paged by ids (a cube id, a season id, an
event and player id), never by text a user typed: a custom_id holds at most 100 characters. A
renderer whose object is gone raises a UserError saying so, which the clicking user is shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import discord

from bot.kit.errors import UserError

PAGE_ID = r"pg:(?P<kind>[a-z_]+):(?P<page>\d+):(?P<key>.*)"
CUSTOM_ID_LIMIT = 100


@dataclass
class Page:
    embed: discord.Embed
    page: int
    pages: int
    links: Sequence[discord.ui.Button] = field(default_factory=tuple)  # link buttons shown beside the pages'


Renderer = Callable[[discord.Interaction, str, int], Awaitable[Page]]


@dataclass(frozen=True)
class PageList:
    """A list shown in pages, named by `kind` in its buttons' custom_ids (stored in messages: a kind
    never changes). The cog method that `handles` it renders a page."""

    kind: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z_]+", self.kind):
            raise ValueError(f"A page list's kind is lowercase letters and underscores, not {self.kind!r}.")


def _renderer(interaction: discord.Interaction, pages: PageList) -> Renderer | None:
    """The bound cog method that renders `pages` (the bot's `handlers`, bound when it starts)."""
    return getattr(interaction.client, "handlers", {}).get(pages)


def slice_page(items: Sequence, page: int, per_page: int) -> tuple[Sequence, int, int]:
    """Items on `page` (clamped), the clamped page index and the page count."""
    pages = max(1, math.ceil(len(items) / per_page))
    page = min(max(page, 0), pages - 1)
    return items[page * per_page : (page + 1) * per_page], page, pages


class PageButton(discord.ui.DynamicItem[discord.ui.Button], template=PAGE_ID):
    def __init__(self, kind: str, key: str, target: int, label: str, disabled: bool = False) -> None:
        custom_id = f"pg:{kind}:{target}:{key}"
        if len(custom_id) > CUSTOM_ID_LIMIT:
            # Cut, the button would page something else, or nothing: a key must be made of ids.
            raise ValueError(f"page key too long for a custom_id: {custom_id[:120]!r}")
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id, disabled=disabled)
        )
        self.kind, self.key, self.target = kind, key, target

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001 - discord.py's signature
        return cls(match["kind"], match["key"], int(match["page"]), item.label or "", item.disabled)

    async def callback(self, interaction: discord.Interaction) -> None:
        from bot.kit.reporting import report_interaction_error

        renderer = _renderer(interaction, PageList(self.kind))
        if renderer is None:
            await interaction.response.send_message("This list is no longer available.", ephemeral=True)
            return
        try:
            page = await renderer(interaction, self.key, self.target)
        except Exception as error:  # noqa: BLE001 - e.g. the cube was removed since: say so
            await report_interaction_error(interaction, error)
            return
        await interaction.response.edit_message(embed=page.embed, view=page_view(self.kind, self.key, page))


def page_view(kind: str, key: str, page: Page) -> discord.ui.View | None:
    if page.pages <= 1 and not page.links:
        return None
    view = discord.ui.View(timeout=None)
    if page.pages > 1:
        page.embed.set_footer(text=f"Page {page.page + 1} of {page.pages}")
        view.add_item(PageButton(kind, key, max(page.page - 1, 0), "◀ Previous", disabled=page.page == 0))
        view.add_item(PageButton(kind, key, page.page + 1, "Next ▶", disabled=page.page >= page.pages - 1))
    for link in page.links:
        view.add_item(link)
    return view


async def send_paginated(
    interaction: discord.Interaction, pages: PageList, key: str, *, ephemeral: bool, page: int = 0
) -> None:
    renderer = _renderer(interaction, pages)
    if renderer is None:
        raise UserError("That list is not available right now; try again in a minute.")
    rendered = await renderer(interaction, key, page)
    view = page_view(pages.kind, key, rendered)
    kwargs = {"embed": rendered.embed, "ephemeral": ephemeral}
    if view is not None:
        kwargs["view"] = view
    if interaction.response.is_done():
        await interaction.followup.send(**kwargs)
    else:
        await interaction.response.send_message(**kwargs)

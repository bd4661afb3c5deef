"""Page buttons: keys of ids fit a custom_id; a key that would not is a bug, not a cut button."""

from __future__ import annotations

import re

import pytest

from bot.kit.paginate import PAGE_ID, PageButton


def test_a_page_button_carries_kind_page_and_key():
    button = PageButton("board", "goldfish:12", 3, "Next ▶")
    assert button.item.custom_id == "pg:board:3:goldfish:12"
    match = re.fullmatch(PAGE_ID, button.item.custom_id)
    assert (match["kind"], match["page"], match["key"]) == ("board", "3", "goldfish:12")


def test_buttons_posted_before_keys_were_ids_still_parse():
    match = re.fullmatch(PAGE_ID, "pg:board:1:all|Winter 2026")
    assert (match["kind"], match["page"], match["key"]) == ("board", "1", "all|Winter 2026")


def test_a_key_too_long_for_a_custom_id_is_refused_not_cut():
    with pytest.raises(ValueError, match="too long"):
        PageButton("board", "all|" + "x" * 100, 1, "Next ▶")


async def test_link_buttons_show_beside_the_page_buttons_or_alone():
    import discord

    from bot.kit.paginate import Page, page_view

    link = discord.ui.Button(style=discord.ButtonStyle.link, url="https://mtg.example.org/s/x", label="View on the web")
    assert page_view("board", "all:all", Page(discord.Embed(), 0, 1)) is None
    alone = page_view("board", "all:all", Page(discord.Embed(), 0, 1, [link]))
    assert [item.label for item in alone.children] == ["View on the web"]
    paged = page_view("board", "all:all", Page(discord.Embed(), 1, 3, [link]))
    assert [getattr(item, "item", item).label for item in paged.children] == ["◀ Previous", "Next ▶", "View on the web"]

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

"""Names compare the same in any script; user text renders literally."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.kit.text import article, clean_name, escape, name_key, plural, plural_word


def test_name_key_ignores_case_width_and_composition():
    assert name_key("Äpfel") == name_key("äpfel") == name_key("A\u0308pfel") == name_key("  ÄPFEL ")
    assert name_key("Ｃｕｂｅ") == name_key("cube")  # full-width letters
    assert name_key("Straße") == name_key("STRASSE")  # casefold, not lower
    assert name_key("Äpfel") != name_key("Apfel")


def test_clean_name_collapses_whitespace():
    assert clean_name("  My \t  cube\n") == "My cube"


@given(st.text())
def test_name_key_is_idempotent(text):
    assert name_key(name_key(text)) == name_key(text)


def test_escape_defuses_links_markdown_and_mentions():
    assert "](" not in escape("[Lightning Bolt](http://evil.example/phish)").replace("\\]\\(", "")
    assert escape("**bold**") == "\\*\\*bold\\*\\*"
    assert "@\u200beveryone" in escape("hi @everyone")
    assert "<\u200b@123>" in escape("<@123>").replace("\\", "")


@given(st.text())
def test_escape_leaves_no_unescaped_link_syntax(text):
    out = escape(text)
    # Every markdown special character is preceded by a backslash.
    for index, char in enumerate(out):
        if char in "*_~`|[]()":
            assert out[index - 1] == "\\"


def test_plural_agrees_with_the_count():
    assert plural(1, "pick") == "1 pick"
    assert plural(0, "pick") == "0 picks"
    assert plural(2, "match", "matches") == "2 matches"
    assert plural_word(1, "card") == "card" and plural_word(3, "card") == "cards"


def test_article_by_first_letter():
    assert article("event") == "an event"
    assert article("league") == "a league"

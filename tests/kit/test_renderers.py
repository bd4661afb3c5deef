"""Outbox renderers (`bot.kit.delivery`): one per kind, registered with `renders` where a format's
UI lives (a second one for a kind is refused; the same module run again replaces its own), given
the row's payload decoded to its `Payload` class; and what every format says alike, rendered once
in the kit: a table cancelled, a player's DMs closed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from bot.kit import delivery, outbox, tables
from bot.kit.delivery import Delivery, Outbox, Outgoing, add_renderer, renderer_of, renders
from bot.kit.events import Payload
from bot.kit.table_cog import TableCog

NOW = datetime(2026, 1, 2, tzinfo=UTC)


@dataclass(frozen=True)
class Hello(Payload):
    name: str
    times: tuple[int, ...] = ()


@renders("kittest.hello", Hello)
async def hello(greeting: Hello, ctx: Delivery) -> Outgoing:
    return Outgoing(content=f"Hello {greeting.name} {sum(greeting.times)} ({ctx.message.channel_id}, {ctx.fresh})")


def queued(kind: str, payload: dict, **where) -> outbox.Queued:
    return outbox.Queued(7, outbox.Message(kind, payload, **where), 0, NOW)


def sender() -> Outbox:
    return Outbox(SimpleNamespace(db=None))  # only what these renderers use of the bot


async def test_a_row_is_rendered_from_its_decoded_payload():
    out = await sender()._render(queued("kittest.hello", {"name": "Ann", "times": [1, 2]}, channel_id=5), True)
    assert out.content == "Hello Ann 3 (5, True)"


def test_a_kind_has_one_renderer():
    async def other(greeting: Hello, ctx: Delivery) -> None:
        return None

    with pytest.raises(ValueError, match="kittest.hello"):
        renders("kittest.hello", Hello)(other)
    with pytest.raises(ValueError, match="kittest.hello"):
        sender().register("kittest.hello", lambda queued, fresh: None)  # the old way can't take it either
    # The module that defined it, run again (discord.py executes an extension anew): its own, replaced.
    again = renders("kittest.hello", Hello)
    again(hello)
    assert renderer_of("kittest.hello").render is hello
    with pytest.raises(ValueError, match="kittest.hello"):
        add_renderer("kittest.hello", Hello, other)


def kit_spec(kind: str = "kitcancel", **options) -> tables.TableSpec:
    return tables.TableSpec(kind=kind, noun="match", title="Kit match", model=object, seat_model=object,
                            view=lambda loaded: loaded, begin=None, players_problem=lambda n: None, **options)


async def test_a_cancelled_table_is_told_in_the_kits_words():
    try:
        class KitCancelCog(TableCog):  # a format's cog: defining it registers the table's renderers
            spec = kit_spec(cancel_notice="kitcancel.ended", name=lambda table_id: f"Kit Cup #{table_id}")

        assert renderer_of(tables.lobby_kind("kitcancel")) is not None
        cancelled = KitCancelCog.spec.cancel_notice
        for payload in ({"table_id": 3}, {"event_id": 3}):  # the latter queued before the kit rendered it
            out = await sender()._render(queued(cancelled, payload, channel_id=5), False)
            assert out.content == "❌ Kit Cup #3 was cancelled by an organizer: nothing was recorded."
        assert kit_spec().name_of(3) == "Kit match #3"  # a format that names its tables by its title
    finally:
        tables._specs.pop("kitcancel", None)


async def test_a_format_may_say_how_its_tables_are_cancelled():
    try:
        class KitEndCog(TableCog):
            spec = kit_spec("kitend", cancel_notice="kitend.ended", cancelled_as="ended by an organizer without a winner")

        out = await sender()._render(queued("kitend.ended", {"table_id": 4}, channel_id=5), False)
        assert out.content == "❌ Kit match #4 was ended by an organizer without a winner: nothing was recorded."
    finally:
        tables._specs.pop("kitend", None)


async def test_closed_dms_are_told_in_the_kits_words():
    delivery.renders_dms_closed("kittest.dms_closed", what="your Kit cards", resend="/kit hand resend:True")
    delivery.renders_dms_closed("kittest.dms_closed", what="your Kit cards", resend="/kit hand resend:True")  # run again
    with pytest.raises(ValueError, match="kittest.dms_closed"):
        delivery.renders_dms_closed("kittest.dms_closed", what="your hand", resend="/kit hand")
    closed = outbox.DmsClosed(44).to_payload()
    assert closed == {"user_id": 44}  # what formats queued before the kit rendered it
    out = await sender()._render(queued("kittest.dms_closed", closed, channel_id=5), True)
    assert out.content == ("<@44>, I can't DM you your Kit cards. Turn on Direct Messages from server members, then "
                           "run `/kit hand resend:True`.")
    assert [user.id for user in out.allowed_mentions.users] == [44]


def test_a_text_split_into_messages_is_one_outgoing_pinging_only_whom_it_names():
    assert delivery.chunked([]) is None  # nothing to say: nothing sent
    out = delivery.chunked(["one", "two", "three"], ping=(44, 45))
    assert (out.content, out.continued) == ("one", ["two", "three"])
    assert [user.id for user in out.allowed_mentions.users] == [44, 45]
    assert delivery.chunked(["alone"]).allowed_mentions is None  # the client's default: no pings

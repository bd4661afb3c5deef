"""Destructive commands ask first, in one way (`confirm_then_act`).

1. The command checks before it asks: by default its action is rehearsed (`Database.rehearsal`:
   it runs, and every write is rolled back), so it refuses at once, with the very refusal the
   action would give, and no prompt is shown.
2. It asks: an ephemeral two-button prompt only the asking user can answer, each button named by
   what it does ("Cancel the game" / "Keep it"), never Confirm / Cancel on a question about cancelling.
3. Confirm runs the action for real (the state may have changed meanwhile) and answers the press
   itself: the prompt becomes the result, or the refusal, and its buttons go. A press is never left
   unanswered, and the answer is never a separate follow-up.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.kit.dispatch import Component, InvalidPayload, Part, number, word
from bot.kit.reporting import error_text
from bot.store.db import Database

# A prompt is the asker's own (ephemeral): it never pings, whatever names it shows.
QUIET = discord.AllowedMentions.none()
CANCELLED = "Kept as it was: nothing was changed."
NO_ANSWER = "No answer: nothing was changed."
EXPIRED = "This question has expired (the bot restarted since): nothing was changed. Run the command again."
# A prompt's buttons name this process: after a restart, a press on an old prompt is answered by
# `PromptButton` (its action, in the old process's memory, is gone) instead of going unanswered.
PROCESS = secrets.token_hex(4)


def _new_process() -> None:
    """A fork of this process (a server that imports the bot once and forks each bot, as the e2e
    tests do) is another process: its prompts are not this one's."""
    global PROCESS
    PROCESS = secrets.token_hex(4)


os.register_at_fork(after_in_child=_new_process)
_prompts = itertools.count(1)


@dataclass(frozen=True)
class Done:
    """What the prompt becomes once the action is done, and what runs once the press is answered
    (e.g. redrawing a lobby message)."""

    content: str | None = None
    embed: discord.Embed | None = None
    after: Callable[[], Awaitable[None]] | None = None


Act = Callable[[], Awaitable["Done | str"]]


class ConfirmView(discord.ui.View):
    """Ephemeral two-button prompt; only the user who asked can answer it."""

    def __init__(self, user_id: int, *, timeout: float = 120, label: str = "Confirm", keep: str = "Cancel") -> None:
        super().__init__(timeout=timeout)
        self.user_id = user_id
        self.confirm.label, self.cancel.label = label, keep  # each named by what it does
        self.confirmed: bool | None = None
        self.interaction: discord.Interaction | None = None
        prompt = next(_prompts)
        for button, answer in ((self.confirm, "yes"), (self.cancel, "no")):
            button.custom_id = PromptButton.custom_id_for(process=PROCESS, prompt=prompt, answer=answer)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id != self.user_id:
            await interaction.response.send_message("This prompt is not yours.", ephemeral=True)
            return False
        return True

    async def _finish(self, interaction: discord.Interaction, confirmed: bool) -> None:
        self.confirmed = confirmed
        self.interaction = interaction
        self.stop()

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, _button: discord.ui.Button) -> None:
        await self._finish(interaction, True)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, _button: discord.ui.Button) -> None:
        await self._finish(interaction, False)


def _process_part(raw: str) -> str:
    if len(raw) != len(PROCESS) or any(c not in "0123456789abcdef" for c in raw):
        raise InvalidPayload()
    return raw


class PromptButton(
    Component, prefix="confirm", parts=(Part("process", _process_part), number("prompt"), word("answer", ("yes", "no"))),
):
    """A prompt's button, as any process sees it: this process's live prompt answers its own
    presses (`ConfirmView`); a press on a prompt of an earlier process is told it expired."""

    async def handle(self, interaction: discord.Interaction, *, process: str, **_: Any) -> None:
        if process != PROCESS:
            await interaction.response.edit_message(content=EXPIRED, view=None, allowed_mentions=QUIET)


async def confirm_then_act(
    interaction: discord.Interaction, question: str, act: Act, *, db: Database | None = None,
    check: Callable[[], Awaitable[object]] | None = None,
    around: Callable[[discord.Interaction], contextlib.AbstractContextManager] | None = None,
    label: str = "Confirm", keep: str = "Cancel",
) -> bool:
    """Check, ask `question`, and on Confirm run `act` and answer the press with what it returns
    (a text, or `Done`) or with its refusal. Returns whether the action was done. `label` names
    the button that acts by what it does ("End the draft", "Cancel the game"), `keep` the one that
    leaves things as they are ("Keep it"); every caller names both (the defaults are only for
    callers not yet converted: a test lists them).

    `check` (default: `act` rehearsed on `db`) raises the refusal before anything is asked; it is
    answered by the command's error handler, like any refusal. `around(press)` wraps the action and
    its answer (e.g. `bot.outbox.replies.answering`, so a notice can follow the answer up).
    """
    if check is None:
        if db is None:
            raise TypeError("confirm_then_act needs `db` to rehearse the action, or a `check`")
        check = _rehearsal(db, act)
    await check()
    press = await _ask(interaction, question, label, keep)
    if press is None:
        return False
    with around(press) if around is not None else contextlib.nullcontext():
        return await _act_and_answer(press, act)


async def _act_and_answer(press: discord.Interaction, act: Act) -> bool:
    try:
        done = await act()
    except Exception as error:  # noqa: BLE001 - a refusal (or a bug) answers the press, in the prompt
        await press.response.edit_message(content=error_text(press, error), view=None, allowed_mentions=QUIET)
        return False
    done = Done(done) if isinstance(done, str) else done
    edit: dict = {"content": done.content, "view": None, "allowed_mentions": QUIET}
    if done.embed is not None:
        edit["embed"] = done.embed
    await press.response.edit_message(**edit)
    if done.after is not None:
        await done.after()
    return True


def _rehearsal(db: Database, act: Act) -> Callable[[], Awaitable[object]]:
    async def rehearse() -> None:
        async with db.rehearsal():
            await act()

    return rehearse


async def _ask(interaction: discord.Interaction, question: str, label: str, keep: str) -> discord.Interaction | None:
    """Ask `question`; return the Confirm press (not yet answered), or None after answering a
    Cancel press or editing the prompt when nobody answered in time."""
    view = ConfirmView(interaction.user.id, label=label, keep=keep)
    await interaction.response.send_message(question, view=view, ephemeral=True, allowed_mentions=QUIET)
    timed_out = await view.wait()
    if timed_out or not view.confirmed or view.interaction is None:
        if view.interaction is not None:
            await view.interaction.response.edit_message(content=CANCELLED, view=None)
        else:
            await interaction.edit_original_response(content=NO_ANSWER, view=None)
        return None
    return view.interaction

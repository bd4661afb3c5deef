"""What this process is doing to each pack message, one `MessageState` per message, and the one
ordering rule they follow.

A pack message (a player's DM that shows a pack) is changed by several hands: a pick by button
turns it into the next pack in the interaction's answer, the outbox edits it to the next pack of a
reaction pick or to a held "you took …" confirmation, its letters are added in the background, a
reaction on it is judged, and after a database outage its letters are read again. The rule: **a
change to a message, or a reaction judged on it, waits until the changes before it have been made and
recorded** (`settled`), never longer than `SETTLING_WAIT` in all (a record that never lands holds
nothing for good), so a reaction is judged against the pack the player saw and recorded, and the
message ends up showing the newest. A change ends when its record lands: an outbox send's
`Outgoing.after_record`, or the end of the interaction or send that made and recorded it
(`changing`). This is the draft's one wait on its messages: the outbox keeps none of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

SETTLING_WAIT = 10  # seconds a change or a reaction waits, at most, for the changes before it


@dataclass
class MessageState:
    # Set while the message is being sent or turned to its next pack (or its confirmation), until
    # that is recorded; a later change replaces it (and its waiters wait for that one too).
    changing: asyncio.Future | None = None
    letters: asyncio.Task | None = None  # its letters 🇦… being added
    # Its letters wait to be read again once the database answers; True: a toggle came meanwhile.
    reread: bool | None = None

    @property
    def idle(self) -> bool:
        return self.changing is None and self.letters is None and self.reread is None


class MessageStates:
    """The states of the pack messages this process is doing something to (none kept when idle)."""

    def __init__(self) -> None:
        self._states: dict[int, MessageState] = {}

    def of(self, message_id: int) -> MessageState:
        return self._states.setdefault(message_id, MessageState())

    def peek(self, message_id: int) -> MessageState | None:
        return self._states.get(message_id)

    def _tidy(self, message_id: int) -> None:
        state = self._states.get(message_id)
        if state is not None and state.idle:
            del self._states[message_id]

    # --- changes: the ordering rule ------------------------------------------------------------------

    @contextlib.contextmanager
    def changing(self, message_id: int) -> Iterator[None]:
        """Around showing the next pack on a message and recording it."""
        done = self.begin_change(message_id)
        try:
            yield
        finally:
            self.end_change(message_id, done)

    def begin_change(self, message_id: int) -> asyncio.Future:
        done = asyncio.get_running_loop().create_future()
        self.of(message_id).changing = done
        return done

    def end_change(self, message_id: int, done: asyncio.Future) -> None:
        state = self._states.get(message_id)
        if state is not None and state.changing is done:
            state.changing = None
            self._tidy(message_id)
        if not done.done():
            done.set_result(None)

    async def settled(self, message_id: int) -> None:
        """Wait until `message_id` is not being changed, the changes begun meanwhile included, at
        most `SETTLING_WAIT` seconds in all (then the change waited on counts as over)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + SETTLING_WAIT
        while (state := self._states.get(message_id)) is not None and (done := state.changing) is not None:
            try:
                await asyncio.wait_for(asyncio.shield(done), max(until - loop.time(), 0))
            except TimeoutError:
                self.end_change(message_id, done)
                return

    # --- letters ---------------------------------------------------------------------------------------

    def adding_letters(self, message_id: int) -> bool:
        state = self._states.get(message_id)
        return state is not None and state.letters is not None

    def add_letters(self, message_id: int, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work, name=f"reactions-{message_id}")
        self.of(message_id).letters = task
        task.add_done_callback(lambda _t: self._letters_done(message_id, task))

    def _letters_done(self, message_id: int, task: asyncio.Task) -> None:
        state = self._states.get(message_id)
        if state is not None and state.letters is task:
            state.letters = None
            self._tidy(message_id)

    def stop_letters(self, message_id: int) -> None:
        state = self._states.get(message_id)
        if state is not None and state.letters is not None:
            state.letters.cancel()
            state.letters = None
            self._tidy(message_id)

    # --- reading the letters again after a database outage ------------------------------------------------

    def ask_reread(self, message_id: int) -> bool:
        """Ask for one more reading of the message's letters; True if none was waiting (start one)."""
        state = self.of(message_id)
        first = state.reread is None
        state.reread = True
        return first

    def rereading(self, message_id: int) -> bool:
        state = self._states.get(message_id)
        return state is not None and state.reread is not None

    def take_reread(self, message_id: int) -> bool:
        """Was another reading asked for since the last one? (Then this one covers it.)"""
        state = self._states.get(message_id)
        if state is None or not state.reread:
            return False
        state.reread = False
        return True

    def end_reread(self, message_id: int) -> None:
        state = self._states.get(message_id)
        if state is not None:
            state.reread = None
            self._tidy(message_id)

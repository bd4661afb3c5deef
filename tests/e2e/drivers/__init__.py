"""Acting as players through the fake Discord, one driver per format.

- `common`: reading messages (embed text, components), finding a component by its ui class, a
  forged click (what a modified client can send);
- `table.TableDriver`: the lobby every format shares (start, join, begin, cancel) and the bot's
  database for checks;
- `draft`, `battler`, …: a format's own actions, built on `TableDriver`.

Custom ids are always built or recognised with the bot's own ui classes
(`Component.custom_id_for`, `matches`), never written as string literals.
"""

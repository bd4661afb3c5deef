"""Discord-side payload limits, so a bot that would get a 400 from real Discord gets one here too.

Errors are returned in Discord's nested ``{"field": {"_errors": [...]}}`` shape, which discord.py's
``HTTPException`` flattens into a readable message.
"""

from __future__ import annotations

import re
from typing import Any

Errors = dict[str, Any]

COMMAND_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def add_error(errors: Errors, path: list[str | int], code: str, message: str) -> None:
    node = errors
    for key in path:
        node = node.setdefault(str(key), {})
    node.setdefault("_errors", []).append({"code": code, "message": message})


def _max_len(errors: Errors, path: list[str | int], value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        add_error(errors, path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def validate_embeds(errors: Errors, embeds: Any) -> None:
    if embeds is None:
        return
    if not isinstance(embeds, list):
        add_error(errors, ["embeds"], "BASE_TYPE_BAD_LIST", "Must be a list.")
        return
    if len(embeds) > 10:
        add_error(errors, ["embeds"], "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, e in enumerate(embeds):
        p: list[str | int] = ["embeds", i]
        _max_len(errors, [*p, "title"], e.get("title"), 256)
        _max_len(errors, [*p, "description"], e.get("description"), 4096)
        _max_len(errors, [*p, "footer", "text"], (e.get("footer") or {}).get("text"), 2048)
        _max_len(errors, [*p, "author", "name"], (e.get("author") or {}).get("name"), 256)
        fields = e.get("fields") or []
        if len(fields) > 25:
            add_error(errors, [*p, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, f in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                v = f.get(key)
                if v is None or (isinstance(v, str) and not v.strip()):
                    add_error(errors, [*p, "fields", j, key], "BASE_TYPE_REQUIRED", "This field is required")
                _max_len(errors, [*p, "fields", j, key], v, limit)
                total += len(str(v or ""))
        for s in (
            e.get("title"),
            e.get("description"),
            (e.get("footer") or {}).get("text"),
            (e.get("author") or {}).get("name"),
        ):
            total += len(s or "")
    if total > 6000:
        add_error(errors, ["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")


def validate_components(
    errors: Errors, components: Any, *, v2: bool, path: list[str | int] | None = None
) -> None:
    if components is None:
        return
    path = path or ["components"]
    if not isinstance(components, list):
        add_error(errors, path, "BASE_TYPE_BAD_LIST", "Must be a list.")
        return
    if not v2 and len(components) > 5:
        add_error(errors, path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    seen: set[str] = set()
    _walk_components(errors, components, path, seen, top=True, v2=v2)


def _walk_components(
    errors: Errors, comps: list[Any], path: list[str | int], seen: set[str], *, top: bool, v2: bool
) -> None:
    for i, c in enumerate(comps):
        p = [*path, i]
        t = c.get("type")
        if top and not v2 and t != 1:
            add_error(
                errors, [*p, "type"], "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).'
            )
        if t == 1:
            children = c.get("components") or []
            if not children or len(children) > 5:
                add_error(
                    errors, [*p, "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."
                )
            if any(ch.get("type") in (3, 5, 6, 7, 8) for ch in children) and len(children) > 1:
                add_error(
                    errors,
                    [*p, "components"],
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
            _walk_components(errors, children, [*p, "components"], seen, top=False, v2=v2)
            continue
        if t in (9, 17):
            _walk_components(errors, c.get("components") or [], [*p, "components"], seen, top=False, v2=v2)
            if isinstance(c.get("accessory"), dict):
                _walk_components(errors, [c["accessory"]], [*p, "accessory"], seen, top=False, v2=v2)
            continue
        custom_id = c.get("custom_id")
        if t == 2:
            _max_len(errors, [*p, "label"], c.get("label"), 80)
            if c.get("style") not in (5, 6) and not custom_id:
                add_error(errors, [*p, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
            if c.get("style") == 5:  # a link button: an http(s) URL of at most 512 characters, no custom_id
                url = c.get("url") or ""
                if not url.startswith(("http://", "https://", "discord://")):
                    add_error(errors, [*p, "url"], "URL_TYPE_INVALID_URL", "Not a well formed URL.")
                _max_len(errors, [*p, "url"], url, 512)
                if custom_id:
                    add_error(errors, [*p, "custom_id"], "COMPONENT_INVALID", "A link button has no custom_id")
        if t in (3, 5, 6, 7, 8):
            _max_len(errors, [*p, "placeholder"], c.get("placeholder"), 150)
            if not custom_id:
                add_error(errors, [*p, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
            mn, mx = c.get("min_values", 1), c.get("max_values", 1)
            if not (0 <= mn <= 25 and 1 <= mx <= 25 and mn <= mx):
                add_error(
                    errors, [*p, "max_values"], "BASE_TYPE_BAD_INT", "min_values/max_values out of range"
                )
        if t == 3:
            options = c.get("options") or []
            if not 1 <= len(options) <= 25:
                add_error(
                    errors, [*p, "options"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length."
                )
            values: set[str] = set()
            for j, o in enumerate(options):
                for key in ("label", "value", "description"):
                    _max_len(errors, [*p, "options", j, key], o.get(key), 100)
                if o.get("value") in values:
                    add_error(
                        errors,
                        [*p, "options", j, "value"],
                        "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                        "Select component option values must be unique",
                    )
                values.add(o.get("value"))
            if c.get("max_values", 1) > max(len(options), 1):
                add_error(
                    errors,
                    [*p, "max_values"],
                    "BASE_TYPE_MAX",
                    f"int value should be less than or equal to {len(options)}.",
                )
        if custom_id is not None:
            _max_len(errors, [*p, "custom_id"], custom_id, 100)
            if custom_id in seen:
                add_error(
                    errors,
                    [*p, "custom_id"],
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen.add(custom_id)


def validate_allowed_mentions(errors: Errors, allowed: Any) -> None:
    if allowed is None:
        return
    if not isinstance(allowed, dict):
        add_error(
            errors, ["allowed_mentions"], "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"
        )
        return
    parse = allowed.get("parse") or []
    for i, kind in enumerate(parse):
        if kind not in ("everyone", "roles", "users"):
            add_error(
                errors,
                ["allowed_mentions", "parse", i],
                "BASE_TYPE_CHOICES",
                "Value must be one of ('everyone', 'roles', 'users').",
            )
    for kind in ("users", "roles"):
        ids = allowed.get(kind) or []
        if len(ids) > 100:
            add_error(
                errors, ["allowed_mentions", kind], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length."
            )
        for i, snowflake in enumerate(ids):
            if not str(snowflake).isdigit():
                add_error(
                    errors,
                    ["allowed_mentions", kind, i],
                    "NUMBER_TYPE_COERCE",
                    f'Value "{snowflake}" is not snowflake.',
                )
        if ids and kind in parse:
            add_error(
                errors,
                ["allowed_mentions"],
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
            )


def validate_message(
    payload: dict[str, Any], *, has_files: bool, partial: bool = False
) -> tuple[Errors, bool]:
    """Returns (errors, empty). ``empty`` means Discord would answer 50006 "Cannot send an empty message"."""
    errors: Errors = {}
    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        add_error(errors, ["content"], "BASE_TYPE_BAD_STRING", "Must be a string.")
    _max_len(errors, ["content"], content, 2000)
    nonce = payload.get("nonce")
    if nonce is not None:
        _max_len(errors, ["nonce"], str(nonce), 25)
    validate_embeds(errors, payload.get("embeds"))
    v2 = bool((payload.get("flags") or 0) & (1 << 15))
    validate_components(errors, payload.get("components"), v2=v2)
    validate_allowed_mentions(errors, payload.get("allowed_mentions"))
    empty = not partial and not (
        content
        or payload.get("embeds")
        or has_files
        or payload.get("components")
        or payload.get("sticker_ids")
        or payload.get("poll")
        or payload.get("attachments")
    )
    return errors, empty


def validate_modal(data: dict[str, Any]) -> Errors:
    errors: Errors = {}
    if not data.get("custom_id"):
        add_error(errors, ["data", "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errors, ["data", "custom_id"], data.get("custom_id"), 100)
    if not data.get("title"):
        add_error(errors, ["data", "title"], "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errors, ["data", "title"], data.get("title"), 45)
    comps = data.get("components") or []
    if not 1 <= len(comps) <= 5:
        add_error(
            errors, ["data", "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."
        )
    for i, row in enumerate(comps):
        children = (
            row.get("components")
            if row.get("type") == 1
            else [row.get("component")]
            if row.get("type") == 18
            else []
        )
        for j, c in enumerate(children or []):
            if not c:
                continue
            p: list[str | int] = ["data", "components", i, "components", j]
            if c.get("type") == 4:
                _max_len(errors, [*p, "label"], c.get("label"), 45)
                _max_len(errors, [*p, "placeholder"], c.get("placeholder"), 100)
                _max_len(errors, [*p, "value"], c.get("value"), 4000)
                _max_len(errors, [*p, "custom_id"], c.get("custom_id"), 100)
        if row.get("type") == 18:
            _max_len(errors, ["data", "components", i, "label"], row.get("label"), 45)
    return errors


def validate_choices(choices: Any) -> Errors:
    errors: Errors = {}
    if not isinstance(choices, list):
        add_error(errors, ["data", "choices"], "BASE_TYPE_BAD_LIST", "Must be a list.")
        return errors
    if len(choices) > 25:
        add_error(errors, ["data", "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, c in enumerate(choices):
        name = c.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            add_error(
                errors,
                ["data", "choices", i, "name"],
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if isinstance(c.get("value"), str):
            _max_len(errors, ["data", "choices", i, "value"], c["value"], 100)
    return errors


def validate_commands(commands: Any) -> Errors:
    errors: Errors = {}
    if not isinstance(commands, list):
        add_error(errors, [], "BASE_TYPE_BAD_LIST", "Must be a list.")
        return errors
    names: set[tuple[str, int]] = set()
    for i, cmd in enumerate(commands):
        ctype = cmd.get("type", 1)
        name = cmd.get("name", "")
        if (name, ctype) in names:
            add_error(
                errors,
                [i, "name"],
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
                f"Application command names must be unique: {name}",
            )
        names.add((name, ctype))
        if ctype == 1:
            _validate_chat_input(errors, cmd, [i])
    return errors


def _validate_chat_input(errors: Errors, node: dict[str, Any], path: list[str | int]) -> None:
    name = node.get("name", "")
    if not COMMAND_NAME_RE.match(name) or name != name.lower():
        add_error(
            errors, [*path, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"Command name is invalid: {name!r}"
        )
    desc = node.get("description", "")
    if not 1 <= len(desc) <= 100:
        add_error(
            errors, [*path, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
        )
    options = node.get("options") or []
    if len(options) > 25:
        add_error(errors, [*path, "options"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    seen_optional = False
    for j, opt in enumerate(options):
        p = [*path, "options", j]
        if opt.get("type") in (1, 2):
            _validate_chat_input(errors, opt, p)
            continue
        if opt.get("required"):
            if seen_optional:
                add_error(
                    errors,
                    [*p, "required"],
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        if not COMMAND_NAME_RE.match(opt.get("name", "")):
            add_error(errors, [*p, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if not 1 <= len(opt.get("description", "")) <= 100:
            add_error(
                errors, [*p, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
            )
        if len(opt.get("choices") or []) > 25:
            add_error(errors, [*p, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")

"""Typed documents as JSON, once for every format: engine events, outbox payloads, anything that is
a dataclass of plain values.

`encode(value)` turns a dataclass into JSON data: its fields (nested dataclasses as dicts, tuples
and sets as lists, enums as their values), plus ``"type"`` for a registered event class.
`decode(data, hint)` rebuilds the value from the hint's type hints: the engine's own dataclasses,
tuples, lists, dicts, ``X | None``, unions, enums. A field missing from `data` takes its default
(so a field added later still reads documents written before it); keys the class does not have are
ignored (e.g. the outbox's `telling` note on a payload).

Events. An engine registers its event classes once (`register("turnabout", Event)`: every subclass
of its base event, named ``turnabout.RoundPaired``); the names are unique across formats. A
dict with a ``"type"`` decodes to the registered class of that name, which must be of the type the
hint asks for. A bare class name (``"RoundPaired"``, what payloads queued before the registry
said) is read as the registered class of that name *among the hint's subclasses*: an announcement
queued by one format before an upgrade still renders after it.

`Payload`: the base of every outbox payload (and of any small stored document): `to_payload()` /
`from_payload()` written once on this codec; `upgrade` lets a payload class read an older shape.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Self, TypeVar

T = TypeVar("T")
TYPE = "type"  # the key naming a registered event's class

_by_name: dict[str, type] = {}  # "turnabout.RoundPaired" -> the class
_name_of: dict[type, str] = {}


class DecodeError(ValueError):
    """Data that is not a document of the type asked for (a damaged or foreign payload)."""


# --- the registry ---------------------------------------------------------------------------------


def register(prefix: str, *bases: type) -> None:
    """Register every subclass of each of `bases` (at any depth; the bases themselves only if they
    are not abstract roots with subclasses) as ``<prefix>.<ClassName>``. Call it once the classes
    are defined (at the end of the engine module). A name already taken by another class is refused."""
    if not prefix or "." in prefix:
        raise ValueError(f"An event prefix is one word, not {prefix!r}.")
    for base in bases:
        found = _subclasses(base)
        for cls in found or [base]:
            _register_one(f"{prefix}.{cls.__name__}", cls)


def _subclasses(base: type) -> list[type]:
    found: list[type] = []
    for sub in base.__subclasses__():
        found.append(sub)
        found += _subclasses(sub)
    return found


def _register_one(name: str, cls: type) -> None:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__qualname__} is not a dataclass: only dataclasses are events.")
    taken = _by_name.get(name)
    if taken is not None and taken is not cls:
        raise ValueError(f"The event name {name!r} is taken by {taken.__module__}.{taken.__qualname__}.")
    _by_name[name] = cls
    _name_of[cls] = name


def name_of(cls: type) -> str | None:
    """The registered name of an event class (None if it is not an event)."""
    return _name_of.get(cls)


def registered(name: str) -> type | None:
    return _by_name.get(name)


# --- encoding -------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """`value` as JSON data (dicts, lists, str, int, float, bool, None)."""
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        name = _name_of.get(type(value))
        return data if name is None else {TYPE: name, **data}
    if isinstance(value, Mapping):
        return {_key(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [encode(v) for v in items]
    raise TypeError(f"Cannot encode a {type(value).__name__} as JSON data.")


def _key(key: Any) -> str:
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, bool) or not isinstance(key, str | int):
        raise TypeError(f"A document's dict keys are str or int, not {type(key).__name__}.")
    return str(key)


# --- decoding -------------------------------------------------------------------------------------------


def decode(data: Any, hint: Any = Any) -> Any:
    """`data` (JSON data) as a value of type `hint`; with no hint, a registered event's dict as its
    class, and anything else as it is."""
    return _decode(data, hint, "the document")


def _decode(data: Any, hint: Any, where: str) -> Any:
    if hint is Any or hint is object:
        if isinstance(data, dict) and TYPE in data:
            return _decode_class(data, _event_class(data[TYPE], object, where), where)
        return data
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _decode_union(data, typing.get_args(hint), where)
    if origin is typing.Literal:
        if data not in typing.get_args(hint):
            raise DecodeError(f"{where}: {data!r} is not one of {typing.get_args(hint)}.")
        return data
    if hint is type(None):
        if data is not None:
            raise DecodeError(f"{where}: expected nothing, found {data!r}.")
        return None
    if origin in (tuple, list, set, frozenset, dict):
        return _decode_container(data, origin, typing.get_args(hint), where)
    if hint in (tuple, list, set, frozenset, dict):
        return _decode_container(data, hint, (), where)
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            if not isinstance(data, dict):
                raise DecodeError(f"{where}: expected a {hint.__name__} document, found {type(data).__name__}.")
            named = TYPE in data and TYPE not in _field_names(hint)  # an event: the class it names
            return _decode_class(data, _event_class(data[TYPE], hint, where) if named else hint, where)
        if issubclass(hint, enum.Enum):
            try:
                return hint(data)
            except ValueError:
                raise DecodeError(f"{where}: {data!r} is not a {hint.__name__}.") from None
        return _decode_scalar(data, hint, where)
    raise DecodeError(f"{where}: cannot decode to {hint!r}.")


def _decode_scalar(data: Any, hint: type, where: str) -> Any:
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if hint is int and isinstance(data, bool):
        raise DecodeError(f"{where}: expected an int, found {data!r}.")
    if not isinstance(data, hint):
        raise DecodeError(f"{where}: expected {hint.__name__}, found {type(data).__name__} {data!r}.")
    return data


def _decode_union(data: Any, options: tuple, where: str) -> Any:
    if data is None:
        if type(None) in options:
            return None
        raise DecodeError(f"{where}: a value is required.")
    options = tuple(o for o in options if o is not type(None))
    if isinstance(data, dict) and TYPE in data:  # an event: the union's member that it names
        for option in options:
            if isinstance(option, type) and dataclasses.is_dataclass(option):
                cls = _lookup(data[TYPE], option)
                if cls is not None:
                    return _decode_class(data, cls, where)
    for option in options:  # the first member that takes the data as it is, then one that reads it
        if isinstance(option, type) and not dataclasses.is_dataclass(option) and type(data) is option:
            return data
    errors = []
    for option in options:
        try:
            return _decode(data, option, where)
        except DecodeError as error:
            errors.append(str(error))
    raise DecodeError(f"{where}: {data!r} is none of {options} ({'; '.join(errors)}).")


def _decode_container(data: Any, origin: type, args: tuple, where: str) -> Any:
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected a dict, found {type(data).__name__}.")
        key_hint, value_hint = args or (Any, Any)
        return {_decode_key(k, key_hint, where): _decode(v, value_hint, f"{where}[{k!r}]") for k, v in data.items()}
    if not isinstance(data, list | tuple):
        raise DecodeError(f"{where}: expected a list, found {type(data).__name__}.")
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        if len(args) != len(data):
            raise DecodeError(f"{where}: expected {len(args)} items, found {len(data)}.")
        return tuple(_decode(v, h, f"{where}[{i}]") for i, (v, h) in enumerate(zip(data, args, strict=True)))
    item = args[0] if args else Any
    return origin(_decode(v, item, f"{where}[{i}]") for i, v in enumerate(data))


def _decode_key(key: str, hint: Any, where: str) -> Any:
    if hint is int:
        try:
            return int(key)
        except ValueError:
            raise DecodeError(f"{where}: the key {key!r} is not a number.") from None
    return _decode(key, hint, where)


def _event_class(name: Any, expected: type, where: str) -> type:
    cls = _lookup(name, expected)
    if cls is None:
        raise DecodeError(f"{where}: {name!r} is no registered event of type {expected.__name__}.")
    return cls


def _lookup(name: Any, expected: type) -> type | None:
    """The registered class called `name` that is an `expected`: by its full name, or (a payload
    written before names were qualified) by its bare class name among `expected`'s subclasses."""
    if not isinstance(name, str):
        return None
    cls = _by_name.get(name)
    if cls is not None:
        return cls if issubclass(cls, expected) else None
    if "." in name:
        return None
    found = {c for full, c in _by_name.items() if full.rpartition(".")[2] == name and issubclass(c, expected)}
    return found.pop() if len(found) == 1 else None


def _decode_class(data: dict, cls: type[T], where: str) -> T:
    hints = _hints(cls)
    values = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        if f.name in data:
            values[f.name] = _decode(data[f.name], hints[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise DecodeError(f"{where}: a {cls.__name__} needs {f.name!r}.")
    return cls(**values)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)  # each class's own module resolves its annotations


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


# --- payloads -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Payload:
    """The base of an outbox payload: a frozen dataclass stored as JSON data by the codec above.

    A subclass declares its fields with types (engine events, nested dataclasses, tuples, …) and
    gets `to_payload` / `from_payload`. A payload class that changed shape reads the old one by
    overriding `upgrade` (old data in, current data out)."""

    def to_payload(self) -> dict:
        return encode(self)

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Self:
        return _decode_class(cls.upgrade(dict(data)), cls, cls.__name__)

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        """Data written by an older version of this payload, as the current fields read it."""
        return data

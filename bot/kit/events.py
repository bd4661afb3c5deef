"""Typed documents as JSON, once for every format: engine events, outbox payloads, anything that is
a dataclass of plain values.

`encode(value)` turns a dataclass into JSON data: its fields (nested dataclasses as dicts, tuples
and sets as lists, enums as their values), plus ``"type"`` for a registered event class.
`decode(data, hint)` rebuilds the value from the hint's type hints: the engine's own dataclasses,
tuples, lists, dicts, ``X | None``, unions, enums. A field missing from `data` takes its default
(so a field added later still reads documents written before it); keys the class does not have are
ignored (e.g. the outbox's `telling` note on a payload).

Events. An engine's events descend from one base that names their family (`class Event(events.Event,
family="turnabout")`): each is named ``turnabout.RoundPaired``, by its family and class name; the
base is not an event itself when it has subclasses. Nothing is registered at import: a dict with a
``"type"`` decodes to the class of that name among the events the hint asks for (an engine's base
finds its subclasses; with no hint, any event). A bare class name (``"RoundPaired"``, what payloads
queued before names were qualified said) is read as the event of that name among the hint's
subclasses: an announcement queued by one format before an upgrade still renders after it. Each
format declares its event bases (`Format.events`); the bot checks at startup that every event has a
declared family and every name is one class's (`table`).

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
from functools import partial
from typing import Any, Self

TYPE = "type"  # the key naming a registered event's class

class DecodeError(ValueError):
    """Data that is not a document of the type asked for (a damaged or foreign payload)."""


# --- event families ---------------------------------------------------------------------------------


class Event:
    """The root of every engine's events. An engine's base says its family (one word, unique across
    formats): ``class Event(events.Event, family="vortex")``; its subclasses, at any depth, are that
    family's events, named ``vortex.<ClassName>``."""

    __event_family__: str | None = None

    def __init_subclass__(cls, family: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if family is not None:
            if not family or "." in family:
                raise ValueError(f"An event family is one word, not {family!r}.")
            cls.__event_family__ = family
            cls.__family_root__ = True
        elif cls.__event_family__ is None:
            raise TypeError(f"{cls.__qualname__} is an event of no family: its base names one (family=...).")
        else:
            cls.__family_root__ = False
        _forget_classes()


def _forget_classes() -> None:
    """A class was defined: what was worked out about the classes (names, lookups) is worked out again."""
    _named_under.cache_clear()
    _event_bases.clear()
    _encoding.clear()


def _subclasses(base: type) -> list[type]:
    found: list[type] = []
    for sub in base.__subclasses__():
        found.append(sub)
        found += _subclasses(sub)
    return found


def name_of(cls: type) -> str | None:
    """The name of an event class (None if it is not an event: not of a family, or a family's base
    with subclasses)."""
    family = getattr(cls, "__event_family__", None)
    if family is None or not dataclasses.is_dataclass(cls) or _is_event_base(cls):
        return None
    return f"{family}.{cls.__name__}"


_event_bases: dict[type, bool] = {}


def _is_event_base(cls: type) -> bool:
    """Whether `cls` is not an event itself but has events below it (an engine's `Event`)."""
    if cls not in _event_bases:
        _event_bases[cls] = cls is Event or (
            isinstance(cls, type) and issubclass(cls, Event) and cls.__dict__.get("__family_root__", False)
            and bool(cls.__subclasses__()))
    return _event_bases[cls]


@functools.cache
def _named_under(expected: type) -> dict[str, type]:
    """Every event that is an `expected` (any event, for `object`), by its name; and by its bare
    class name where only one of them has it."""
    root = Event if expected is object or not issubclass(expected, Event) else expected
    found = [cls for cls in [root, *_subclasses(root)] if name_of(cls) is not None and issubclass(cls, expected)]
    by_name: dict[str, type] = {name_of(cls): cls for cls in found}
    bare: dict[str, list[type]] = {}
    for cls in found:
        bare.setdefault(cls.__name__, []).append(cls)
    by_name.update({name: classes[0] for name, classes in bare.items() if len(classes) == 1 and name not in by_name})
    return by_name


def registered(name: str) -> type | None:
    """The event class called `name` (a full name), if there is one."""
    cls = _named_under(object).get(name)
    return cls if cls is not None and name_of(cls) == name else None


def table(*bases: type, within: str = "") -> tuple[dict[str, type], list[str]]:
    """The events of the families rooted at `bases` (what the formats and features declare), by name,
    and one line per problem: a family declared by two bases, a name two classes share, an event
    whose family no base declares (checked when the bot starts); `within`: only the events of
    modules whose names start so (the bot's own, not a test's)."""
    problems, families, names = [], {}, {}
    for base in dict.fromkeys(bases):
        family = base.__dict__.get("__event_family__") if isinstance(base, type) else None
        if family is None:
            problems.append(f"{getattr(base, '__qualname__', base)!r} is no event family's base")
        elif families.setdefault(family, base) is not base:
            problems.append(f"the event family {family!r} is declared by two bases")
    for cls in _subclasses(Event):
        name = name_of(cls)
        if name is None or not cls.__module__.startswith(within):
            continue
        if families.get(cls.__event_family__) is None or not issubclass(cls, families[cls.__event_family__]):
            problems.append(f"the event {name!r} ({cls.__module__}) is of no declared family")
        elif names.setdefault(name, cls) is not cls:
            problems.append(f"the event name {name!r} is taken by two classes")
    return names, sorted(set(problems))


# --- encoding -------------------------------------------------------------------------------------------


_PLAIN = frozenset({str, int, float, bool, type(None)})  # exactly these types: JSON data as they are
# A class's dataclass field names (None: not a dataclass) and its event name (None: not an event).
_encoding: dict[type, tuple[tuple[str, ...] | None, str | None]] = {}


def _encoding_of(cls: type) -> tuple[tuple[str, ...] | None, str | None]:
    found = _encoding.get(cls)
    if found is None:
        names = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None
        found = _encoding[cls] = (names, name_of(cls) if names is not None else None)
    return found


def encode(value: Any) -> Any:
    """`value` as JSON data (dicts, lists, str, int, float, bool, None)."""
    # Documents are saved on every move of a game: the common shapes (plain values, lists, dicts,
    # dataclasses) go first, by exact type, without building a field list each time.
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list or kind is tuple:
        return [item if type(item) in _PLAIN else encode(item) for item in value]
    if kind is dict:
        return {(k if type(k) is str else _key(k)): (v if type(v) in _PLAIN else encode(v)) for k, v in value.items()}
    names, name = _encoding_of(kind)
    if names is not None:
        data = {name: encode(getattr(value, name)) for name in names}
        return data if name is None else {TYPE: name, **data}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, str | int | float | bool):
        return value
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
    class, and anything else as it is. Data that does not fit raises `DecodeError`, naming where."""
    return _decoder(hint)(data)


Decoder = typing.Callable[[Any], Any]


@functools.cache
def _decoder(hint: Any) -> Decoder:
    """How to decode data of type `hint`, worked out once per type (a state document holds many
    values of few types)."""
    if hint is Any or hint is object:
        return _any
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is typing.Literal:
        return partial(_literal, args)
    if hint is type(None):
        return _none
    if origin is dict or hint is dict:
        key, value = args or (Any, Any)
        return partial(_dict, _key_decoder(key), _decoder(value))
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        return partial(_fixed_tuple, tuple(_decoder(a) for a in args))
    if origin in (tuple, list, set, frozenset) or hint in (tuple, list, set, frozenset):
        return partial(_sequence, origin or hint, _decoder(args[0] if args else Any))
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            return partial(_dataclass, hint)
        if issubclass(hint, enum.Enum):
            return partial(_enum, hint)
        if hint is float:
            return _float
        return partial(_scalar, hint)
    raise TypeError(f"Cannot decode to {hint!r}.")


def _any(data: Any) -> Any:
    if isinstance(data, dict) and TYPE in data:
        return _dataclass(object, data)
    return data


def _none(data: Any) -> None:
    if data is not None:
        raise DecodeError(f"expected nothing, found {data!r}")


def _literal(values: tuple, data: Any) -> Any:
    if data not in values:
        raise DecodeError(f"{data!r} is not one of {values}")
    return data


def _float(data: Any) -> float:
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise DecodeError(f"expected a number, found {data!r}")
    return float(data)


def _scalar(hint: type, data: Any) -> Any:
    if not isinstance(data, hint) or (isinstance(data, bool) and hint is not bool):
        raise DecodeError(f"expected {hint.__name__}, found {type(data).__name__} {data!r}")
    return data


def _enum(hint: type[enum.Enum], data: Any) -> enum.Enum:
    try:
        return hint(data)
    except ValueError:
        raise DecodeError(f"{data!r} is not a {hint.__name__}") from None


def _union(options: tuple) -> Decoder:
    optional = type(None) in options
    members = tuple(o for o in options if o is not type(None))
    plain = tuple(o for o in members if isinstance(o, type) and not dataclasses.is_dataclass(o)
                  and not issubclass(o, enum.Enum))
    classes = tuple(o for o in members if isinstance(o, type) and dataclasses.is_dataclass(o))
    decoders = tuple(_decoder(o) for o in members)

    def decode_union(data: Any) -> Any:
        if data is None:
            if optional:
                return None
            raise DecodeError("a value is required")
        if type(data) in plain:  # a member that takes the data as it is (`int | str`, `int | None`)
            return data
        if isinstance(data, dict) and TYPE in data:  # an event: the member it names
            for cls in classes:
                if (found := _lookup(data[TYPE], cls)) is not None:
                    return _dataclass(found, data)
        errors = []
        for decoder in decoders:
            try:
                return decoder(data)
            except DecodeError as error:
                errors.append(str(error))
        raise DecodeError(f"{data!r} is none of {members} ({'; '.join(errors)})")

    return decode_union


def _dict(key: Decoder, value: Decoder, data: Any) -> dict:
    if not isinstance(data, dict):
        raise DecodeError(f"expected a dict, found {type(data).__name__}")
    return {_at(k, key, k): _at(k, value, v) for k, v in data.items()}


def _key_decoder(hint: Any) -> Decoder:
    return _int_key if hint is int else _decoder(hint)


def _int_key(key: Any) -> int:
    try:
        return int(key)
    except ValueError:
        raise DecodeError(f"the key {key!r} is not a number") from None


def _sequence(kind: type, item: Decoder, data: Any) -> Any:
    if not isinstance(data, list | tuple):
        raise DecodeError(f"expected a list, found {type(data).__name__}")
    return kind(_at(i, item, v) for i, v in enumerate(data))


def _fixed_tuple(items: tuple[Decoder, ...], data: Any) -> tuple:
    if not isinstance(data, list | tuple) or len(data) != len(items):
        raise DecodeError(f"expected a list of {len(items)}, found {data!r}")
    return tuple(_at(i, decoder, v) for i, (decoder, v) in enumerate(zip(items, data, strict=True)))


def _at(where: Any, decoder: Decoder, data: Any) -> Any:
    try:
        return decoder(data)
    except DecodeError as error:
        raise DecodeError(f"[{where!r}] {error}") from None


def _dataclass(hint: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"expected a {hint.__name__} document, found {type(data).__name__}")
    if TYPE in data and TYPE not in _fields(hint)[1]:  # an event: the class it names
        cls = _lookup(data[TYPE], hint)
        if cls is None:
            raise DecodeError(f"{data[TYPE]!r} is no registered event of type {hint.__name__}")
    elif hint is object or _is_event_base(hint):
        raise DecodeError(f"a {hint.__name__} names its class ({TYPE!r})")
    else:
        cls = hint
    values = {}
    for name, decoder, required in _fields(cls)[0]:
        if name in data:
            try:
                values[name] = decoder(data[name])
            except DecodeError as error:
                raise DecodeError(f"{cls.__name__}.{name}: {error}") from None
        elif required:
            raise DecodeError(f"a {cls.__name__} needs {name!r}")
    return cls(**values)


@functools.cache
def _fields(cls: type) -> tuple[tuple[tuple[str, Decoder, bool], ...], frozenset[str]]:
    """A dataclass's fields that its constructor takes: (name, decoder, required); and every field name."""
    if not dataclasses.is_dataclass(cls):
        return (), frozenset()
    hints = typing.get_type_hints(cls)  # each class's own module resolves its annotations
    taken = tuple(
        (f.name, _lazy(hints[f.name]), f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        for f in dataclasses.fields(cls) if f.init
    )
    return taken, frozenset(f.name for f in dataclasses.fields(cls))


def _lazy(hint: Any) -> Decoder:
    """A field's decoder, worked out at its first use (a class may hold itself)."""
    found: list[Decoder] = []

    def decode_field(data: Any) -> Any:
        if not found:
            found.append(_decoder(hint))
        return found[0](data)

    return decode_field


def _lookup(name: Any, expected: type) -> type | None:
    """The event called `name` that is an `expected`: by its full name, or (a payload written before
    names were qualified) by its bare class name among `expected`'s subclasses."""
    if not isinstance(name, str) or not isinstance(expected, type):
        return None
    return _named_under(expected).get(name)


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
        return _dataclass(cls, cls.upgrade(dict(data)))

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        """Data written by an older version of this payload, as the current fields read it."""
        return data

"""Dataclasses to JSON and back, checked against their type hints: a format that is data only.

The result cache (`stagelint.pipeline.cache`) reads files from the project folder, which anyone who
commits to the project can write. Reading them must never run code (pickle would) nor crash,
and an entry of the wrong shape must be told apart from a sound one. So values are written as
JSON and read back through a decoder built from the expected type: every dataclass field is
checked against its type hint, and anything else (a missing or extra item, a wrong type, an
unknown tag, nesting too deep) raises `Invalid`.

Encoding, by the type hint of the position a value sits in:

* `str`, `int`, `float`, `bool`, `None`: themselves (a `bool` is not an `int` here);
* a dataclass: the list of its field values in field order (the cache folder changes with
  stagelint's sources, so the order is always the writer's);
* `list[X]`, `set[X]`, `frozenset[X]`, `tuple[X, ...]`, `tuple[X, Y]`: a list;
* `dict[str, X]`: an object; `dict[K, X]` with other keys: a list of `[key, value]` pairs;
* `X | None`: `null` or X;
* a position typed `object`, `Any`, a bare container (`tuple`, `list`, `dict`, `set`) or a
  union of several types holds "plain data", tagged where JSON alone would lose the type:
  scalars and lists as themselves, `{"t": [...]}` a tuple, `{"s": [...]}` a set,
  `{"f": [...]}` a frozenset, `{"d": {...}}` a dict with string keys, `{"m": [[k, v], ...]}`
  any other dict, `{"c": "module.Class", "v": [...]}` a dataclass that a typed position names
  or that `allow` lists.

A value the encoder cannot carry (a type outside these, a dataclass that no typed position
names) raises `Invalid` when written: the cache then skips that entry, and the round-trip
tests fail, rather than a value changing type on its way through the cache.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import types
import typing
from typing import Any, Callable

#: Nesting allowed in plain-data positions (what stagelint stores nests a few levels deep).
MAX_DEPTH = 48


class Invalid(ValueError):
    """The value or the stored data does not have the expected shape."""


_encoders: dict[Any, Callable] = {}
_decoders: dict[Any, Callable] = {}
#: Dataclasses that typed positions name, by "module.qualname": the only ones plain data may hold.
_known: dict[str, type] = {}


def dumps(value, hint) -> bytes:
    """`value`, read as type `hint`, as compact JSON bytes (raises `Invalid`)."""
    try:
        data = encoder(hint)(value)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=True).encode(
            "utf-8", "surrogatepass")
    except Invalid:
        raise
    except (TypeError, ValueError, RecursionError, UnicodeError) as exc:
        raise Invalid(str(exc)) from None


def loads(data: bytes | str, hint):
    """The value of type `hint` that `data` holds (raises `Invalid` for anything else)."""
    try:
        return decoder(hint)(json.loads(data))
    except Invalid:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError, MemoryError,
            UnicodeError, OverflowError) as exc:
        raise Invalid(f"{type(exc).__name__}: {exc}") from None


def allow(*classes: type) -> None:
    """Let plain-data positions hold these dataclasses too (besides those the typed positions
    name): a rule's candidate carries its `fix.Fix` in an untyped `fields` dict."""
    for cls in classes:
        _register(cls)


def encoder(hint) -> Callable:
    enc = _encoders.get(hint)
    if enc is None:
        enc = _encoders[hint] = _make_encoder(hint)
    return enc


def decoder(hint) -> Callable:
    dec = _decoders.get(hint)
    if dec is None:
        dec = _decoders[hint] = _make_decoder(hint)
    return dec


# --- type hints ----------------------------------------------------------------------------

_SCALARS = (str, int, float, bool, type(None))
#: Hints of plain-data positions (besides unions of several types).
_PLAIN_HINTS = (object, Any, list, tuple, dict, set, frozenset)


def _shape(hint):
    """(kind, arguments) of a hint: kinds "scalar", "dataclass", "list", "set", "frozenset",
    "tuple" (fixed length), "vartuple", "dict", "optional", "plain"."""
    if hint is None or hint is type(None):
        return "scalar", (type(None),)
    if hint in (str, int, float, bool):
        return "scalar", (hint,)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "dataclass", (hint,)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return "optional", (rest[0],)
        return "plain", ()
    if origin is list and len(args) == 1:
        return "list", args
    if origin in (set, frozenset) and len(args) == 1:
        return ("set" if origin is set else "frozenset"), args
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return "vartuple", (args[0],)
        return "tuple", args
    if origin is dict and len(args) == 2:
        return "dict", args
    if hint in _PLAIN_HINTS:
        return "plain", ()
    raise TypeError(f"no JSON form for values of type {hint!r}")


def _fields(cls) -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, hints[f.name]) for f in dataclasses.fields(cls)]


def _register(cls) -> None:
    name = f"{cls.__module__}.{cls.__qualname__}"
    if _known.get(name) is cls:
        return
    _known[name] = cls
    for _, hint in _fields(cls):
        _register_within(hint)


def _register_within(hint) -> None:
    kind, args = _shape(hint)
    if kind == "dataclass":
        _register(args[0])
    else:
        for a in args:
            if a is not Ellipsis and kind != "scalar":
                _register_within(a)


# --- encoding ------------------------------------------------------------------------------

def _make_encoder(hint) -> Callable:
    kind, args = _shape(hint)
    if kind == "scalar":
        want = args[0]
        if want is float:
            def enc_float(v):
                if type(v) is float or type(v) is int:
                    return v
                raise Invalid(f"expected float, got {type(v).__name__}")
            return enc_float

        def enc_scalar(v):
            if type(v) is not want:
                raise Invalid(f"expected {want.__name__}, got {type(v).__name__}")
            return v
        return enc_scalar
    if kind == "dataclass":
        cls = args[0]
        _register(cls)
        # Filled on first use: a dataclass may (indirectly) hold itself.
        plan: list = []

        def enc_dataclass(v):
            if type(v) is not cls:
                raise Invalid(f"expected {cls.__name__}, got {type(v).__name__}")
            if not plan:
                plan.extend((name, encoder(h)) for name, h in _fields(cls))
            d = v.__dict__
            return [e(d[name]) for name, e in plan]
        return enc_dataclass
    if kind in ("list", "set", "frozenset", "vartuple"):
        container = {"list": list, "set": set, "frozenset": frozenset, "vartuple": tuple}[kind]
        item_hint = args[0]
        item = encoder(item_hint)
        scalar = item_hint if item_hint in (str, int, bool) else None
        only = {scalar}

        def enc_items(v):
            if type(v) is not container:
                raise Invalid(f"expected {container.__name__}, got {type(v).__name__}")
            if scalar is not None:  # the items as they are, their types checked in one C call
                if v and not set(map(type, v)) <= only:
                    raise Invalid(f"expected {scalar.__name__} items")
                if container is list or container is tuple:
                    return v
                return sorted(v)  # the same set, the same bytes
            out = list(map(item, v))
            if container is not list and container is not tuple:
                out.sort(key=_order)
            return out
        return enc_items
    if kind == "tuple":
        items = [encoder(a) for a in args]

        def enc_tuple(v):
            if type(v) is not tuple or len(v) != len(items):
                raise Invalid(f"expected a tuple of {len(items)}")
            return [e(i) for e, i in zip(items, v)]
        return enc_tuple
    if kind == "dict":
        key_hint, value_hint = args
        val = encoder(value_hint)
        if key_hint is str:
            def enc_str_dict(v):
                if type(v) is not dict:
                    raise Invalid(f"expected dict, got {type(v).__name__}")
                out = {}
                for k, x in v.items():
                    if type(k) is not str:
                        raise Invalid("expected str keys")
                    out[k] = val(x)
                return out
            return enc_str_dict
        key = encoder(key_hint)

        def enc_dict(v):
            if type(v) is not dict:
                raise Invalid(f"expected dict, got {type(v).__name__}")
            return [[key(k), val(x)] for k, x in v.items()]
        return enc_dict
    if kind == "optional":
        inner = encoder(args[0])
        return lambda v: None if v is None else inner(v)
    return _enc_plain


def _order(item):
    return json.dumps(item, sort_keys=True)


def _enc_plain(v, depth: int = 0):
    t = type(v)
    if t in _SCALARS:
        return v
    if depth > MAX_DEPTH:
        raise Invalid("nested too deep")
    depth += 1
    if t is list:
        return [_enc_plain(i, depth) for i in v]
    if t is tuple:
        return {"t": [_enc_plain(i, depth) for i in v]}
    if t is set or t is frozenset:
        return {"s" if t is set else "f": sorted((_enc_plain(i, depth) for i in v), key=_order)}
    if t is dict:
        if all(type(k) is str for k in v):
            return {"d": {k: _enc_plain(x, depth) for k, x in v.items()}}
        return {"m": [[_enc_plain(k, depth), _enc_plain(x, depth)] for k, x in v.items()]}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        name = f"{t.__module__}.{t.__qualname__}"
        if _known.get(name) is not t:
            raise Invalid(f"{name} is not a dataclass the cached types name")
        return {"c": name, "v": encoder(t)(v)}
    raise Invalid(f"cannot store a {t.__name__}")


# --- decoding ------------------------------------------------------------------------------

def _make_decoder(hint) -> Callable:
    kind, args = _shape(hint)
    if kind == "scalar":
        want = args[0]
        if want is float:
            def dec_float(v):
                if type(v) is float:
                    return v
                if type(v) is int:
                    return float(v)
                raise Invalid(f"expected float, got {type(v).__name__}")
            return dec_float

        def dec_scalar(v):
            if type(v) is not want:
                raise Invalid(f"expected {want.__name__}, got {type(v).__name__}")
            return v
        return dec_scalar
    if kind == "dataclass":
        return _dataclass_decoder(args[0])
    if kind in ("list", "set", "frozenset", "vartuple"):
        container = {"list": list, "set": set, "frozenset": frozenset, "vartuple": tuple}[kind]
        item_hint = args[0]
        item = decoder(item_hint)
        scalar = item_hint if item_hint in (str, int, bool) else None
        only = {scalar}

        def dec_items(v):
            if type(v) is not list:
                raise Invalid(f"expected a list for {container.__name__}")
            if scalar is not None:
                if v and not set(map(type, v)) <= only:
                    raise Invalid(f"expected {scalar.__name__} items")
                return v if container is list else container(v)
            out = list(map(item, v))
            return out if container is list else container(out)
        return dec_items
    if kind == "tuple":
        items = [decoder(a) for a in args]
        n = len(items)

        def dec_tuple(v):
            if type(v) is not list or len(v) != n:
                raise Invalid(f"expected a list of {n}")
            return tuple(d(i) for d, i in zip(items, v))
        return dec_tuple
    if kind == "dict":
        key_hint, value_hint = args
        val = decoder(value_hint)
        if key_hint is str:
            def dec_str_dict(v):
                if type(v) is not dict:
                    raise Invalid("expected an object")
                return dict(zip(v, map(val, v.values())))
            return dec_str_dict
        key = decoder(key_hint)

        def dec_dict(v):
            if type(v) is not list:
                raise Invalid("expected a list of pairs")
            out = {}
            for pair in v:
                if type(pair) is not list or len(pair) != 2:
                    raise Invalid("expected a [key, value] pair")
                out[key(pair[0])] = val(pair[1])
            return out
        return dec_dict
    if kind == "optional":
        inner = decoder(args[0])
        return lambda v: None if v is None else inner(v)
    return _dec_plain


_contains = operator.contains


def _scalar_types(hint) -> frozenset:
    """The types a str/int/bool field, optional or not, may hold (empty for other fields)."""
    if hint in (str, int, bool):
        return frozenset({hint})
    kind, args = _shape(hint)
    if kind == "optional" and args[0] in (str, int, bool):
        return frozenset({args[0], type(None)})
    return frozenset()


def _dataclass_decoder(cls) -> Callable:
    _register(cls)
    new = object.__new__
    # Built on first use: a dataclass may (indirectly) hold itself.
    names: tuple = ()
    n = -1
    scalars = None  # the values of the str/int/bool fields, in one C call
    scalar_types: tuple = ()
    others: list = []  # (index, decoder) of the other fields

    def build():
        nonlocal names, n, scalars, scalar_types
        hints = _fields(cls)
        names = tuple(name for name, _ in hints)
        allowed = [_scalar_types(h) for _, h in hints]
        where = [i for i, a in enumerate(allowed) if a]
        scalar_types = tuple(allowed[i] for i in where)
        if len(where) == 1:
            scalars = lambda v, i=where[0]: (v[i],)  # noqa: E731
        elif where:
            scalars = operator.itemgetter(*where)
        others.extend((i, decoder(h)) for i, (_, h) in enumerate(hints) if i not in where)
        n = len(hints)

    def dec_dataclass(v):
        if n < 0:
            build()
        if type(v) is not list or len(v) != n:
            raise Invalid(f"expected {cls.__name__} as a list of {n}")
        if scalars is not None and not all(map(_contains, scalar_types, map(type, scalars(v)))):
            raise Invalid(f"a field of {cls.__name__} of another type")
        for i, d in others:
            v[i] = d(v[i])  # the list is the parser's own: reused for the values
        obj = new(cls)
        # Set the fields directly: frozen dataclasses refuse setattr, and the values have been
        # checked here, which is all __init__ would have done.
        obj.__dict__.update(zip(names, v))
        return obj

    return dec_dataclass


def _dec_plain(v, depth: int = 0):
    t = type(v)
    if t in _SCALARS:
        return v
    if depth > MAX_DEPTH:
        raise Invalid("nested too deep")
    depth += 1
    if t is list:
        return [_dec_plain(i, depth) for i in v]
    if t is not dict:
        raise Invalid("expected plain data")
    if len(v) == 2 and "c" in v and "v" in v:
        cls = _known.get(v["c"]) if type(v["c"]) is str else None
        if cls is None:
            raise Invalid("not a dataclass the cached types name")
        return decoder(cls)(v["v"])
    if len(v) != 1:
        raise Invalid("expected one tag")
    (tag, body), = v.items()
    if tag == "t" and type(body) is list:
        return tuple(_dec_plain(i, depth) for i in body)
    if tag == "s" and type(body) is list:
        return {_dec_plain(i, depth) for i in body}
    if tag == "f" and type(body) is list:
        return frozenset(_dec_plain(i, depth) for i in body)
    if tag == "d" and type(body) is dict:
        return {k: _dec_plain(x, depth) for k, x in body.items()}
    if tag == "m" and type(body) is list:
        out = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise Invalid("expected a [key, value] pair")
            out[_dec_plain(pair[0], depth)] = _dec_plain(pair[1], depth)
        return out
    raise Invalid(f"unknown tag {tag!r}")

"""Static types of the rules language.

Types are small frozen values so the checker can compare them with ``==`` and
print them in messages exactly as an author would write them. They live beside the checker, not in it: the
construct registry (dsl/constructs/) declares each built-in's signature with them and the checker reads the
registry, so neither package imports the other through this module (dsl/checker/types.py re-exports it for
the checker's modules).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ty:
    kind: str  # int bool text player card enum set list zone none effect function enumtype any void
    arg: str | None = None  # card kind (None = any card) or enum name
    elem: Ty | None = None  # list element type
    params: tuple[Ty, ...] = ()
    ret: Ty | None = None

    def __str__(self) -> str:
        if self.kind == "card":
            return f"card {self.arg}" if self.arg else "card"
        if self.kind in ("enum", "enumtype"):
            return str(self.arg)
        if self.kind == "set":
            return f"set of {self.arg}"
        if self.kind == "list":
            return f"list of {self.elem}"
        if self.kind == "zone":
            return f"zone of {self.arg}" if self.arg else "zone"
        if self.kind == "effect":
            return "effect(" + ", ".join(map(str, self.params)) + ")"
        if self.kind == "function":
            return "function(" + ", ".join(map(str, self.params)) + f") -> {self.ret}"
        return self.kind


INT = Ty("int")
BOOL = Ty("bool")
TEXT = Ty("text")
PLAYER = Ty("player")
ANY_CARD = Ty("card")
NONE = Ty("none")
ANY = Ty("any")
VOID = Ty("void")
MODE = Ty("mode")  # a rule mode (`mode NAME { … }`): its value is the mode's name


def list_of(elem: Ty) -> Ty:
    return Ty("list", elem=elem)


def card(kind: str | None) -> Ty:
    return Ty("card", arg=kind)


def zone(kind: str | None) -> Ty:
    return Ty("zone", arg=kind)


def as_list(t: Ty) -> Ty | None:
    """The list view of an iterable type (zones, sets, enum types), or None."""
    if t.kind == "list":
        return t
    if t.kind == "zone":
        return list_of(card(t.arg))
    if t.kind == "set":
        return list_of(Ty("enum", arg=t.arg))
    if t.kind == "enumtype":
        return list_of(Ty("enum", arg=t.arg))
    if t.kind == "any":
        return list_of(ANY)
    return None


def assignable(src: Ty, dst: Ty) -> bool:
    """Can a value of type ``src`` be used where ``dst`` is expected?"""
    if src.kind == "any" or dst.kind == "any":
        return True
    if src.kind == "none":
        return dst.kind in ("card", "player", "effect", "function", "none", "enum", "mode")
    if dst.kind == "card" and src.kind == "card":
        return dst.arg is None or src.arg is None or dst.arg == src.arg
    if dst.kind == "list":
        s = as_list(src)
        if s is None or s.elem is None or dst.elem is None:
            return False
        return assignable(s.elem, dst.elem)
    if src.kind == "bool" and dst.kind == "int":
        return False
    if src.kind != dst.kind:
        return False
    if src.kind in ("enum", "set", "zone"):
        return src.arg == dst.arg or src.arg is None or dst.arg is None
    return True


def unify(a: Ty, b: Ty) -> Ty | None:
    """The common type of two branches (``if … then a else b``, list items), or None."""
    if assignable(a, b):
        return b if a.kind in ("none", "any") else a if b.kind in ("none", "any") else (
            b if (b.kind == "card" and b.arg is None) else a
        )
    if assignable(b, a):
        return a
    return None

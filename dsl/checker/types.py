"""The rules language's static types, as the checker's modules import them: see :mod:`liturgy.dsl.types`.

The types moved out of the checker so the construct registry can use them without importing the checker
package (issue 29: the checker <-> registry cycle went through this module).
"""

from __future__ import annotations

from liturgy.dsl.types import (
    ANY,
    ANY_CARD,
    BOOL,
    INT,
    MODE,
    NONE,
    PLAYER,
    TEXT,
    VOID,
    Ty,
    as_list,
    assignable,
    card,
    list_of,
    unify,
    zone,
)

__all__ = ["ANY", "ANY_CARD", "BOOL", "INT", "MODE", "NONE", "PLAYER", "TEXT", "VOID", "Ty", "as_list",
           "assignable", "card", "list_of", "unify", "zone"]

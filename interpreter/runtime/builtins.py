"""Registered built-ins at run time: one callable per built-in, shared by the closures and generated code.

The registry (:mod:`liturgy.dsl.constructs`) gives each pure built-in its reference implementation; here it
becomes the function both compile paths call, so they cannot disagree, and a refusal (an over-long range)
becomes the engine's located rule error instead of an exception from inside the built-in.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from liturgy.dsl import constructs
from liturgy.interpreter.runtime.errors import RuleError


@cache
def pure_function(name: str) -> Callable[..., Any]:
    """The run-time function of registered built-in ``name``: its reference, with refusals as rule errors."""
    reference = constructs.PURE[name].reference

    def call(*args: Any) -> Any:
        try:
            return reference(*args)
        except constructs.BuiltinError as err:
            raise RuleError(str(err)) from None

    call.__name__ = f"builtin_{name}"
    return call

"""Code generation: Python source for expressions, statements, choices and fused steps.

:data:`GENERATORS` is what the engine hands the compiler (interpreter/compiler/code.py, ``Generators``): the
compiler does not import this package, so it stands on its own as the reference the generated code is tested
against, and the two packages do not import each other.
"""
from __future__ import annotations

from liturgy.interpreter.codegen.choicegen import ChoiceGen
from liturgy.interpreter.codegen.exprgen import ExprGen
from liturgy.interpreter.codegen.fuse import fuse_codes
from liturgy.interpreter.codegen.scoregen import score_all
from liturgy.interpreter.codegen.stmtgen import StmtGen
from liturgy.interpreter.compiler.code import Generators

GENERATORS = Generators(expr=ExprGen, stmt=StmtGen, choice=ChoiceGen, fuse=fuse_codes, score=score_all)

"""The task's constructor, copied into a candidate so ``ModelNew(*init)`` draws the same weights.

:func:`weights_source` rewrites the task's source (AST to AST): imports, module-level constants,
helper functions and classes stay; ``class Model`` becomes ``class _Weights`` without its
``forward``, and every other mention of the name ``Model`` follows the rename (``super(Model,
self)``); ``get_inputs``, ``get_init_inputs``, ``get_inputs_dyn_list`` and ``if __name__ ==
"__main__"`` blocks go. Building ``_Weights(*init)`` then consumes the random generator exactly as
``Model(*init)`` does, statement for statement.
"""

from __future__ import annotations

import ast

from akg_rag import pysource
from akg_rag.errors import TaskError

WEIGHTS_CLASS = "_Weights"
_DROPPED_FUNCTIONS = frozenset({"get_inputs", "get_init_inputs", "get_inputs_dyn_list"})


class _Rename(ast.NodeTransformer):
    """``Model`` -> ``_Weights`` wherever the name is read or defined."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "Model":
            return ast.copy_location(ast.Name(id=WEIGHTS_CLASS, ctx=node.ctx), node)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        if node.name == "Model":
            node.name = WEIGHTS_CLASS
            node.body = [s for s in node.body
                         if not (isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "forward")]
            if not node.body:
                node.body = [ast.Pass()]
        return node


def _is_main_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    names = [n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)]
    return "__name__" in names


def weights_source(task_source: str, path: str = "task.py") -> str:
    """The task's module without its ``forward`` and input functions, ``Model`` renamed."""
    try:
        tree = pysource.parse(task_source, filename=path)
    except SyntaxError as e:
        raise TaskError(path, f"syntax error at line {e.lineno}: {e.msg}") from None
    body = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in _DROPPED_FUNCTIONS:
            continue
        if _is_main_guard(stmt):
            continue
        body.append(stmt)
    if not any(isinstance(s, ast.ClassDef) and s.name == "Model" for s in body):
        raise TaskError(path, "defines no class Model at module level")
    module = ast.Module(body=body, type_ignores=[])
    module = _Rename().visit(module)
    ast.fix_missing_locations(module)
    return ast.unparse(module)

"""Recursive-descent parser of the Unified Sketch (grammar in docs/sketch.md)."""

from __future__ import annotations

from akg_rag.errors import SketchError
from akg_rag.sketch.lexer import Token, tokenize
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Hint, Index, Load, Name, Neg, Num, ParamDecl,
    Sketch, Slice, Stmt, Store, Str, SymbolDecl, TensorDecl,
)

_HEADERS = ("symbols", "tensors", "params")


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.pos = 0

    # ---- token helpers --------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def error(self, message: str, tok: Token | None = None) -> SketchError:
        t = tok or self.tok
        return SketchError(message, t.line, t.column)

    def describe(self, tok: Token) -> str:
        if tok.kind in ("NEWLINE", "INDENT", "DEDENT", "EOF"):
            return {"NEWLINE": "end of line", "INDENT": "indentation", "DEDENT": "dedent",
                    "EOF": "end of text"}[tok.kind]
        return repr(tok.value)

    def at(self, kind: str, value: str | None = None) -> bool:
        return self.tok.kind == kind and (value is None or self.tok.value == value)

    def expect(self, kind: str, value: str | None = None, what: str | None = None) -> Token:
        if not self.at(kind, value):
            wanted = what or (repr(value) if value else kind.lower())
            raise self.error(f"expected {wanted}, found {self.describe(self.tok)}")
        tok = self.tok
        self.pos += 1
        return tok

    def accept(self, kind: str, value: str | None = None) -> Token | None:
        if self.at(kind, value):
            tok = self.tok
            self.pos += 1
            return tok
        return None

    # ---- sketch ---------------------------------------------------------------------------------
    def sketch(self) -> Sketch:
        head = self.expect("NAME", "sketch", "'sketch NAME {'")
        name = self.expect("NAME", what="a sketch name").value
        self.expect("OP", "{")
        self.expect("NEWLINE")
        sk = Sketch(name=name, symbols=[], tensors=[], params=[], body=[], line=head.line, column=head.column)
        while self.at("NAME") and self.tok.value in _HEADERS and self.peek().value == ":":
            self.header(sk)
        sk.body = self.block_items(until_brace=True)
        self.expect("OP", "}", "'}' closing the sketch")
        self.accept("NEWLINE")
        if not self.at("EOF"):
            raise self.error(f"unexpected {self.describe(self.tok)} after the closing '}}'")
        return sk

    def header(self, sk: Sketch) -> None:
        kind = self.expect("NAME").value
        self.expect("OP", ":")
        while True:
            if kind == "symbols":
                t = self.expect("NAME", what="a symbol name")
                sk.symbols.append(SymbolDecl(t.value, t.line, t.column))
            elif kind == "tensors":
                sk.tensors.append(self.tensor_decl())
            else:
                t = self.expect("NAME", what="a parameter name")
                self.expect("OP", "=")
                sk.params.append(ParamDecl(t.value, self.expr(), t.line, t.column))
            if not (self.accept("OP", ",") or self.accept("OP", ";")):
                break
        self.expect("NEWLINE")

    def tensor_decl(self) -> TensorDecl:
        t = self.expect("NAME", what="a tensor name")
        self.expect("OP", "[")
        shape = [self.expr()]
        while self.accept("OP", ","):
            shape.append(self.expr())
        self.expect("OP", "]")
        self.expect("OP", ":")
        dtype = self.expect("NAME", what="a dtype").value
        direction = self.expect("NAME", what="a direction (in, out, inout, temp)").value
        return TensorDecl(t.value, shape, dtype, direction, t.line, t.column)

    # ---- statements -----------------------------------------------------------------------------
    def block_items(self, until_brace: bool = False) -> list[Stmt]:
        items: list[Stmt] = []
        while not (self.at("DEDENT") or self.at("EOF") or (until_brace and self.at("OP", "}"))):
            items.append(self.statement())
        return items

    def statement(self) -> Stmt:
        hints: list[Hint] = []
        while self.at("OP", "@"):
            hints.append(self.hint())
        tok = self.tok
        if hints and not self.at("NAME", "for"):
            raise self.error("@llm_hint must be followed by a for loop")
        if self.at("NAME", "for"):
            return self.for_loop(hints)
        if tok.kind == "NAME" and tok.value in ("load", "store") and self.peek().value == "(":
            return self.transfer()
        if tok.kind == "NAME" and tok.value == "barrier" and self.peek().value == "(":
            return self.barrier()
        if tok.kind == "NAME" and self.peek().value == "=":
            return self.assignment()
        raise self.error(f"expected a statement (for, load, store, barrier or NAME = ...), found {self.describe(tok)}")

    def hint(self) -> Hint:
        at = self.expect("OP", "@")
        name = self.expect("NAME", what="llm_hint")
        if name.value != "llm_hint":
            raise self.error(f"unknown decorator @{name.value}; only @llm_hint exists", name)
        self.expect("OP", "(")
        kind = self.string()
        self.expect("OP", ",")
        context = self.string()
        self.expect("OP", ")")
        self.expect("NEWLINE")
        return Hint(kind, context, at.line, at.column)

    def string(self) -> str:
        return self.expect("STRING", what="a quoted string").value[1:-1]

    def for_loop(self, hints: list[Hint]) -> For:
        head = self.expect("NAME", "for")
        var = self.expect("NAME", what="a loop variable").value
        self.expect("NAME", "in")
        self.expect("NAME", "range")
        self.expect("OP", "(")
        args = [self.expr()]
        while self.accept("OP", ","):
            args.append(self.expr())
        if len(args) > 3:
            raise self.error("range takes at most 3 arguments (start, stop, step)")
        self.expect("OP", ")")
        self.expect("OP", ":")
        self.expect("NEWLINE")
        self.expect("INDENT", what="an indented loop body")
        body = self.block_items()
        self.expect("DEDENT")
        start, stop, step = (None, args[0], None) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else None)
        return For(var, start, stop, step, body, hints, head.line, head.column)

    def transfer(self) -> Stmt:
        head = self.expect("NAME")
        self.expect("OP", "(")
        if head.value == "load":
            src = self.access()
            self.expect("OP", "->")
            dst = self.expect("NAME", what="a local name").value
            other = None
            if self.accept("OP", ","):
                key = self.expect("NAME", what="other=")
                if key.value != "other":
                    raise self.error(f"unknown load keyword {key.value!r}; allowed: other", key)
                self.expect("OP", "=")
                other = self.expr()
            self.expect("OP", ")")
            self.expect("NEWLINE")
            return Load(src, dst, other, head.line, head.column)
        src_name = self.expect("NAME", what="a local name").value
        self.expect("OP", "->")
        dst_acc = self.access()
        self.expect("OP", ")")
        self.expect("NEWLINE")
        return Store(src_name, dst_acc, head.line, head.column)

    def barrier(self) -> Barrier:
        head = self.expect("NAME", "barrier")
        self.expect("OP", "(")
        counter = self.access()
        self.expect("OP", ",", "',' and the barrier's count")
        count = self.expr()
        self.expect("OP", ")")
        self.expect("NEWLINE")
        return Barrier(counter, count, head.line, head.column)

    def access(self) -> Access:
        t = self.expect("NAME", what="a tensor name")
        self.expect("OP", "[")
        indices = [self.index()]
        while self.accept("OP", ","):
            indices.append(self.index())
        self.expect("OP", "]")
        return Access(t.value, indices, t.line, t.column)

    def index(self) -> Index:
        start_tok = self.tok
        first = self.expr()
        if self.accept("OP", ":"):
            return Slice(first, self.expr(), start_tok.line, start_tok.column)
        return first

    def assignment(self) -> Stmt:
        target = self.expect("NAME")
        self.expect("OP", "=")
        if self.at("NAME", "alloc") and self.peek().value == "(":
            node = self.alloc(target)
        else:
            node = Assign(target.value, self.expr(), target.line, target.column)
        self.expect("NEWLINE")
        return node

    def alloc(self, target: Token) -> Alloc:
        self.expect("NAME", "alloc")
        self.expect("OP", "(")
        self.expect("OP", "[", "'[' starting the tile shape")
        shape = [self.expr()]
        while self.accept("OP", ","):
            shape.append(self.expr())
        self.expect("OP", "]")
        self.expect("OP", ",")
        dtype = self.expect("NAME", what="a dtype").value
        node = Alloc(target.value, shape, dtype, line=target.line, column=target.column)
        while self.accept("OP", ","):
            key = self.expect("NAME", what="hint=, tier= or init=")
            self.expect("OP", "=")
            if key.value == "hint":
                node.role = self.string()
            elif key.value == "tier":
                node.tier = self.string()
            elif key.value == "init":
                node.init = self.expr()
            else:
                raise self.error(f"unknown alloc keyword {key.value!r}; allowed: hint, tier, init", key)
        self.expect("OP", ")")
        return node

    # ---- expressions ----------------------------------------------------------------------------
    def expr(self) -> Expr:
        left = self.term()
        while self.at("OP", "+") or self.at("OP", "-"):
            op = self.expect("OP")
            left = BinOp(op.value, left, self.term(), op.line, op.column)
        return left

    def term(self) -> Expr:
        left = self.factor()
        while any(self.at("OP", o) for o in ("*", "/", "//", "%")):
            op = self.expect("OP")
            left = BinOp(op.value, left, self.factor(), op.line, op.column)
        return left

    def factor(self) -> Expr:
        tok = self.tok
        if self.accept("OP", "-"):
            return Neg(self.factor(), tok.line, tok.column)
        if self.accept("OP", "("):
            inner = self.expr()
            self.expect("OP", ")")
            return inner
        if self.accept("NUMBER"):
            text = tok.value
            value: int | float = int(text) if text.isdigit() else float(text)
            return Num(value, tok.line, tok.column)
        if self.accept("STRING"):
            return Str(tok.value[1:-1], tok.line, tok.column)
        if self.accept("NAME"):
            if self.accept("OP", "("):
                return self.call(tok)
            if tok.value in ("inf", "nan"):  # built-in float constants (printed the same way)
                return Num(float(tok.value), tok.line, tok.column)
            return Name(tok.value, tok.line, tok.column)
        raise self.error(f"expected an expression, found {self.describe(tok)}")

    def call(self, func: Token) -> Call:
        args: list[Expr] = []
        kwargs: dict[str, Expr] = {}
        if not self.at("OP", ")"):
            while True:
                if self.at("NAME") and self.peek().value == "=":
                    key = self.expect("NAME")
                    self.expect("OP", "=")
                    if key.value in kwargs:
                        raise self.error(f"keyword {key.value!r} given twice", key)
                    kwargs[key.value] = self.expr()
                elif kwargs:
                    raise self.error("positional argument after a keyword argument")
                else:
                    args.append(self.expr())
                if not self.accept("OP", ","):
                    break
        self.expect("OP", ")")
        return Call(func.value, args, kwargs, func.line, func.column)


def parse_sketch(text: str) -> Sketch:
    """Parse sketch text into a :class:`Sketch`; raise ``SketchError`` with a 1-based line and column."""
    return _Parser(text).sketch()

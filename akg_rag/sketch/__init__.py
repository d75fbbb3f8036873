"""The Unified Sketch: a small, hardware-agnostic language for kernel designs.

A designer writes (or :func:`derive_sketch` derives) a sketch; :func:`check_sketch` parses and
validates it, raising ``SketchError`` with a 1-based line and column that goes back to the designer;
the coder maps its loops and hints to a DSL. Grammar and examples: docs/sketch.md.
"""

from akg_rag.sketch.nodes import Sketch
from akg_rag.sketch.parser import parse_sketch
from akg_rag.sketch.printer import print_sketch
from akg_rag.sketch.validate import validate_sketch


def check_sketch(text: str) -> Sketch:
    """Parse and validate sketch text; raise ``SketchError`` at the first problem."""
    sketch = parse_sketch(text)
    validate_sketch(sketch)
    return sketch


def derive_sketch(analysis):  # noqa: ANN001, ANN201 - typed in akg_rag.sketch.derive
    """A valid sketch designed deterministically from a task analysis (see akg_rag.sketch.derive)."""
    from akg_rag.sketch.derive import derive_sketch as _derive

    return _derive(analysis)


__all__ = ["Sketch", "parse_sketch", "validate_sketch", "check_sketch", "print_sketch", "derive_sketch"]

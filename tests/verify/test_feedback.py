"""Short feedback from long compiler output."""

from __future__ import annotations

from akg_rag.verify.feedback import compiler_excerpt

NINJA = """Error building extension 'x': [1/2] c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=x -isystem /inc -c main.cpp -o main.o
FAILED: main.o
c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=x -isystem /inc -c main.cpp -o main.o
main.cpp: In function 'at::Tensor f(at::Tensor)':
main.cpp:3:46: error: 'undefined_thing' was not declared in this scope
    3 | torch::Tensor f(torch::Tensor x){ return x + undefined_thing; }
      |                                              ^~~~~~~~~~~~~~~
main.cpp:4:12: error: expected ')' before 'static'
    4 |  int g( { }
In file included from /inc/pybind11/attr.h:13,
                 from /inc/torch/extension.h:10,
main.cpp:5:1: error: 'pybind11_exec_x' was not declared in this scope
main.cpp:9:1: error: fourth error
ninja: build stopped: subcommand failed.
"""


def test_excerpt_keeps_first_errors_with_source_lines():
    text = compiler_excerpt(NINJA, max_errors=3)
    lines = text.splitlines()
    assert lines[0].startswith("main.cpp:3:46: error: 'undefined_thing'")
    assert "return x + undefined_thing" in lines[1]
    assert "fourth error" not in text and "ninja" not in text and "-isystem" not in text
    assert sum("error:" in ln for ln in lines) == 3

"""Every kind of bad task file raises TaskError naming the file and the problem."""

from __future__ import annotations

import pytest

from akg_rag.analysis import analyze_task
from akg_rag.errors import TaskError

from .conftest import TASKS

BAD = TASKS / "bad"


@pytest.mark.parametrize(
    "stem, problem",
    [
        ("syntax_error", "syntax error at line 6"),
        ("no_model", "defines no class Model"),
        ("import_error", "ModuleNotFoundError"),
        ("no_get_inputs", "defines no function get_inputs()"),
        ("get_inputs_raises", "get_inputs() raised ValueError: no inputs today"),
        ("init_raises", "Model(*get_init_inputs()) raised RuntimeError: cannot build width 3"),
        ("forward_raises", "Model.forward on meta tensors raised RuntimeError"),
        ("data_dependent", "data-dependent"),
        ("empty_dyn_list", "returned no input lists"),
    ],
)
def test_bad_task_raises_task_error(stem, problem):
    path = BAD / f"{stem}.py"
    with pytest.raises(TaskError) as err:
        analyze_task(path)
    assert err.value.path.endswith(f"{stem}.py")
    assert problem in err.value.problem


def test_missing_file(tmp_path):
    with pytest.raises(TaskError, match="no such file"):
        analyze_task(tmp_path / "absent.py")

"""The candidate's filesystem: one list of steps for both namespace levels."""

from __future__ import annotations

import os

from akg_rag.verify import layout
from akg_rag.verify.layout import Mount


def test_only_the_work_directories_are_writable_and_host_data_is_absent(tmp_path):
    steps = layout.layout(writable=[tmp_path], gpu=False)
    assert [s.dest for s in steps if s.kind == "rw"] == [str(tmp_path)]
    ro = [s.dest for s in steps if s.kind == "ro"]
    assert "/usr" in ro and not {"/", "/root", "/home", "/work", "/var"} & set(ro)
    assert not [s for s in steps if s.kind == "dev"]           # no device node without a GPU
    kinds = [s.kind for s in steps]
    # the system first, then /proc, /dev and the empty /tmp, and the writable binds last
    assert kinds.index("proc") < kinds.index("devfs") < kinds.index("tmpfs") < kinds.index("rw")
    if os.path.isfile("/etc/shadow"):
        assert Mount("hide", "/etc/shadow") in steps


def test_gpu_layout_adds_the_library_path_and_the_loaded_driver_directories(tmp_path, monkeypatch):
    lib = tmp_path / "driver" / "lib"
    lib.mkdir(parents=True)
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{lib}:/nonexistent")
    assert str(lib) in [s.dest for s in layout.layout(writable=[], gpu=True) if s.kind == "ro"]
    assert str(lib) not in [s.dest for s in layout.layout(writable=[], gpu=False) if s.kind == "ro"]
    # the loaded-library scan (here: libc, which every process maps) finds real directories
    monkeypatch.setattr(layout, "GPU_LIBS", ("libc.so",))
    found = layout.gpu_library_dirs()
    assert found and all(os.path.isabs(d) and os.path.isdir(d) for d in found)


def test_bwrap_options_render_each_step(tmp_path):
    args = layout.bwrap_args([Mount("ro", "/usr", "/usr"), Mount("rw", str(tmp_path), str(tmp_path)),
                              Mount("symlink", "/bin", "usr/bin"), Mount("proc", "/proc"),
                              Mount("hide", "/etc/ssh") if os.path.isdir("/etc/ssh") else Mount("tmpfs", "/etc/ssh")])
    assert args == ["--ro-bind", "/usr", "/usr", "--bind", str(tmp_path), str(tmp_path),
                    "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--tmpfs", "/etc/ssh"]

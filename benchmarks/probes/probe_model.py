"""What the counter probes share: ``--set NAME=VALUE`` parsing and the model of one run -- a lowered
candidate with its tunables set, or the task's own model (``eager``) -- built on the GPU with its
inputs, TF32 off as the verifier has it."""

from __future__ import annotations


def settings(pairs: list[str]) -> list[tuple[str, int]]:
    """``["K0_BW=1024", ...]`` -> ``[("K0_BW", 1024), ...]``; exits with a message on a malformed pair."""
    out = []
    for text in pairs:
        name, sep, value = text.partition("=")
        if not sep:
            raise SystemExit(f"--set wants NAME=VALUE (got {text!r})")
        out.append((name.strip(), int(value)))
    return out


def build(task_path: str, candidate_path: str | None, eager: bool, pairs: list[str], prefix: str):
    """(model, inputs) on ``cuda``: the candidate's ``ModelNew`` with ``pairs`` set, or with ``eager``
    the task's ``Model``; inputs from the task's ``get_inputs`` after ``torch.manual_seed(0)``."""
    import torch

    from akg_rag.task import load_module, load_task

    device = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    task = load_task(task_path)
    torch.manual_seed(0)
    init = task.get_init_inputs()
    if eager:
        model = task.model_cls(*init).to(device)
    else:
        cand = load_module(candidate_path, prefix=prefix)
        for name, value in settings(pairs):
            if not hasattr(cand, name):
                raise SystemExit(f"{candidate_path} has no tunable {name}")
            setattr(cand, name, value)
        model = cand.ModelNew(*init).to(device)
    inputs = [x.to(device) if hasattr(x, "to") else x for x in task.get_inputs()]
    return model, inputs

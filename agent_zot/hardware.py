"""What this machine offers the indexer: the CPUs this process may use and the accelerator torch sees.

Both are asked at the moment they are needed (torch is imported only by code that loads a model anyway).
"""

from __future__ import annotations

import os
from typing import Literal

from agent_zot.errors import AgentZotError

DevicePreference = Literal["auto", "cpu", "cuda", "mps"]


class DeviceError(AgentZotError):
    """The configured embedding device is not available on this machine."""


def available_cpus() -> int:
    """CPUs this process may run on: the affinity mask where the OS has one (a container or `taskset`
    limit), else every CPU. ``os.cpu_count()`` alone reports the host's, which oversubscribes a container."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def torch_device(preference: DevicePreference) -> str:
    """The torch device to embed on: "auto" takes CUDA, then Apple's MPS, then the CPU; a named device
    that torch cannot use is an error rather than a silent fall back to a much slower CPU run."""
    if preference == "cpu":
        return "cpu"
    import torch

    found = {
        "cuda": torch.cuda.is_available(),
        "mps": bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()),
    }
    if preference == "auto":
        return next((name for name, present in found.items() if present), "cpu")
    if not found.get(preference):
        raise DeviceError(
            f"embed_device is {preference!r}, but torch finds no {preference.upper()} device here.",
            hint='Set embed_device = "auto" (uses an accelerator when there is one) or "cpu".',
        )
    return preference


MAX_PARSE_WORKERS = 4  # parsing runs ~10x faster than embedding: more processes would only wait


def worker_count(configured: int | None) -> int:
    """Worker processes for update-db: the setting when given, else one per usable CPU (at most 4)."""
    return configured if configured is not None else min(available_cpus(), MAX_PARSE_WORKERS)

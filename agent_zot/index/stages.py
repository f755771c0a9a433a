"""Where an update-db run spends its time, stage by stage (reported by `update-db --json` as ``stages``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(slots=True)
class StageTimes:
    """Wall seconds per stage, summed over every time the stage ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - started

    def to_dict(self) -> dict[str, float]:
        return {stage: round(seconds, 3) for stage, seconds in self.seconds.items()}

"""How many examples each property test draws.

The suite (and CI) runs every property test derandomized, at its own small budget, so a landing never rests on
luck. `scripts/explore.sh` sets HYPOTHESIS_PROFILE=explore and HYPOTHESIS_SCALE (20 by default): random draws,
that many times the examples, to find the rare corner before CI could stumble on it.
"""

from __future__ import annotations

import os


def examples(n: int) -> int:
    """n examples, times HYPOTHESIS_SCALE when exploring."""
    raw = os.environ.get("HYPOTHESIS_SCALE", "1")
    try:
        scale = int(raw)
    except ValueError:
        raise ValueError(f"HYPOTHESIS_SCALE must be a whole number, got {raw!r}") from None
    if scale < 1:
        raise ValueError(f"HYPOTHESIS_SCALE must be at least 1, got {scale}")
    return n * scale

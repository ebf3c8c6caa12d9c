"""Built-in presets: the patterns, tasks (with their parameters), seeds and settings of a named run."""

from dataclasses import dataclass, field
from typing import Dict, Tuple

from .. import UsageError
from .train import Settings


@dataclass(frozen=True)
class Preset:
    patterns: Tuple[str, ...]
    tasks: Dict[str, Dict[str, int]]  # task name -> its parameters (defaults where left out)
    seeds: Tuple[int, ...]
    settings: Settings = field(default_factory=Settings)
    about: str = ""


#: The nine structures of the token-mixing paper's Table 1, in its order: attention, local attention
#: (window w = 8), diagonal SSM, k-th order recurrence (k = 8), dense recurrence, f(k) = 2^k and its
#: cache-efficient variant, f(k) = k^2 + 1 and its cache-efficient variant (docs/experiments.md says why
#: these parameters).
PAPER9 = ("attention", "local:8", "ssm", "window:8", "dense", "pow2", "pow2+cache", "sq1", "sq1+cache")

PRESETS: Dict[str, Preset] = {
    "paper9": Preset(
        PAPER9, {"copy": {}, "recall": {}, "multihop": {}}, (1, 2), Settings(),
        "the paper's nine structures on the three tasks at their default sizes, two seeds, default settings"),
    "tiny": Preset(
        ("attention", "local:2"), {"copy": {"n": 8, "vocab": 4}}, (1,),
        Settings(d=16, layers=1, heads=2, steps=60, batch=32, lr=1e-2, warmup=10, eval_sequences=256,
                 checkpoint_every=20),
        "attention and local:2 on copying 8 tokens: seconds on a CPU; attention learns it, local:2 cannot reach"),
}


def preset(name: str) -> Preset:
    if name not in PRESETS:
        raise UsageError(f"unknown preset {name!r}; the presets are {', '.join(PRESETS)}")
    return PRESETS[name]

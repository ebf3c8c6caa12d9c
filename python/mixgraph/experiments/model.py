"""One model for every pattern: only the mixer's pattern changes between rows.

embedding -> L x [x + Mixer(LayerNorm(x)); x + MLP(LayerNorm(x))] -> LayerNorm -> linear head. The mixer is
``mixgraph.torch.SparseMixer`` on the pattern at the task's length, with learned weights: data-dependent
gates (``weights="gates"``) for first-order patterns with a diagonal A (``ssm``), one weight per offset and
head for the other translation-invariant patterns, one per entry and head otherwise.
"""

import torch

from .. import Pattern, _core
from ..torch import SparseMixer


def weight_kind(pattern: Pattern) -> str:
    """The SparseMixer weights a pattern gets: 'gates' (B reads offset 1 only, A the diagonal: a gated
    recurrence), 'offset' (translation-invariant) or 'position'."""
    lay = _core._mix_layout(pattern)
    if lay["implicit"] and lay["b_offsets"] == [1] and lay["a_offsets"] == [0]:
        return "gates"
    return "offset" if lay["implicit"] else "position"


class Block(torch.nn.Module):
    def __init__(self, pattern: Pattern, d: int, heads: int, mlp: int, rho: float, threads: int) -> None:
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(d)
        self.mixer = SparseMixer(pattern, d, heads=heads, weights=weight_kind(pattern), rho=rho, threads=threads)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, mlp * d), torch.nn.GELU(), torch.nn.Linear(mlp * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.mixer(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class MixerModel(torch.nn.Module):
    """MixerModel(pattern, vocab, d=64, layers=2, heads=4, mlp=4, rho=0.9, threads=0): token ids
    (batch, T) with T = pattern.n -> logits (batch, T, vocab + 1). Parameters are initialised from torch's
    global generator (seed it with torch.manual_seed for a repeatable model)."""

    def __init__(self, pattern: Pattern, vocab: int, d: int = 64, layers: int = 2, heads: int = 4, mlp: int = 4,
                 rho: float = 0.9, threads: int = 0) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab + 1, d)
        self.blocks = torch.nn.ModuleList(Block(pattern, d, heads, mlp, rho, threads) for _ in range(layers))
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab + 1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))

"""Training and held-out evaluation of one (pattern, task, seed), resumable from its checkpoint."""

import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from .. import Pattern, UsageError
from . import checkpoint as ckpt
from .model import MixerModel, weight_kind
from .tasks import IGNORE, Task

CHECKPOINT_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """Model size and training budget, the same for every pattern of a run.

    d: model width; layers: residual blocks; heads: mixer heads (offset and position weights); mlp: the MLP's
    hidden width as a multiple of d; rho: the mixer's initial bound on sum |beta| per row (SparseMixer);
    steps: optimizer steps; batch: sequences per step; lr: AdamW learning rate (constant after a linear
    warm-up of warmup steps); weight_decay: AdamW's; clip: gradient-norm clip (0: none); eval_sequences:
    held-out sequences scored at the end (the same ones for every pattern and seed); checkpoint_every:
    steps between checkpoints; threads: the mixer's OpenMP threads (0: all cores; results do not depend on
    it)."""

    d: int = 64
    layers: int = 2
    heads: int = 4
    mlp: int = 4
    rho: float = 0.9
    steps: int = 1000
    batch: int = 64
    lr: float = 3e-3
    warmup: int = 50
    weight_decay: float = 0.0
    clip: float = 1.0
    eval_sequences: int = 512
    checkpoint_every: int = 100
    threads: int = 0

    def check(self) -> "Settings":
        for k in ("d", "layers", "heads", "mlp", "steps", "batch", "eval_sequences", "checkpoint_every"):
            v = getattr(self, k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise UsageError(f"setting {k} must be a positive integer (got {v!r})")
        if self.d % self.heads:
            raise UsageError(f"setting d = {self.d} must be a multiple of heads = {self.heads}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise UsageError(f"setting lr must be positive (got {self.lr})")
        if not 0 <= self.rho < 1:
            raise UsageError(f"setting rho must be in [0, 1) (got {self.rho})")
        if self.warmup < 0 or self.weight_decay < 0 or self.clip < 0 or self.threads < 0:
            raise UsageError("settings warmup, weight_decay, clip and threads must be >= 0")
        return self


class Interrupted(KeyboardInterrupt):
    """Training stopped on request (Ctrl-C) after its checkpoint was written; the same call resumes it."""


def derive_seed(*parts) -> int:
    """A 63-bit seed from any printable parts (SHA-256 of their text): independent streams per purpose."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little") & (2**63 - 1)


def _generator(*parts) -> torch.Generator:
    return torch.Generator().manual_seed(derive_seed(*parts))


# ---- device ----


def mix_supports(device: torch.device) -> bool:
    """Whether mixgraph.torch.mix runs (forward and backward) on tensors of this device."""
    if device.type == "cpu":
        return True
    from ..torch import mix

    try:
        X = torch.ones(1, 4, 1, device=device, requires_grad=True)
        wa, wb = torch.ones(1, 2, device=device), torch.zeros(1, 1, device=device)
        mix(Pattern("window:1", 4), X, wa, wb).sum().backward()
        return True
    except (UsageError, RuntimeError, NotImplementedError):
        return False


def pattern_runs_on(device: torch.device, spec: str, n: int, heads: int = 1) -> bool:
    """Whether the mixer of ``spec`` at length n, with the weights its family gets (weight_kind), trains on
    this device: one forward and backward of a small SparseMixer there."""
    if device.type == "cpu":
        return True
    from ..torch import SparseMixer

    try:
        p = Pattern(spec, n)
        m = SparseMixer(p, 2 * heads, heads=heads, weights=weight_kind(p)).to(device)
        m(torch.ones(1, n, 2 * heads, device=device, requires_grad=True)).sum().backward()
        return True
    except (UsageError, RuntimeError, NotImplementedError):
        return False


def resolve_device(device="auto") -> torch.device:
    """'auto': CUDA when torch sees a GPU and mixgraph.torch.mix runs on it, else the CPU; 'cpu', 'cuda' or
    'cuda:N' as asked (a CUDA device the mixer does not support raises UsageError)."""
    if isinstance(device, torch.device):
        dev = device
    elif device == "auto":
        if torch.cuda.is_available() and mix_supports(torch.device("cuda")):
            return torch.device("cuda")
        return torch.device("cpu")
    else:
        try:
            dev = torch.device(device)
        except (RuntimeError, TypeError):
            raise UsageError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N' (got {device!r})") from None
    if dev.type not in ("cpu", "cuda"):
        raise UsageError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N' (got {device!r})")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise UsageError("device 'cuda' asked for, but torch sees no CUDA device (use --device cpu or auto)")
        if not mix_supports(dev):
            raise UsageError("device 'cuda' asked for, but this build's mixgraph.torch.mix runs on the CPU only "
                             "(use --device cpu or auto)")
    return dev


# ---- one run ----


def run_config(spec: str, task: Task, seed: int, settings: Settings) -> dict:
    """What identifies a run: a checkpoint written under another config is refused, never mixed in."""
    return {"version": CHECKPOINT_VERSION, "pattern": spec, "task": task.name, "task_params": dict(task.params),
            "seed": int(seed), "settings": dataclasses.asdict(settings)}


def build_model(spec: str, task: Task, seed: int, settings: Settings) -> MixerModel:
    """The model of a run, initialised from its seed (torch's global generator is left as it was)."""
    pattern = Pattern(spec, task.length)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(derive_seed("init", seed))
        return MixerModel(pattern, task.vocab, d=settings.d, layers=settings.layers, heads=settings.heads,
                          mlp=settings.mlp, rho=settings.rho, threads=settings.threads)


def train_batch(task: Task, seed: int, step: int, batch: int):
    """The training batch of a step: a function of (task, seed, step) alone, so a resumed run sees the same
    data as an uninterrupted one."""
    return task.sample(batch, _generator("train", task.name, sorted(task.params.items()), seed, step))


def eval_batches(task: Task, sequences: int, chunk: int = 256):
    """The held-out sequences, from their own stream (never a training stream), the same for every
    pattern and seed."""
    gen = _generator("eval", task.name, sorted(task.params.items()))
    done = 0
    while done < sequences:
        b = min(chunk, sequences - done)
        yield task.sample(b, gen)
        done += b


def evaluate(model: torch.nn.Module, task: Task, sequences: int, device: torch.device) -> dict:
    """Accuracy (argmax equals the target, over every scored position) and mean cross-entropy on the
    held-out sequences."""
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for b in eval_batches(task, sequences):
            x, y = b.inputs.to(device), b.targets.to(device)
            logits = model(x)
            mask = y != IGNORE
            loss_sum += float(torch.nn.functional.cross_entropy(logits[mask], y[mask], reduction="sum"))
            correct += int((logits.argmax(-1)[mask] == y[mask]).sum())
            total += int(mask.sum())
    model.train()
    return {"accuracy": correct / total, "eval_loss": loss_sum / total, "scored": total}


def train_one(spec: str, task: Task, seed: int, settings: Settings = Settings(), *, device="auto",
              checkpoint: Optional[str] = None, progress: Optional[Callable[[str, int, int, dict], None]] = None,
              stop: Optional[Callable[[], bool]] = None) -> dict:
    """Train the model of ``spec`` on ``task`` from ``seed`` and evaluate it on the held-out sequences.

    checkpoint: a file path; an existing checkpoint of the same run (same pattern, task, parameters, seed
    and settings; another raises UsageError) is resumed from its step, a finished one returns its result
    without training. The checkpoint is written every ``settings.checkpoint_every`` steps and at the end
    (atomically). progress(stage, step, steps, info) is called after each step (info: ``loss``, ``seconds``).
    stop(): asked after each step; when it returns True the checkpoint is written and ``Interrupted`` is
    raised. Returns a dict: pattern, task, seed, accuracy, eval_loss, scored, train_loss, steps, seconds,
    device, weights (the mixer's weight kind)."""
    settings.check()
    dev = resolve_device(device)
    config = run_config(spec, task, seed, settings)
    saved = ckpt.load(checkpoint) if checkpoint else None
    if saved is not None:
        if saved.get("config") != config:
            raise UsageError(f"checkpoint {checkpoint} belongs to another run (other pattern, task, parameters, seed "
                             "or settings); use another output folder or delete it")
        if saved.get("result") is not None:
            return dict(saved["result"])
    model = build_model(spec, task, seed, settings).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, settings.warmup)))
    start, seconds, train_loss = 0, 0.0, float("nan")
    if saved is not None:
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        start, seconds, train_loss = saved["step"], saved["seconds"], saved["train_loss"]

    def save(step, result=None):
        if checkpoint:
            state = {"config": config, "step": step, "seconds": seconds, "train_loss": train_loss,
                     "model": model.state_dict(), "result": result,
                     "optimizer": None if result else opt.state_dict(),
                     "scheduler": None if result else sched.state_dict()}
            ckpt.save(state, checkpoint)

    stage = f"{task.name} {spec} seed {seed}"
    t0 = time.perf_counter()
    for step in range(start, settings.steps):
        b = train_batch(task, seed, step, settings.batch)
        x, y = b.inputs.to(dev), b.targets.to(dev)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                                 ignore_index=IGNORE)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if settings.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
        opt.step()
        sched.step()
        train_loss = float(loss.detach())
        now = time.perf_counter()
        seconds += now - t0
        t0 = now
        done = step + 1
        if progress is not None:
            progress(stage, done, settings.steps, {"loss": train_loss, "seconds": seconds})
        halt = stop is not None and stop()
        if halt or (done % settings.checkpoint_every == 0 and done < settings.steps):
            save(done)
        if halt and done < settings.steps:
            raise Interrupted(f"{stage}: stopped at step {done} of {settings.steps}" +
                              (f"; checkpoint {checkpoint}" if checkpoint else ""))
    result = {"pattern": spec, "task": task.name, "seed": int(seed)}
    result.update(evaluate(model, task, settings.eval_sequences, dev))
    result.update({"train_loss": train_loss, "steps": settings.steps, "seconds": seconds, "device": str(dev),
                   "weights": weight_kind(Pattern(spec, task.length))})
    save(settings.steps, result)
    return result

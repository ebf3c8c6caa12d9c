"""Checkpoints written atomically: a temporary file in the same folder, flushed and synced, then renamed
over the target (os.replace), so a checkpoint is either the old one or the new one, never half written."""

import io
import os
import tempfile
from typing import Any, Optional

import torch


def save(obj: Any, path: str) -> None:
    """torch.save(obj) to path atomically (the folder is created if missing)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    buf = io.BytesIO()
    torch.save(obj, buf)
    write_bytes(buf.getvalue(), path)


def write_bytes(data: bytes, path: str) -> None:
    """data to path atomically."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.basename(path), dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(text: str, path: str) -> None:
    write_bytes(text.encode("utf-8"), path)


def load(path: str) -> Optional[Any]:
    """The object saved at path, or None when there is no file."""
    if not os.path.exists(path):
        return None
    return torch.load(path, map_location="cpu")

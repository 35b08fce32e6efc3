"""One line describing the machine a benchmark ran on (host, CPUs, OS, Python, GPU, torch, triton)."""
from __future__ import annotations

import os
import platform


def machine() -> str:
    """Host, CPUs, OS and Python, then the GPU with torch's version and triton's (or why not importable)."""
    parts = [f"{platform.node() or 'host'}: {platform.machine()}, {os.cpu_count()} CPUs, "
             f"{platform.system()} {platform.release()}, Python {platform.python_version()}"]
    try:
        import torch

        gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
        parts.append(f"GPU: {gpu}, torch {torch.__version__}")
    except Exception as e:  # noqa: BLE001 - the report says why
        parts.append(f"torch: not importable ({type(e).__name__})")
    try:
        import triton

        parts.append(f"triton {triton.__version__}")
    except Exception as e:  # noqa: BLE001
        parts.append(f"triton: not importable ({type(e).__name__})")
    return ", ".join(parts)

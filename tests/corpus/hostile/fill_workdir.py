# expect: writes 64 MiB files into its work directory (the one writable host path) without bound, each
# file under the per-file size limit, until the sandbox's work-dir limit (or, on tmpfs, its memory limit) kills it
import itertools

block = b"x" * (1 << 20)
for i in itertools.count():
    with open(f"fill-{i}.bin", "wb") as f:
        for _ in range(64):
            f.write(block)

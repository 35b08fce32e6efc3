# expect: writes 100 MB to stdout then exits 0; the sandbox must cap what it captures, not buffer it all
import sys

chunk = "A" * (1 << 20)
for _ in range(100):
    sys.stdout.write(chunk)
sys.stdout.flush()

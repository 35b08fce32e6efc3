# expect: allocates memory without bound (100 MB at a time, touched so it is resident) until the
# sandbox's memory limit kills it (MemoryError exit 1, or SIGKILL from the OOM killer / cgroup)
hog = []
while True:
    block = bytearray(100 * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])
    hog.append(block)

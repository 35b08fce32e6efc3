# expect: parent exits 0 at once; a child escapes into its own session (os.setsid) and sleeps 600 s,
# then exits. The sandbox must still find and kill it (process-group kill alone is not enough).
import os
import sys
import time

pid = os.fork()
if pid == 0:
    os.setsid()
    time.sleep(600)
    os._exit(0)
print("parent done, child pid", pid, flush=True)
sys.exit(0)

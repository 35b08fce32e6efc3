# expect: sends SIGKILL to its parent process; the verifier must not be that parent
# (or must survive it) and must still report a result
import os

os.kill(os.getppid(), 9)

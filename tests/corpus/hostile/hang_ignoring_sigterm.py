# expect: ignores SIGTERM and SIGINT and busy-loops forever; only SIGKILL (after the timeout) stops it
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass

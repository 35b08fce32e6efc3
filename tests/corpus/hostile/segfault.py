# expect: dies from SIGSEGV (return code -11 from subprocess, or 139 from a shell)
import ctypes

ctypes.string_at(0)

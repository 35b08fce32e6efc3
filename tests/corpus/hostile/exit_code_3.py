# expect: exits with status 3 and no output
import sys

sys.exit(3)

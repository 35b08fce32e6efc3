# expect: tries to create /work/main/PWNED and $HOME/pwned; in a proper sandbox both writes fail
# (read-only or private filesystem) and neither file exists afterwards on the host
import os

targets = ["/work/main/PWNED", os.path.join(os.path.expanduser("~"), "pwned")]
for path in targets:
    try:
        with open(path, "w") as f:
            f.write("pwned\n")
        print("wrote", path)
    except OSError as e:
        print("blocked", path, e)

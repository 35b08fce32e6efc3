# expect: never exits on its own (busy loop, one core at 100%); the sandbox must kill it at its timeout
while True:
    pass

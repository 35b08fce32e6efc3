# expect: tries a TCP connection to 127.0.0.1:<argv[1]> and sends a line; with networking
# disabled in the sandbox the connect fails and the listener receives nothing
import socket
import sys

port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"hello from the sandbox\n")
s.close()
print("connected", port)

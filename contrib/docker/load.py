#!/usr/bin/env python3
# contrib/docker/load.py PORT [N] -- the example service's load for test.sh
# and nodaemon.sh: N requests (20000) on one connection to 127.0.0.1:PORT,
# each answer read before the next request.  Exits 0 when all were served.
import socket
import sys

port = int(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
s = socket.create_connection(("127.0.0.1", port))
for i in range(n):
    s.sendall(b"request %d with some text\n" % i)
    if not s.recv(64):
        sys.exit("load.py: the service closed the connection after %d requests" % i)

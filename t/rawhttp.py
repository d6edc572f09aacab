#!/usr/bin/env python3
"""rawhttp.py -- send exact bytes to an HTTP server, for heapprof serve's tests.

usage: rawhttp.py [-v] [--conns N] [--timeout S] PORT EXPR

EXPR is a Python bytes expression (b'GET / HTTP/1.1\\r\\n' + b'a' * 9000),
sent as it is on each of N connections to 127.0.0.1:PORT (default 1, all
opened first), which are then read until the server closes them or S
seconds pass (default 10).  Prints one line per connection: the answer's
status line and the seconds it took ("HTTP/1.1 408 Request Timeout 2.00"),
"closed" when the server closed without an answer, "reset" when it reset
the connection, "timeout" when nothing came.  With -v, the first
connection's headers and body follow, as sent.
"""
import socket
import sys
import time


def main():
    args = sys.argv[1:]
    verbose, conns, timeout = False, 1, 10.0
    while args and args[0].startswith('-'):
        opt = args.pop(0)
        if opt == '-v':
            verbose = True
        elif opt == '--conns':
            conns = int(args.pop(0))
        elif opt == '--timeout':
            timeout = float(args.pop(0))
        else:
            sys.exit('rawhttp.py: unknown option ' + opt)
    port, data = int(args[0]), eval(args[1])
    start = time.monotonic()
    socks = []
    for _ in range(conns):
        s = socket.create_connection(('127.0.0.1', port), timeout=timeout)
        try:
            s.sendall(data)
        except OSError:
            pass
        socks.append(s)
    first = None
    for s in socks:
        out, how = b'', None
        deadline = start + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                how = 'timeout'
                break
            s.settimeout(left)
            try:
                k = s.recv(65536)
            except socket.timeout:
                how = 'timeout'
                break
            except ConnectionResetError:
                how = 'reset'
                break
            if not k:
                break
            out += k
        took = time.monotonic() - start
        s.close()
        if out:
            line = out.split(b'\r\n', 1)[0].decode('latin-1')
        else:
            line = how or 'closed'
        print('%s %.2f' % (line, took))
        if first is None:
            first = out
    if verbose and first:
        text = first.decode('latin-1')
        sys.stdout.write(text if text.endswith('\n') else text + '\n')


main()

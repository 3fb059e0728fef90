#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run commands in the other guest of a two-guest test (interop.sh).

  interop-agent.py serve ADDR PORT
      Accept connections on ADDR:PORT. Each connection carries one
      command line; it runs under bash, its output (stdout and stderr)
      streams back, and a last line "@@rc N" gives its exit status.
      The command "@@quit" ends the agent. Commands run concurrently,
      one thread per connection.

  interop-agent.py run ADDR PORT COMMAND
      Send COMMAND to the agent at ADDR:PORT, copy its output to stdout
      and exit with its status (255 when the agent could not be reached
      or the connection broke).

  interop-agent.py wait ADDR PORT SECONDS
      Exit 0 once the agent at ADDR:PORT accepts connections, 1 after
      SECONDS without.

The guests are joined by a private QEMU socket network that nothing
else reaches; the agent exists only for the length of one test run.
"""

import socket
import subprocess
import sys
import threading
import time


def handle(conn, stop):
    with conn:
        f = conn.makefile("rwb", buffering=0)
        line = f.readline().decode(errors="replace").rstrip("\n")
        if line == "@@quit":
            f.write(b"@@rc 0\n")
            stop.set()
            return
        proc = subprocess.Popen(["bash", "-c", line],
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        for out in proc.stdout:
            try:
                f.write(out)
            except OSError:
                pass
        rc = proc.wait()
        try:
            f.write(b"@@rc %d\n" % (rc if rc >= 0 else 128 - rc))
        except OSError:
            pass


def serve(addr, port):
    stop = threading.Event()
    srv = socket.create_server((addr, port), reuse_port=False)
    srv.settimeout(0.5)
    while not stop.is_set():
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        threading.Thread(target=handle, args=(conn, stop),
                         daemon=True).start()
    srv.close()
    return 0


def run(addr, port, command):
    try:
        conn = socket.create_connection((addr, port), timeout=10)
    except OSError as e:
        print("interop-agent: cannot reach %s:%d: %s" % (addr, port, e))
        return 255
    conn.settimeout(None)
    rc = 255
    with conn:
        conn.sendall(command.encode() + b"\n")
        f = conn.makefile("rb")
        for line in f:
            if line.startswith(b"@@rc "):
                rc = int(line.split()[1])
                break
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
    return rc


def wait(addr, port, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection((addr, port), timeout=2).close()
            return 0
        except OSError:
            time.sleep(0.5)
    return 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "serve":
        return serve(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        return run(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    if len(sys.argv) == 5 and sys.argv[1] == "wait":
        return wait(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

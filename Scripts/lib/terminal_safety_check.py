#!/usr/bin/env python3
"""Checks that `courier` never lets server-controlled control characters reach a terminal, and
that redirected output stays byte-exact.

Runs the built binary against a hostile HTTP server on 127.0.0.1 (a random port, nothing else is
contacted), once with stdout and stderr on a pseudo-terminal and once on pipes:

    python3 Scripts/lib/terminal_safety_check.py .build/debug/courier

Exits 0 when every check holds; prints each failure otherwise. Needs only Python 3's standard
library (pty, http.server); Linux only, like courier.
"""
import http.server
import os
import pty
import select
import subprocess
import sys
import tempfile
import threading

TITLE = b"\x1b]0;pwned\x07"           # OSC 0: retitles the window
CLIPBOARD = b"\x1b]52;c;eA==\x07"     # OSC 52: writes the clipboard
RLO = "\u202e".encode()               # right-to-left override
CSI_C1 = "\u009b".encode()            # C1 CSI, as UTF-8



def response(head, body=b""):
    """A raw response: `head` lines as given (nothing is cleaned up on the way), and the body."""
    return head + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


# path -> raw response bytes.
RESPONSES = {
    "/head": response(b"HTTP/1.1 200 OK" + CSI_C1 + b"2J\r\nContent-Type: text/plain\r\nX-Title: " + TITLE
                      + b"\r\nX-Bidi: abc" + RLO + b"fdp.exe\r\nX-Latin1: caf\xe9", b"hello\n"),
    "/ansi": response(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain", b"see " + CLIPBOARD + b"\x1b[31mred\n"),
    "/binary": response(b"HTTP/1.1 200 OK\r\nContent-Type: image/png", b"\x89PNG\r\n\x1a\n\x00"),
    "/redirect": response(b"HTTP/1.1 302 Found\r\nLocation: /head" + RLO + b"\x1b[2J"),
    # Every /loop… path answers this: with --max-redirects 1 the error line quotes the Location.
    "/loop": response(b"HTTP/1.1 302 Found\r\nLocation: /loop" + RLO + TITLE),
    "/download": response(b"HTTP/1.1 200 OK\r\nContent-Disposition: attachment; "
                          b"filename*=UTF-8''in%E2%80%AEfdp.exe%1B%5D0%3Bx%07", b"data"),
}
# What no terminal may receive raw (courier itself writes no escape sequences in these runs).
FORBIDDEN = [b"\x1b", b"\x07", CSI_C1, RLO]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = "/loop" if self.path.startswith("/loop") else self.path.split("?")[0]
        self.wfile.write(RESPONSES.get(path, response(b"HTTP/1.1 404 Not Found")))

    def log_message(self, *args):
        pass


def on_terminal(command, cwd):
    """Runs `command` with stdin, stdout and stderr on one pseudo-terminal; returns what it showed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True)
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not data:
            break
        shown += data
    process.wait()
    os.close(master)
    return shown


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/courier")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    failures = []

    def check(condition, what):
        print(("ok    " if condition else "FAIL  ") + what)
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as directory:
        for arguments in (["--headers", "/head"], ["-v", "/head"], ["/ansi"], ["/binary"], ["-v", "/redirect"],
                          ["--max-redirects", "1", "/loop"],
                          ["-d", "/download"]):
            url_index = len(arguments) - 1
            command = [binary] + arguments[:url_index] + [base + arguments[url_index]]
            shown = on_terminal(command, directory)
            leaked = [f for f in FORBIDDEN if f in shown]
            check(not leaked, f"terminal: courier {' '.join(arguments)} shows nothing raw {leaked or ''}")
            if arguments[0] == "-d":
                check(os.listdir(directory) == ["infdp.exe]0;x"], f"the downloaded file is named without controls: {os.listdir(directory)}")
            if os.environ.get("SHOW"):
                print(shown.decode(errors="replace"))

        head = subprocess.run([binary, "--headers", base + "/head"], capture_output=True).stdout
        raw_head = RESPONSES["/head"].split(b"\r\n\r\n")[0]
        expected = raw_head.replace(b"\r\n", b"\n") + b"\n\n"
        check(head == expected, "redirected: --headers writes the head as received")
        body = subprocess.run([binary, base + "/ansi"], capture_output=True).stdout
        check(body == RESPONSES["/ansi"].split(b"\r\n\r\n", 1)[1], "redirected: a body with escape sequences is written as received")
        body = subprocess.run([binary, base + "/binary"], capture_output=True).stdout
        check(body == RESPONSES["/binary"].split(b"\r\n\r\n", 1)[1], "redirected: a binary body is written as received")

    server.shutdown()
    print(f"{len(failures)} failure(s)" if failures else "all terminal safety checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`courier --session` and `courier --stream` against the local servers, with curl as the other side.

--session: cookies set by a redirect hop are kept between runs; the authorization goes to its origin only; the session's cookie file has mode 0600 in a
directory of mode 0700 under XDG_CONFIG_HOME, and curl -b sends what it holds; curl -c's file, put in its place,
is what courier sends next; an authorization given once is sent again by the next run of the session; a bad name
is refused before anything is sent. Credentials in a URL authenticate as they do with curl.
--stream: an event stream's first event is printed while the stream is still open (the next event is 10 s away),
NDJSON lines are pretty-printed one by one, and 128 MiB of lines pass with the process's peak resident memory within
32 MiB of a ten-line stream's (wait4's ru_maxrss): lines are read as they arrive, in constant memory.

Usage: cli_session_stream_check.py COURIER   (with Scripts/servers.sh's environment: COURIER_HTTPBIN_URL, COURIER_SSE_URL)
"""
import json
import os
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import time


def main():
    courier = sys.argv[1]
    httpbin = os.environ["COURIER_HTTPBIN_URL"].rstrip("/")
    sse = os.environ["COURIER_SSE_URL"].rstrip("/")
    failures = []
    home = tempfile.mkdtemp(prefix="courier-session-")
    environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(home, "config"), HOME=home)

    def check(condition, what):
        if not condition:
            failures.append(what)
        print(("ok: " if condition else "FAILED: ") + what)

    def run(*args):
        return subprocess.run([courier, *args], capture_output=True, text=True, timeout=60, env=environment)

    def cookies_of(text):
        try:
            return json.loads(text).get("cookies")
        except ValueError:
            return None

    try:
        # Cookies: set on a redirect hop, kept, sent by the next run.
        first = run("--no-pretty", "--session", "s1", httpbin + "/cookies/set?flavor=oatmeal&n=1")
        check(first.returncode == 0 and cookies_of(first.stdout) == {"flavor": "oatmeal", "n": "1"},
              f"the redirect hop's cookies reach /cookies ({first.stdout.strip()!r} {first.stderr.strip()!r})")
        second = run("--no-pretty", "--session", "s1", httpbin + "/cookies")
        check(cookies_of(second.stdout) == {"flavor": "oatmeal", "n": "1"}, f"the next run sends them ({second.stdout.strip()!r})")
        host = httpbin.split("://", 1)[1].replace(":", "_")
        directory = os.path.join(home, "config", "courier", "sessions", host, "s1")
        cookie_file = os.path.join(directory, "cookies.txt")
        check(os.path.isfile(cookie_file), f"the session lives in {directory}")
        if os.path.isfile(cookie_file):
            check(stat.S_IMODE(os.stat(cookie_file).st_mode) == 0o600, "the cookie file has mode 0600")
            check(stat.S_IMODE(os.stat(directory).st_mode) == 0o700, "the session directory has mode 0700")
            by_curl = subprocess.run(["curl", "-sS", "--max-time", "10", "-b", cookie_file, httpbin + "/cookies"],
                                     capture_output=True, text=True, timeout=30)
            check(cookies_of(by_curl.stdout) == {"flavor": "oatmeal", "n": "1"}, "curl -b sends the session's cookies")
            # And the other way: a file curl -c wrote becomes the session's.
            subprocess.run(["curl", "-sS", "--max-time", "10", "-L", "-o", "/dev/null", "-c", cookie_file,
                            httpbin + "/cookies/set?from=curl"], check=True, timeout=30)
            third = run("--no-pretty", "--session", "s1", httpbin + "/cookies")
            check(cookies_of(third.stdout) == {"from": "curl"}, f"courier sends what curl -c wrote ({third.stdout.strip()!r})")

        # Authorization: given once, sent again.
        given = run("--session", "s2", "-a", "ada:s3cret", httpbin + "/basic-auth/ada/s3cret")
        again = run("--session", "s2", httpbin + "/basic-auth/ada/s3cret")
        without = run(httpbin + "/basic-auth/ada/s3cret")
        check(given.returncode == 0 and again.returncode == 0 and without.returncode == 4,
              f"the session keeps the authorization (exit {given.returncode}, {again.returncode}; without a session {without.returncode})")
        # The authorization goes only to the origin it was given for: a directory session serves every host.
        folder = os.path.join(home, "folder-session")
        run("--session", folder, "-a", "ada:s3cret", httpbin + "/basic-auth/ada/s3cret")
        other_host = httpbin.replace("127.0.0.1", "localhost")
        check(other_host != httpbin, f"httpbin is on 127.0.0.1, so localhost names another host ({httpbin})")
        elsewhere = run("--no-pretty", "--session", folder, other_host + "/headers")
        home_again = run("--no-pretty", "--session", folder, httpbin + "/headers")
        check(elsewhere.returncode == 0 and "Authorization" not in elsewhere.stdout and "Basic" in home_again.stdout,
              f"a directory session's authorization goes to its origin only ({elsewhere.stdout.strip()!r})")

        # Credentials in the URL: sent as HTTP Basic, percent-decoded, as curl sends them (curl is the oracle).
        scheme, rest = httpbin.split("://", 1)
        for user, password in [("ada", "s3cret"), ("a%40da", "p%3Aw%20d")]:
            url = f"{scheme}://{user}:{password}@{rest}/basic-auth/{user}/{password}"
            by_courier = run(url)
            by_curl = subprocess.run(["curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", url],
                                     capture_output=True, text=True, timeout=30)
            check(by_courier.returncode == 0 and '"authenticated": true' in by_courier.stdout and by_curl.stdout == "200",
                  f"credentials in the URL ({user}:{password}) authenticate, as with curl (exit {by_courier.returncode}, curl {by_curl.stdout})")
        wrong = run(f"{scheme}://ada:wrong@{rest}/basic-auth/ada/s3cret")
        check(wrong.returncode == 4, f"wrong credentials in the URL get the 401 (exit {wrong.returncode})")

        refused = run("--session", "bad name!", httpbin + "/get")
        check(refused.returncode == 1 and "--session takes a name" in refused.stderr, "a bad session name is refused")

        # --stream: the first event shows while the stream is still open.
        process = subprocess.Popen([courier, "--stream", sse + "/events?count=2&interval_ms=10000&stream=cli-check"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        seen = b""
        deadline = time.monotonic() + 30
        while b"\n\n" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1)
            if ready:
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        still_open = process.poll() is None
        process.kill()
        process.wait(timeout=10)
        check(b"id: 1" in seen and b'"id":1' in seen and still_open,
              f"--stream printed the first event while the stream was open ({seen[:80]!r}, open: {still_open})")

        pretty = run("--stream", "--pretty", sse + "/lines?count=3&ndjson=1")
        check(pretty.returncode == 0 and pretty.stdout.count('"n": ') == 3 and pretty.stdout.count("{\n") == 3,
              f"--stream --pretty indents each JSON line ({pretty.stdout[:60]!r})")

        def peak_rss_mib(url):
            process = subprocess.Popen([courier, "--stream", "--no-pretty", url], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, env=environment)
            lines = 0
            while True:
                chunk = process.stdout.read(1 << 20)
                if not chunk:
                    break
                lines += chunk.count(b"\n")
            _, status, usage = os.wait4(process.pid, 0)
            return status, lines, usage.ru_maxrss / 1024.0

        _, _, small = peak_rss_mib(sse + "/lines?count=10")
        status, lines, large = peak_rss_mib(sse + "/lines?count=131072&size=1023")
        check(status == 0 and lines == 131072 and large - small < 32,
              f"128 MiB of lines with flat memory (peak {large:.1f} MiB against {small:.1f} MiB for ten lines, {lines} lines)")
    finally:
        shutil.rmtree(home, ignore_errors=True)

    print(f"{len(failures)} failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

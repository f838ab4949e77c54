#!/usr/bin/env python3
"""Load test of `tammi gui` (run by .ci/run; standard library only, loopback only).

50 concurrent clients for a minute: sessions asking for analysis and moves, event
streams opened and dropped, and malformed, oversized and hostile requests (bad request
lines, a head over the limit, a body over the limit, bad percent-encoding, path
traversal, unknown sessions, bad FENs, illegal moves, matches to watch naming commands
or values outside the server's lists, and now and then a real match started and
stopped). Fails unless the server keeps
answering, its memory stays bounded, it never runs more engines than its cap, nothing
but the embedded assets is served, and no engine process is left once the pages are
gone.

    python3 load_test.py TAMMI_BINARY [--clients 50] [--seconds 60]
"""
import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

MAX_ENGINES = 4
RSS_LIMIT_MB = 400


def children(pid):
    """The pids whose parent is pid (the engines)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(d))
            except OSError:
                pass
    return out


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Client:
    def __init__(self, host, port):
        self.host, self.port = host, port

    def raw(self, data, read=True, timeout=10):
        """Send bytes, return (status, body) or (None, b'') if the server closed."""
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            s.sendall(data)
            if not read:
                return None, b""
            chunks = []
            while True:
                try:
                    c = s.recv(65536)
                except (ConnectionResetError, socket.timeout):
                    break
                if not c:
                    break
                chunks.append(c)
            resp = b"".join(chunks)
        except (BrokenPipeError, ConnectionResetError):
            return None, b""
        finally:
            s.close()
        m = re.match(rb"HTTP/1\.1 (\d{3})", resp)
        body = resp.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in resp else b""
        return (int(m.group(1)) if m else None), body

    def request(self, method, path, body=b"", headers=None):
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        for k, v in (headers or {}).items():
            head += f"{k}: {v}\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        return self.raw(head.encode() + body)


class Failures:
    def __init__(self):
        self.lock = threading.Lock()
        self.items = []
        self.counts = {}

    def fail(self, what):
        with self.lock:
            if len(self.items) < 50:
                self.items.append(what)

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1


def worker(c, stop, failures, rng):
    sid = None
    while not stop.is_set():
        action = rng.choice(
            ["session", "analyse", "move", "stream", "state", "garbage", "bighead",
             "bigbody", "traversal", "badquery", "badsession", "badfen", "illegal", "asset",
             "badwatch", "watch"])
        failures.count(action)
        if action == "session" or (sid is None and action in ("analyse", "move", "stream", "state", "badfen", "illegal",
                                                              "badwatch", "watch")):
            st, body = c.request("POST", "/api/session?variant=" + rng.choice(["international", "english", "turkish", "russian"]))
            if st == 200:
                sid = json.loads(body)["id"]
            elif st != 503:
                failures.fail(f"session: {st} {body[:100]!r}")
            continue
        if action == "analyse":
            st, body = c.request("POST", f"/api/analyse?s={sid}&on={rng.choice([0, 1])}")
            if st not in (200, 404, 422):
                failures.fail(f"analyse: {st} {body[:100]!r}")
        elif action == "move":
            st, body = c.request("GET", f"/api/state?s={sid}")
            if st == 200:
                legal = json.loads(body).get("legal", [])
                if legal:
                    m = urllib.parse.quote(rng.choice(legal)["text"])
                    st, body = c.request("POST", f"/api/move?s={sid}&move={m}")
                    if st not in (200, 422, 404):
                        failures.fail(f"move: {st} {body[:100]!r}")
        elif action == "stream":
            # Open an event stream, read its first event, drop it.
            try:
                s = socket.create_connection((c.host, c.port), timeout=5)
                s.sendall(f"GET /api/events?s={sid} HTTP/1.1\r\nHost: {c.host}:{c.port}\r\n\r\n".encode())
                data = s.recv(4096)
                if not (data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.1 404") or data.startswith(b"HTTP/1.1 503")):
                    failures.fail(f"stream: {data[:60]!r}")
                s.close()
            except OSError as e:
                failures.fail(f"stream: {e}")
        elif action == "state":
            st, _ = c.request("GET", f"/api/state?s={sid}")
            if st not in (200, 404):
                failures.fail(f"state: {st}")
        elif action == "garbage":
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
            st, _ = c.raw(data + b"\r\n\r\n")
            if st is not None and st not in (400, 404, 405, 421, 505, 503):
                failures.fail(f"garbage answered {st}")
        elif action == "bighead":
            st, _ = c.raw(b"GET /?" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n")
            if st not in (431, None):
                failures.fail(f"a 20 KB head answered {st}")
        elif action == "bigbody":
            n = 2 * 1024 * 1024
            head = f"POST /api/pdn?s={sid} HTTP/1.1\r\nHost: {c.host}:{c.port}\r\nContent-Length: {n}\r\n\r\n".encode()
            st, _ = c.raw(head + b"x" * 65536)
            if st not in (413, None):
                failures.fail(f"a 2 MB body answered {st}")
        elif action == "traversal":
            path = rng.choice(["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd",
                               "/src/main.rs", "/Cargo.toml", "//etc/passwd", "/assets/../app.js"])
            st, body = c.request("GET", path)
            if st == 200 or b"root:" in body:
                failures.fail(f"{path} answered {st}")
        elif action == "badquery":
            st, _ = c.request("POST", rng.choice(["/api/move?s=%zz", "/api/goto?s=x&ply=-1", "/api/opponent?s=1&side=purple",
                                                  f"/api/multipv?s={sid}&lines=9", f"/api/multipv?s={sid}&lines=x"]))
            if st not in (400, 404, 422):
                failures.fail(f"bad query answered {st}")
        elif action == "badsession":
            st, _ = c.request("POST", "/api/move?s=nope&move=32-28")
            if st != 404:
                failures.fail(f"unknown session answered {st}")
        elif action == "badfen":
            st, _ = c.request("POST", f"/api/fen?s={sid}&variant=international", body=b"W:W99,K0:B\x00\xff" * rng.randrange(1, 50))
            if st not in (422, 404):
                failures.fail(f"bad FEN answered {st}")
        elif action == "illegal":
            st, _ = c.request("POST", f"/api/move?s={sid}&move=" + urllib.parse.quote(rng.choice(["1-2", "99x1", "", "x" * 300, "\u0000"])))
            if st not in (422, 404):
                failures.fail(f"illegal move answered {st}")
        elif action == "badwatch":
            # The page names engines from the server's list only: commands, paths, odd
            # values and extra parameters are refused and start nothing.
            q = rng.choice([
                "e1=/bin/sh&e2=tammi", "e1=tammi&e2=" + urllib.parse.quote("sh -c 'touch /tmp/pwned'"),
                "e1=tammi&e2=tammi&tc=0", "e1=tammi&e2=tammi&tc=1e9", "e1=tammi&e2=tammi&games=100000",
                "e1=tammi&e2=tammi&games=%zz", "e1=tammi&e2=tammi&variant=chess", "e1=tammi&e2=tammi&book1=2",
                "e1=tammi&e2=tammi&command=id", "e1=" + "x" * 3000 + "&e2=tammi", "e1=tammi&e2=..%2F..%2Fbin%2Fsh",
            ])
            st, body = c.request("POST", f"/api/watch/start?s={sid}&{q}")
            if st not in (400, 404, 422, 431):
                failures.fail(f"bad watch {q[:60]!r} answered {st} {body[:100]!r}")
        elif action == "watch":
            # A real match (tammi against itself), stopped at once or left to the reaper.
            st, body = c.request("POST", f"/api/watch/start?s={sid}&e1=tammi&e2=tammi&tc=2%2B0.05&games=1")
            if st not in (200, 404, 409):
                failures.fail(f"watch answered {st} {body[:100]!r}")
            if st == 200 and rng.random() < 0.5:
                st, body = c.request("POST", f"/api/watch/stop?s={sid}")
                if st not in (200, 404, 409):
                    failures.fail(f"watch stop answered {st} {body[:100]!r}")
            st, _ = c.request("GET", f"/api/watch?s={sid}")
            if st not in (200, 404):
                failures.fail(f"watch state answered {st}")
        elif action == "asset":
            st, _ = c.request("GET", rng.choice(["/", "/app.js", "/style.css"]))
            if st not in (200, 503):
                failures.fail(f"asset answered {st}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tammi")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    server = subprocess.Popen([a.tammi, "gui", "--port", "0"], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    m = re.search(r"http://([\d.]+):(\d+)/", line)
    if not m:
        print("no address printed:", line, file=sys.stderr)
        server.kill()
        return 1
    host, port = m.group(1), int(m.group(2))
    failures = Failures()
    stop = threading.Event()
    threads = [threading.Thread(target=worker, args=(Client(host, port), stop, failures, random.Random(a.seed * 1000 + i)))
               for i in range(a.clients)]
    for t in threads:
        t.start()
    max_rss, max_engines, answered_during = 0.0, 0, 0
    t0 = time.time()
    probe = Client(host, port)
    while time.time() - t0 < a.seconds:
        time.sleep(1)
        max_rss = max(max_rss, rss_mb(server.pid))
        max_engines = max(max_engines, len(children(server.pid)))
        st, _ = probe.request("GET", "/style.css")
        answered_during += st == 200
    stop.set()
    for t in threads:
        t.join(30)
    st, body = probe.request("GET", "/")
    still = st == 200 and b"tammi" in body
    # With every page gone, the sessions end after their idle time and take their engines.
    deadline = time.time() + 60
    while children(server.pid) and time.time() < deadline:
        time.sleep(1)
    left = children(server.pid)
    rss_end = rss_mb(server.pid)
    server.kill()
    server.wait()
    print(f"load: {a.clients} clients for {a.seconds:.0f} s; requests by kind: {json.dumps(failures.counts, sort_keys=True)}")
    print(f"load: server RSS at most {max_rss:.1f} MB (after: {rss_end:.1f} MB); engines at most {max_engines} (cap {MAX_ENGINES}); "
          f"probe answered {answered_during} of {int(a.seconds)} times during the load; engines left after the pages went: {len(left)}")
    problems = list(failures.items)
    if not still:
        problems.append("the server stopped answering")
    if max_rss > RSS_LIMIT_MB:
        problems.append(f"server memory reached {max_rss:.0f} MB")
    if max_engines > MAX_ENGINES:
        problems.append(f"{max_engines} engines ran at once")
    if left:
        problems.append(f"{len(left)} engine processes were left behind")
    for p in problems:
        print("FAIL", p)
    print(f"load: {0 if problems else 1} passed, {1 if problems else 0} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

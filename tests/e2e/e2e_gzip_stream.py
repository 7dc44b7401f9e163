#!/usr/bin/env python3
"""End-to-end: gzip arriving on standard input through a real pipe gives
the plain file's JSON, byte for byte, and never hangs.

usage: python3 tests/e2e/e2e_gzip_stream.py /path/to/colstat  (cwd = repo root)

A pipe is not a file: colstat cannot pread it, so the gzip decoder reads
it once, in order, into a bounded store that its readers share (io/gzip/
input.h). Feeding a file as stdin (`< file`) does not reach that path:
here a writer thread pushes the bytes into an os.pipe() in random chunk
sizes with random pauses, as `curl | colstat` or a slow `ssh host cat`
would. Every gzip variant of e2e_gzip_json (GNU gzip, zlib's strategies,
stored blocks, flushes, pigz, bgzip, many members, empty members, header
fields, zero padding) is decoded with 1, 2 and 16 inflating threads
(COLSTAT_GZIP_THREADS) and pieces small enough that the store fills many
times over (COLSTAT_GZIP_PIECE), and once at the default piece size with
an input larger than the default store; each must print exactly what the
plain CSV gives. A run that does not end within its time limit is a
failure (a hang), as is any other output. The GPU backend too where a GPU
is present. Seed printed; COLSTAT_SEED reproduces.
"""
import os
import subprocess
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite  # noqa: E402
from e2e_gzip_json import ARGS, Ctx, csv_text, forms  # noqa: E402

LIMIT = 120  # seconds: far above any honest run here; past it, a hang


def slow_writer(fd, blob, rng):
    """Writes blob to fd in chunks of 1 byte to 256 KiB, pausing now and
    then, and closes it; a reader that stopped reading (an error) ends it."""
    at = 0
    try:
        while at < len(blob):
            k = rng.choice([1, 7, 512, 4096, 65536, 262144])
            k = min(len(blob) - at, rng.randint(1, k))
            at += os.write(fd, blob[at:at + k])
            if rng.random() < 0.02:
                time.sleep(rng.random() * 0.005)
    except (BrokenPipeError, OSError):
        pass
    finally:
        os.close(fd)


def run_pipe(suite, blob, args, env, seed):
    """colstat reading blob from a real pipe. Returns (rc, out, err);
    rc None when it did not end in LIMIT seconds (it is killed)."""
    e = dict(os.environ)
    e.update(env)
    r, w = os.pipe()
    p = subprocess.Popen([suite.exe] + args + ["-"], stdin=r,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=e)
    os.close(r)
    import random
    t = threading.Thread(target=slow_writer,
                         args=(w, blob, random.Random(seed)), daemon=True)
    t.start()
    try:
        out, err = p.communicate(timeout=LIMIT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = None
    t.join(timeout=10)
    return rc, out, err.decode("utf-8", "replace")


def threads_and_pieces(rng):
    """(label, environment): 1, 2 and 16 inflating threads with pieces of
    a few KiB, so the store of (threads + 4) pieces fills many times."""
    out = []
    for t in ("1", "2", "16"):
        piece = str(rng.choice([1024, 4096, 16384, 65536]))
        out.append(("%s threads, piece %s" % (t, piece),
                    {"COLSTAT_GZIP_THREADS": t, "COLSTAT_GZIP_PIECE": piece}))
    return out


def check(s, blob, want, label, args, env):
    rc, out, err = run_pipe(s, blob, args, env, s.rng.randrange(1 << 30))
    if rc is None:
        s.check(False, label + ": ends (no hang)",
                "killed after %d s; stderr %r" % (LIMIT, err[:300]))
        return
    s.check(rc == 0 and out == want, label + ": the plain file's JSON",
            "rc %s, %d bytes out, stderr %r" % (rc, len(out), err[:300]))


def test_variants(s):
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, (2 << 20) if not QUICK else (400 << 10))
    want = {d: c.plain(data, d) for d in c.devices}
    for name, blob in forms(rng, data):
        for dev in c.devices:
            for label, env in threads_and_pieces(rng):
                check(s, blob, want[dev], "%s, %s, %s, pipe" % (name, dev,
                                                               label),
                      ARGS + ["--device", dev], env)


def test_default_piece(s):
    """The default pieces (4 MiB), stored blocks and gzip -6, an input
    larger than the store: the first report's hang (1 and 2 threads) and
    failure (3 and more)."""
    if QUICK:
        print("e2e_gzip_stream: quick: the default-piece case is skipped")
        return
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, 30 << 20)
    want = c.plain(data, "cpu")
    stored = zlib.compressobj(0, zlib.DEFLATED, 31)
    blobs = [("stored", stored.compress(data) + stored.flush())]
    six = zlib.compressobj(6, zlib.DEFLATED, 31)
    blobs.append(("level 6", six.compress(data) + six.flush()))
    for name, blob in blobs:
        for t in ("1", "2", "3", "16"):
            check(s, blob, want, "%s, %s threads, default piece, pipe"
                  % (name, t), ARGS + ["--device", "cpu"],
                  {"COLSTAT_GZIP_THREADS": t})


def test_damage_on_pipe(s):
    """A truncated stream on a pipe is the one-line error, not a hang."""
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, 1 << 20)
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    blob = z.compress(data) + z.flush()
    for cut in sorted(rng.sample(range(20, len(blob) - 1), 3)):
        for label, env in threads_and_pieces(rng):
            rc, out, err = run_pipe(s, blob[:cut], ARGS, env,
                                    rng.randrange(1 << 30))
            lines = err.strip().splitlines()
            s.check(rc == 1 and out == b"" and len(lines) == 1 and
                    "truncated" in lines[0],
                    "cut at %d, %s: one-line error" % (cut, label),
                    "rc %s, stderr %r" % (rc, err[:300]))
    del c


def main():
    s = Suite("e2e_gzip_stream", sys.argv)
    s.run_tests([test_variants, test_default_piece, test_damage_on_pipe])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Records every colstat run of the end-to-end suites, for comparing two
builds byte for byte (a refactoring must not change one output byte).

usage: python3 tests/e2e/record.py COLSTAT OUT.log [SEED] [SUITE...]

Runs each e2e suite (default: all tests/e2e/e2e_*.py) with COLSTAT_SEED
fixed, through a shim that runs COLSTAT and appends one record per run:
the arguments, the length of stdin (gzip headers hold a time), the exit status, stdout and stderr, with
the suites' temporary folders replaced by a fixed name. Two builds give
identical logs when every run gave identical bytes; `diff` shows the first
difference. Timing lines of -v (which differ run to run) are dropped."""
import hashlib
import os
import re
import subprocess
import sys

SHIM = r'''#!/usr/bin/env python3
import os, re, subprocess, sys
real, log = os.environ["RECORD_EXE"], os.environ["RECORD_LOG"]
data = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
p = subprocess.run([real] + sys.argv[1:], input=data, capture_output=True,
                   env=dict(os.environ))
tmp = re.compile(rb"/tmp/(tmp|[A-Za-z0-9_.-]*?-)[a-z0-9_]{8}")
def norm(b):
    b = tmp.sub(b"/TMP", b)
    return b"\n".join(l for l in b.split(b"\n")
                      if not re.match(rb"colstat: (read|parse|reduce|gpu|h2d|kernels|stream|submit|staging|pinned|hist|retire|total) ", l))
args = [tmp.sub(b"/TMP", a.encode()).decode() for a in sys.argv[1:]]
rec = b"== %s stdin=%d bytes rc=%d\n--out\n%s\n--err\n%s\n" % (
    " ".join(args).encode(), len(data),
    p.returncode, norm(p.stdout), norm(p.stderr))
with open(log, "ab") as f:
    f.write(rec)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)
'''


def main():
    exe, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    seed = sys.argv[3] if len(sys.argv) > 3 else "12345"
    here = os.path.dirname(os.path.abspath(__file__))
    suites = sys.argv[4:] or sorted(os.path.join(here, f) for f in os.listdir(here)
                                    if f.startswith("e2e_") and f.endswith(".py"))
    shim = out + ".shim"
    with open(shim, "w") as f:
        f.write(SHIM)
    os.chmod(shim, 0o755)
    open(out, "w").close()
    env = dict(os.environ, RECORD_EXE=exe, RECORD_LOG=out, COLSTAT_SEED=seed)
    for s in suites:
        with open(out, "ab") as f:
            f.write(b"#### %s\n" % os.path.basename(s).encode())
        p = subprocess.run([sys.executable, s, shim], env=env,
                           capture_output=True, text=True)
        tail = (p.stdout.strip().splitlines() or [""])[-1]
        print(f"{os.path.basename(s)}: rc={p.returncode} {tail}")
    os.unlink(shim)
    # Suites that run colstat concurrently append in any order: each
    # suite's records are sorted, so only their bytes count.
    data = open(out, "rb").read()
    sections = re.split(rb"(?m)^(?=#### )", data)
    with open(out, "wb") as f:
        for sec in sections:
            recs = re.split(rb"(?m)^(?=== )", sec)
            f.write(recs[0] + b"".join(sorted(recs[1:])))
    h = hashlib.sha1(open(out, "rb").read()).hexdigest()
    print(f"{out}: {sum(1 for l in open(out, 'rb') if l.startswith(b'== '))} runs, sha1 {h}")


if __name__ == "__main__":
    main()

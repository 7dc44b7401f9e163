#!/usr/bin/env python3
"""Call circles between C files: a file calls a function defined (non-static) in another file, which
calls back (ARCHITECTURE.md: no file's callees call back into it except through a declared interface).
Approximate (regex over definitions and identifiers followed by '('), good enough to see circles
like engine_feed.c -> engine.c -> engine_feed.c; a call through a function pointer is no edge, which
is why callbacks through declared interfaces pass. Usage, from the repository root:
call_cycles.py DIR... (ctest runs it over src io gpu). Prints each circle and a closing 'N circles'
line; exits 1 if any. The project's own tool, kept here so that the suite runs it."""
import os, re, sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
# Sorted walk: the same tree prints the same circles in the same order.
files = sorted(os.path.join(r, f) for d in sys.argv[1:] for r, _, fs in os.walk(d) for f in fs
               if f.endswith(".c"))
if not files:
    sys.exit(f"call_cycles: no .c files under {' '.join(sys.argv[1:])}")  # a wrong folder is no pass
strip = lambda s: re.sub(r'"(\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', " ", s, flags=re.S)
defs, body = {}, {}
for p in files:
    s = strip(open(p, errors="replace").read()); body[p] = s
    for m in re.finditer(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{)]*\)\s*\{", s, re.M):
        defs.setdefault(m.group(1), p)
edges = {p: set() for p in files}
for p, s in body.items():
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", s):
        q = defs.get(m.group(1))
        if q and q != p: edges[p].add(q)
# strongly connected components (Tarjan)
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in sorted(edges[v]):
        if w not in index: visit(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: comps.append(sorted(c))
sys.setrecursionlimit(10000)
for v in files:
    if v not in index: visit(v)
for c in comps: print("circle:", " ".join(c))
print(f"{len(comps)} circles over {len(files)} files")
sys.exit(1 if comps else 0)

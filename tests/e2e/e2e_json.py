"""JSON every consumer keeps: "schema_version" first in every document,
--json-bigint=string (integers past +-2^53 as strings, read back exactly
by Python's json and, where installed, jq), and --json-errors (an error
also as one JSON object on stdout, stderr keeping its one line)."""
import json
import shutil
import subprocess
import sys

from harness import Suite

LIMIT = 1 << 53


def first_key(text):
    keys = json.loads(text, object_pairs_hook=lambda p: [k for k, _ in p])
    return keys[0] if keys else None


def big_column(rng, n):
    """Integers, some past 2^53 (both signs), some not."""
    vals = []
    for _ in range(n):
        r = rng.random()
        if r < 0.4:
            v = rng.randrange(LIMIT + 1, 1 << 63)
        elif r < 0.7:
            v = -rng.randrange(LIMIT + 1, 1 << 63)
        else:
            v = rng.randrange(-1000, 1000)
        vals.append(v)
    return vals


def exact(value, big_string):
    """The integer a JSON value stands for; None when it is not in the form
    the option asks for."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return int(value) if big_string and abs(int(value)) > LIMIT else None
    if isinstance(value, int):
        return value if not big_string or abs(value) <= LIMIT else None
    return None


def write_case(s):
    n = s.rng.randrange(2, 40)
    a = big_column(s.rng, n)
    b = [s.rng.randrange(-5, 5) for _ in range(n)]
    path = s.path("big.csv")
    with open(path, "w") as f:
        f.write("a,b\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b)))
    return path, a, b


def test_schema_version(s):
    path, a, _ = write_case(s)
    for args in (["--json"], ["--json", "--all"], ["-o", "json", "--hist"],
                 ["--json", "--quantiles", "0.5,0.99"]):
        rc, out, err = s.run(args + [path])
        ok = rc == 0 and first_key(out.decode()) == "schema_version"
        s.check(ok and json.loads(out)["schema_version"] == 1,
                f"{args}: schema_version 1 is the first key",
                f"rc={rc} out={out[:200]!r} err={err!r}")


def test_bigint(s):
    path, a, b = write_case(s)
    for mode in ("number", "string"):
        rc, out, err = s.run(["--json", "--sum", "--min", "--max",
                              f"--json-bigint={mode}", path])
        if not s.check(rc == 0, f"--json-bigint={mode} runs", err):
            continue
        doc = json.loads(out)
        big = mode == "string"
        for col, vals in zip(doc["columns"], (a, b)):
            got = (exact(col["sum"], big), exact(col["min"]["value"], big),
                   exact(col["max"]["value"], big))
            want = (sum(vals), min(vals), max(vals))
            s.check(got == want, f"--json-bigint={mode} {col['name']}: sum, "
                    "min, max exact and in the asked form",
                    f"got {col['sum']!r} {col['min']!r} {col['max']!r} "
                    f"want {want}")
        if big and shutil.which("jq"):
            p = subprocess.run(["jq", "-r", ".columns[0].max.value"],
                               input=out, stdout=subprocess.PIPE)
            s.check(p.stdout.decode().strip() == str(max(a)),
                    "jq reads the string back exactly",
                    f"{p.stdout!r} want {max(a)}")
    rc, out, err = s.run(["--json", "--json-bigint=text", path])
    s.check(rc == 2 and "--json-bigint" in err, "--json-bigint=text refused",
            f"rc={rc} {err!r}")


def check_error(s, args, status, what):
    rc, out, err = s.run(args)
    lines = out.decode().splitlines()
    ok = rc == status and len(lines) == 1 and err.count("\n") == 1
    doc = json.loads(lines[0]) if ok else {}
    ok = ok and first_key(lines[0]) == "schema_version"
    e = doc.get("error", {})
    ok = ok and doc.get("schema_version") == 1 and e.get("status") == status
    ok = ok and sorted(e) == ["file", "line", "message", "status"]
    ok = ok and e["message"] in err and err.startswith("colstat: ")
    s.check(ok, f"--json-errors: {what}", f"rc={rc} out={out!r} err={err!r}")
    return e


def test_json_errors(s):
    missing = s.path("missing.csv")
    e = check_error(s, ["--json", "--json-errors", missing], 1, "no file")
    s.check(e.get("file") == missing and e.get("line") is None,
            "the error's file", repr(e))
    bad = s.path("bad.csv")
    with open(bad, "w") as f:
        f.write("x\n1\n2\nabc\n")
    e = check_error(s, ["--json", "--json-errors", "--strict", bad], 1,
                    "bad data")
    s.check(e.get("file") == bad and e.get("line") == 4, "the error's line",
            repr(e))
    e = check_error(s, ["--json", "--json-errors", "--bins", "x"], 2, "usage")
    s.check(e.get("file") is None, "usage: no file", repr(e))
    check_error(s, ["--json", "--bins", "x", "--json-errors"], 2,
                "usage error before --json-errors")
    rc, out, err = s.run(["--json", missing])
    s.check(rc == 1 and out == b"" and err.count("\n") == 1,
            "without --json-errors stdout stays empty", f"{out!r} {err!r}")


def main():
    s = Suite("e2e_json", sys.argv)
    s.run_tests([test_schema_version, test_bigint, test_json_errors])


if __name__ == "__main__":
    main()

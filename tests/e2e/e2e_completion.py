"""Bash completion (completion/colstat.bash) driven in a bash subprocess,
and --list-columns, the names it asks colstat for.

Each case sets COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as bash
would for the line typed so far, calls _colstat and reads COMPREPLY. A
reply is then read back by a shell (eval "set -- REPLY") as the command
line will be, and the command run with it: a column name with blanks,
quotes, commas or shell characters must reach colstat whole."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

from harness import Suite

HERE = os.path.dirname(os.path.abspath(__file__))
COMPLETION = os.path.join(HERE, "..", "..", "completion", "colstat.bash")

# Names a user's header may hold: blanks, quotes, commas, shell characters.
ODD_NAMES = ["Order Date", 'a "q" b', "x$y", "it's", "c,d", "p*q",
             "semi;colon", "back\\slash", "tab\there", "(paren)", "a&b",
             "~tilde", "{x,y}", "hash#", "pipe|", "re1", "re2"]


def complete(suite, words, cword=None):
    """COMPREPLY for the line whose words are `words`, the cursor at the
    end of words[cword] (the last word by default)."""
    if cword is None:
        cword = len(words) - 1
    line = " ".join(words[:cword + 1])
    script = (
        'source "$COMPLETION"\n'
        'COMP_WORDS=("$@"); COMP_CWORD=$CWORD\n'
        'COMP_LINE=$LINE; COMP_POINT=${#COMP_LINE}\n'
        '_colstat colstat "${COMP_WORDS[COMP_CWORD]}" '
        '"${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\0" "${COMPREPLY[@]}"\n')
    env = dict(os.environ, COMPLETION=COMPLETION, CWORD=str(cword), LINE=line,
               PATH=os.path.dirname(suite.exe) + os.pathsep +
               os.environ.get("PATH", ""))
    p = subprocess.run(["bash", "-c", script, "bash"] + words, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=suite.dir, timeout=60)
    out = p.stdout.decode("utf-8", "replace")
    return [r for r in out.split("\0") if r], p.stderr.decode("utf-8",
                                                              "replace")


def shell_reads(reply):
    """The words a shell makes of reply (as typed on a command line)."""
    p = subprocess.run(["bash", "-c", 'eval "set -- $R"; printf "%s\\0" "$@"'],
                       env=dict(os.environ, R=reply), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        return None
    return p.stdout.decode("utf-8", "replace").split("\0")[:-1]


def write_odd(suite, name="odd.csv"):
    path = suite.path(name)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ODD_NAMES)
        for r in range(5):
            w.writerow([r * 10 + i for i in range(len(ODD_NAMES))])
    return path


def compressed(suite, path, tool, ext):
    if not shutil.which(tool):
        return None
    out = path + ext
    with open(path, "rb") as src, open(out, "wb") as dst:
        subprocess.run([tool, "-c"], stdin=src, stdout=dst, check=True)
    return out


def test_list_columns(s):
    path = write_odd(s)
    rc, out, err = s.run(["--list-columns", path])
    got = out.decode().split("\n")[:-1]
    s.check(rc == 0 and got == ODD_NAMES, "--list-columns: the header's names",
            f"rc={rc} got={got!r} err={err!r}")
    for tool, ext in [("gzip", ".gz"), ("zstd", ".zst"), ("xz", ".xz"),
                      ("bzip2", ".bz2")]:
        z = compressed(s, path, tool, ext)
        if z:
            rc, out, err = s.run(["--list-columns", z])
            s.check(rc == 0 and out.decode().split("\n")[:-1] == ODD_NAMES,
                    f"--list-columns {ext}", f"rc={rc} err={err!r}")
    rc, out, err = s.run(["--list-columns", "-W"], stdin=b"a b  c\n1 2 3\n")
    s.check(rc == 0 and out == b"a\nb\nc\n", "--list-columns -W",
            f"rc={rc} out={out!r} err={err!r}")
    rc, out, err = s.run(["--list-columns"], stdin=b"1,2,3\n4,5,6\n")
    s.check(rc == 0 and out == b"1\n2\n3\n", "--list-columns without header",
            f"rc={rc} out={out!r} err={err!r}")
    empty = s.path("empty.csv")
    open(empty, "w").close()
    rc, out, err = s.run(["--list-columns", empty])
    s.check(rc == 1 and out == b"" and "empty" in err,
            "--list-columns of an empty file is an error", f"rc={rc} {err!r}")


def works_with(s, path, value, name):
    """colstat -c VALUE PATH reports the one column name."""
    rc, out, err = s.run(["-c", value, "--json", path])
    return rc == 0 and f'"name":"{name}"'.replace("\\", "\\\\") in \
        out.decode().replace(", ", ",").replace(": ", ":") or \
        (rc == 0 and name in out.decode())


def check_name_completes(s, path, name, words_before, tag):
    typed = name.split(",")[0][:2]
    replies, err = complete(s, ["colstat", os.path.basename(path)] +
                            words_before + ["-c", typed])
    read = [shell_reads(r) for r in replies]
    # a name with a comma (which separates -c's items) comes as a regex
    item = name if "," not in name else \
        "/^" + re.sub(r"([\\.\[\](){}*+?|^$])", r"\\\1", name) + "$/"
    wanted = [r for r, w in zip(replies, read) if w == [item]]
    if not s.check(len(wanted) == 1, f"{tag}: -c {typed!r}<TAB> offers "
                   f"{item!r} as one quoted word",
                   f"replies={replies!r} read={read!r} err={err!r}"):
        return
    value = shell_reads(wanted[0])[0]
    rc, out, err = s.run(["-c", value, "--tsv"] + words_before + [path])
    s.check(rc == 0 and out.decode().count("\n") == 2,
            f"{tag}: colstat -c {wanted[0]} runs", f"rc={rc} err={err!r}")


def test_quoted_names(s):
    path = write_odd(s)
    for name in ODD_NAMES:
        if name[:2] in ("re",):
            continue
        check_name_completes(s, path, name, [], "odd names")


def test_compressed_headers(s):
    path = write_odd(s, "c.csv")
    for tool, ext in [("gzip", ".gz"), ("zstd", ".zst"), ("xz", ".xz"),
                      ("bzip2", ".bz2")]:
        z = compressed(s, path, tool, ext)
        if z:
            check_name_completes(s, z, "Order Date", [], ext)


def test_whitespace_input(s):
    path = s.path("w.txt")
    with open(path, "w") as f:
        f.write("host   latency_ms  bytes\na 1 2\nb 3 4\n")
    replies, err = complete(s, ["colstat", "-W", "w.txt", "-c", "lat"])
    s.check(replies == ["latency_ms"], "-W: -c lat<TAB> completes from the "
            "blank-separated header", f"replies={replies!r} err={err!r}")


def test_list_after_comma(s):
    write_odd(s)
    replies, err = complete(s, ["colstat", "odd.csv", "-c", "re1,Or"])
    s.check([shell_reads(r) for r in replies] == [["re1,Order Date"]],
            "-c re1,Or<TAB>: the whole list quoted",
            f"replies={replies!r} err={err!r}")


def test_equals_forms(s):
    write_odd(s)
    # bash splits --columns=re at the '=' (COMP_WORDBREAKS)
    replies, err = complete(s, ["colstat", "odd.csv", "--columns", "=", "re"])
    s.check(sorted(replies) == ["re1", "re2"], "--columns=re<TAB> completes "
            "column names", f"replies={replies!r} err={err!r}")
    replies, err = complete(s, ["colstat", "odd.csv", "--columns=re"])
    s.check(sorted(replies) == ["--columns=re1", "--columns=re2"],
            "--columns=re<TAB> as one word", f"replies={replies!r} {err!r}")
    replies, err = complete(s, ["colstat", "odd.csv", "--format", "=", "j"])
    s.check(replies == ["json"], "--format=j<TAB> completes json",
            f"replies={replies!r} err={err!r}")
    replies, err = complete(s, ["colstat", "--format=j"])
    s.check(replies == ["--format=json"], "--format=j<TAB> as one word",
            f"replies={replies!r} err={err!r}")


def test_null_backslash(s):
    replies, err = complete(s, ["colstat", "--null", "NA,"])
    read = [shell_reads(r) for r in replies]
    s.check(read == [["NA,N/A,null,-,\\N"]], "--null NA,<TAB>: the \\N "
            "reaches colstat", f"replies={replies!r} read={read!r} {err!r}")


def test_group_by(s):
    """-g/--group-by takes column names as -c does."""
    path = write_odd(s)
    for opt in (["-g"], ["--group-by"], ["--group-by", "="]):
        replies, err = complete(s, ["colstat", "odd.csv"] + opt + ["re"])
        s.check(sorted(replies) == ["re1", "re2"], f"{' '.join(opt)} re<TAB> "
                "completes column names", f"replies={replies!r} err={err!r}")
    replies, err = complete(s, ["colstat", "odd.csv", "-g", "Or"])
    s.check([shell_reads(r) for r in replies] == [["Order Date"]],
            "-g Or<TAB>: a name with a blank, quoted",
            f"replies={replies!r} err={err!r}")
    replies, err = complete(s, ["colstat", "-g", "re1", "odd.csv", "-c",
                                "re"])
    s.check(sorted(replies) == ["re1", "re2"], "-g KEYS before the file: "
            "its value is not taken for the file", f"replies={replies!r}")
    replies, err = complete(s, ["colstat", "--gr"])
    s.check(replies == ["--group-by"], "--gr<TAB> offers --group-by",
            f"replies={replies!r} err={err!r}")


def break_names(rng, n):
    """n distinct names of letters, line breaks, backslashes and the
    letters of their escapes, in random order."""
    pieces = ["a", "b", "n", "r", "\n", "\r", "\\", "\r\n", " "]
    names = set()
    while len(names) < n:
        mid = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        name = rng.choice("xyz") + mid + rng.choice(["", "q", "\\", "\n"])
        # -c drops blanks around an item, as around any
        names.add(name + "q" if name.endswith(" ") else name)
    return sorted(names)


def test_line_breaks(s):
    """--list-columns prints a name with a line break on one line, in the
    spelling -c takes back: every line selects its column alone."""
    names = break_names(s.rng, s.rng.randint(3, 12))
    path = s.path("breaks.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        for r in range(4):
            w.writerow([r * 100 + i for i in range(len(names))])
    rc, out, err = s.run(["--list-columns", path])
    lines = out.decode().split("\n")[:-1]
    if not s.check(rc == 0 and len(lines) == len(names), "--list-columns: a "
                   "line per name", f"rc={rc} names={names!r} out={out!r}"):
        return
    for i, (name, line) in enumerate(zip(names, lines)):
        rc, out, err = s.run(["-c", line, "--json", "--sum", path])
        doc = json.loads(out) if rc == 0 else {"columns": []}
        got = [(c["name"], c["index"]) for c in doc["columns"]]
        s.check(got == [(name, i + 1)], f"-c {line!r} selects {name!r}",
                f"rc={rc} got={got!r} err={err!r}")
    bare = [n for n in names if "\\" not in n][:1]
    for name in bare:  # a name that never needed escaping lists as itself
        s.check(name.replace("\n", "\\n").replace("\r", "\\r") in lines,
                f"{name!r} listed with only its line breaks escaped")
    # completion offers the listed spelling, which -c takes back
    want = lines[0]
    replies, err = complete(s, ["colstat", "breaks.csv", "-c", want[:1]])
    read = [shell_reads(r) for r in replies]
    s.check([want] in read, f"-c {want[:1]}<TAB> offers {want!r}",
            f"replies={replies!r} err={err!r}")


def test_comma_and_break(s):
    """A name with a comma and a line break completes to the expression
    that selects it (PCRE2 reads its \\n; without PCRE2: skipped)."""
    path = s.path("cb.csv")
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([["zz,a\nb\\c", "k9"], [1, 2], [3, 4]])
    rc, out, err = s.run(["-c", "/^k\\d$/", "--tsv", path])
    if rc != 0:
        print("e2e_completion: no PCRE2: test_comma_and_break skipped")
        return
    replies, err = complete(s, ["colstat", "cb.csv", "-c", "zz"])
    read = [shell_reads(r) for r in replies]
    if not s.check(len(read) == 1 and read[0] and len(read[0]) == 1,
                   "-c zz<TAB>: one item", f"replies={replies!r} {err!r}"):
        return
    rc, out, err = s.run(["-c", read[0][0], "--json", path])
    got = json.loads(out)["columns"] if rc == 0 else []
    s.check([c["index"] for c in got] == [1], f"-c {read[0][0]!r} selects "
            "the name with a comma and a line break", f"rc={rc} {err!r}")


def main():
    s = Suite("e2e_completion", sys.argv)
    if not shutil.which("bash"):
        print("e2e_completion: no bash: skipped")
        sys.exit(77)
    s.run_tests([test_list_columns, test_quoted_names, test_compressed_headers,
                 test_whitespace_input, test_list_after_comma,
                 test_equals_forms, test_null_backslash, test_group_by,
                 test_line_breaks, test_comma_and_break])


if __name__ == "__main__":
    main()

"""Every example of README.md (and samples/README.md), man/colstat.1 and
`colstat --help` runs.

The examples are taken from the text itself, so a new one is run too:
README's fenced blocks, the man page's .EX blocks and --help's
"Examples:" section. A line is a command when its first word (after a
"$ " prompt) is colstat or a tool it is piped from or to (zcat, ps, df,
jq, mpirun, ...); a line ending in "|" goes on on the next. Where a block
uses "$ " prompts, the lines after a command up to the next prompt are
what it prints: the ones beginning "colstat: " its standard error, the
others its standard output, compared line by line with a run (so shown
output is shown for the samples/ files, which are the same everywhere).

Each block runs in a fresh folder holding samples/; every other input an
example names (big.csv, data.csv.gz, logs/*.gz, points.bin, s*.state,
...) is made there first, from the seeded generator, with the columns its
-c names, the options it gives (-b, -W, --null, --thousands, --decimal)
and the compression its name says. An example exits 0, or 1 where it
shows an error; one that pipes into jq must print no null (a key the
example forgot to ask for). An example needing a tool not installed
(srun, jq, ...) is skipped with the reason logged; mpirun runs with at
most 2 ranks, oversubscribed."""
import bz2
import gzip
import io
import lzma
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tarfile

from harness import Suite

ROOT = os.path.abspath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))
TOOLS = {"colstat", "zcat", "cat", "ps", "df", "jq", "mpirun", "srun", "head",
         "gzip", "sort"}
INPUT = re.compile(r"[\w./*-]*\.(csv|tsv|txt|gz|zst|xz|bz2|f64|bin|state|"
                   r"json|jsonl)\Z")
BTYPES = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i",
          "u32": "I", "i64": "q", "u64": "Q", "f32": "f", "f64": "d"}


class Example:
    def __init__(self, where, cmd, shown=None):
        self.where, self.cmd, self.shown = where, cmd, shown


def roff_plain(text):
    for roff, plain in (("\\(aq", "'"), ("\\(dq", '"'), ("\\(rs", "\\"),
                        ("\\e", "\\"), ("\\-", "-"), ("\\&", ""),
                        ("\\~", " ")):
        text = text.replace(roff, plain)
    return text


def first_word(line):
    words = line.split()
    return words[0] if words else ""


def is_command(line):
    return first_word(line) in TOOLS


def block_examples(where, lines):
    """The examples of one block of lines: with "$ " prompts, each
    command and what it is shown to print; without, every command
    line."""
    out = []
    prompted = any(ln.startswith("$ ") for ln in lines)
    i = 0
    while i < len(lines):
        ln = lines[i]
        i += 1
        if prompted:
            if not ln.startswith("$ "):
                continue
            ln = ln[2:]
        if not is_command(ln):
            continue
        while ln.rstrip().endswith(("|", "\\")) and i < len(lines):
            ln = ln.rstrip().rstrip("\\") + " " + lines[i].strip()
            i += 1
        shown = None
        if prompted:
            shown = []
            while i < len(lines) and not lines[i].startswith("$ "):
                shown.append(lines[i])
                i += 1
            while shown and not shown[-1].strip():
                shown.pop()
        out.append(Example(where, ln.strip(), shown or None))
    return out


def readme_examples(path):
    name = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
    return [ex for b in blocks
            for ex in block_examples(name, b.split("\n")[:-1])]


def man_examples():
    with open(os.path.join(ROOT, "man", "colstat.1"), encoding="utf-8") as f:
        text = roff_plain(f.read())
    blocks = re.findall(r"^\.EX\n(.*?)^\.EE", text, re.S | re.M)
    return [ex for b in blocks
            for ex in block_examples("man page", b.split("\n")[:-1])]


def help_examples(s):
    rc, out, err = s.run(["--help"])
    text = out.decode()
    if "\nExamples:\n" not in text:
        return []
    part = text.split("\nExamples:\n", 1)[1].split("\n\n", 1)[0]
    return block_examples("--help", [ln.strip() for ln in part.split("\n")])


# ------------------------------------------------------------ inputs

def option_values(words, *names):
    vals = []
    for i, w in enumerate(words):
        for n in names:
            if w == n and i + 1 < len(words):
                vals.append(words[i + 1])
            elif n.startswith("--") and w.startswith(n + "="):
                vals.append(w.split("=", 1)[1])
    return vals


def column_names(words):
    """The names -c asks for (indices and ranges need only enough
    columns), and how many columns the indices need."""
    names, most = [], 3
    for lst in option_values(words, "-c", "--columns", "-g", "--group-by"):
        for item in lst.split(","):
            item = item.strip().lstrip("!")
            m = re.fullmatch(r"(\d+)(?:-(\d*))?", item)
            if m:
                most = max(most, int(m.group(1)), int(m.group(2) or 0))
            elif item and not item.startswith("/") and item not in names:
                names.append(item)
    return names, most


def number_text(rng, thousands, decimal):
    v = round(rng.uniform(-500, 50000), rng.choice([0, 1, 2]))
    text = f"{v:,.2f}" if thousands else repr(v)
    if thousands or decimal:
        text = text.replace(",", "\0").replace(".", decimal or ".")
        text = text.replace("\0", thousands or "")
    return text


def csv_text(rng, words):
    names, most = column_names(words)
    cols = names + [f"v{i}" for i in range(len(names) + 1, most + 1)]
    cols = ["id"] + cols
    nulls = [n for lst in option_values(words, "--null") for n in
             lst.split(",")]
    thousands = (option_values(words, "--thousands") or [None])[0]
    decimal = (option_values(words, "--decimal") or [None])[0]
    delim = (option_values(words, "-d", "--delimiter") or [None])[0]
    blank = "-W" in words or "--whitespace" in words
    if delim in ("tab", "TAB", "\\t"):
        delim = "\t"
    if delim is None:  # a decimal comma comes with semicolons
        delim = ";" if decimal == "," else ","
    keys = {k for lst in option_values(words, "-g", "--group-by")
            for k in lst.split(",")}
    rows = [cols]
    for r in range(rng.randint(50, 300)):
        row = [f"r{r}"]
        for c in cols[1:]:
            u = rng.random()
            row.append(rng.choice(["200", "404", "GET", "POST", "alice"])
                       if c in keys else
                       rng.choice(nulls) if nulls and u < 0.05 else
                       number_text(rng, thousands, decimal))
        rows.append(row)
    sep = "  " if blank else delim

    def field(x):
        if not blank and (sep in x or '"' in x or " " in x):
            return '"' + x.replace('"', '""') + '"'
        return x

    return "".join(sep.join(field(x) for x in row) + "\n" for row in rows)


def binary_data(rng, words):
    spec = (option_values(words, "-b", "--binary") or ["f64"])[0]
    types = []
    for t in spec.split(","):
        m = re.fullmatch(r"([iuf]\d+)(?:x(\d+))?", t.strip())
        types += [m.group(1)] * int(m.group(2) or 1)
    fmt = "<" + "".join(BTYPES[t] for t in types)
    out = io.BytesIO()
    for _ in range(rng.randint(100, 1000)):
        vals = [rng.gauss(0, 100) if t[0] == "f" else
                rng.randint(0, 100) for t in types]
        out.write(struct.pack(fmt, *vals))
    return out.getvalue()


def compress(data, path):
    if path.endswith(".gz"):
        return gzip.compress(data, mtime=0)
    if path.endswith(".xz"):
        return lzma.compress(data)
    if path.endswith(".bz2"):
        return bz2.compress(data)
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-q", "-c"], input=data,
                              stdout=subprocess.PIPE, check=True).stdout
    return data


def tar_gz(data):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("data.csv")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), mtime=0)


def make_input(s, here, path, words):
    """The file path names, made for the example whose words are words."""
    rng = s.rng
    base = re.sub(r"\.(gz|zst|xz|bz2)\Z", "", path)
    if path.endswith(".state"):
        csv_path = os.path.join(here, path + ".csv")
        with open(csv_path, "w") as f:
            f.write(csv_text(rng, words))
        with open(os.path.join(here, path), "wb") as f:
            subprocess.run([s.exe, "--emit-state", csv_path], stdout=f,
                           stderr=subprocess.DEVNULL, check=True)
        os.unlink(csv_path)
        return
    if path.endswith(".tar.gz"):
        data = tar_gz(csv_text(rng, words).encode())
    elif base.endswith(".json"):
        data = compress(b'[{"a": 1, "b": 2}, {"a": 3, "b": 4}]\n', path)
    elif base.endswith(".jsonl"):
        data = compress(b'{"a": 1, "b": 2}\n{"a": 3, "b": 4}\n', path)
    elif base.endswith((".f64", ".bin")) or option_values(words, "-b",
                                                          "--binary"):
        data = compress(binary_data(rng, words), path)
    else:
        data = compress(csv_text(rng, words).encode(), path)
    with open(os.path.join(here, path), "wb") as f:
        f.write(data)


def inputs_of(words):
    """The input files the words name (not those written with >)."""
    out = []
    for i, w in enumerate(words):
        if i and words[i - 1] in (">", ">>", "2>"):
            continue
        w = w.split("=", 1)[1] if w.startswith("--") and "=" in w else w
        if INPUT.search(w) and not w.startswith("samples/"):
            out.append(w)
    return out


def prepare(s, here, words):
    for w in inputs_of(words):
        paths = [w.replace("*", x) for x in ("01", "02")] if "*" in w else [w]
        for p in paths:
            if os.path.exists(os.path.join(here, p)):
                continue
            d = os.path.dirname(p)
            if d:
                os.makedirs(os.path.join(here, d), exist_ok=True)
            make_input(s, here, p, words)


# ------------------------------------------------------------ running

def adapt(cmd):
    """The command as run here, and what was changed: an absolute input
    path made relative, mpirun held to 2 ranks (oversubscribed)."""
    notes = []
    new = re.sub(r"(?<=\s)/(\w[\w./*-]*)", r"\1", cmd)
    if new != cmd:
        notes.append("absolute paths made relative")
    m = re.search(r"\bmpirun\b(.*?)\s-n\s+(\d+)", new)
    if m:
        root = " --allow-run-as-root" if os.getuid() == 0 else ""
        new = new.replace(m.group(0), "mpirun --quiet --oversubscribe" + root
                          + m.group(1) + " -n " + str(min(2, int(m.group(2)))))
        notes.append("mpirun -n at most 2")
    return new, notes


def stage_tools(cmd):
    """The first word of every stage of the pipeline."""
    lex = shlex.shlex(cmd, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    tools, start = [], True
    for tok in lex:
        if start:
            tools.append(tok)
        start = tok in ("|", "&&", "||", ";")
    return tools


def run_example(s, ex, here, bindir):
    missing = [t for t in stage_tools(ex.cmd) if t and t != "colstat"
               and not shutil.which(t)]
    if missing:
        print(f"e2e_examples: {ex.where}: skipped (no {missing[0]}): "
              f"{ex.cmd}")
        return
    cmd, notes = adapt(ex.cmd)
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        s.check(False, f"{ex.where}: {ex.cmd!r} is a shell line")
        return
    prepare(s, here, words)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
               COLUMNS="80")
    env.pop("COLSTAT_SEED", None)
    if "mpirun" in stage_tools(cmd):
        # sanitizer builds: Open MPI's own allocations outlive MPI_Finalize
        # (as e2e_mpi says); colstat's leaks are checked elsewhere
        env["ASAN_OPTIONS"] = ":".join(
            x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=here,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=300)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    tag = f"{ex.where}: {ex.cmd}" + (f" (run as {cmd}: {', '.join(notes)})"
                                     if notes else "")
    shows_error = bool(ex.shown) and any(
        ln.startswith("colstat: ") and not re.match(
            r"colstat: (note|[^:]*:\d+: warning):", ln) for ln in ex.shown)
    fails = shows_error or re.search(r"#\s*fails", ex.cmd)
    if fails:
        s.check(p.returncode == 1, f"{tag}: exits 1 as shown",
                f"status {p.returncode}\n{err}")
    else:
        s.check(p.returncode == 0, f"{tag}: exits 0",
                f"status {p.returncode}\n{err}")
    if ex.shown:
        check_shown(s, tag, ex.shown, out, err)
    if stage_tools(cmd)[-1] == "jq":
        s.check(out.strip() and not re.search(r'(?<!")\bnull\b(?!")', out),
                f"{tag}: jq prints values, no null", out)


def lines_of(text):
    return [ln.rstrip() for ln in text.rstrip("\n").split("\n")] \
        if text.strip() else []


def check_shown(s, tag, shown, out, err):
    want_err = [ln.rstrip() for ln in shown if ln.startswith("colstat: ")]
    want_out = [ln.rstrip() for ln in shown if not ln.startswith("colstat: ")]
    s.check(lines_of(out) == want_out, f"{tag}: prints what is shown",
            "shown:\n" + "\n".join(want_out) + "\nprinted:\n" + out)
    if want_err:
        s.check(lines_of(err) == want_err, f"{tag}: says on stderr what is "
                "shown", "shown:\n" + "\n".join(want_err) + "\nsaid:\n" + err)


def all_examples(s):
    return (readme_examples(os.path.join(ROOT, "README.md")) +
            readme_examples(os.path.join(ROOT, "samples", "README.md")) +
            man_examples() + help_examples(s))


def test_examples(s):
    examples = all_examples(s)
    for where in ("README.md", "samples/README.md", "man page", "--help"):
        s.check(any(ex.where == where for ex in examples),
                f"{where} has examples found")
    bindir = s.path("bin")
    os.makedirs(bindir)
    os.symlink(s.exe, os.path.join(bindir, "colstat"))
    for n, ex in enumerate(examples):
        here = s.path(f"ex{n}")  # each in a folder of its own
        os.makedirs(here)
        os.symlink(os.path.join(ROOT, "samples"),
                   os.path.join(here, "samples"))
        run_example(s, ex, here, bindir)


def main():
    s = Suite("e2e_examples", sys.argv)
    if not shutil.which("bash"):
        print("e2e_examples: no bash: skipped")
        sys.exit(77)
    s.run_tests([test_examples])


if __name__ == "__main__":
    main()

"""The documentation's examples survive a shell: every `--null LIST` that
--help, README.md and the man page show is read as bash would read it when
pasted, and must still hold its backslash (\\N); the --help example is
run, and counts a \\N field as missing."""
import os
import re
import shlex
import subprocess
import sys

from harness import Suite

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
NULL_ARG = re.compile(r"--null (\S+)")


def man_text():
    with open(os.path.join(ROOT, "man", "colstat.1"), encoding="utf-8") as f:
        text = f.read()
    for roff, plain in (("\\(aq", "'"), ("\\(dq", '"'), ("\\e", "\\"),
                        ("\\-", "-"), ("\\&", "")):
        text = text.replace(roff, plain)
    return text


def check_examples(s, where, text):
    found = NULL_ARG.findall(text.replace("`", " "))
    s.check(found, f"{where}: shows --null examples")
    for arg in found:
        if "\\" not in arg:
            continue
        try:
            words = shlex.split(arg)
        except ValueError:
            words = []
        s.check(len(words) == 1 and "\\N" in words[0],
                f"{where}: --null {arg} keeps its backslash in a shell",
                f"the shell reads {words!r}")


def test_help_readme_man(s):
    rc, out, err = s.run(["--help"])
    check_examples(s, "--help", out.decode())
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        check_examples(s, "README.md", f.read())
    check_examples(s, "man page", man_text())


def test_help_example_runs(s):
    rc, out, err = s.run(["--help"])
    args = [a for a in NULL_ARG.findall(out.decode()) if "\\" in a]
    if not s.check(args, "--help shows --null with \\N"):
        return
    path = s.path("n.csv")
    with open(path, "w") as f:
        f.write("x\n1\n\\N\nNA\n2\n")
    # pasted into bash as --help prints it
    cmd = f"{shlex.quote(s.exe)} --json --null {args[0]} {shlex.quote(path)}"
    p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    ok = p.returncode == 0 and b'"missing": 2' in p.stdout and \
        b'"invalid": 0' in p.stdout
    s.check(ok, f"bash -c '{cmd}': \\N and NA counted missing",
            f"{p.stdout!r} {p.stderr!r}")


LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")
SHORT = re.compile(r"(?<![\w-])-[a-zA-Z](?![\w-])")


def man_options():
    """The options the man page's OPTIONS section has entries for: those
    in the tag line after each .TP."""
    lines = man_text().split("\n")
    start = lines.index(".SH OPTIONS")
    end = next(i for i in range(start + 1, len(lines))
               if lines[i].startswith(".SH "))
    tags = [re.sub(r"\\f[A-Z]", " ", lines[i + 1])
            for i in range(start, end) if lines[i] == ".TP"]
    found = set()
    for tag in tags:
        found |= set(LONG.findall(tag)) | set(SHORT.findall(tag))
    return found


def help_options(text):
    """The options --help lists: those at the start of its lines (the
    option column), short and long."""
    found = set()
    for line in text.split("\n"):
        m = re.match(r"  ( *-\S.*?)(?:   |$)", line)
        if m:
            found |= set(LONG.findall(m.group(1))) | \
                set(SHORT.findall(m.group(1)))
    return found


def test_options_documented(s):
    """Every option --help lists has its entry in the man page's OPTIONS,
    and every entry there is in --help."""
    rc, out, err = s.run(["--help"])
    helped, manned = help_options(out.decode()), man_options()
    s.check(len(helped) > 40, "--help lists the options", sorted(helped))
    s.check(not helped - manned, "every option of --help has an entry in "
            "the man page's OPTIONS", sorted(helped - manned))
    s.check(not manned - helped, "every entry of the man page's OPTIONS is "
            "in --help", sorted(manned - helped))


def main():
    s = Suite("e2e_docs", sys.argv)
    s.run_tests([test_help_readme_man, test_help_example_runs,
                 test_options_documented])


if __name__ == "__main__":
    main()

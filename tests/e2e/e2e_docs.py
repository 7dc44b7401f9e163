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


def main():
    s = Suite("e2e_docs", sys.argv)
    s.run_tests([test_help_readme_man, test_help_example_runs])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""End-to-end: CSV parsed on the GPU must give what the host parser gives.

usage: python3 tests/e2e/e2e_gpu_csv.py /path/to/colstat [--selfcheck]
                                                    (cwd = repo root)

A differential test of the device CSV path. Adversarial CSVs are generated
fresh each run (seed printed; COLSTAT_SEED replays, COLSTAT_E2E_CASE=NAME
runs only the cases whose name contains NAME, COLSTAT_E2E_JOBS=N runs N
colstat processes at a time, 8 by default), and each one runs through
`colstat --json -a` once with --device cpu (the reference: libcsv on the
host) and several times with --device gpu -v, under COLSTAT_GPU_RAW_BYTES
=64, 97, 1000, 4096, a random size and unset, so that raw segment boundaries
fall inside quoted fields, between CR and LF, inside numbers and on record
ends, and with -j 1, 2, 16 and every core in turn (the file readers and
gzip's inflating threads follow -j). Required, per GPU run:

- stdout byte-identical to the CPU run, and the same exit status;
- stderr identical once the -v lines are taken out (stage lines such as
  "colstat: read ..." and the per-input parse line below): warnings and
  error messages, line numbers included, must match;
- one line per CSV input, in order, exactly one of
      colstat: FILE: parsed on the GPU
      colstat: FILE:LINE: GPU parse stopped (REASON); the host parsed from here
  and for a *regular* input the first: RFC 4180 quoting, LF, CRLF or both
  mixed, a UTF-8 BOM or not, ragged rows, empty fields, blanks around
  fields, no blank line except at the end, every record shorter than the raw
  segment size in use, numbers that Clinger's fast path or Eisel-Lemire decide
  (no strtod fallback, except the 20-digit integers of integer columns that
  happen to need it: the device lists those for the host and goes on), no
  invalid field under --strict; gzip and stdin
  inputs included (the device sees the inflated bytes). Irregular inputs
  may go either way; how often each happened is tallied and printed.

Numbers in other formats: gen_formats writes them with a
decimal comma, thousands separators (quoted where they hold the
delimiter; hard numbers of 17 to 25 digits grouped too, which the host
rounds from the device's list with the same format) and null spellings,
run with --decimal, --thousands and --null: the device parses them
itself, a regular input on the GPU. gen_whitespace writes aligned text
for -W, which the GPU backend leaves to the host: its -v line is
      colstat: FILE: whitespace-separated (-W): parsed on the host, reduced on the gpu
and the numbers must still be the CPU's bit for bit.

Generators (each a function gen_*, mixed at random sizes): quoted fields
holding delimiters, doubled quotes and LF/CRLF; quoted and blank-padded
numbers; ragged rows; integer columns past 2^53 (up to 2^64, ties of one
double, "12.000" and "1.2e1" spellings: kept exact, CPU and GPU alike);
every number form (signs, .5, 5., exponents, inf and NaN in any case, -0, 17
to 25 digit mantissas, exact halfway points between doubles and their
neighbours, subnormals, 1e400); invalid words; --strict with and without an
invalid field; blank and blanks-only lines in the middle and at the end;
stray quotes (ab"c, "a"b, "a" b, "a" "); bare CRs; an unterminated quote at
EOF; records longer than small segments; the header line again between rows,
also after a BOM (files joined by cat: no rows, and the count said on stderr
must match). Some shapes name two columns alike, and some -c lists select a
column twice (printed once). Some inputs are gzip-compressed (one or more
members), some come on stdin, some cases name two files. Two large inputs
(about 16 MB, 250k rows; COLSTAT_TEST_QUICK: 60k) run with the default segment
size, 4096 and 1 MiB, one of them turning irregular late (a bare CR, a blank
line, a stray quote or a hard number at 60-95%).

The CPU run's JSON of inputs known exactly (and at most 5000 rows) is also
checked against the exact reference of harness.py.

Without a usable GPU the test is skipped (exit 77). --selfcheck (or
COLSTAT_GPU_CSV_SELFCHECK=1) runs no GPU, for machines without one: every
input goes through --device cpu only, its exit status must be the one the
generator expects, the statistics of every input whose content is known
exactly are checked against the exact reference of harness.py (Fractions,
cross-checked with math.fsum), and the generators' bytes are read back with
Python's csv module to prove they hold the records meant.
"""
import collections
import concurrent.futures
import csv
import difflib
import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
import time
from decimal import Decimal, localcontext
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (QUICK, STAT_FLAGS, ColRef, Suite, check_doc,  # noqa: E402
                       cmdline, parse_json)

NAME = "e2e_gpu_csv"
RAW_SIZES = [64, 97, 1000, 4096]  # plus a random one and unset, per input
STDIN_NAME = "(standard input)"
# Fields colstat reads as numbers: also ".5" and "5." (the harness's
# classifier, used by its ColRef, needs digits on both sides).
EXT_NUMBER_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def classify_ext(field):
    s = field.strip(" \t")
    if s == "":
        return "missing", None
    if harness.NAN_RE.match(s):
        return "nan", None
    if harness.INF_RE.match(s):
        return "value", -math.inf if s[0] == "-" else math.inf
    if EXT_NUMBER_RE.match(s):
        return "value", float(s)  # correctly rounded, as strtod
    return "invalid", None


harness.classify = classify_ext  # ColRef looks it up at call time


def cell_invalid(v, fmt):
    """Whether a cell's text is no number for --strict: read in the file's
    format (--decimal, --thousands, --null), as the reference reads it."""
    return classify_ext(fmt.canonical(v) if fmt else v)[0] == "invalid"

# The -v lines of the device CSV path, and the other -v lines: a stage name
# after "colstat: " (read, parse, h2d, backend ...). Every input here is an
# absolute path or "(standard input)", so no warning or error about an input
# starts with a letter there.
V_GPU = re.compile(r"colstat: (.+): parsed on the GPU\Z")
V_STOP = re.compile(r"colstat: (.+):([0-9]+): GPU parse stopped \((.*)\); "
                    r"the host parsed from here\Z")
V_STAGE = re.compile(r"colstat: (?!note: )[A-Za-z]")  # the note is no -v line
V_TENT = re.compile(r"colstat: [0-9]+ columns? tentative: ")  # -v, too
V_GZIP = re.compile(r"colstat: (.+): gzip: .* inflating, ")  # -v, host side
V_WS = re.compile(r"colstat: (.+): whitespace-separated \(-W\): parsed on the "
                  r"host, reduced on the gpu\Z")

# ------------------------------------------------------------------ numbers


def sign(rng):
    return rng.choice(["", "", "", "-", "+"])


def easy_number(rng, kind):
    """A number every parse path decides without strtod: Clinger's fast
    path (at most 15 digits, |q| <= 22) or a double's shortest repr."""
    r = rng.random()
    if kind == "int":
        d = str(rng.randint(0, 10 ** rng.randint(1, 15)))
        if r < 0.05:
            return sign(rng) + d[:6] + rng.choice("eE") + str(rng.randint(0, 9))
        return sign(rng) + d
    if r < 0.35:
        a, b = rng.randint(0, 6), rng.randint(1, 8)
        return "%s%d.%0*d" % (sign(rng), rng.randint(0, 10 ** a), b,
                              rng.randint(0, 10 ** b - 1))
    if r < 0.45:
        return rng.choice([
            "%s.%d" % (sign(rng), rng.randint(0, 999999)),
            "%s%d." % (sign(rng), rng.randint(0, 99999)),
            "%s%d.e%d" % (sign(rng), rng.randint(0, 999), rng.randint(-5, 5)),
            "%s.%de-%d" % (sign(rng), rng.randint(0, 99), rng.randint(0, 9))])
    if r < 0.65:
        return "%s%d.%02d%s%s%d" % (sign(rng), rng.randint(0, 999), rng.randint(0, 99),
                                    rng.choice("eE"), rng.choice(["", "+", "-"]),
                                    rng.randint(0, 20))
    if r < 0.9:
        return sign(rng) + repr(rng.uniform(0, 10.0 ** rng.randint(-5, 9)))
    return sign(rng) + str(rng.randint(0, 10 ** 9))


def int64_number(rng):
    """An integer where doubles are coarse (past 2^53, up to 2^64 in
    magnitude, ties of one double) in a spelling colstat takes as an integer
    ("12", "12.000", "1.2e1"): an integer column that only exact integers
    get right; 20-digit ones may be hard numbers."""
    r = rng.random()
    if r < 0.3:
        v = (1 << 53) + rng.randint(-5, 5)
    elif r < 0.5:
        v = (1 << 60) + rng.randint(-600, 600)
    elif r < 0.6:
        v = rng.choice([1 << 64, (1 << 64) - 1, 1 << 63, (1 << 63) - 1,
                        (1 << 64) - 1024, 1735704000123456789])
    else:
        v = rng.randint(0, 1 << 64) >> rng.randint(0, 12)
    t = str(v)
    x = rng.random()
    if x < 0.05:
        t += ".000"
    elif x < 0.08 and len(t) > 3:
        t = t[:-2] + "." + t[-2:] + "e2"
    return sign(rng) + t


SPECIALS = ["inf", "-inf", "+inf", "Inf", "INF", "Infinity", "-Infinity",
            "+INFINITY", "iNfInItY", "nan", "NaN", "-nan", "+NAN", "nAn",
            "-0", "+0", "-0.0", "0", "0e0", "-0e-5"]


def exact_decimal(f):
    """The exact decimal expansion of a Fraction whose denominator is a
    power of two, in scientific notation."""
    with localcontext() as ctx:
        ctx.prec = 2000
        d = Decimal(f.numerator) / Decimal(f.denominator)
    return format(d.normalize(), "e")


# Hard numbers longer than this the device does not list: it stops.
HARD_TEXT = 248


def hard_reason(t):
    return "hard number" if len(t) <= HARD_TEXT else "long hard number"


def hard_number(rng):
    """Numbers a device parser may hand back to the host: long mantissas,
    exact halfway points between doubles and their neighbours, subnormals,
    overflow, integers past 2^53."""
    r = rng.random()
    if r < 0.2:  # 17 to 25 significant digits
        n = rng.randint(17, 25)
        d = str(rng.randint(10 ** (n - 1), 10 ** n - 1))
        k = rng.randint(0, n)
        t = d[:k] + "." + d[k:] if k < n else d
        if rng.random() < 0.4:
            t += "e%d" % rng.randint(-30, 30)
        return sign(rng) + t
    if r < 0.45:  # halfway between two doubles, exactly or nearly
        mag = rng.choice([rng.uniform(1, 2), rng.uniform(1, 1e6),
                          float(rng.randint(2 ** 53, 2 ** 60)),
                          rng.uniform(1e-20, 1e-5), rng.uniform(1e20, 1e25)])
        x = mag
        y = math.nextafter(x, math.inf)
        h = exact_decimal((Fraction(x) + Fraction(y)) / 2)
        m, e = h.split("e")
        v = rng.random()
        if v < 0.25 and len(m.replace(".", "").lstrip("-")) > 2:
            m = m[:-1]  # just below (or above, for the digit cut) the tie
        elif v < 0.5:
            m += ("" if "." in m else ".") + "0" * rng.randint(0, 20) + "1"
        return sign(rng) + m + "e" + e
    if r < 0.6:  # subnormals and the normal boundary
        return sign(rng) + rng.choice([
            repr(math.ldexp(rng.random(), -1022 - rng.randint(0, 52))),
            "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "2.2250738585072011e-308",
            "2.2250738585072012e-308", "2.2250738585072014e-308", "5e-324",
            "1e-400", "0.000000000000000000000000000000000000000000000001e-300"])
    if r < 0.75:  # the top of the range and past it
        return sign(rng) + rng.choice([
            "1e400", "1E400", "1.7976931348623157e308", "1.7976931348623158e308",
            "1.7976931348623159e308", "17976931348623158079e288", "9e999999999",
            "1e308", "0.1e309"])
    if r < 0.9:  # integers past 2^53, some exact ties
        return sign(rng) + rng.choice([
            str(rng.randint(2 ** 53, 2 ** 64)), "9007199254740993",
            "9007199254740995", "18446744073709551615", "18446744073709551617",
            str(rng.randint(10 ** 19, 10 ** 22))])
    return sign(rng) + format(Decimal(rng.uniform(0, 1e3)), "f")  # exact expansion


INVALID = ["NA", "N/A", "x", "abc", "1,000", "1.2.3", "--5", "1e", "0x1A",
           "1 2", "$4", "#", "-", "twelve", "nan1", "infx", "e5", ".", "1_000",
           "1d5", "+.", "1e+"]
WORDS = ["alpha", "beta", "gamma", "delta", "north", "south", "red", "green",
         "blue", "x-ray", "zulu", "ok", "fail", "n/a", "TBD", "caf\u00e9", "\u00fcber"]
NAMES = ["temp", "price", "qty", "load", "id", "score", "lat", "lon"]

# ------------------------------------------------------------- CSV documents


def quote(s):
    return '"' + s.replace('"', '""') + '"'


class Col:
    def __init__(self, rng, kind, index):
        self.kind = kind  # int, int64 (exact past 2^53), dec, zoo (hard
        # numbers too), text
        self.name = "%s_%d" % (rng.choice(NAMES), index)
        self.p_missing = rng.choice([0, 0, 0.02, 0.2])
        self.p_invalid = 0.0
        self.p_quote = rng.choice([0, 0.1, 0.5, 1.0])
        self.p_blank = rng.choice([0, 0, 0.1, 0.3])
        self.p_special = rng.choice([0, 0, 0.01, 0.05])
        self.p_hard = rng.choice([0.05, 0.2, 0.5]) if kind == "zoo" else 0.0


class Shape:
    """What two files of one case share: dialect and columns."""

    def __init__(self, rng, kinds=None, ncols=None):
        self.delim = rng.choice([",", ",", ";", "\t", "|"])
        self.ncols = ncols or rng.choice([1, 2, 3, 3, 4, 5, 7])
        kinds = kinds or ["int", "int64", "dec", "dec", "text"]
        if self.ncols == 1:
            kinds = [k for k in kinds if k != "text"] or ["dec"]
        self.cols = [Col(rng, rng.choice(kinds), i + 1) for i in range(self.ncols)]
        if all(c.kind == "text" for c in self.cols):
            self.cols[0] = Col(rng, "dec", 1)
        self.header = rng.random() < 0.75
        self.nl = rng.choice(["\n", "\n", "\r\n", "mixed"])
        self.bom = rng.random() < 0.2
        self.odd_names = rng.random() < 0.15  # quoted names with delimiters
        self.fmt = None  # harness.NumFormat: --decimal, --thousands, --null
        self.ws = False  # -W text
        # two columns of one name: kept apart by index
        self.dup_name = self.ncols > 1 and rng.random() < 0.15

    def numeric(self):
        return [i + 1 for i, c in enumerate(self.cols) if c.kind != "text"]

    def header_names(self, rng):
        """The logical column names, drawn once: every file of a case
        carries the same header."""
        if getattr(self, "names", None) is None:
            self.names = []
            for c in self.cols:
                name = c.name
                if self.odd_names and rng.random() < 0.5:
                    name = rng.choice(["%s%s unit" % (c.name, self.delim),
                                       '%s "q"' % c.name, "%s (\u00b5s)" % c.name])
                self.names.append(name)
            if self.dup_name:
                self.names[-1] = self.names[0]
        return self.names

    def blank(self, rng):
        """Spaces, or tabs too where TAB is not the delimiter."""
        return rng.choice([" ", "  "] + (["\t", " \t"] if self.delim != "\t" else []))


class Doc:
    """One CSV input: bytes, the logical records, and what makes it
    irregular for the device parser.

    features: name -> set of 0-based data rows where it applies (or True).
    rows: the data records as colstat sees them (fields unquoted, blank
    lines dropped), known exactly when verify is true."""

    def __init__(self, rng, shape, nrows, features):
        self.rng, self.shape, self.nrows, self.f = rng, shape, nrows, features
        self.reasons = set()  # why the device may stop; empty: regular
        self.status = 0  # the exit status wanted; None: 0 or 1
        self.verify = True
        self.lines = []  # (text, is_record)
        self.rows = []
        self.names = None
        self.invalid_in = set()  # numeric columns (1-based) holding invalids
        self.nrepeats = 0  # repeated header lines
        self.build()

    # -- pieces

    def nl(self):
        s = self.shape
        return self.rng.choice(["\n", "\r\n"]) if s.nl == "mixed" else s.nl

    def at(self, feature, r):
        v = self.f.get(feature)
        return v is True or (v is not None and r in v)

    def numeric_cell(self, col, r):
        rng, s = self.rng, self.shape
        if r == 0 and not self.at("force_invalid", r):
            t = easy_number(rng, "int" if col.kind in ("int", "int64") else "dec")
            if s.fmt:  # a plain number first: detection is clear
                t = harness.written(rng, t, s.fmt.decimal, s.fmt.thousands)
                return (quote(t) if s.delim in t else t), t
            return t, t
        if self.at("force_invalid", r):
            w = rng.choice(INVALID)
            return (quote(w) if ("," in w or s.delim in w or rng.random() < 0.3) else w), w
        x = rng.random()
        if x < col.p_missing:
            raw = rng.choice(["", "", '""', " ", '" "'])
            if s.ncols == 1 and raw.strip() == "":
                raw = '""'  # a lone blank would be a blank line
            return raw, raw.strip('"')
        x -= col.p_missing
        if x < col.p_invalid:
            w = rng.choice(INVALID)
            if "," in w or s.delim in w or " " in w or rng.random() < 0.3:
                return quote(w), w
            return w, w
        if rng.random() < col.p_hard:
            t = hard_number(rng)
            self.reasons.add(hard_reason(t))
        elif rng.random() < col.p_special:
            t = rng.choice(SPECIALS)
        elif col.kind == "int64":
            t = int64_number(rng)
        else:
            t = easy_number(rng, "int" if col.kind == "int" else "dec")
        if s.fmt:
            t = self.formatted(t)
        if rng.random() < col.p_blank:
            t = s.blank(rng) + t + rng.choice(["", s.blank(rng)])
        if rng.random() < col.p_quote or (s.fmt and s.delim in t):
            return quote(t), t
        return t, t

    def formatted(self, t):
        """t in the shape's format; now and then a null spelling."""
        rng, f = self.rng, self.shape.fmt
        if f.nulls and rng.random() < 0.05:
            return rng.choice(sorted(f.nulls))
        return harness.written(rng, t, f.decimal, f.thousands)

    def text_cell(self, r):
        rng, d = self.rng, self.shape.delim
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
        if self.at("long", r):
            parts = []
            n = rng.choice([100, 300, 1000, 3000, 6000]) + rng.randint(0, 99)
            while sum(map(len, parts)) < n:
                parts.append(rng.choice(WORDS + [d, '"', "\n", "\r\n", " ", "''"]))
            t = "".join(parts)
            return quote(t), t
        x = rng.random()
        if x < 0.05:
            return "", ""
        if x < 0.1:
            return '""', ""
        if x < 0.25:
            t = words + d + " " + rng.choice(WORDS)
        elif x < 0.35:
            t = 'say "%s"' % words
        elif x < 0.45:
            t = words + rng.choice(["\n", "\r\n"]) + rng.choice(WORDS)
        elif x < 0.55:
            t = words
        else:
            t = words.replace(" ", "_")
            return t, t
        return quote(t), t

    def stray_cell(self, col, r):
        """A quote outside RFC 4180 places; its value is not predicted."""
        rng = self.rng
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        if col.kind == "text":
            return a + '"' + b
        # the last: a quote after the closing quote and blanks (a lax step
        # of the grammar that, unlike text there, ends with the field)
        return rng.choice(['1"2', ' "%s"' % easy_number(rng, "dec"),
                           '"%s" ' % easy_number(rng, "dec"), a + '"' + b,
                           '"%s" "' % easy_number(rng, "dec")])

    def header_cells(self):
        names = self.shape.header_names(self.rng)
        raws = [quote(n) if n != self.shape.cols[i].name or self.rng.random() < 0.1
                else n for i, n in enumerate(names)]
        return raws, names

    def add(self, text, record=True):
        self.lines.append((text, record))

    # -- the document

    def build(self):
        rng, s, f = self.rng, self.shape, self.f
        if s.header:
            raws, self.names = self.header_cells()
            self.header_text = s.delim.join(raws)
            self.add(self.header_text + self.nl())
        if "blank_first" in f:  # a blank line before everything
            self.lines.insert(0, (self.nl(), False))
            self.reasons.add("blank line")
            self.verify = False
        for r in range(self.nrows):
            raws, vals = [], []
            for i, c in enumerate(s.cols):
                if self.at("stray_quote", r) and i == r % s.ncols:
                    raws.append(self.stray_cell(c, r))
                    vals.append(None)
                    self.reasons.add("stray quote")
                    self.verify = False
                elif self.at("quote_then_text", r) and i == r % s.ncols:
                    # text after the closing quote, or after it and blanks
                    raws.append('"%s"%s%s' % (rng.choice(["1", "ab"]), rng.choice(["", " "]),
                                              rng.choice(["2", "cd"])))
                    vals.append(None)
                    self.reasons.add("stray quote")
                    self.status, self.verify = None, False
                elif c.kind == "text":
                    raw, v = self.text_cell(r)
                    if self.at("bare_cr", r) and rng.random() < 0.3:
                        v += "\r" + rng.choice(WORDS)
                        raw = quote(v)
                    raws.append(raw)
                    vals.append(v)
                else:
                    if self.at("hard", r) and i == s.numeric()[0] - 1:
                        t = hard_number(rng)
                        self.reasons.add(hard_reason(t))
                        raw, v = t, t
                    else:
                        raw, v = self.numeric_cell(c, r)
                    raws.append(raw)
                    vals.append(v)
            if self.at("ragged", r) and r > 0:
                if rng.random() < 0.5 and s.ncols > 1:
                    k = rng.randint(1, s.ncols - 1)
                    raws, vals = raws[:k], vals[:k]
                else:
                    extra = [rng.choice(["9", "extra", "", quote("q" + s.delim + "x")])
                             for _ in range(rng.randint(1, 2))]
                    raws += extra
                    vals += [e.strip('"') for e in extra]
            if len(raws) == 1 and raws[0].strip(" \t") == "":
                raws, vals = ['""'], [""]  # not a blank line
            for i, v in enumerate(vals[:s.ncols]):
                if s.cols[i].kind != "text" and v is not None \
                        and cell_invalid(v, s.fmt):
                    self.invalid_in.add(i + 1)
            if self.at("blank_mid", r) and r > 0:
                for _ in range(rng.randint(1, 2)):
                    self.add(self.nl(), False)
                self.reasons.add("blank line")
            if self.at("blanks_only", r) and r > 0:
                self.add(s.blank(rng) + self.nl(), False)
                self.reasons.add("blank line")
            after_cr = self.lines and self.lines[-1][0].endswith("\r")
            if self.at("repeat", r) and s.header and r > 0 and not after_cr:
                # (after a bare CR it is no line of its own: a record)
                # the header line again (files joined by cat): no row
                bom = "\ufeff" if rng.random() < 0.2 else ""
                self.add(bom + self.header_text + self.nl(), False)
                self.nrepeats += 1
            end = self.nl()
            if self.at("bare_cr", r):
                end = "\r"
                self.reasons.add("bare CR")
            self.add(s.delim.join(raws) + end)
            self.rows.append(vals)
        if "unterminated" in f:
            raws = [easy_number(rng, "dec") for _ in range(s.ncols)]
            raws[-1] = '"' + rng.choice(WORDS) + rng.choice(["", "\n", "\r\n" + s.delim])
            raws[-1] += rng.choice(["", rng.choice(WORDS), easy_number(rng, "int")])
            self.add(s.delim.join(raws), True)
            self.reasons.add("unterminated quote")
            self.status = 1
            self.verify = False
        elif self.lines and (rng.random() < 0.2 or "no_final_newline" in f):
            text, rec = self.lines[-1]
            stripped = text.rstrip("\r\n")
            if rec and stripped and not stripped.endswith((" ", "\t")):
                self.lines[-1] = (stripped, rec)
        if "blank_end" in f and self.status != 1:
            if not self.lines or not self.lines[-1][0].endswith(("\n", "\r")):
                self.add(self.nl(), False)  # ends the last record
            for _ in range(rng.randint(1, 3)):
                if rng.random() < 0.3:
                    self.add(s.blank(rng) + self.nl(), False)
                    self.reasons.add("blank line")  # blanks-only: not plainly blank
                else:
                    self.add(self.nl(), False)

    def data(self):
        text = "".join(t for t, _ in self.lines).encode("utf-8")
        return (b"\xef\xbb\xbf" if self.shape.bom else b"") + text

    def max_record(self):
        """The longest record in bytes, line end and BOM included."""
        if getattr(self, "_max", None) is None:
            self._max = 0
            for i, (t, rec) in enumerate(self.lines):
                n = len(t.encode("utf-8")) + (3 if i == 0 and self.shape.bom else 0)
                self._max = max(self._max, n)
        return self._max

    def expect_gpu(self, raw):
        # The device moves rows up past blank lines, and lists hard numbers
        # for the host: neither stops it.
        stops = self.reasons - {"blank line", "hard number"}
        return not stops and (raw is None or self.max_record() < raw)

    def fields(self, header_names):
        """Per column, the data fields padded or cut to the width of the
        first record (from the first file when several)."""
        width = len(header_names)
        return [[(r[i] if i < len(r) else "") for r in self.rows] for i in range(width)]


# --------------------------------------------------------------- generators


def some_rows(rng, nrows, k, first=1):
    pool = range(first, nrows)
    return set(rng.sample(pool, min(k, len(pool)))) if len(pool) > 0 else set()


def gen_plain(rng, n, shape):
    """Regular: numbers (quoted, padded, empty, inf/nan) and text."""
    return Doc(rng, shape, n, {})


def gen_quoted(rng, n, shape):
    """Regular: text columns full of quoted delimiters, doubled quotes and
    newlines; quoted numbers."""
    for c in shape.cols:
        c.p_quote = max(c.p_quote, 0.5)
    if all(c.kind != "text" for c in shape.cols) and shape.ncols > 1:
        shape.cols[-1].kind = "text"
    return Doc(rng, shape, n, {})


def gen_ragged(rng, n, shape):
    """Regular: rows with fewer fields (missing) and more (ignored)."""
    return Doc(rng, shape, n, {"ragged": some_rows(rng, n, max(1, n // 8))})


def gen_number_zoo(rng, n, shape):
    """Every number form, hard ones included."""
    for c in shape.cols:
        if c.kind != "text":
            c.kind, c.p_hard = "zoo", rng.choice([0.05, 0.2, 0.5])
            c.p_special = 0.1
    return Doc(rng, shape, n, {})


def gen_invalid(rng, n, shape):
    """Invalid words in numeric columns (warnings must match)."""
    for c in shape.cols:
        c.p_invalid = rng.choice([0.01, 0.05, 0.1])
    return Doc(rng, shape, n, {"force_invalid": some_rows(rng, n, 1)})


def gen_strict_ok(rng, n, shape):
    """Regular: --strict with no invalid field."""
    d = Doc(rng, shape, n, {})
    d.strict = True
    return d


def gen_strict_bad(rng, n, shape):
    """--strict and an invalid field: the error must match."""
    for c in shape.cols:
        c.p_invalid = rng.choice([0, 0.01, 0.1])
    d = Doc(rng, shape, n, {"force_invalid": some_rows(rng, n, 1, first=0)})
    d.strict = True
    return d


def gen_blank_lines(rng, n, shape):
    """Blank and blanks-only lines in the middle and at the end."""
    f = {"blank_mid": some_rows(rng, n, rng.randint(1, 3)),
         "blanks_only": some_rows(rng, n, rng.randint(0, 2))}
    if rng.random() < 0.5:
        f["blank_end"] = True
    if rng.random() < 0.1:
        f["blank_first"] = True
    return Doc(rng, shape, n, f)


def gen_blank_end(rng, n, shape):
    """Regular unless blanks-only: blank lines at the end only."""
    return Doc(rng, shape, n, {"blank_end": True})


def gen_stray_quotes(rng, n, shape):
    """ab"c, 1"2, ' "4"', '"4" ': quotes where RFC 4180 has none."""
    return Doc(rng, shape, n, {"stray_quote": some_rows(rng, n, rng.randint(1, 3))})


def gen_quote_then_text(rng, n, shape):
    """"a"b: text after a closing quote (libcsv may read on to EOF)."""
    return Doc(rng, shape, n, {"quote_then_text": some_rows(rng, n, 1)})


def gen_bare_cr(rng, n, shape):
    """Records ended by a CR alone; CRs alone inside quoted fields."""
    return Doc(rng, shape, n, {"bare_cr": some_rows(rng, n, rng.randint(1, 4), first=0)})


def gen_unterminated(rng, n, shape):
    """A quoted field open at EOF: exit status 1, the same message."""
    return Doc(rng, shape, n, {"unterminated": True})


def gen_long_records(rng, n, shape):
    """Quoted fields of 100 to 6000 bytes: longer than small segments."""
    if all(c.kind != "text" for c in shape.cols):
        shape.cols.append(Col(rng, "text", shape.ncols + 1))
        shape.ncols += 1
    return Doc(rng, shape, n, {"long": some_rows(rng, n, max(1, n // 10), first=0)})


def gen_repeat_headers(rng, n, shape):
    """Regular: the header line again between rows, also after a BOM or
    with another line end (files joined by cat or zcat), no rows."""
    shape.header = True
    return Doc(rng, shape, n, {"repeat": some_rows(rng, n, rng.randint(1, 5))})


def gen_kitchen_sink(rng, n, shape):
    """Several of the above at once."""
    f = {}
    for k in rng.sample(["ragged", "blank_mid", "stray_quote", "bare_cr", "long",
                         "hard", "blank_end", "repeat"], rng.randint(2, 4)):
        f[k] = True if k == "blank_end" else some_rows(rng, n, rng.randint(1, 3))
    if rng.random() < 0.3:
        for c in shape.cols:
            c.p_invalid = 0.05
    return Doc(rng, shape, n, f)


NULL_WORDS = ["NA", "N/A", "null", "-", "\\N", "-999", "n/a"]


def gen_formats(rng, n, shape):
    """Regular: numbers with thousands separators and a decimal comma (or
    another), hard numbers grouped too, null spellings (--null,
    --thousands, --decimal)."""
    if shape.fmt is None:
        dec = rng.choice([".", ",", ","])
        th = rng.choice([c for c in [None, ",", ".", "'", " ", "_"] if c != dec])
        shape.fmt = harness.NumFormat(dec, th, rng.sample(NULL_WORDS, rng.randint(0, 3)))
    for c in shape.cols:
        if c.kind == "zoo" or (c.kind == "dec" and rng.random() < 0.3):
            c.kind, c.p_hard = "zoo", rng.choice([0.02, 0.1])
    return Doc(rng, shape, n, {})


class WsDoc(Doc):
    """Whitespace-separated text (-W): runs of spaces and tabs between
    fields, blanks at either end, blank lines, ragged rows; no quoting."""

    def build(self):
        rng, s = self.rng, self.shape
        w = [rng.randint(3, 12) for _ in s.cols]

        def line(cells):
            out = rng.choice(["", " ", "  ", "\t"])
            for k, cell in enumerate(cells):
                if k:
                    out += " " * max(1, w[k % s.ncols] - len(cell)) \
                        if rng.random() < 0.8 else rng.choice(["\t", " \t "])
                out += cell
            return out + rng.choice(["", " ", "\t"]) + self.nl()

        if s.header:
            self.names = s.names = [c.name for c in s.cols]
            self.add(line(self.names))
        for r in range(self.nrows):
            if r and rng.random() < 0.03:
                self.add(rng.choice(["", " ", "\t "]) + self.nl(), False)
                self.reasons.add("blank line")
            k = s.ncols if r == 0 or rng.random() < 0.9 else rng.randint(1, s.ncols + 1)
            vals = []
            for i in range(k):
                c = s.cols[i % s.ncols]
                t = easy_number(rng, "int" if c.kind in ("int", "int64") else "dec")
                if r and rng.random() < 0.02:
                    t = rng.choice(["abc", "n/a", "1e"])
                vals.append(t)
            self.add(line(vals))
            self.rows.append(vals[:s.ncols])


def gen_whitespace(rng, n, shape):
    """-W: the host parses it for the GPU, which reduces the values."""
    shape.ws = True
    for c in shape.cols:
        c.kind = rng.choice(["int", "dec"])
    return WsDoc(rng, shape, n, {})


GENERATORS = [gen_plain, gen_quoted, gen_ragged, gen_number_zoo, gen_invalid,
              gen_strict_ok, gen_strict_bad, gen_blank_lines, gen_blank_end,
              gen_stray_quotes, gen_quote_then_text, gen_bare_cr,
              gen_unterminated, gen_long_records, gen_repeat_headers,
              gen_kitchen_sink, gen_formats, gen_whitespace]


class LargeDoc(Doc):
    """A Doc built fast: each column's fields drawn from a pool of a few
    thousand made by the same cell functions (repeated values also test
    that min and max keep the first row across segments)."""

    POOL = 3000

    def build(self):
        rng, s, n = self.rng, self.shape, self.nrows
        if s.header:
            raws, self.names = self.header_cells()
            self.add(s.delim.join(raws) + self.nl())
        picks = []
        for c in s.cols:
            pool = [self.text_cell(1) if c.kind == "text" else self.numeric_cell(c, 1)
                    for _ in range(self.POOL)]
            first = self.numeric_cell(c, 0) if c.kind != "text" else pool[0]
            picks.append([first] + rng.choices(pool, k=max(0, n - 1)))
            # the cells written, not the pool: a pool's invalid value may
            # never be picked
            if c.kind != "text" and any(cell_invalid(v, s.fmt)
                                        for _, v in picks[-1]):
                self.invalid_in.add(len(picks))
        ends = rng.choices(["\n", "\r\n"], k=n) if s.nl == "mixed" else [s.nl] * n
        rows = list(zip(*picks))
        kind, at = next(iter(self.f.items())) if self.f else (None, None)
        for r, cells in enumerate(rows):
            raws = [c[0] for c in cells]
            vals = [c[1] for c in cells]
            end = ends[r]
            if r == at:
                if kind == "bare_cr":
                    end = "\r"
                    self.reasons.add("bare CR")
                elif kind == "blank_mid":
                    self.add(self.nl(), False)
                    self.reasons.add("blank line")
                elif kind == "stray_quote":
                    raws[0], vals[0] = self.stray_cell(s.cols[0], r), None
                    self.reasons.add("stray quote")
                    self.verify = False
                else:
                    i = s.numeric()[0] - 1
                    raws[i] = vals[i] = hard_number(rng)
                    self.reasons.add(hard_reason(raws[i]))
            self.add(s.delim.join(raws) + end)
            self.rows.append(vals)


def gen_large(rng, n, late):
    """A big regular input (several MB: many default-size segments); with
    late, one irregular thing at 60-95% of it, so the device parses segments
    and then hands over to the host."""
    shape = Shape(rng, kinds=["int", "int64", "dec", "dec", "text"], ncols=6)
    shape.bom, shape.odd_names = False, False
    for c in shape.cols:
        c.p_quote, c.p_blank = rng.choice([0, 0.05]), rng.choice([0, 0.05])
    f = {}
    if late:
        kind = rng.choice(["bare_cr", "blank_mid", "stray_quote", "hard"])
        f[kind] = rng.randint(int(n * 0.6), int(n * 0.95))
    return LargeDoc(rng, shape, n, f)


# -------------------------------------------------------------------- cases


class Input:
    def __init__(self, doc, path, via):
        self.doc, self.path, self.via = doc, path, via  # via: file, gzip, stdin
        self.arg = "-" if via.startswith("stdin") else path
        self.display = STDIN_NAME if via.startswith("stdin") else path


class Case:
    """One command line: its inputs, options, and the exit status wanted
    (None: not predicted; the GPU run must still match the CPU's)."""

    def __init__(self, name, gens, inputs, args, stdin, selected, hist, raws, crows):
        self.name, self.gens, self.inputs, self.args = name, gens, inputs, args
        self.stdin, self.selected, self.hist = stdin, selected, hist
        self.shape = inputs[0].doc.shape
        self.raws = raws  # COLSTAT_GPU_RAW_BYTES per GPU run (None: unset)
        self.crows = crows  # COLSTAT_GPU_BATCH_ROWS per GPU run (None: unset)
        if "--strict" in args:
            for i in inputs:
                if not i.doc.verify and i.doc.status == 0:
                    i.doc.status = None  # stray quotes: the fields are not known
                if i.doc.invalid_in & set(selected):
                    i.doc.reasons.add("invalid field with --strict")
                    if i.doc.status == 0:
                        i.doc.status = 1
        st = [i.doc.status for i in inputs]
        self.status = None if None in st else max(st)
        if selected is None and not any(i.doc.rows for i in inputs) \
                and self.status == 0:
            # The default columns of no data: "no column holds numbers",
            # an error, not an empty table.
            self.status = 1
        if selected is not None and not self.shape.header and not inputs[0].doc.rows:
            # No first record, so no columns: colstat answers an empty file
            # with no columns, a BOM or blank lines alone with a usage
            # error (-c past the last column, status 2).
            self.status = None
        self.verify = all(i.doc.verify for i in inputs) and self.status == 0


def gzip_members(rng, data):
    """data as one to three gzip members."""
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randint(0, 2)))
    return b"".join(gzip.compress(data[a:b], compresslevel=rng.choice([1, 6, 9]))
                    for a, b in zip([0] + cuts, cuts + [len(data)]))


def make_case(suite, rng, name, gens, nrows, shape=None, large=False):
    """Generates and writes the inputs of one case; picks its options."""
    shape = shape or Shape(rng)
    docs = []
    for g, n in zip(gens, nrows):
        d = g(rng, n, shape)
        d.gen = g.__name__
        docs.append(d)
    shape = docs[0].shape
    strict = any(getattr(d, "strict", False) for d in docs)
    inputs, stdin = [], None
    for k, d in enumerate(docs):
        data = d.data()
        via = "file"
        if not large:
            v = rng.random()
            if v < 0.15:
                via = "gzip"
            elif v < 0.25 and stdin is None:
                via = "stdin-gzip" if rng.random() < 0.3 else "stdin"
        path = suite.path("%s-%d.csv" % (name, k + 1) + (".gz" if "gzip" in via else ""))
        if "gzip" in via:
            data = gzip_members(rng, data)
        with open(path, "wb") as fh:
            fh.write(data)
        if via.startswith("stdin"):
            stdin = data
        inputs.append(Input(d, path, via))
    # every statistic -a asks for, without the text columns -a also takes
    # (those the host answers: the GPU would not parse)
    args = ["--json", "--count", "--sum", "--mean", "--std", "--min",
            "--max", "--median", "--hist", "--no-progress"]
    blank_first = any("blank_first" in d.f for d in docs)
    if shape.fmt:
        args += shape.fmt.args()
    if shape.ws:
        args.append("-W")
    elif rng.random() < 0.5 or (shape.ncols == 1 and shape.delim != ",") or \
            blank_first or shape.fmt:
        args += ["-d", shape.delim]
    if rng.random() < 0.6 or min(nrows) < 2 or strict or blank_first:
        args.append("--header" if shape.header else "--no-header")
    selected = None
    if strict or rng.random() < 0.15:
        selected = shape.numeric()
        if rng.random() < 0.3 and len(selected) > 1:
            selected = sorted(rng.sample(selected, rng.randint(1, len(selected))))
        simple = shape.header and not shape.odd_names and not shape.dup_name
        spelled = [shape.cols[i - 1].name if simple and rng.random() < 0.3 else str(i)
                   for i in selected]
        if selected == list(range(1, shape.ncols + 1)) and shape.ncols > 1 \
                and rng.random() < 0.5:
            spelled = ["1-%d" % shape.ncols]
        if rng.random() < 0.3:  # selected again: printed once
            spelled.append(rng.choice(spelled))
        args += ["-c", ",".join(spelled)]
    if strict:
        args.append("--strict")
    hist = (256, None)
    if rng.random() < 0.25:
        lo = rng.uniform(-1e3, 10)
        hi = lo + rng.choice([1.0, 100.0, 1e4])
        args.append("--range=%r:%r" % (lo, hi))
        hist = (256, (lo, hi))
    if rng.random() < 0.2:
        nb = rng.choice([1, 3, 1000])
        args += ["--bins", str(nb)]
        hist = (nb, hist[1])
    if large:  # thousands of raw segments at most: each is a round trip
        raws = [None, 4096, 1 << 20]
        crows = [None, rng.choice([None, 65536]), None]
    else:
        raws = RAW_SIZES + [rng.randint(65, 3000), None]
        crows = [rng.choice([None, None, None, 16, 1000]) for _ in raws]
    return Case(name, "+".join(g.__name__ for g in gens), inputs, args, stdin,
                selected, hist, raws, crows)


# Second files of a case: generators that leave the shared columns alone.
SECOND_GENS = [gen_plain, gen_ragged, gen_blank_end, gen_invalid, gen_blank_lines,
               gen_bare_cr, gen_stray_quotes, gen_strict_ok]


def plan(suite, rng):
    """Every generator several times at random sizes, some cases with a
    second file; then the two large inputs."""
    cases = []
    reps = 2 if QUICK else 4
    small = [0, 1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 3000]
    weights = [2, 3, 3, 2, 3, 4, 4, 4, 3, 2, 2, 2, 1]
    k = 0
    for _ in range(reps):
        for g in GENERATORS:
            n = rng.choices(small, weights)[0]
            if g in (gen_unterminated, gen_quote_then_text, gen_stray_quotes,
                     gen_bare_cr, gen_invalid, gen_strict_bad) and n < 4:
                n = rng.randint(4, 30)  # room for the feature and clear detection
            gens, ns = [g], [n]
            if rng.random() < 0.15 and g is not gen_whitespace:  # two files
                gens.append(rng.choice(SECOND_GENS))
                ns.append(rng.choices(small, weights)[0])
            cases.append(make_case(suite, rng, "c%02d-%s" % (k, g.__name__[4:]), gens, ns))
            k += 1
    big = 60000 if QUICK else 250000
    for late in (False, True):
        def gen_large_input(r, n, s, late=late):
            return gen_large(r, n, late)
        gen_large_input.__name__ = "gen_large" + ("_late" if late else "")
        cases.append(make_case(suite, rng, "c%02d-large%s" % (k, "-late" if late else ""),
                               [gen_large_input], [big], large=True))
        k += 1
    return cases


# -------------------------------------------------------------------- runs


def base_env():
    env = dict(os.environ)
    env.pop("COLSTAT_GPU_RAW_BYTES", None)
    env.pop("COLSTAT_GPU_BATCH_ROWS", None)
    return env


def env_for(raw, crows):
    env = base_env()
    if raw is not None:
        env["COLSTAT_GPU_RAW_BYTES"] = str(raw)
    if crows is not None:
        env["COLSTAT_GPU_BATCH_ROWS"] = str(crows)
    return env


def env_text(raw, crows):
    return "COLSTAT_GPU_RAW_BYTES=%s COLSTAT_GPU_BATCH_ROWS=%s" % (
        "unset" if raw is None else raw, "unset" if crows is None else crows)


def run_one(exe, argv, stdin, env):
    p = subprocess.run([exe] + argv, input=stdin if stdin is not None else b"",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


# -j of a case's GPU runs in turn, from a random first: the file readers
# and gzip's inflating threads follow it (None: every core).
THREADS = ("1", "2", "16", None)


def case_argv(case, device, verbose, threads=None):
    return ["--device", device] + (["-v"] if verbose else []) + \
        (["-j", threads] if threads else []) + case.args + \
        [i.arg for i in case.inputs]


def gpu_usable(suite):
    p = suite.path("probe.csv")
    with open(p, "w") as f:
        f.write("a\n1\n")
    rc, _, err = run_one(suite.exe, ["--device", "gpu", p], None, base_env())
    if rc != 0:
        print("%s: skipped: %s" % (NAME, err.strip() or "status %d" % rc))
        return False
    return True


def split_gpu_stderr(err):
    """(stderr without -v lines, [(display name, line or None, reason)])."""
    kept, parse = [], []
    for line in err.splitlines(keepends=True):
        s = line.rstrip("\n")
        m = V_GPU.match(s)
        if m:
            parse.append((m.group(1), None, None))
            continue
        m = V_STOP.match(s)
        if m:
            parse.append((m.group(1), int(m.group(2)), m.group(3)))
            continue
        m = V_WS.match(s)
        if m:
            parse.append((m.group(1), -1, "-W"))
            continue
        if V_STAGE.match(s) or V_GZIP.match(s) or V_TENT.match(s):
            continue
        kept.append(line)
    return "".join(kept), parse


def udiff(a, b, what, limit=60):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                      "cpu " + what, "gpu " + what, lineterm="", n=2))
    if len(lines) > limit:
        lines = lines[:limit] + ["... (%d more diff lines)" % (len(lines) - limit)]
    return "\n".join(line[:300] for line in lines)


def describe(suite, case, raw=None, crows=None, gpu=True):
    """What a person needs to replay a case."""
    ins = "".join("\n        %s: %s via %s, %d bytes, longest record %d, %s" % (
        i.path, i.doc.gen, i.via, os.path.getsize(i.path), i.doc.max_record(),
        "regular" if not i.doc.reasons else "irregular (%s)" % ", ".join(sorted(i.doc.reasons)))
        for i in case.inputs)
    s = "replay: COLSTAT_SEED=%d COLSTAT_E2E_CASE=%s; generators %s; inputs:%s" % (
        suite.seed, case.name, case.gens, ins)
    if gpu:
        s += "\n      env: %s" % env_text(raw, crows)
    return s


# ------------------------------------------------------------ verification


def default_selection_clear(fields):
    """colstat's default column choice for a column, where it is clear:
    "more numbers than not among the non-empty fields of the first records
    (about a hundred)". None when the window size or whether NaN counts as
    a number could change the answer."""
    kinds = [classify_ext(f)[0] for f in fields[:150]]
    votes = set()
    for n in (50, 100, 150):
        for nan_is_number in (False, True):
            num = sum(1 for k in kinds[:n] if k == "value" or (nan_is_number and k == "nan"))
            bad = sum(1 for k in kinds[:n] if k == "invalid" or (not nan_is_number and k == "nan"))
            votes.add(num > bad)
    return votes.pop() if len(votes) == 1 else None


def verify_stats(suite, case, out):
    """The CPU's JSON against the exact reference, computed from the
    generator's logical records."""
    shape = case.shape
    names = shape.header_names(None) if shape.header else \
        [str(i + 1) for i in range(shape.ncols)]
    cols = [[] for _ in range(shape.ncols)]
    nrows = 0
    for i in case.inputs:
        for c, f in enumerate(i.doc.fields(names)):
            cols[c] += f
        nrows += len(i.doc.rows)
    tag = "%s: %s" % (case.name, cmdline(case_argv(case, "cpu", False)))
    doc = parse_json(out)
    got = [c.get("index") for c in doc.get("columns", [])]
    if case.selected is not None:
        idx = case.selected
    elif nrows == 0:
        suite.check(doc.get("rows") == 0 and got == [], tag + ": no rows, no columns",
                    out[:200])
        return
    elif shape.fmt:
        idx = [i for i in got if isinstance(i, int) and 1 <= i <= shape.ncols]
    else:  # the default choice, where it is clear
        first = case.inputs[0].doc.fields(names)
        for i in range(1, shape.ncols + 1):
            # decided on the first file's records, or on the first records
            # of all: checked where both agree (none in the first file: no
            # column, it seems, but that is not checked here)
            clear = default_selection_clear(cols[i - 1])
            if clear != default_selection_clear(first[i - 1]) or not first[i - 1]:
                clear = None
            if clear is not None:
                suite.check((i in got) == clear, tag + ": column %d %s by default" % (
                    i, "selected" if clear else "not selected"), "got columns %s" % got)
        idx = [i for i in got if isinstance(i, int) and 1 <= i <= shape.ncols]
    if shape.fmt:  # the reference reads C-locale numbers
        cols = [[shape.fmt.canonical(f) for f in col] for col in cols]
    want = [(i, names[i - 1], ColRef(cols[i - 1])) for i in idx]
    check_doc(suite, tag, out, nrows, want, set(STAT_FLAGS), case.hist)


def cross_check_encoding(suite, case):
    """Python's csv module reads the generator's bytes back as the records
    it meant (documents without blank lines; stray quotes are unverified).
    Returns how many inputs it read."""
    n = 0
    for inp in case.inputs:
        d = inp.doc
        if not d.verify or "blank line" in d.reasons or d.shape.ws:
            continue
        n += 1
        text = d.data().decode("utf-8-sig")
        recs = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=d.shape.delim)
                if r != []]
        if d.shape.header:
            suite.check(recs[:1] == [d.names], "%s: csv module reads the header" % case.name,
                        "%r != %r" % (recs[:1], d.names))
            # the repeated headers (a BOM inside the text starts only those)
            recs = [r for r in recs[1:]
                    if r != d.names and not r[0].startswith("\ufeff")]
        bad = [k for k, (a, b) in enumerate(zip(recs, d.rows)) if a != b]
        suite.check(len(recs) == len(d.rows) and not bad,
                    "%s: csv module reads %s as generated" % (case.name, inp.path),
                    "%d vs %d records; first differing %s" % (
                        len(recs), len(d.rows),
                        (recs[bad[0]], d.rows[bad[0]]) if bad else None))
    return n


# -------------------------------------------------------------------- main


def check_cpu(suite, case, res, selfcheck, tally):
    rc, out, err = res
    t = "%s: %s" % (case.name, cmdline(case_argv(case, "cpu", False)))
    ok = suite.check(case.status is None or rc == case.status,
                     t + " exits %s" % case.status,
                     "status %d: %s\n      %s" % (rc, err.strip()[:500],
                                                   describe(suite, case, gpu=False)))
    tally["cpu exit %d (%s)" % (rc, "expected" if case.status is not None else "either")] += 1
    if rc == 0:
        try:
            parse_json(out)
        except ValueError as e:
            suite.check(False, t + " prints JSON", str(e))
        bad = [ln for ln in err.splitlines()
               if not re.match(r"colstat: .+:[0-9]+: (warning: column |"
                               r"[0-9]+ repeated header lines? skipped)", ln)
               and not ln.startswith("colstat: note: left out: ")]
        suite.check(not bad, t + ": stderr holds only warnings", "%r" % bad[:3])
        want = sum(i.doc.nrepeats for i in case.inputs)
        said = re.search(r": ([0-9]+) repeated header lines? skipped", err)
        suite.check((int(said.group(1)) if said else 0) == want,
                    t + ": says %d repeated header lines skipped" % want, err[-300:])
    elif rc == 1:
        suite.check(out == b"" and err.count("\n") == 1 and err.startswith("colstat: "),
                    t + ": one error line, nothing on stdout", "%r %r" % (out[:100], err))
    if ok and case.verify and rc == 0 and (selfcheck or
                                           sum(len(i.doc.rows) for i in case.inputs) <= 5000):
        verify_stats(suite, case, out)
        tally["cpu JSON checked against the exact reference"] += 1
    if selfcheck:
        tally["inputs read back with the csv module"] += cross_check_encoding(suite, case)


def no_columns(out):
    try:
        return not json.loads(out.decode("utf-8"))["columns"]
    except (ValueError, KeyError, TypeError):
        return False


def check_gpu(suite, case, raw, crows, threads, cpu, gpu, tally):
    crc, cout, cerr = cpu
    grc, gout, gerr_all = gpu
    gerr, parse = split_gpu_stderr(gerr_all)
    t = "%s: %s [%s]" % (case.name, cmdline(case_argv(case, "gpu", True, threads)),
                         env_text(raw, crows))
    problems = []
    if grc != crc:
        problems.append("exit status: cpu %d, gpu %d" % (crc, grc))
    if gout != cout:
        problems.append("stdout differs:\n" + udiff(cout.decode("utf-8", "replace"),
                                                    gout.decode("utf-8", "replace"), "stdout"))
    if gerr != cerr:
        problems.append("stderr (without -v lines) differs:\n" + udiff(cerr, gerr, "stderr"))
    # With no column to reduce the GPU is never opened: no parse lines.
    unopened = grc == 0 and not parse and no_columns(cout)
    # An empty input has no bytes for the device: no parse line either.
    fed = [i for i in case.inputs if os.path.getsize(i.path) > 0]
    if grc == 0 and len(parse) != len(fed) and not unopened:
        problems.append("%d GPU parse lines for %d CSV inputs with bytes: %r" % (
            len(parse), len(fed), parse))
    for k, (name, line, reason) in enumerate(parse[:len(fed)]):
        inp = fed[k]
        if inp.display != STDIN_NAME and name != inp.display:
            problems.append("parse line %d names %r, want %r" % (k + 1, name, inp.display))
        if case.shape.ws:  # -W: the host parses, -v says so
            tally["-W                   parsed on the host"] += 1
            if line != -1:
                problems.append("-W input %s: %r, want the host-parse line" % (
                    inp.display, (name, line, reason)))
            continue
        expect = inp.doc.expect_gpu(raw)
        kind = "regular" if expect else ("irregular" if inp.doc.reasons
                                         else "record >= raw segment")
        outcome = "parsed on the GPU" if line is None else \
            "stopped (%s)" % re.sub(r"[0-9]+", "N", reason)
        tally["%-20s %s" % (kind, outcome)] += 1
        tally["  %-28s %s" % (inp.doc.gen, "GPU" if line is None else "stopped")] += 1
        if expect and line is not None and grc == 0:
            problems.append("regular input %s (longest record %d bytes, raw segment %s): "
                            "GPU parse stopped at line %d (%s), want parsed on the GPU" % (
                                inp.display, inp.doc.max_record(),
                                "default" if raw is None else raw, line, reason))
    if problems:
        suite.check(False, t, describe(suite, case, raw, crows) + "\n      " +
                    "\n      ".join(p.replace("\n", "\n      ") for p in problems))
    else:
        suite.check(True, t)


def main():
    argv = [a for a in sys.argv if a != "--selfcheck"]
    selfcheck = len(argv) != len(sys.argv) or bool(os.environ.get("COLSTAT_GPU_CSV_SELFCHECK"))
    suite = Suite(NAME, argv)
    rng = suite.rng
    if not selfcheck and not gpu_usable(suite):
        suite.tmp.cleanup()
        sys.exit(77)
    t0 = time.time()
    cases = plan(suite, rng)
    only = os.environ.get("COLSTAT_E2E_CASE")
    if only:
        cases = [c for c in cases if only in c.name]
    t1 = time.time()
    workers = int(os.environ.get("COLSTAT_E2E_JOBS") or max(1, min(8, os.cpu_count() or 1)))
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for c in cases:
            cpu = pool.submit(run_one, suite.exe, case_argv(c, "cpu", False), c.stdin,
                              base_env())
            gpus = []
            if not selfcheck:
                turn = rng.randrange(len(THREADS))
                for k, (raw, crows) in enumerate(zip(c.raws, c.crows)):
                    threads = THREADS[(turn + k) % len(THREADS)]
                    gpus.append((raw, crows, threads, pool.submit(
                        run_one, suite.exe, case_argv(c, "gpu", True, threads),
                        c.stdin, env_for(raw, crows))))
            jobs.append((c, cpu, gpus))
        tally = collections.Counter()
        runs = 0
        for c, cpu, gpus in jobs:
            try:
                cres = cpu.result()
                runs += 1
                check_cpu(suite, c, cres, selfcheck, tally)
                for raw, crows, threads, fut in gpus:
                    check_gpu(suite, c, raw, crows, threads, cres, fut.result(),
                              tally)
                    runs += 1
            except Exception as e:  # a harness crash is a failure
                import traceback
                traceback.print_exc()
                suite.check(False, "%s raised %r" % (c.name, e), describe(suite, c, gpu=False))
    mb = sum(os.path.getsize(i.path) for c in cases for i in c.inputs) / 1e6
    print("%s: %d cases (%.1f MB of input), %d colstat runs; generation %.1f s, runs %.1f s"
          % (NAME, len(cases), mb, runs, t1 - t0, time.time() - t1))
    print("%s: tally (CPU runs; -v parse lines, one per input and GPU run, by kind "
          "of input and by generator):" % NAME)
    for k, v in sorted(tally.items(), key=lambda kv: (kv[0].startswith(" "), kv[0])):
        print("  %6d  %s" % (v, k))
    suite.finish()


if __name__ == "__main__":
    main()

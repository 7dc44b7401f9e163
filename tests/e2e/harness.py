"""The end-to-end harness every tests/e2e suite shares: the Suite runner
(a fresh seed each run, printed; COLSTAT_SEED reproduces), random CSV cases,
and the independent reference: Python's csv module reads the file back and
every statistic is computed with exact rational arithmetic
(fractions.Fraction; float(Fraction) is correctly rounded), cross-checked
with math.fsum. A column whose every value spells an integer of magnitude
at most 2^64 is an integer column: its reference is computed from Python's
exact integers (sum, mean, std, min and max with their first row), the
others' from the doubles the texts round to."""
import json
import math
import os
import random
import re
import shlex
import subprocess
import sys
import traceback
import tempfile
from fractions import Fraction

# ----------------------------------------------------------------- harness

QUICK = bool(os.environ.get("COLSTAT_TEST_QUICK"))  # sanitizer builds: less


class Suite:
    """Counts named checks; prints failures with enough to reproduce."""

    def __init__(self, name, argv):
        self.name = name
        if len(argv) < 2:
            print(f"usage: {argv[0]} /path/to/colstat", file=sys.stderr)
            sys.exit(2)
        self.exe = os.path.abspath(argv[1])
        if not os.access(self.exe, os.X_OK):
            print(f"{name}: {self.exe} is not executable: skipped")
            sys.exit(77)
        env_seed = os.environ.get("COLSTAT_SEED")
        self.seed = int(env_seed) if env_seed else random.SystemRandom().randrange(1 << 32)
        print(f"{name}: seed {self.seed} (COLSTAT_SEED={self.seed} to reproduce)",
              file=sys.stderr, flush=True)
        self.rng = random.Random(self.seed)
        self.passed = 0
        self.failed = 0
        self.tmp = tempfile.TemporaryDirectory(prefix=name + "-")
        self.dir = self.tmp.name

    def path(self, name):
        return os.path.join(self.dir, name)

    def run(self, args, stdin=None, timeout=120):
        """Runs colstat; returns (status, stdout bytes, stderr text)."""
        p = subprocess.run([self.exe] + [str(a) for a in args], input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}" + (f"\n      {detail}" if detail else ""),
                  flush=True)
        return ok

    def run_tests(self, tests):
        """Runs each test(suite), then finishes (exits). COLSTAT_TEST_ONLY
        (names, comma-separated) runs those alone."""
        only = os.environ.get("COLSTAT_TEST_ONLY")
        if only:
            tests = [t for t in tests if t.__name__ in only.split(",")]
        for t in tests:
            try:
                t(self)
            except Exception as e:  # a harness crash is a failure, not a pass
                traceback.print_exc()
                self.check(False, f"{t.__name__} raised {e!r}")
        self.finish()

    def finish(self):
        if self.failed:
            keep = self.dir + ".kept"
            os.rename(self.dir, keep)
            os.mkdir(self.dir)
            print(f"{self.name}: inputs kept in {keep}")
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        self.tmp.cleanup()
        sys.exit(1 if self.failed else 0)


def cmdline(args):
    return "colstat " + " ".join(shlex.quote(str(a)) for a in args)


def _no_bare_constants(name):
    raise ValueError(f"bare {name} in JSON (non-finite must be strings)")


def parse_json(out):
    """The JSON document; NaN/Infinity literals are a contract violation."""
    return json.loads(out.decode("utf-8"), parse_constant=_no_bare_constants)


def jnum(x):
    """A JSON number or one of the strings "inf", "-inf", "nan" as a float;
    None stays None; anything else raises."""
    if x is None:
        return None
    if isinstance(x, str):
        if x not in ("inf", "-inf", "nan"):
            raise ValueError(f"number expected, got string {x!r}")
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"number expected, got {x!r}")
    return x


# --------------------------------------------------------------- reference

NUMBER_RE = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")
INF_RE = re.compile(r"[+-]?(inf|infinity)\Z", re.IGNORECASE)
NAN_RE = re.compile(r"[+-]?nan\Z", re.IGNORECASE)


def classify(field):
    """('missing'|'invalid'|'nan'|'value', float or None), after the csv
    module removed quotes. Spaces and tabs around a number are allowed.
    Only forms the generators below produce need to be decided here."""
    s = field.strip(" \t")
    if s == "":
        return "missing", None
    if NAN_RE.match(s):
        return "nan", None
    if INF_RE.match(s):
        return "value", -math.inf if s[0] == "-" else math.inf
    if NUMBER_RE.match(s):
        return "value", float(s)  # correctly rounded, as strtod
    return "invalid", None


INT_LIMIT = 2**64  # colstat's integer view: integers up to this magnitude
INT_TEXT_RE = re.compile(r"[ \t]*[+-]?([0-9]*)\.?([0-9]*)(?:[eE]([+-]?[0-9]+))?[ \t]*\Z")


def exact_int(field, d):
    """The integer a number text spells, when it is one of magnitude at most
    2^64, else None; d is the double the text rounds to (a text whose double
    is no such integer spells none)."""
    if not math.isfinite(d) or d != int(d) or abs(d) > INT_LIMIT:
        return None
    m = INT_TEXT_RE.match(field.strip('"'))
    if not m:
        return None
    whole, frac, exp = m.groups()
    digits = (whole + frac).lstrip("0")
    if not digits:
        return 0
    e = int(exp or 0) - len(frac)
    if e >= 0:  # |v| is about |d| <= 2^64: e is small
        v = int(digits) * 10**e
    elif -e > len(digits):  # 0 < |v| < 1
        return None
    else:
        v = Fraction(int(digits), 10**-e)
        if v.denominator != 1:
            return None
        v = int(v)
    v = -v if field.strip(' \t"').startswith("-") else v
    return v if abs(v) <= INT_LIMIT else None


def exact_sum(vals, square=False):
    """Exact sum of finite doubles (or of their squares) as a Fraction:
    numerators grouped by power-of-two denominator, then combined."""
    groups = {}
    for v in vals:
        n, d = v.as_integer_ratio()
        if square:
            n, d = n * n, d * d
        groups[d] = groups.get(d, 0) + n
    total = Fraction(0)
    for d, n in groups.items():
        total += Fraction(n, d)
    return total


def to_float(x):
    """A Fraction rounded to the nearest double, infinite past the range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def exact_sqrt(x):
    """sqrt of a non-negative Fraction to within an ulp, also where x
    itself is beyond the double range: x = m * 4^k with m near 1."""
    if not x:
        return 0.0
    k = (x.numerator.bit_length() - x.denominator.bit_length()) // 2
    m = x / Fraction(4) ** k if k >= 0 else x * Fraction(4) ** -k
    return math.ldexp(math.sqrt(float(m)), k)


class ColRef:
    """Reference statistics of one column from its fields, row by row."""

    def __init__(self, fields):
        self.missing = self.invalid = self.nan = 0
        self.vals = []  # (row, value) of values that entered
        ints = []  # (row, exact integer) while every value is one
        for row, f in enumerate(fields, start=1):
            kind, v = classify(f)
            if kind == "value":
                self.vals.append((row, v))
                if ints is not None:
                    k = exact_int(f, v)
                    if k is None:
                        ints = None
                    else:
                        ints.append((row, k))
            else:
                setattr(self, kind, getattr(self, kind) + 1)
        self.count = len(self.vals)
        vs = [v for _, v in self.vals]
        finite = [v for v in vs if math.isfinite(v)]
        self.pos_inf = sum(1 for v in vs if v == math.inf)
        self.neg_inf = sum(1 for v in vs if v == -math.inf)
        self.all_int = ints is not None
        if self.all_int:  # the integer view: exact integers throughout
            self.int_vals = ints
            self.exact = Fraction(sum(k for _, k in ints))
            self.exact2 = Fraction(sum(k * k for _, k in ints))
        else:
            self.exact = exact_sum(finite)
            self.exact2 = exact_sum(finite, square=True)
        if self.pos_inf and self.neg_inf:
            self.sum = math.nan
        elif self.pos_inf or self.neg_inf:
            self.sum = math.inf if self.pos_inf else -math.inf
        else:
            self.sum = to_float(self.exact)
            try:
                fs = math.fsum(finite)
                assert self.all_int or fs == self.sum, "reference disagrees"
            except OverflowError:  # fsum overflows where the exact sum may not
                pass
        if self.count == 0:
            self.mean = None
        elif self.pos_inf or self.neg_inf:
            self.mean = self.sum
        else:
            self.mean = to_float(self.exact / self.count)
        n = self.count
        if n < 2:
            self.std = None
        elif self.pos_inf or self.neg_inf:
            self.std = math.nan  # null or "nan" accepted
        else:
            var = (n * self.exact2 - self.exact * self.exact) / (n * (n - 1))
            self.std = exact_sqrt(var)
        self.min = self.max = None
        for row, v in (self.int_vals if self.all_int else self.vals):
            if self.min is None or v < self.min[0]:
                self.min = (v, row)
            if self.max is None or v > self.max[0]:
                self.max = (v, row)
        # the histogram's edges are the doubles of the extremes, or where
        # one is infinite the finite extreme (a zero then as +0); None
        # without a finite value
        self.min_d = None if self.min is None else float(self.min[0])
        self.max_d = None if self.max is None else float(self.max[0])
        self.edge_lo = self.edge_hi = None
        if finite:
            self.edge_lo = self.min_d if math.isfinite(self.min_d) \
                else min(finite) + 0.0
            self.edge_hi = self.max_d if math.isfinite(self.max_d) \
                else max(finite) + 0.0
        self._sorted = None

    def quantile(self, q):
        """R's type 7 of the values at q (a Fraction in [0, 1]), exactly:
        x_k + (h - floor h)(x_k+1 - x_k) with h = (n - 1) q, x_k itself
        when h is an integer. Returns None (no value, or -inf and +inf both
        weighted), an int (an integer column's exact integer result, when
        it and the order statistics used are inside [-2^64, 2^64], an
        integer column's range, as quantile.h's qres.is_int) or a float (rounded once; an infinity weighted above
        0 wins)."""
        if self._sorted is None:  # -0.0 before +0.0, as colstat's keys
            self._sorted = sorted(k for _, k in self.int_vals) if self.all_int \
                else sorted((v for _, v in self.vals),
                            key=lambda v: (v, math.copysign(1, v)))
        x, n = self._sorted, len(self._sorted)
        if n == 0:
            return None
        h = (n - 1) * Fraction(q)
        k = math.floor(h)
        f = h - k
        a = x[k]
        b = x[k + 1] if f else a
        if not f or (a == b and str(a) == str(b)):  # -0.0 and 0.0 differ
            exact = a
        elif isinstance(a, float) and (math.isinf(a) or math.isinf(b)):
            if math.isinf(a) and math.isinf(b):
                return None  # -inf and +inf both weighted
            return a if math.isinf(a) else b
        else:
            exact = Fraction(a) + f * (Fraction(b) - Fraction(a))
        if self.all_int:
            e = Fraction(exact)
            if e.denominator == 1 and max(abs(e), abs(a), abs(b)) <= INT_LIMIT:
                return int(e)
        return exact if isinstance(exact, float) else to_float(Fraction(exact))

    def hist_bounds(self, nbins, lo, hi):
        """Per bin (underflow, bins..., overflow): the counts under exact
        arithmetic, and per interior edge k (1..nbins-1) how many values may
        fall on either side of it: none, since colstat bins exactly,
        floor((v - lo) * nbins / (hi - lo)) (src/stats/hist_bin.h); v < lo
        is underflow, v > hi overflow, v == hi the last bin; infinities
        count as underflow and overflow."""
        certain = [0] * (nbins + 2)  # [0] underflow, [nbins+1] overflow
        amb = [0] * (nbins + 1)      # amb[k]: may be bin k-1 or bin k
        flo, fhi = Fraction(lo), Fraction(hi)
        width = fhi - flo
        tol = 0
        for _, v in self.vals:
            if v < lo:
                certain[0] += 1
                continue
            if v > hi:
                certain[nbins + 1] += 1
                continue
            if v == hi:
                certain[nbins if hi > lo else 1] += 1
                continue
            try:  # fast path: far from an edge, the float floor is exact
                tf = (v - lo) / (hi - lo) * nbins
                if math.isfinite(tf) and abs(tf - round(tf)) > 1e-6:
                    certain[min(math.floor(tf), nbins - 1) + 1] += 1
                    continue
            except OverflowError:
                pass
            t = (Fraction(v) - flo) * nbins / width
            b = min(math.floor(t), nbins - 1)
            k = round(t)
            if 1 <= k <= nbins - 1 and abs(t - k) <= tol:
                amb[k] += 1
            else:
                certain[b + 1] += 1
        return certain, amb


def hist_matches(certain, amb, got):
    """Whether got (underflow, bins..., overflow) can come from certain plus
    each ambiguous value placed on one side of its edge: left to right,
    each bin's surplus over its certain count is what its right edge sent
    left, and what is left of that edge's ambiguous values goes right."""
    if len(got) != len(certain):
        return False
    if got[0] != certain[0] or got[-1] != certain[-1]:
        return False
    nb = len(certain) - 2
    carry = 0  # ambiguous values of the left edge assigned to this bin
    for b in range(nb):
        left_from_right = got[b + 1] - certain[b + 1] - carry
        avail = amb[b + 1] if b + 1 <= nb - 1 else 0
        if not 0 <= left_from_right <= avail:
            return False
        carry = avail - left_from_right
    return carry == 0


# ------------------------------------------------------- random CSV files

NAME_WORDS = ["temp", "price", "qty", "load", "id", "score", "lat", "lon"]
TEXT_WORDS = ["alpha", "beta", "gamma", "delta", "north", "south", "red",
              "green", "blue", "x-ray", "zulu", "ok", "fail", "n/a", "TBD"]
INVALID = ["abc", "N/A", "12abc", "0x1A", "1.2.3", "--5", "1e", "#", "-",
           "twelve", "3,5", "1 2", "4$"]  # "$4" is a number in $ (units)
NAN_SPELL = ["nan", "NaN", "NAN", "-nan", "+nan"]
INF_SPELL = ["inf", "-inf", "Inf", "+INF", "infinity", "-Infinity"]


def number_text(rng, kind):
    """A number in one of the accepted spellings."""
    sign = rng.choice(["", "", "-", "+"]) if rng.random() < 0.5 else ""
    r = rng.random()
    if kind == "int":
        mag = rng.choice([9, 999, 10**6, 10**12, 2**53, 2**62, 2**64])
        if rng.random() < 0.02:
            mag = 10**20  # beyond 2^64: the column is no integer column
        digits = str(rng.randint(0, mag))
        if r < 0.05:
            return sign + digits + "e" + str(rng.randint(0, 3))
        if r < 0.08:
            return sign + digits + ".0"
        return sign + digits
    if kind == "wide":  # from subnormal to near overflow
        e = rng.randint(-324, 308)
        return f"{sign}{rng.randint(1, 9)}.{rng.randint(0, 10**15):015d}e{e}"
    if r < 0.4:  # plain decimal
        return f"{sign}{rng.randint(0, 10**rng.randint(0, 6))}." \
               f"{rng.randint(0, 10**rng.randint(1, 8)):0{rng.randint(1, 9)}d}"
    if r < 0.7:  # exponent
        e = rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + \
            str(rng.randint(0, 30))
        return f"{sign}{rng.randint(0, 999)}.{rng.randint(0, 99999)}{e}"
    if r < 0.9:  # a double's shortest repr
        return sign + repr(abs(rng.uniform(-1e4, 1e4)))
    return sign + str(rng.randint(0, 10**9))


def quote(field, delim):
    return '"' + field.replace('"', '""') + '"'


class ColSpec:
    def __init__(self, rng, name, kind):
        self.name, self.kind = name, kind
        self.p_missing = rng.choice([0, 0, 0.02, 0.2])
        self.p_invalid = rng.choice([0, 0, 0.01, 0.1])
        self.p_nan = rng.choice([0, 0, 0.01])
        self.p_inf = rng.choice([0, 0, 0, 0.005])
        self.p_quote = rng.choice([0, 0.1, 1.0])
        self.p_space = rng.choice([0, 0.1])


def numeric_field(rng, spec, delim, first):
    """Returns the text written to the file for one numeric field."""
    r = rng.random()
    if first:  # the first data row holds a plain number: detection is clear
        return number_text(rng, spec.kind)
    if r < spec.p_missing:
        return rng.choice(["", "", " ", '""'])
    r -= spec.p_missing
    if r < spec.p_invalid:
        return quote(rng.choice(INVALID), delim)
    r -= spec.p_invalid
    if r < spec.p_nan:
        text = rng.choice(NAN_SPELL)
    elif r < spec.p_nan + spec.p_inf:
        text = rng.choice(INF_SPELL)
    else:
        text = number_text(rng, spec.kind)
    if rng.random() < spec.p_space:
        text = rng.choice([" ", "  "]) + text + rng.choice(["", " "])
    if rng.random() < spec.p_quote:
        text = quote(text, delim)
    return text


def text_field(rng, delim, nl):
    r = rng.random()
    words = " ".join(rng.choice(TEXT_WORDS) for _ in range(rng.randint(1, 3)))
    if r < 0.05:
        return ""
    if r < 0.2:
        return quote(words + delim + " " + rng.choice(TEXT_WORDS), delim)
    if r < 0.3:
        return quote(f'say "{words}"', delim)
    if r < 0.4:
        return quote(words + nl + rng.choice(TEXT_WORDS), delim)
    if r < 0.5:
        return quote(words, delim)
    return words.replace(" ", "_")


class CsvCase:
    """A random CSV written to disk; cols says which fields are numeric."""

    def __init__(self, rng, path, nrows, ncols=None, delim=None, header=True,
                 wide=False):
        self.path, self.nrows = path, nrows
        self.ncols = ncols or rng.randint(1, 8)
        self.delim = delim or rng.choice([",", ",", "\t", ";", "|"])
        self.header = header
        self.crlf = rng.random() < 0.3
        self.bom = rng.random() < 0.2
        self.ragged = rng.random() < 0.3
        nl = "\r\n" if self.crlf else "\n"
        self.cols = []
        kinds = ["int", "dec", "dec", "text"] if self.ncols > 1 else ["int", "dec"]
        if wide:
            kinds.append("wide")
        for i in range(self.ncols):
            self.cols.append(ColSpec(rng, f"{rng.choice(NAME_WORDS)}_{i + 1}",
                                     rng.choice(kinds)))
        if all(c.kind == "text" for c in self.cols):
            self.cols[0].kind = "dec"
        lines = []
        if header:
            lines.append(self.delim.join(c.name for c in self.cols))
        for r in range(nrows):
            fields = []
            for c in self.cols:
                if c.kind == "text":
                    fields.append(text_field(rng, self.delim, nl))
                else:
                    fields.append(numeric_field(rng, c, self.delim, r == 0))
            if self.ragged and r > 0 and rng.random() < 0.1:
                if rng.random() < 0.5 and self.ncols > 1:
                    fields = fields[:rng.randint(1, self.ncols - 1)]
                else:
                    fields += [rng.choice(["9", "extra", ""])
                               for _ in range(rng.randint(1, 2))]
            if len(fields) == 1 and fields[0].strip() == "":
                fields = ['""']  # a blank line would not be a record
            lines.append(self.delim.join(fields))
        text = nl.join(lines)
        if lines and (rng.random() < 0.85 or text.endswith(" ")):
            text += nl
        with open(path, "wb") as f:
            f.write((b"\xef\xbb\xbf" if self.bom else b"") + text.encode())

    def numeric_indices(self):
        return [i + 1 for i, c in enumerate(self.cols) if c.kind != "text"]


def read_columns(path, delim, header, ncols=None):
    """The file through Python's csv module: (names, rows, per-column
    fields), ragged rows padded with empty fields and cut to the width of
    the first record."""
    import csv
    with open(path, newline="", encoding="utf-8-sig") as f:
        records = list(csv.reader(f, delimiter=delim))
    if not records:
        return [], 0, []
    width = ncols or len(records[0])
    names = records[0] if header else [str(i + 1) for i in range(width)]
    data = records[1:] if header else records
    cols = [[(r[i] if i < len(r) else "") for r in data] for i in range(width)]
    return names, len(data), cols


# ---------------------------------------------- numbers in other formats


def grouped(rng, digits, sep):
    """Digits with sep between groups: threes from the right, or now and
    then anywhere (colstat reads any grouping)."""
    if not sep or len(digits) < 2:
        return digits
    out = []
    anyhow = rng.random() < 0.15
    for k, d in enumerate(digits):
        left = len(digits) - k
        if k and (rng.random() < 0.3 if anyhow else left % 3 == 0):
            out.append(sep)
        out.append(d)
    return "".join(out)


def written(rng, text, decimal, thousands):
    """A C-locale number text as the format writes it."""
    m = re.match(r"([+-]?)([0-9]*)(\.?)([0-9]*)(.*)\Z", text)
    sign, ip, point, frac, rest = m.groups()
    return sign + grouped(rng, ip, thousands) + (decimal if point else "") + \
        frac + rest


class NumFormat:
    """How a file's numbers are written (--decimal, --thousands, --null),
    and the reader of the reference: the text of a field as the C locale
    would write it ("" for a null spelling, "#bad" for no number)."""

    def __init__(self, decimal=".", thousands=None, nulls=()):
        self.decimal, self.thousands, self.nulls = decimal, thousands, set(nulls)
        ip = "[0-9]+(?:%s[0-9]+)*" % re.escape(thousands) if thousands else "[0-9]+"
        d = re.escape(decimal)
        self.re = re.compile(r"[+-]?(?:%s(?:%s[0-9]*)?|%s[0-9]+)(?:[eE][+-]?[0-9]+)?\Z"
                             % (ip, d, d))

    def args(self):
        a = []
        if self.decimal != ".":
            a += ["--decimal", self.decimal]
        if self.thousands:
            a += ["--thousands", self.thousands]
        if self.nulls:
            a += ["--null", ",".join(sorted(self.nulls))]
        return a

    def canonical(self, field):
        s = field.strip(" \t")
        if s == "" or s in self.nulls:
            return ""
        if NAN_RE.match(s) or INF_RE.match(s):
            return s
        if not self.re.match(s):
            return "#bad"
        if self.thousands:
            s = s.replace(self.thousands, "")
        return s.replace(self.decimal, ".")


# ---------------------------------------------------------- comparisons


def same_float(got, want):
    if want is None:
        return got is None
    if got is None:
        return False
    if math.isnan(want):
        return math.isnan(got)
    return got == want


def compare_column(suite, tag, jc, ref, name, index, what, hist_opts):
    """Checks one JSON column object against the reference."""
    def chk(ok, field, got, want):
        return suite.check(ok, f"{tag}: column {index} ({name}) {field}",
                           f"got {got!r}, want {want!r}")

    if name is not None:
        chk(jc.get("name") == name, "name", jc.get("name"), name)
    chk(jc.get("index") == index, "index", jc.get("index"), index)
    if jc.get("type") == "text":
        # the sample saw no number: right only if the column holds none;
        # every field is then text or missing (a quoted blank is text)
        chk(ref.count == 0 and ref.nan == 0, "text: holds no number",
            (ref.count, ref.nan), (0, 0))
        fields = ref.missing + ref.invalid
        got = (jc.get("count", fields - jc.get("missing", 0)), jc.get("missing"))
        chk(got[0] + got[1] == fields and got[1] <= ref.missing,
            "text: count and missing", got, (ref.invalid, ref.missing))
        return
    chk(jc.get("type") == "number", "type", jc.get("type"), "number")
    for k in ("missing", "invalid", "nan"):
        chk(jc.get(k) == getattr(ref, k), k, jc.get(k), getattr(ref, k))
    for k in ("count", "sum", "mean", "std", "min", "max", "hist", "median",
              "quantiles"):
        if k == "quantiles":
            qs = quantiles_asked(what)
            if qs is None:
                chk(k not in jc, f"key {k} absent (not asked)", list(jc), "absent")
            elif chk(k in jc, f"key {k} present", list(jc), k):
                compare_quantiles(chk, jc[k], ref, qs)
            continue
        if k not in what:
            chk(k not in jc, f"key {k} absent (not asked)", list(jc), "absent")
            continue
        if not chk(k in jc, f"key {k} present", list(jc), k):
            continue
        got = jc[k]
        try:
            if k == "count":
                chk(got == ref.count, k, got, ref.count)
            elif k == "sum":
                g = jnum(got)
                if ref.count == 0:  # the sum of no value is undefined
                    chk(g is None, k, got, None)
                elif ref.all_int:  # printed as the exact integer
                    chk(isinstance(got, int) and got == ref.exact, k, got,
                        ref.exact)
                else:
                    chk(same_float(g, ref.sum), k, got, ref.sum)
            elif k == "mean":
                chk(same_float(jnum(got), ref.mean), k, got, ref.mean)
            elif k == "std":
                g = jnum(got)
                if ref.std is None:
                    chk(g is None, k, got, None)
                elif math.isnan(ref.std):  # infinities entered: null or "nan"
                    chk(g is None or math.isnan(g), k, got, "nan or null")
                else:
                    # 1e-13 relative; a subnormal std has fewer digits than
                    # that, so two of its ulps (1e-323) are allowed too.
                    ok = g is not None and abs(g - ref.std) <= \
                        max(1e-13 * abs(ref.std), 1e-323)
                    chk(ok, k + " (within 1e-13 relative)", got, ref.std)
            elif k in ("min", "max"):
                want = getattr(ref, k)
                if want is None:
                    chk(got is None or got.get("value") is None, k, got, None)
                elif ref.all_int:  # the exact integer, as a JSON integer
                    g = got.get("value")
                    chk(isinstance(g, int) and g == want[0] and
                        got.get("row") == want[1], k, got,
                        {"value": want[0], "row": want[1]})
                else:
                    g = jnum(got.get("value"))
                    chk(g == want[0] and got.get("row") == want[1], k, got,
                        {"value": want[0], "row": want[1]})
            elif k == "hist":
                compare_hist(chk, got, ref, hist_opts)
            elif k == "median":
                same_quantile(chk, "median", got, ref.quantile(Fraction(1, 2)))
        except (ValueError, TypeError, AttributeError) as e:
            chk(False, k + " (malformed)", got, str(e))


def quantiles_asked(what):
    """The --quantiles list in a what set: an item ("quantiles", "0.9",
    ...), the texts as given; None when not asked."""
    for w in what:
        if isinstance(w, tuple) and w and w[0] == "quantiles":
            return list(w[1:])
    return None


def quantile_key(text):
    """The JSON key of a quantile: its shortest decimal ("0.50" -> "0.5",
    "1.0" -> "1", ".25" -> "0.25")."""
    q = Fraction(text.strip())
    if q == 0 or q == 1:
        return str(int(q))
    d = str(q.numerator * 10**40 // q.denominator).rjust(41, "0")
    return "0." + d[1:].rstrip("0")


def same_quantile(chk, field, got, want):
    if want is None:
        chk(got is None, field, got, None)
    elif isinstance(want, int):  # the exact integer, as a JSON integer
        chk(isinstance(got, int) and not isinstance(got, bool) and got == want,
            field, got, want)
    else:
        g = jnum(got)
        chk(g is not None and same_float(g, want) and
            (want != 0 or math.copysign(1, g) == math.copysign(1, want) or
             isinstance(got, int)), field, got, want)


def compare_quantiles(chk, got, ref, qs):
    keys = [quantile_key(t) for t in qs]
    uniq = list(dict.fromkeys(keys))  # a repeated quantile is kept once
    if not chk(isinstance(got, dict) and list(got) == uniq, "quantiles keys",
               list(got) if isinstance(got, dict) else got, uniq):
        return
    for t, key in zip(qs, keys):
        same_quantile(chk, f"quantile {key}", got[key],
                      ref.quantile(Fraction(t.strip())))


def compare_hist(chk, got, ref, hist_opts):
    nbins, rng_ = hist_opts
    if ref.count == 0:  # no edges exist: null, or all bins empty
        ok = got is None or (sum(got.get("bins") or []) == 0 and
                             not got.get("underflow") and not got.get("overflow"))
        chk(ok, "hist (empty column)", got, None)
        return
    lo, hi = rng_ if rng_ else (ref.edge_lo, ref.edge_hi)
    glo, ghi = jnum(got["lo"]), jnum(got["hi"])
    chk(glo == lo and ghi == hi, "hist lo/hi", (glo, ghi), (lo, hi))
    bins = got["bins"]
    chk(len(bins) == nbins, "hist bin count", len(bins), nbins)
    observed = [got["underflow"]] + list(bins) + [got["overflow"]]
    chk(sum(observed) == ref.count, "hist total", sum(observed), ref.count)
    if lo is None:  # no finite value: the infinities below and above
        want = [ref.neg_inf] + [0] * nbins + [ref.pos_inf]
        chk(observed == want, "hist of infinities", observed, want)
        return
    if len(bins) != nbins:
        return
    certain, amb = ref.hist_bounds(nbins, lo, hi)
    chk(hist_matches(certain, amb, observed), "hist bins",
        observed, f"certain {certain} ambiguous-at-edge {amb}")


# ------------------------------------------------------------------ tests

STAT_FLAGS = ["count", "sum", "mean", "std", "min", "max", "hist", "median"]
DEFAULT_STATS = {"count", "sum", "mean", "min", "max"}


def pick_columns(rng, case, names, fields):
    """A -c argument choosing the numeric columns (sometimes a text column
    too), spelled with indices, names or ranges; None for the default.

    The default ("every column that holds numbers") is decided on a sample
    (colstat: more numbers than invalid fields), so it is only used here
    when that is clear: data, and no invalid field in the numeric columns."""
    idx = case.numeric_indices()
    r = rng.random()
    clear = case.nrows > 0 and all(ColRef(fields[i - 1]).invalid == 0 for i in idx)
    if r < 0.3 and clear:
        return None, idx
    if r < 0.45 and len(idx) < case.ncols:
        idx = sorted(set(idx) | {rng.choice([i for i in range(1, case.ncols + 1)
                                             if i not in idx])})
    if r < 0.7 or not case.header:
        spelled = [str(i) for i in idx]
    else:
        spelled = [names[i - 1] if rng.random() < 0.5 else str(i) for i in idx]
    if len(idx) == case.ncols and case.ncols > 1 and rng.random() < 0.5:
        spelled = [f"1-{case.ncols}"]
    return ",".join(spelled), idx


def stat_variant(rng, ref_cols):
    """(flags, what, (nbins, range or None))."""
    r = rng.random()
    if r < 0.35:
        return ["--all"], set(STAT_FLAGS), (256, None)
    if r < 0.5:
        return [], set(DEFAULT_STATS), (256, None)
    what = set(rng.sample(STAT_FLAGS, rng.randint(1, len(STAT_FLAGS))))
    flags = ["--" + w for w in STAT_FLAGS if w in what]
    nbins, hrange = 256, None
    if "hist" in what:
        nbins = rng.choice([1, 2, 3, 7, 10, 100, 256, 1000])
        if nbins != 256 or rng.random() < 0.5:
            flags += ["--bins", str(nbins)]
        finite = sorted(v for c in ref_cols for _, v in c.vals if math.isfinite(v))
        if finite and rng.random() < 0.5:
            lo = finite[rng.randrange(len(finite))]
            hi = finite[rng.randrange(len(finite))]
            if lo > hi:
                lo, hi = hi, lo
            if lo == hi:
                hi = lo + max(1.0, abs(lo))
            hrange = (lo, hi)
            flags += [f"--range={lo!r}:{hi!r}"]
    return flags, what, (nbins, hrange)


def check_doc(suite, what_ran, out, nrows, want, what,
              hist_opts=(256, None)):
    """Checks a JSON document: rows, the columns (index, name or None to
    skip the name, ColRef) in order, and each column's statistics."""
    try:
        doc = parse_json(out)
    except ValueError as e:
        suite.check(False, what_ran + " prints JSON", str(e))
        return None
    suite.check(doc.get("rows") == nrows, what_ran + " rows",
                f"got {doc.get('rows')}, want {nrows}")
    cols = doc.get("columns", [])
    idx = [i for i, _, _ in want]
    suite.check([c.get("index") for c in cols] == idx, what_ran + " columns",
                f"got {[c.get('index') for c in cols]}, want {idx}")
    by_index = {c.get("index"): c for c in cols}
    for i, name, ref in want:
        if i in by_index:
            compare_column(suite, what_ran, by_index[i], ref, name, i, what,
                           hist_opts)
    return doc


def run_case(suite, case, tag, nrows, devices):
    rng = suite.rng
    names, rows, fields = read_columns(case.path, case.delim, case.header,
                                       case.ncols)
    suite.check(rows == nrows, f"{tag}: harness wrote {nrows} rows", rows)
    col_arg, idx = pick_columns(rng, case, names, fields)
    refs = {i: ColRef(fields[i - 1]) for i in idx}
    flags, what, hist_opts = stat_variant(rng, list(refs.values()))
    if col_arg is None and "--all" in flags:  # text columns too
        text = [i for i in range(1, case.ncols + 1)
                if ColRef(fields[i - 1]).count == 0 and ColRef(fields[i - 1]).nan == 0
                and ColRef(fields[i - 1]).invalid > 0]
        idx = sorted(set(idx) | set(text))
        refs = {i: ColRef(fields[i - 1]) for i in idx}
    args = [case.path, "--json"] + flags
    if col_arg is not None:
        args += ["-c", col_arg]
    if rng.random() < 0.5 or case.ncols == 1:
        args += ["-d", case.delim]
    if rng.random() < 0.7 or nrows < 2:
        args += ["--header" if case.header else "--no-header"]
    outputs = {}
    for dev in devices:
        a = args + ["--device", dev]
        rc, out, err = suite.run(a)
        what_ran = f"{tag}: {cmdline(a)}"
        if not suite.check(rc == 0, what_ran + " exits 0", f"status {rc}: {err.strip()}"):
            continue
        outputs[dev] = out
        check_doc(suite, what_ran, out, nrows,
                  [(i, names[i - 1], refs[i]) for i in idx], what, hist_opts)
    if len(outputs) == 2:
        suite.check(outputs["cpu"] == outputs["gpu"],
                    f"{tag}: {cmdline(args)} identical on cpu and gpu")


def gpu_available(suite):
    p = suite.path("gpu-probe.csv")
    with open(p, "w") as f:
        f.write("a\n1\n2\n")
    rc, _, _ = suite.run([p, "--device", "gpu", "--json"])
    return rc == 0


def mpi_usable(suite):
    """Whether mpirun is here and colstat was built with MPI (said when
    not)."""
    import shutil
    if not shutil.which("mpirun"):
        print(f"{suite.name}: no mpirun: --mpi skipped")
        return False
    rc, _, err = suite.run(["--mpi", "--sum", "/dev/null"])
    if "built without MPI" in err:
        print(f"{suite.name}: built without MPI: --mpi skipped")
        return False
    return True


def mpirun(suite, n, args):
    """mpirun -n N colstat --mpi ARGS: (status, stdout, stderr text)."""
    cmd = ["mpirun", "--quiet", "--oversubscribe", "-n", str(n)]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(cmd + [suite.exe, "--mpi"] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

"""colstat's partial states (src/dist/state.c), read and written in Python
for tests that make states by hand: decode() a state into plain fields,
change them, encode() them back with a valid CRC-32 (so that what colstat
then refuses, it refuses for the fields, not for the damage).

A state is one line: "colstat-state 3 ", base64 (RFC 4648, no padding) of
its bytes, a newline. Bytes (src/dist/state_codec.h): unsigned LEB128
varints (u), zigzag varints for signed numbers (i), doubles as 8 bytes
little-endian (f), texts as u length and bytes. Header: key, u what, u
part first, u part last, u parts (0 0 0: none), u payload length; payload:
u rows, u columns, then per column: name, u index, u count, missing,
invalid, nan, first_invalid_row, min_row, max_row, min_row_int,
max_row_int, i sum_r, f min, f max, i min_corr, i max_corr, u all_int,
three sums (u digits n, when n: u first digit, i each digit, balanced:
in [-2^31, 2^31); u pos_inf, u neg_inf), the histogram (u bins; when not 0: f lo, f hi, u underflow, u
overflow, u per bin), the profile: a text column's (its kind, 4, above
the index's 32 bits) u count, missing, shortest, longest; and where the
key's what has --distinct, --mode or --top (0xe00) the values' counts:
u n, then per value a text (a text column) or a number (u t: t > 0 the
integer zigzag(t - 1), t = 0 f double and i correction), and u its
count; a state of -g (its key's tail ends ";keys=D,T")
then: u key columns, their names, u groups, per group: its key as a text
(the engine's encoding: per key column 0, or 1, 4 bytes LE length and the
text), u rows, and per column the fields after name and index, then
the cell's profile where the column is text or the key counts values
(the columns' own profiles are then empty); then 4
bytes LE: the CRC-32 of all before."""
import base64
import struct
import zlib

PREFIX = b"colstat-state 3 "
TEXT_KIND = 4  # COL_TEXT, above the index's 32 bits
DIGITS = 137  # SACC_DIGITS
U64 = ["count", "missing", "invalid", "nan", "first_invalid_row", "min_row",
       "max_row", "min_row_int", "max_row_int"]
SUMS = ["sum", "sumsq", "sumsq_corr"]


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if self.at + n > len(self.data):
            raise ValueError("cut short")
        self.at += n
        return self.data[self.at - n:self.at]

    def u(self):
        v, shift = 0, 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v

    def i(self):
        v = self.u()
        return (v >> 1) ^ -(v & 1)

    def f64(self):
        return struct.unpack("<d", self.take(8))[0]

    def text(self):
        return self.take(self.u())


def _normal(value):
    """An integer (units of 2^-2176) as normalised digits: [0, 2^32)
    below a signed top digit."""
    d = []
    for _ in range(DIGITS - 1):
        d.append(value & 0xffffffff)
        value >>= 32
    d.append(value)  # the top digit: what is left, signed
    return d


def _value(d):
    return sum(x << (32 * k) for k, x in enumerate(d))


def _sacc(r):
    """A sum's digits as written (balanced, a span), as normalised ones."""
    d = [0] * DIGITS
    n = r.u()
    lo = r.u() if n else 0
    for k in range(lo, lo + n):
        d[k] = r.i()
    return {"d": _normal(_value(d)), "pos_inf": r.u(), "neg_inf": r.u()}


PROFILE = 0xe00  # STAT_DISTINCT | STAT_MODE | STAT_TOP


def _column(r, counted):
    c = {"name": r.text(), "index": r.u()}
    _fields(r, c)
    c["prof"] = _prof(r, c["index"] >> 32 == TEXT_KIND, counted)
    return c


def _number(r):
    t = r.u()
    if t:
        return ("int", ((t - 1) >> 1) ^ -((t - 1) & 1))
    return ("f64", r.f64(), r.i())


def _prof(r, text, counted):
    """A column's profile: the text facts (or None), the values (or None)
    as [(value, count)]: bytes, or ("int", v) / ("f64", d, r)."""
    p = {"facts": None, "values": None}
    if text:
        p["facts"] = [r.u() for _ in range(4)]
    if counted:
        p["values"] = [((r.text() if text else _number(r)), r.u())
                       for _ in range(r.u())]
    return p


def _fields(r, c):
    for k in U64:
        c[k] = r.u()
    c["sum_r"] = r.i()
    c["min"], c["max"] = r.f64(), r.f64()
    c["min_corr"], c["max_corr"], c["all_int"] = r.i(), r.i(), r.u()
    for k in SUMS:
        c[k] = _sacc(r)
    n = r.u()
    c["hist"] = None
    if n:
        h = {"lo": r.f64(), "hi": r.f64(), "underflow": r.u(),
             "overflow": r.u()}
        h["bins"] = [r.u() for _ in range(n)]
        c["hist"] = h
    return c


def grouped(s):
    """Whether s's key says groups follow its columns."""
    key = s["key"].decode("latin-1")
    return ";keys=" in key[key.rindex(";what="):]


def _profiled(c, counted):
    return counted or c["index"] >> 32 == TEXT_KIND


def _group(r, columns, counted):
    g = {"key": r.text(), "rows": r.u(), "columns": []}
    for col in columns:
        c = _fields(r, {})
        if _profiled(col, counted):
            c["prof"] = _prof(r, col["index"] >> 32 == TEXT_KIND, counted)
        g["columns"].append(c)
    return g


def key_bytes(fields):
    """The engine's encoding of a key: fields are bytes, None missing."""
    return b"".join(b"\0" if f is None else b"\1" + struct.pack("<I", len(f)) + f
                    for f in fields)


def unline(line):
    """The bytes a state's line carries."""
    if not line.startswith(PREFIX) or not line.endswith(b"\n"):
        raise ValueError("not a state's line")
    b64 = line[len(PREFIX):-1]
    return base64.b64decode(b64 + b"=" * (-len(b64) % 4))


def decode(line):
    """A state's fields: a dict of key, what, parts, rows, columns."""
    r = Reader(unline(line))
    s = {"key": r.text(), "what": r.u(), "parts": [r.u(), r.u(), r.u()]}
    length = r.u()
    end = r.at + length
    s["rows"] = r.u()
    counted = bool(s["what"] & PROFILE)
    s["columns"] = [_column(r, counted) for _ in range(r.u())]
    if grouped(s):
        s["group_by"] = [r.text() for _ in range(r.u())]
        s["groups"] = [_group(r, s["columns"], counted)
                       for _ in range(r.u())]
    if r.at != end or end + 4 != len(r.data):
        raise ValueError("length")
    return s


def _u(v):
    v &= 2**64 - 1
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _i(v):
    return _u((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def _text(b):
    return _u(len(b)) + b


def _balanced(value):
    """Digits in [-2^31, 2^31) (as many as needed, at least DIGITS)."""
    d = []
    while value or len(d) < DIGITS:
        x = value & 0xffffffff
        x -= (1 << 32) if x >= 1 << 31 else 0
        d.append(x)
        value = (value - x) >> 32
    return d


def _sum(c):
    d = _balanced(_value(c["d"]))
    nz = [k for k in range(len(d)) if d[k]]
    out = _u(nz[-1] - nz[0] + 1) + _u(nz[0]) + b"".join(
        _i(d[k]) for k in range(nz[0], nz[-1] + 1)) if nz else _u(0)
    return out + _u(c["pos_inf"]) + _u(c["neg_inf"])


def _encode_column(c):
    return _text(c["name"]) + _u(c["index"]) + _encode_fields(c) + \
        _encode_prof(c.get("prof"))


def _encode_number(v):
    if v[0] == "int":
        return _u(((v[1] << 1) ^ (v[1] >> 63) if v[1] < 0 else v[1] << 1) + 1)
    return _u(0) + struct.pack("<d", v[1]) + _i(v[2])


def _encode_prof(p):
    """A profile as decoded: facts and values written where present."""
    if p is None:
        return b""
    out = []
    if p["facts"] is not None:
        out += [_u(x) for x in p["facts"]]
    if p["values"] is not None:
        out.append(_u(len(p["values"])))
        for v, n in p["values"]:
            out.append(_text(v) if isinstance(v, bytes) else _encode_number(v))
            out.append(_u(n))
    return b"".join(out)


def _encode_groups(s, ngroups=None):
    out = [_u(len(s["group_by"]))] + [_text(n) for n in s["group_by"]]
    out.append(_u(len(s["groups"]) if ngroups is None else ngroups))
    for g in s["groups"]:
        out += [_text(g["key"]), _u(g["rows"])]
        out += [_encode_fields(c) + _encode_prof(c.get("prof"))
                for c in g["columns"]]
    return b"".join(out)


def _encode_fields(c):
    out = [_u(c[k]) for k in U64]
    out += [_i(c["sum_r"]), struct.pack("<dd", c["min"], c["max"])]
    out += [_i(c["min_corr"]), _i(c["max_corr"]), _u(c["all_int"])]
    out += [_sum(c[k]) for k in SUMS]
    h = c["hist"]
    if h is None:
        out.append(_u(0))
    else:
        out += [_u(len(h["bins"])), struct.pack("<dd", h["lo"], h["hi"]),
                _u(h["underflow"]), _u(h["overflow"])]
        out += [_u(b) for b in h["bins"]]
    return b"".join(out)


def header(s, length):
    return _text(s["key"]) + _u(s["what"]) + b"".join(
        _u(p) for p in s["parts"]) + _u(length)


def line(data, version=3):
    """A state's line carrying data."""
    prefix = PREFIX if version == 3 else b"colstat-state %d " % version
    return prefix + base64.b64encode(data).rstrip(b"=") + b"\n"


def encode(s, length=None, ngroups=None, version=3):
    """The line of s, its CRC-32 valid; length: the payload length to
    declare (default: the true one); ngroups: the group count to declare
    (default: the true one); version: the line's (2: as before text
    columns, the same bytes where there are none)."""
    body = _u(s["rows"]) + _u(len(s["columns"])) + b"".join(
        _encode_column(c) for c in s["columns"])
    if "groups" in s:
        body += _encode_groups(s, ngroups)
    data = header(s, len(body) if length is None else length) + body
    return line(data + struct.pack("<I", zlib.crc32(data)), version)


def header_line(s, length):
    """The start of a line whose header declares length payload bytes,
    cut after whole groups of base64 (zero bytes fill the last)."""
    h = header(s, length)
    h += b"\0" * (-len(h) % 3)
    return PREFIX + base64.b64encode(h)


def set_sum(c, k, value):
    """Sets c's sum k to the integer value (in units of 2^-2176)."""
    c[k]["d"] = _normal(value)


# ------------------------------------------------------------ hand-made

def set_key(s, field, value):
    """Rewrites ;FIELD=... of the key's tail (what, nbins, range, strict)."""
    key = s["key"].decode("latin-1")
    at = key.rindex(";what=")
    head, tail = key[:at], key[at:]
    parts = []
    for item in tail[1:].split(";"):
        name = item.split("=", 1)[0]
        parts.append(f"{name}={value}" if name == field else item)
    s["key"] = (head + ";" + ";".join(parts)).encode("latin-1")


def _busy(s):
    """The first column holding values (mutations need one)."""
    return next(c for c in s["columns"] if c["count"] > 0)


def _swap(c):
    c["min"], c["max"] = c["max"], c["min"]


def _empty_with_sum(c):
    c.update(count=0, min=float("nan"), max=float("nan"), min_row=0,
             max_row=0, min_row_int=0, max_row_int=0, min_corr=0,
             max_corr=0, sum_r=0)
    set_sum(c, "sum", 1 << 2176)  # 1.0
    set_sum(c, "sumsq", 1 << 2176)
    if c["hist"]:
        h = c["hist"]
        h.update(underflow=0, overflow=0, bins=[0] * len(h["bins"]))


def _sum_past_extremes(s):
    """A sum past count times max (or below count times min), within the
    range any 2^64 doubles' sum has."""
    c = next((c for c in s["columns"] if c["count"] and
              (c["max"] != float("inf") or c["min"] != float("-inf"))),
             None)
    if c is None:
        _busy(s).update(count=s["rows"] + 1)
        return
    big = 1 << (2176 + 1040)
    set_sum(c, "sum", big if c["max"] != float("inf") else -big)
    c["sum"]["pos_inf"] = c["sum"]["neg_inf"] = 0


def _fractional_int_sum(s):
    c = _busy(s)
    c["all_int"] = 1
    set_sum(c, "sum", (1 << 2175) + (1 << 2176) * 3)  # 3.5


def _claim_median(s):
    s["what"] |= 0x80
    set_key(s, "what", "%x" % s["what"])


def _hist_no_range(s):
    set_key(s, "range", "0:0000000000000000:0000000000000000")


# name -> (what it breaks, applied to the state s): each makes a state no
# colstat run gives (states emitted with --hist --range and --std).
MUTATIONS = {
    "count past rows": lambda s: _busy(s).update(count=s["rows"] + 1),
    "sum_r overflow": lambda s: _busy(s).update(sum_r=2**63 - 1),
    "min > max": lambda s: _swap(_busy(s)),
    "count 0 with a sum": lambda s: _empty_with_sum(_busy(s)),
    "min_row past rows": lambda s: _busy(s).update(min_row=s["rows"] + 1),
    "negative index": lambda s: _busy(s).update(index=2**32 - 1),
    "index 0": lambda s: _busy(s).update(index=0),
    "claims the median": _claim_median,
    "histogram without range": _hist_no_range,
    "histogram of other values": lambda s: _busy(s)["hist"]["bins"].__setitem__(
        0, _busy(s)["hist"]["bins"][0] + 1),
    "correction out of range": lambda s: _busy(s).update(min_corr=5000),
    "a first invalid row without invalid fields": lambda s: _busy(s).update(
        invalid=0, first_invalid_row=1),
    "all_int 2": lambda s: _busy(s).update(all_int=2),
    "a sum past 2^1088": lambda s: set_sum(_busy(s), "sum", 1 << 4000),
    "more infinities than values": lambda s: _busy(s)["sum"].update(
        pos_inf=_busy(s)["count"] + 1),
    "a NUL in a name": lambda s: _busy(s).update(name=b"a\x00b"),
    "a key colstat does not write": lambda s: s.update(key=b"hello"),
    "no columns": lambda s: s.update(columns=[]),
    "zero rows": lambda s: s.update(rows=0),
    "0 bins in the key": lambda s: set_key(s, "nbins", "0"),
    "a sum past count times the extremes": _sum_past_extremes,
    "integers whose sum is not one": _fractional_int_sum,
}


def _g_dup(s):
    s["groups"].append(s["groups"][0])
    s["rows"] += s["groups"][0]["rows"]


def _g_rows_off(s):
    s["groups"][0]["rows"] += 1


def _g_bad_flag(s):
    s["groups"][0]["key"] = b"\x02" + s["groups"][0]["key"][1:]


def _g_short_key(s):
    s["groups"][0]["key"] = s["groups"][0]["key"][:-1]


def _g_two_keys(s):
    g = s["groups"][0]
    g["key"] += key_bytes([b"z"])


def _g_fields_past_rows(s):
    c = s["groups"][0]["columns"][0]
    c["missing"] += s["groups"][0]["rows"]


def _g_extreme_past_rows(s):
    c = next(c for g in s["groups"] for c in g["columns"] if c["count"])
    c["max_row"] = s["rows"] + 1


def _g_empty_group(s):
    s["groups"].append({"key": key_bytes([b"new"]), "rows": 0,
                        "columns": s["groups"][0]["columns"]})


def _g_no_key_columns(s):
    s["group_by"] = []


def _g_hist_off(s):
    c = next(c for g in s["groups"] for c in g["columns"] if c["count"])
    c["hist"]["bins"][0] += 1


# name -> (what it breaks, applied to a state of groups s): each makes a
# state no colstat run gives (states of -g emitted with --hist --range).
GROUP_MUTATIONS = {
    "a group given twice": _g_dup,
    "rows not the state's": _g_rows_off,
    "a key's flag 2": _g_bad_flag,
    "a key cut short": _g_short_key,
    "a key of two columns": _g_two_keys,
    "fields past the group's rows": _g_fields_past_rows,
    "an extreme's row past the rows": _g_extreme_past_rows,
    "a group of no rows": _g_empty_group,
    "no key columns": _g_no_key_columns,
    "a histogram of other values": _g_hist_off,
}

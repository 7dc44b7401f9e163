"""colstat's partial states (src/dist/state.c), read and written in Python
for tests that make states by hand: decode() a state into plain fields,
change them, encode() them back with a valid CRC-32 (so that what colstat
then refuses, it refuses for the fields, not for the damage).

Layout (little-endian): magic "COLSTAT\\x1a", u32 version, u32 key length,
key, u32 what, u64 payload length, payload, u32 CRC-32 of all before it.
Payload: u64 rows, u32 columns, then per column: u32 name length, name,
u32 index, the statistics (STATS), the histogram (u32 bins; when not 0:
f64 lo, f64 hi, u64 underflow, u64 overflow, u64 per bin)."""
import struct
import zlib

MAGIC = b"COLSTAT\x1a"
DIGITS = 137  # SACC_DIGITS
U64 = ["count", "missing", "invalid", "nan", "first_invalid_row", "min_row",
       "max_row", "min_row_int", "max_row_int", "sum_r"]
SUMS = ["sum", "sumsq", "sumsq_corr"]


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if self.at + n > len(self.data):
            raise ValueError("cut short")
        self.at += n
        return self.data[self.at - n:self.at]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def f64(self):
        return struct.unpack("<d", self.take(8))[0]


def _sacc(r):
    return {"d": [r.u64() for _ in range(DIGITS)], "pos_inf": r.u64(),
            "neg_inf": r.u64()}


def _column(r):
    c = {"name": r.take(r.u32()), "index": r.u32()}
    for k in U64:
        c[k] = r.u64()
    c["min"], c["max"] = r.f64(), r.f64()
    c["min_corr"], c["max_corr"], c["all_int"] = r.u32(), r.u32(), r.u32()
    for k in SUMS:
        c[k] = _sacc(r)
    n = r.u32()
    c["hist"] = None
    if n:
        h = {"lo": r.f64(), "hi": r.f64(), "underflow": r.u64(),
             "overflow": r.u64()}
        h["bins"] = [r.u64() for _ in range(n)]
        c["hist"] = h
    return c


def decode(data):
    """A state's fields: a dict of version, key, what, rows, columns."""
    r = Reader(data)
    if r.take(8) != MAGIC:
        raise ValueError("no magic")
    s = {"version": r.u32()}
    s["key"] = r.take(r.u32())
    s["what"] = r.u32()
    length = r.u64()
    end = r.at + length
    s["rows"] = r.u64()
    s["columns"] = [_column(r) for _ in range(r.u32())]
    if r.at != end or end + 4 != len(data):
        raise ValueError("length")
    return s


def _u64(v):
    return struct.pack("<Q", v & (2**64 - 1))


def _u32(v):
    return struct.pack("<I", v & (2**32 - 1))


def _encode_column(c):
    out = [_u32(len(c["name"])), c["name"], _u32(c["index"])]
    out += [_u64(c[k]) for k in U64]
    out += [struct.pack("<dd", c["min"], c["max"])]
    out += [_u32(c["min_corr"]), _u32(c["max_corr"]), _u32(c["all_int"])]
    for k in SUMS:
        out += [_u64(d) for d in c[k]["d"]]
        out += [_u64(c[k]["pos_inf"]), _u64(c[k]["neg_inf"])]
    h = c["hist"]
    if h is None:
        out.append(_u32(0))
    else:
        out += [_u32(len(h["bins"])), struct.pack("<dd", h["lo"], h["hi"]),
                _u64(h["underflow"]), _u64(h["overflow"])]
        out += [_u64(b) for b in h["bins"]]
    return b"".join(out)


def encode(s, length=None):
    """The bytes of s, its CRC-32 valid; length: the payload length to
    declare (default: the true one)."""
    body = _u64(s["rows"]) + _u32(len(s["columns"])) + b"".join(
        _encode_column(c) for c in s["columns"])
    head = MAGIC + _u32(s["version"]) + _u32(len(s["key"])) + s["key"] + \
        _u32(s["what"]) + _u64(len(body) if length is None else length)
    data = head + body
    return data + _u32(zlib.crc32(data))


def set_sum(c, k, value):
    """Sets c's sum k to the integer value (in units of 2^-2176), as
    normalised digits: [0, 2^32) below a signed top digit."""
    d = []
    for _ in range(DIGITS - 1):
        d.append(value & 0xffffffff)
        value >>= 32
    d.append(value)  # the top digit: what is left, signed
    c[k]["d"] = d


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
    "invalid without its row": lambda s: _busy(s).update(
        invalid=_busy(s)["invalid"] + 1, first_invalid_row=0),
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

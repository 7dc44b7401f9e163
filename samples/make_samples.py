#!/usr/bin/env python3
"""Regenerates the sample data sets in samples/ (deterministic: a fixed
seed, gzip with no timestamp or name). Python 3 standard library only.

usage: python3 samples/make_samples.py [OUTDIR]     (default: samples/)
"""
import datetime
import gzip
import math
import os
import random
import struct
import sys

SEED = 20260101


def sensors(rng):
    """Eight sensors, one reading a minute each for about 42 hours: a daily
    temperature cycle, humidity that moves against it, slowly drifting
    pressure; sensor S05 drops out now and then (empty fields) and S08's
    humidity probe reports "ERR" for a stretch."""
    out = ["timestamp,sensor,temperature_c,humidity_pct,pressure_hpa"]
    t0 = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
    base = {f"S{i:02d}": (rng.uniform(15, 22), rng.uniform(-0.5, 0.5))
            for i in range(1, 9)}
    pressure = 1013.0
    for minute in range(2500):
        ts = (t0 + datetime.timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pressure += rng.gauss(0, 0.05)
        day = math.sin(2 * math.pi * (minute / 1440.0 - 0.25))
        for sid, (t_base, p_off) in base.items():
            temp = t_base + 4.0 * day + rng.gauss(0, 0.3)
            hum = min(100.0, max(5.0, 55 - 12 * day + rng.gauss(0, 2.5)))
            pres = pressure + p_off + rng.gauss(0, 0.2)
            fields = [ts, sid, f"{temp:.2f}", f"{hum:.1f}", f"{pres:.2f}"]
            if sid == "S05" and rng.random() < 0.01:
                fields[2:] = ["", "", ""]
            elif rng.random() < 0.002:
                fields[rng.randint(2, 4)] = ""
            if sid == "S08" and 1200 <= minute < 1260:
                fields[3] = "ERR"
            out.append(",".join(fields))
    return ("\n".join(out) + "\n").encode()


ADJ = ["Small", "Large", "Heavy-duty", "Compact", "Deluxe", "Basic", "Eco"]
ITEMS = ["widget", "gadget", "bracket", "hinge", "valve", "cable", "clamp",
         "fan", "filter", "lamp"]
CATS = ["Hardware", "Electrical", "Garden, outdoor", "Plumbing", "Lighting"]


def quote(s):
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s


def prices(rng):
    """A shop's price list: names and categories with commas and quotes,
    prices in euros, quantities in stock, an occasional "call us" price."""
    out = ["sku,name,category,price_eur,quantity,weight_kg"]
    for n in range(1500):
        name = f"{rng.choice(ADJ)} {rng.choice(ITEMS)}"
        r = rng.random()
        if r < 0.2:
            name += f', {rng.choice(["pack of 10", "set of 3", "blue, matte"])}'
        elif r < 0.3:
            name += f' "{rng.choice(["Pro", "Max", "Mini"])}"'
        price = round(math.exp(rng.gauss(2.5, 1.1)), 2)
        price_text = f"{price:.2f}" if rng.random() > 0.005 else "call us"
        qty = str(int(rng.expovariate(1 / 40))) if rng.random() > 0.01 else ""
        weight = f"{rng.uniform(0.05, 12):.3f}"
        out.append(",".join([f"SKU-{10000 + n}", quote(name),
                             quote(rng.choice(CATS)), price_text, qty, weight]))
    return ("\r\n".join(out) + "\r\n").encode()  # as a spreadsheet saves it


def points(rng):
    """10000 points (x, y, z) as raw little-endian f64x3: three Gaussian
    clusters and a uniform background."""
    centres = [(0.0, 0.0, 0.0, 1.0), (5.0, -2.0, 3.0, 0.5), (-4.0, 6.0, -1.0, 2.0)]
    buf = bytearray()
    for _ in range(10000):
        if rng.random() < 0.1:
            p = [rng.uniform(-10, 10) for _ in range(3)]
        else:
            cx, cy, cz, s = rng.choice(centres)
            p = [rng.gauss(cx, s), rng.gauss(cy, s), rng.gauss(cz, s)]
        buf += struct.pack("<3d", *p)
    return bytes(buf)


def breaks():
    """A spreadsheet's export whose second header holds a line break
    (quoted), as `--list-columns` shows it."""
    rows = ['site,"load\n(kW)"'] + [f"S{i:02d},{(i * 37) % 50 + 0.5}"
                                    for i in range(1, 13)]
    return ("\n".join(rows) + "\n").encode()


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    rng = random.Random(SEED)
    files = {
        "sensors.csv.gz": gzip.compress(sensors(rng), compresslevel=9, mtime=0),
        "prices.csv": prices(rng),
        "points.f64": points(rng),
        "breaks.csv": breaks(),
    }
    for name, data in files.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()

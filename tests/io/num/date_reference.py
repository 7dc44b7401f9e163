#!/usr/bin/env python3
"""The exact reference of test_parse_kind: reads lines of
'Y M D h m s us offset_minutes date_only zone' and writes, per line, the
instant in microseconds since 1970 UTC and its ISO 8601 text as
src/report/report.h's report_instant_text writes it ('-' when the instant falls
outside datetime's years), and a zoned datetime's text at the offset it was
written in, as report_instant_at writes it ('-' for any other), from
Python's datetime alone."""
import sys
from datetime import datetime, timedelta

EPOCH = datetime(1970, 1, 1)


def iso(dt, date_only, zone):
    text = "%04d-%02d-%02d" % (dt.year, dt.month, dt.day)
    if date_only:
        return text
    text += "T%02d:%02d:%02d" % (dt.hour, dt.minute, dt.second)
    if dt.microsecond:
        text += ("." + "%06d" % dt.microsecond).rstrip("0")
    return text + ("Z" if zone else "")


def at_offset(local, off):
    sign = "-" if off < 0 else "+"
    zone = "Z" if off == 0 else "%s%02d:%02d" % (sign, abs(off) // 60,
                                                 abs(off) % 60)
    return iso(local, 0, 0) + zone


for line in sys.stdin:
    y, mo, d, h, mi, s, us, off, date_only, zone = map(int, line.split())
    delta = (datetime(y, mo, d, h, mi, s, us) - EPOCH) - timedelta(minutes=off)
    micros = delta // timedelta(microseconds=1)
    try:
        text = iso(EPOCH + delta, date_only, zone)
    except OverflowError:
        text = "-"
    local = datetime(y, mo, d, h, mi, s, us)
    print(micros, text, at_offset(local, off) if zone and not date_only
          else "-")

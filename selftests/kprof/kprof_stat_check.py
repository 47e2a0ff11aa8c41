#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parse and check the outputs of 'kprofctl stat' for kprof_stat_test.sh.

    values FORMAT FILE        print "event status value" per event, summed
                              over CPUs; value in the table's units (msec
                              for task-clock and cpu-clock)
    compare TOL EVENTS F:FILE...
                              every file parses in its format F (table, csv,
                              json, prom), they list the same events with the
                              same status, and the counts of EVENTS (a comma
                              separated list) agree within TOL percent
    prom FILE                 strict check of the Prometheus text exposition
                              format (0.0.4); blocks separated by a blank line
                              are checked one by one
    json FILE                 every line is a JSON object

Exits 0 when the check holds, 1 with the reason on stdout otherwise.
"""

import json
import math
import re
import sys

CLOCKS = ("task-clock", "cpu-clock")
STATUS = ("<not supported>", "<not counted>")


class Bad(Exception):
    pass


def number(s):
    return float(s.replace(",", "").replace("'", ""))


TABLE = re.compile(r"^\s*(?:\d+\.\d{9}\s+)?(?:CPU(?P<cpu>\d+)\s+)?"
                   r"(?P<count><not supported>|<not counted>|[0-9][0-9,.']*)\s+"
                   r"(?:msec\s+)?(?P<event>\S+)")


def parse_table(text):
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#") or "Performance counter stats" in line:
            continue
        if "seconds time elapsed" in line or "seconds user" in line or "seconds sys" in line:
            continue
        m = TABLE.match(line)
        if not m:
            raise Bad("table: unexpected line %r" % line)
        add(out, m.group("event"), m.group("count"))
    return out


def add(out, event, count):
    status = count if count in STATUS else "counted"
    value = 0.0 if status != "counted" else number(count)
    old = out.get(event)
    if old is None or old[0] != "counted":
        out[event] = (status, value) if old is None or status == "counted" else old
    else:
        out[event] = ("counted", old[1] + value)


def parse_csv(text, sep=","):
    out = {}
    for line in text.splitlines():
        if not line:
            continue
        f = line.split(sep)
        while f and (re.match(r"^\s*\d+\.\d{9}$", f[0]) or re.match(r"^CPU\d+$", f[0])):
            f = f[1:]
        if len(f) < 7:
            raise Bad("csv: %d fields in %r" % (len(f), line))
        value, unit, event = f[0], f[1], f[2]
        if unit not in ("", "msec"):
            raise Bad("csv: unit %r in %r" % (unit, line))
        int(f[-4])                      # time running
        float(f[-3])                    # percentage running
        add(out, event, value)
    return out


def parse_json(text):
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise Bad("json: line %d: %s: %r" % (n, e, line))
        if not isinstance(obj, dict):
            raise Bad("json: line %d is not an object" % n)
        if "event" not in obj:
            continue
        for key in ("counter-value", "unit", "event-runtime", "pcnt-running",
                    "metric-value", "metric-unit"):
            if key not in obj:
                raise Bad("json: line %d lacks %r" % (n, key))
        add(out, obj["event"], obj["counter-value"])
    return out


NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"'
LABEL_NC = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s)(?:,%s)*)?\})? (\S+)(?: (-?\d+))?$"
                    % (NAME, LABEL_NC, LABEL_NC))
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


def prom_value(s):
    if s in ("+Inf", "-Inf", "NaN"):
        return float(s.replace("Inf", "inf").replace("NaN", "nan"))
    if not re.match(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", s):
        raise Bad("prom: bad value %r" % s)
    return float(s)


def parse_prom_block(text):
    """{family: [(labels, value)]}; raises Bad on anything the format forbids."""
    families, types, helps, seen, done = {}, {}, {}, set(), set()
    current = None
    for n, line in enumerate(text.split("\n"), 1):
        if line == "":
            continue
        if line.startswith("#"):
            m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % NAME, line)
            if not m:
                if re.match(r"^# (HELP|TYPE)\b", line):
                    raise Bad("prom: line %d: malformed %r" % (n, line))
                continue                    # a plain comment
            kind, name, rest = m.groups()
            if kind == "TYPE":
                if rest not in TYPES:
                    raise Bad("prom: line %d: unknown type %r" % (n, rest))
                if name in types:
                    raise Bad("prom: line %d: second TYPE for %s" % (n, name))
                if name in families:
                    raise Bad("prom: line %d: TYPE after samples of %s" % (n, name))
                types[name] = rest
            else:
                if name in helps:
                    raise Bad("prom: line %d: second HELP for %s" % (n, name))
                helps[name] = rest
            continue
        m = SAMPLE.match(line)
        if not m:
            raise Bad("prom: line %d: not a sample: %r" % (n, line))
        name, labelstr, value = m.group(1), m.group(2), prom_value(m.group(3))
        labels = {}
        if labelstr:
            for k, v in re.findall(LABEL, labelstr):
                if k in labels:
                    raise Bad("prom: line %d: label %s twice" % (n, k))
                labels[k] = v.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
        if name != current:
            if name in done:
                raise Bad("prom: line %d: samples of %s not together" % (n, name))
            if current:
                done.add(current)
            current = name
        if name not in types:
            raise Bad("prom: line %d: %s has no TYPE" % (n, name))
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            raise Bad("prom: line %d: duplicate sample %r" % (n, line))
        seen.add(key)
        families.setdefault(name, []).append((labels, value))
    for name in types:
        if name not in helps:
            raise Bad("prom: %s has no HELP" % name)
    return families


def parse_prom(text):
    blocks = [b for b in re.split(r"\n\n+", text) if b.strip()]
    if not blocks:
        raise Bad("prom: empty")
    for b in blocks:
        fams = parse_prom_block(b)
    # the last block: the final counts
    out = {}
    supported = {tuple(sorted(l.items())): v for l, v in fams.get("kprof_stat_supported", [])}
    counts = {}
    for labels, v in fams.get("kprof_stat_events_total", []):
        counts.setdefault(labels["event"], 0.0)
        counts[labels["event"]] += v
    for key, v in supported.items():
        event = dict(key)["event"]
        if not v:
            out[event] = ("<not supported>", 0.0)
        elif event in counts:
            c = counts[event] / 1e6 if event in CLOCKS else counts[event]
            out[event] = ("counted", c)
        elif event not in out:
            out[event] = ("<not counted>", 0.0)
    return out


def parse(fmt, path):
    text = open(path).read()
    if fmt == "table":
        return parse_table(text)
    if fmt == "csv":
        return parse_csv(text)
    if fmt == "json":
        return parse_json(text)
    if fmt == "prom":
        return parse_prom(text)
    raise Bad("unknown format %r" % fmt)


def main(argv):
    try:
        if argv[0] == "values":
            for ev, (st, v) in parse(argv[1], argv[2]).items():
                print(ev, st.replace(" ", "_"), "%.3f" % v)
        elif argv[0] == "compare":
            tol = float(argv[1])
            events = argv[2].split(",")
            got = [(a, parse(*a.split(":", 1))) for a in argv[3:]]
            ref_name, ref = got[0]
            for name, vals in got[1:]:
                if set(vals) != set(ref):
                    raise Bad("%s lists %s, %s lists %s" % (name, sorted(vals), ref_name,
                                                            sorted(ref)))
                for ev in ref:
                    if vals[ev][0] != ref[ev][0]:
                        raise Bad("%s: %s is %s, %s in %s" % (ev, name, vals[ev][0],
                                                            ref[ev][0], ref_name))
                    a, b = vals[ev][1], ref[ev][1]
                    if ev in events and abs(a - b) > tol / 100 * max(abs(a), abs(b), 1):
                        raise Bad("%s: %s has %g, %s has %g" % (ev, name, a, ref_name, b))
            print("%d outputs agree on %d events" % (len(got), len(ref)))
        elif argv[0] == "prom":
            parse_prom(open(argv[1]).read())
            print("valid exposition format")
        elif argv[0] == "json":
            parse_json(open(argv[1]).read())
            print("valid JSON lines")
        else:
            raise Bad("unknown command %r" % argv[0])
    except Bad as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

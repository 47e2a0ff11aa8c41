#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize a `make bench` run: the overhead table and results.json.

Usage: report.py OUTDIR JSON [--meta KEY=VALUE]... [--clear-ratio R]

Reads OUTDIR/results.txt (written by tools/bench/guest.sh in the guest) and
OUTDIR/host.txt (perf's lost-sample counts, found by run.sh on the host),
prints the table and writes JSON.  Exit status 0 when every run succeeded,
1 otherwise; the performance targets are reported but do not fail it.
"""

import argparse
import json
import statistics
import sys


def parse_lines(path):
    """Lines of KEY=VALUE tokens; a missing file gives no lines."""
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                row = {}
                for tok in line.split():
                    if "=" in tok:
                        k, v = tok.split("=", 1)
                        row[k] = v
                rows.append(row)
    except FileNotFoundError:
        pass
    return rows


def num(v):
    """'123' -> 123, '1.5' -> 1.5, '-' or '' or None -> None."""
    if v is None or v in ("", "-"):
        return None
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


def fmt(v, spec, width):
    return format(v, spec).rjust(width) if v is not None else "-".rjust(width)


def get(t, key, scale=1.0):
    """t[key] * scale, or None when t or t[key] is missing."""
    if not t or t.get(key) is None:
        return None
    return t[key] * scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("json")
    ap.add_argument("--meta", action="append", default=[],
                    help="KEY=VALUE added to the JSON's top level")
    ap.add_argument("--clear-ratio", type=float, default=0.8,
                    help="kprof/perf overhead ratio counted as clearly lower")
    args = ap.parse_args()

    rows = parse_lines(f"{args.outdir}/results.txt")
    host = {r.get("data"): r for r in parse_lines(f"{args.outdir}/host.txt")
            if r.get("kind") == "perf-lost"}
    if not rows:
        print(f"bench: no results in {args.outdir}/results.txt", file=sys.stderr)
        return 1

    info = {}
    for r in rows:
        if r.get("kind") == "info":
            info.update({k: v if num(v) is None else num(v)
                         for k, v in r.items() if k != "kind"})
    mem = {r["tool"]: {k: num(v) if num(v) is not None else v
                       for k, v in r.items() if k not in ("kind", "tool")}
           for r in rows if r.get("kind") == "mem"}

    runs = []
    for r in rows:
        if r.get("kind") != "run":
            continue
        run = {
            "tool": r["tool"],
            "rate": num(r.get("rate")),
            "round": num(r.get("round")),
            "status": r.get("status"),
            "exit": num(r.get("exit")),
            "seconds": num(r.get("seconds")),
            "units": num(r.get("units")),
            "throughput": num(r.get("throughput")),
            "samples": num(r.get("samples")),
            "lost": num(r.get("lost")),
            "bytes": num(r.get("bytes")),
            "data": r.get("data"),
        }
        if run["tool"] == "kprof":
            run["balance"] = r.get("balance") or None
            run["handler_avg_ns"] = num(r.get("avg_ns"))
            run["handler_max_ns"] = num(r.get("max_ns"))
        h = host.get(r.get("data"))
        if run["tool"] == "perf" and h:
            run["lost"] = num(h.get("lost"))
            run["lost_records"] = num(h.get("lost_records"))
            run["lost_samples_records"] = num(h.get("lost_samples"))
            run["throttle_records"] = num(h.get("throttle"))
        runs.append(run)

    ok_runs = [r for r in runs if r["status"] == "ok"]
    base_tp = [r["throughput"] for r in ok_runs if r["tool"] == "baseline"]
    baseline = mean(base_tp)
    spread = (max(base_tp) - min(base_tp)) / baseline if base_tp and baseline else None

    rates = []
    for rate in dict.fromkeys(r["rate"] for r in runs if r["tool"] != "baseline"):
        entry = {"rate": rate}
        for tool in ("perf", "kprof"):
            sel = [r for r in ok_runs if r["tool"] == tool and r["rate"] == rate]
            if not sel:
                entry[tool] = None
                continue
            tp = mean(r["throughput"] for r in sel)
            samples = mean(r["samples"] for r in sel)
            lost = [r["lost"] for r in sel]
            ovh = 1 - tp / baseline if baseline and tp is not None else None
            # Guest time is instructions (1 ns each), and the workload sees
            # RATE samples per second: what one sample costs it, all in
            # (interrupt, handler, reader).  Samples outside the timed
            # window (start-up, exit) cost the workload nothing.
            cost = ovh * 1e9 / rate if ovh is not None and rate else None
            entry[tool] = {
                "throughput": tp,
                "overhead": ovh,
                "samples": samples,
                "lost": None if any(x is None for x in lost) else sum(lost) / len(lost),
                "bytes": mean(r["bytes"] for r in sel),
                "instructions_per_sample": cost,
                "runs": len(sel),
            }
        p, k = entry.get("perf"), entry.get("kprof")
        entry["ratio"] = (k["overhead"] / p["overhead"]
                          if p and k and p["overhead"] else None)
        rates.append(entry)

    # ---- the table ----
    print()
    print(f"kprof bench: {info.get('kernel', '?')}, {info.get('ncpus', '?')} vCPU, "
          f"QEMU -icount (guest ns = instructions), event {info.get('event', '?')}, "
          f"{info.get('seconds', '?')} s per run, system-wide, call chains")
    if baseline:
        print(f"baseline: {baseline:.2f} units/s over {len(base_tp)} runs "
              f"({', '.join(f'{x:.2f}' for x in base_tp)}; spread {spread * 100:.3f} %)")
    hdr = (f"{'rate':>7}  {'baseline':>9}  {'perf':>9} {'perf-ovh':>8}  {'kprof':>9} "
           f"{'kprof-ovh':>9}  {'kprof/perf':>10}  {'perf samples/lost':>17}  "
           f"{'kprof samples/lost':>18}  {'insn/sample perf/kprof':>22}")
    print(hdr)
    print("-" * len(hdr))

    def sl(t):
        if not t:
            return "-"
        s = f"{t['samples']:.0f}" if t["samples"] is not None else "-"
        lo = f"{t['lost']:.0f}" if t["lost"] is not None else "?"
        return f"{s}/{lo}"

    for e in rates:
        p, k = e["perf"], e["kprof"]
        cost = "/".join(fmt(get(t, "instructions_per_sample"), ".0f", 0) for t in (p, k))
        print(f"{str(e['rate']) + ' Hz':>7}  {fmt(baseline, '.2f', 9)}  "
              f"{fmt(get(p, 'throughput'), '.2f', 9)} "
              f"{fmt(get(p, 'overhead', 100), '.3f', 7)}%  "
              f"{fmt(get(k, 'throughput'), '.2f', 9)} "
              f"{fmt(get(k, 'overhead', 100), '.3f', 8)}%  "
              f"{fmt(e['ratio'], '.3f', 10)}  {sl(p):>17}  {sl(k):>18}  {cost:>22}")

    # ---- memory ----
    memory = {}
    for tool, m in mem.items():
        per_cpu = m.get("per_cpu_bytes")
        cpus = m.get("cpus")
        if isinstance(per_cpu, int) and isinstance(cpus, int):
            memory[tool] = dict(m, total_bytes=per_cpu * cpus)
        else:
            memory[tool] = m
    if memory:
        parts = []
        for tool in ("perf", "kprof"):
            m = memory.get(tool)
            if m and "total_bytes" in m:
                parts.append(f"{tool} {m['per_cpu_bytes'] / 1024:.0f} KiB/CPU x {m['cpus']}")
        if parts:
            print("sample buffers: " + ", ".join(parts))

    # ---- targets ----
    targets = {}
    both = [e for e in rates if e["ratio"] is not None]
    if both:
        targets["kprof_not_above_perf_every_rate"] = all(
            e["kprof"]["overhead"] <= e["perf"]["overhead"] for e in both)
        top = [e for e in both if e["rate"] == 4999]
        if top:
            targets["kprof_clearly_lower_at_4999"] = top[0]["ratio"] <= args.clear_ratio
            targets["clear_ratio"] = args.clear_ratio
    k999 = [e for e in rates if e["rate"] == 999 and e["kprof"]]
    if k999:
        targets["kprof_zero_loss_at_999"] = k999[0]["kprof"]["lost"] == 0
    for k, v in targets.items():
        if isinstance(v, bool):
            print(f"target {k}: {'PASS' if v else 'FAIL'}")

    failed = [r for r in runs if r["status"] != "ok"]
    for r in failed:
        print(f"FAILED: {r['tool']} at {r['rate']} Hz round {r['round']} (exit {r['exit']})")

    doc = {
        "info": info,
        "baseline": {"throughput": baseline, "runs": base_tp, "spread": spread},
        "rates": rates,
        "memory": memory,
        "targets": targets,
        "runs": runs,
    }
    for kv in args.meta:
        k, _, v = kv.partition("=")
        doc[k] = v if num(v) is None else num(v)
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"JSON: {args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

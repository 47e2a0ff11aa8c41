#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize a `make bench` run: the overhead table and results.json.

Usage: report.py OUTDIR JSON [--markdown MD] [--meta KEY=VALUE]...

Also the aggregate-mode rows, the floor (kprof_floor.ko's empty and
walk-only handlers) and the BPF peers (bpftrace, BCC profile) with kprof's
cost as multiples of each, the sched_switch tracepoint cost and the
decoding speed when the guest measured them; the targets of issue 37 as
PASS/FAIL; with --markdown, the sampling tables and targets as markdown.

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


# what runs beside the workload at each rate (guest.sh --tools)
SAMPLERS = ("perf", "kprof", "kprof-noleaf", "agg", "three", "floor-empty", "floor-walk",
            "bpftrace", "bcc", "kprof-stages", "agg-stages")
LABELS = {
    "floor-empty": "floor: empty handler",
    "floor-walk": "floor: walk only",
    "perf": "perf record -g",
    "kprof": "kprof record -g (stream)",
    "kprof-noleaf": "kprof record -g --no-leaf-fixup",
    "agg": "kprof start -g --mode aggregate",
    "three": "stream + 2 aggregating sessions",
    "bpftrace": "bpftrace profile:hz",
    "bcc": "BCC profile",
    "kprof-stages": "stream, stage build",
    "agg-stages": "aggregate, stage build",
}
# module/stages.h's stages, in the order of the sampling path; "handler"
# is kprof_overflow() whole, "mark" one stage mark's own cost
STAGES = ("admit", "header", "kernel_unwind", "user_walk", "ring_write", "aggregate", "exit")
STAGE_LABELS = {
    "admit": "admit: clock, filter, cost cap",
    "header": "record header",
    "kernel_unwind": "kernel unwind (ORC)",
    "user_walk": "user walk (frame pointers)",
    "ring_write": "ring: lost, reserve, copy, commit",
    "aggregate": "aggregate: hash, find, count",
    "exit": "exit: clock, handler stats",
}
BPF_PEERS = ("bpftrace", "bcc")
# issue 37's targets: (name, kprof's tool, the other, the highest ratio)
RATIO_TARGETS = (
    ("stage2_stream_le_0.80x_perf", "kprof", "perf", 0.80),
    ("goal_stream_le_0.65x_perf", "kprof", "perf", 0.65),
    ("goal_agg_le_1.2x_floor_walk", "agg", "floor-walk", 1.2),
    ("goal_agg_le_0.65x_bcc", "agg", "bcc", 0.65),
    ("goal_agg_le_0.65x_bpftrace", "agg", "bpftrace", 0.65),
)
# stage 2's and the goal's stream targets hold at these rates
STREAM_TARGET_RATES = (999, 4999)


def stage_costs(sel):
    """Guest instructions per sample by stage, from the stage build's runs.

    Each stage's sum includes the clock read that ends it: one mark's cost
    ("mark", measured once per sample) is taken off per mark.  The entry
    and exit work of kprof_overflow() (the guard, perf's data) is what the
    whole handler leaves after its stages and their marks.
    """
    tot = {}
    for r in sel:
        for k, v in (r.get("stages") or {}).items():
            if v is not None:
                tot[k] = tot.get(k, 0) + v
    n = tot.get("handler_marks")
    if not n or not tot.get("mark_marks"):
        return None
    mark = tot["mark_ns"] / tot["mark_marks"]
    out = {"mark": mark, "handlers": n / len(sel)}
    inner = 0.0
    marks = 0
    for st in STAGES:
        m = tot.get(f"{st}_marks", 0)
        if m:
            out[st] = (tot[f"{st}_ns"] - m * mark) / n
            inner += out[st]
            marks += m
    # the handler's own end mark, kprof_sample()'s opening clock read and
    # its calibration mark come on top of the stages' marks
    handler = tot["handler_ns"] / n - (marks / n + 3) * mark
    out["handler"] = handler
    out["entry_exit"] = handler - inner
    w = tot.get("wakeup_marks", 0)
    out["wakeup"] = (tot["wakeup_ns"] - w * mark) / n if w else 0.0
    out["wakeups_per_sample"] = w / n
    return out


def stage_table(rates, md):
    """The sampling path's cost by stage (make bench-stages), per sample."""
    cols = [e for e in rates if (e.get("kprof-stages") or {}).get("stages")
            or (e.get("agg-stages") or {}).get("stages")]
    if not cols:
        return []
    heads = []
    for e in cols:
        for t in ("kprof-stages", "agg-stages"):
            if (e.get(t) or {}).get("stages"):
                heads.append((e, t))
    rows = [(STAGE_LABELS[st], st) for st in STAGES]
    rows = [("kprof_overflow() entry and exit, guard", "entry_exit")] + rows + [
        ("= the handler", "handler"), ("reader wakeup (irq_work)", "wakeup")]

    def cell(e, t, key):
        st = e[t]["stages"]
        if key in st:
            return f"{st[key]:.0f}"
        return "-"

    def per_sample(e, tool, key):
        v = (e.get(tool) or {}).get(key)
        return f"{v:.0f}" if v is not None else "-"

    name = {"kprof-stages": "stream", "agg-stages": "aggregate"}
    lines = []
    if md:
        lines.append("| guest instructions per sample | " +
                     " | ".join(f"{name[t]} {e['rate']} Hz" for e, t in heads) + " |")
        lines.append("|---|" + "---|" * len(heads))
    else:
        lines.append("the sampling path by stage, guest instructions per sample "
                     "(stage build; one mark's cost taken off each stage)")
        lines.append(f"{'':>40}" + "".join(f"  {name[t] + ' ' + str(e['rate']):>16}"
                                          for e, t in heads))
    out = [(label, [cell(e, t, key) for e, t in heads]) for label, key in rows]
    # (tool None: the column's stage build; "default": its default build)
    for label, tool, key in (
            ("recorder (kprofctl record CPU)", None, "recorder_insn_per_sample"),
            ("all in, stage build (lost throughput)", None, "instructions_per_sample"),
            ("all in, default build", "default", "instructions_per_sample"),
            ("perf record -g, all in", "perf", "instructions_per_sample"),
            ("perf record's own CPU", "perf", "recorder_insn_per_sample"),
            ("floor: walk only, all in", "floor-walk", "instructions_per_sample"),
            ("floor: empty handler, all in", "floor-empty", "instructions_per_sample")):
        cells = []
        for e, t in heads:
            if tool is None:
                cells.append(per_sample(e, t, key))
            elif tool == "default":
                cells.append(per_sample(e, t.replace("-stages", ""), key))
            else:
                cells.append(per_sample(e, tool, key))
        out.append((label, cells))
    out.append(("one stage mark", [f"{e[t]['stages']['mark']:.0f}" for e, t in heads]))
    for label, cells in out:
        if md:
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        else:
            lines.append(f"{label:>40}" + "".join(f"  {c:>16}" for c in cells))
    return lines


def sampling_tables(rates, md):
    """The overhead of everything beside the workload, and kprof's multiples."""
    lines = []
    tools = [t for t in SAMPLERS if any(e.get(t) for e in rates)]
    if not tools:
        return lines
    if md:
        lines.append("| tool | " + " | ".join(f"{e['rate']} Hz" for e in rates) + " |")
        lines.append("|---|" + "---|" * len(rates))
    else:
        lines.append("overhead (lost workload throughput) and guest instructions per sample")
        lines.append(f"{'tool':>32}" + "".join(f"  {str(e['rate']) + ' Hz':>22}" for e in rates))
    for t in tools:
        cells = []
        for e in rates:
            x = e.get(t)
            if not x or x["overhead"] is None:
                cells.append("-")
                continue
            c = f"{x['overhead'] * 100:.3f} %"
            if x.get("instructions_per_sample") is not None:
                c += f", {x['instructions_per_sample']:.0f} insn"
            cells.append(c)
        if md:
            lines.append(f"| {LABELS[t]} | " + " | ".join(cells) + " |")
        else:
            lines.append(f"{LABELS[t]:>32}" + "".join(f"  {c:>22}" for c in cells))
    keys = [k for k in ("kprof/perf", "kprof/kprof-noleaf", "kprof/floor-walk",
                        "kprof/floor-empty", "agg/floor-walk",
                        "agg/floor-empty", "agg/bpftrace", "agg/bcc", "agg/perf")
            if any(k in e["multiples"] for e in rates)]
    if keys:
        if md:
            lines.append("")
            lines.append("| kprof's cost as a multiple of | " +
                         " | ".join(f"{e['rate']} Hz" for e in rates) + " |")
            lines.append("|---|" + "---|" * len(rates))
        else:
            lines.append("")
            lines.append("kprof's overhead as a multiple of the other's (stream: kprof record; "
                         "agg: aggregate mode)")
        for k in keys:
            mine, other = k.split("/")
            label = f"{'stream' if mine == 'kprof' else 'agg'} / {LABELS[other]}"
            cells = [f"{e['multiples'][k]:.3f}x" if k in e["multiples"] else "-" for e in rates]
            if md:
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            else:
                lines.append(f"{label:>44}" + "".join(f"  {c:>10}" for c in cells))
    extra = extra_session_costs(rates)
    if extra:
        lines.append("")
        if md:
            lines.append("| sessions side by side, guest instructions per tick | " +
                         " | ".join(f"{e['rate']} Hz" for e in rates) + " |")
            lines.append("|---|" + "---|" * len(rates))
        else:
            lines.append("sessions side by side: guest instructions per tick (three: the stream "
                         "record and two aggregating sessions)")
        for label, cells in extra:
            if md:
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            else:
                lines.append(f"{label:>44}" + "".join(f"  {c:>10}" for c in cells))
    return lines


def extra_session_costs(rates):
    """What each session beside the first costs per tick, against one alone."""
    def insn(e, t):
        x = e.get(t)
        return x.get("instructions_per_sample") if x else None

    if not any(insn(e, "three") is not None and insn(e, "kprof") is not None for e in rates):
        return []
    rows = {"three sessions": [], "each extra session: (three - stream) / 2": [],
            "an aggregating session alone": [], "extra / alone": []}
    for e in rates:
        t, k, a = insn(e, "three"), insn(e, "kprof"), insn(e, "agg")
        extra = (t - k) / 2 if t is not None and k is not None else None
        rows["three sessions"].append(f"{t:.0f}" if t is not None else "-")
        rows["each extra session: (three - stream) / 2"].append(
            f"{extra:.0f}" if extra is not None else "-")
        rows["an aggregating session alone"].append(f"{a:.0f}" if a is not None else "-")
        rows["extra / alone"].append(f"{extra / a:.3f}x" if extra is not None and a else "-")
    return list(rows.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("json")
    ap.add_argument("--meta", action="append", default=[],
                    help="KEY=VALUE added to the JSON's top level")
    ap.add_argument("--markdown", help="also write the sampling tables as markdown here")
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
        run["parent"] = r.get("parent")
        run["parent_cpu_ns"] = num(r.get("parent_cpu_ns"))
        if run["tool"].endswith("-stages"):
            run["stages"] = {k[len("stage_"):]: num(v) for k, v in r.items()
                             if k.startswith("stage_")}
        if run["tool"] in ("kprof", "kprof-stages", "three"):
            run["balance"] = r.get("balance") or None
            run["handler_avg_ns"] = num(r.get("avg_ns"))
            run["handler_max_ns"] = num(r.get("max_ns"))
        if run["tool"].startswith("floor-"):
            run["kernel_frames"] = num(r.get("kernel_frames"))
            run["user_frames"] = num(r.get("user_frames"))
        if run["tool"] in ("agg", "agg-stages"):
            run["balance"] = r.get("balance") or None
            run["agg_used"] = num(r.get("agg_used"))
            run["agg_entries"] = num(r.get("agg_entries") or r.get("session_agg_entries"))
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
        for tool in SAMPLERS:
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
                # how far the rounds of one build are apart: max - min
                # of their throughputs over the mean
                "round_spread": ((max(r["throughput"] for r in sel) -
                                  min(r["throughput"] for r in sel)) / tp
                                 if len(sel) > 1 and tp else None),
            }
            if tool.startswith("floor-"):
                entry[tool]["kernel_frames"] = mean(r.get("kernel_frames") for r in sel)
                entry[tool]["user_frames"] = mean(r.get("user_frames") for r in sel)
            if tool == "agg":
                entry[tool]["agg_used"] = mean(r.get("agg_used") for r in sel)
                entry[tool]["agg_entries"] = sel[0].get("agg_entries")
            # the recorder's own CPU (the workload's parent: perf record,
            # kprofctl record) per sample, in the timed part
            rec = [r["parent_cpu_ns"] / r["samples"] for r in sel
                   if r.get("parent") in ("perf", "kprofctl") and r.get("parent_cpu_ns")
                   is not None and r.get("samples")]
            entry[tool]["recorder_insn_per_sample"] = mean(rec)
            if tool.endswith("-stages"):
                entry[tool]["stages"] = stage_costs(sel)
        p, k, a = entry.get("perf"), entry.get("kprof"), entry.get("agg")
        entry["ratio"] = (k["overhead"] / p["overhead"]
                          if p and k and p["overhead"] else None)
        entry["agg_vs_stream"] = (a["overhead"] / k["overhead"]
                                  if a and k and k["overhead"] else None)
        entry["agg_vs_perf"] = (a["overhead"] / p["overhead"]
                                if a and p and p["overhead"] else None)
        # kprof's cost as multiples of the floor's and the BPF peers'
        entry["multiples"] = {}
        for mine in ("kprof", "agg"):
            for other in ("floor-empty", "floor-walk", "perf", "bpftrace", "bcc",
                          "kprof-noleaf"):
                m, o = entry.get(mine), entry.get(other)
                if m and o and o["overhead"] and m["overhead"] is not None:
                    entry["multiples"][f"{mine}/{other}"] = m["overhead"] / o["overhead"]
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

    if any(e.get("agg") for e in rates):
        print()
        print("aggregate mode: kprofctl start -a -g -F RATE --mode aggregate (no reader), "
              "same workload; agg/stream = its overhead over kprof record's")
        hdr2 = (f"{'rate':>7}  {'agg':>9} {'agg-ovh':>8}  {'agg/stream':>10}  {'agg/perf':>8}  "
                f"{'agg samples/lost':>16}  {'insn/sample':>11}  {'entries used':>14}")
        print(hdr2)
        print("-" * len(hdr2))
        for e in rates:
            a = e.get("agg")
            if not a:
                continue
            used = (f"{a['agg_used']:.0f}/{a['agg_entries']}"
                    if a.get("agg_used") is not None and a.get("agg_entries") else "-")
            print(f"{str(e['rate']) + ' Hz':>7}  {fmt(get(a, 'throughput'), '.2f', 9)} "
                  f"{fmt(get(a, 'overhead', 100), '.3f', 7)}%  "
                  f"{fmt(e['agg_vs_stream'], '.3f', 10)}  {fmt(e['agg_vs_perf'], '.3f', 8)}  "
                  f"{sl(a):>16}  {fmt(get(a, 'instructions_per_sample'), '.0f', 11)}  {used:>14}")

    # ---- the floor and the BPF peers beside kprof ----
    table = sampling_tables(rates, md=False)
    if table:
        print()
        for line in table:
            print(line)
    # the rounds of one build: kprof's, perf's and the floor's (the BPF
    # peers' own spread is printed apart: it is theirs, not the rig's)
    spreads = [(t, e["rate"], e[t]["round_spread"]) for e in rates for t in SAMPLERS
               if t not in BPF_PEERS and e.get(t) and e[t].get("round_spread") is not None]
    peer_spreads = [(t, e["rate"], e[t]["round_spread"]) for e in rates for t in BPF_PEERS
                    if e.get(t) and e[t].get("round_spread") is not None]
    if spreads:
        worst = max(spreads, key=lambda x: x[2])
        print(f"rounds of one build: throughputs at most {worst[2] * 100:.4f} % apart "
              f"({worst[0]} at {worst[1]} Hz)")
    if peer_spreads:
        pworst = max(peer_spreads, key=lambda x: x[2])
        print(f"the BPF peers' rounds: at most {pworst[2] * 100:.4f} % apart "
              f"({pworst[0]} at {pworst[1]} Hz)")

    # ---- the stage build: the sampling path by stage ----
    st_table = stage_table(rates, md=False)
    if st_table:
        print()
        for line in st_table:
            print(line)

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
        for tool, label in (("perf", "perf mmap"), ("kprof", "kprof stream ring"),
                            ("agg", "kprof aggregate tables")):
            m = memory.get(tool)
            if m and "total_bytes" in m:
                extra = ""
                if tool == "agg":
                    extra = f" ({m.get('agg_entries')} entries x {m.get('entry_bytes')} B"
                    if isinstance(m.get("ring_bytes"), int):
                        extra += f", + {m['ring_bytes'] / 1024:.0f} KiB ring"
                    extra += ")"
                parts.append(f"{label} {m['per_cpu_bytes'] / 1024:.0f} KiB/CPU x {m['cpus']}"
                             f" = {m['total_bytes'] / 1024:.0f} KiB{extra}")
        if parts:
            print()
            print("kernel memory: " + "; ".join(parts))

    # ---- sched_switch tracepoint cost ----
    sw_rows = [r for r in rows if r.get("kind") == "switch"]
    switch = None
    if sw_rows:
        sw_ok = {}
        for r in sw_rows:
            if r.get("status") == "ok":
                sw_ok.setdefault(r["tool"], []).append(r)
        skipped = {r["tool"]: r.get("reason") for r in sw_rows if r.get("status") == "skip"}
        sbase = mean(num(r.get("throughput")) for r in sw_ok.get("baseline", []))
        switch = {"baseline": sbase,
                  "baseline_runs": [num(r.get("throughput")) for r in sw_ok.get("baseline", [])],
                  "skipped": skipped, "switches_per_round_trip": 2}
        print()
        print("sched:sched_switch with call chains, system-wide (-a -g), on `workload --pingpong`"
              " (two processes, pipe round trips; 2 switches each)")
        if sbase:
            print(f"baseline: {sbase:.1f} round trips/s "
                  f"({', '.join(f'{x:.1f}' for x in switch['baseline_runs'])})")
        hdr3 = (f"{'tool':>6}  {'trips/s':>9}  {'overhead':>8}  {'ns/switch':>9}  "
                f"{'samples':>8}  {'samples/trip':>12}  {'lost':>5}")

        def switch_table(tools, width):
            """One row per tool: throughput, overhead, extra guest ns per switch."""
            print(" " * (width - 6) + hdr3)
            print("-" * (len(hdr3) + width - 6))
            for tool in tools:
                sel = sw_ok.get(tool)
                if not sel:
                    if tool in skipped:
                        print(f"{tool:>{width}}  skipped: {skipped[tool]}")
                    elif any(r["tool"] == tool for r in sw_rows):
                        print(f"{tool:>{width}}  FAILED")
                    continue
                tp = mean(num(r.get("throughput")) for r in sel)
                units = mean(num(r.get("units")) for r in sel)
                samples = mean(num(r.get("samples")) for r in sel)
                lost = mean(num(r.get("lost")) for r in sel)
                ovh = 1 - tp / sbase if sbase and tp else None
                # Extra guest ns (= instructions) per round trip, per switch.
                per_sw = (1e9 / tp - 1e9 / sbase) / 2 if sbase and tp else None
                switch[tool] = {"throughput": tp, "overhead": ovh, "ns_per_switch": per_sw,
                                "samples": samples, "lost": lost,
                                "samples_per_round_trip": samples / units if samples and units else None}
                print(f"{tool:>{width}}  {fmt(tp, '.1f', 9)}  "
                      f"{fmt(ovh * 100 if ovh is not None else None, '.2f', 7)}%  "
                      f"{fmt(per_sw, '.0f', 9)}  {fmt(samples, '.0f', 8)}  "
                      f"{fmt(switch[tool]['samples_per_round_trip'], '.2f', 12)}  {fmt(lost, '.0f', 5)}")

        def ratio(a, b, key):
            if switch.get(a) and switch.get(b) and switch[b]["ns_per_switch"]:
                switch[key] = switch[a]["ns_per_switch"] / switch[b]["ns_per_switch"]
                print(f"{a}/{b} cost per switch: {switch[key]:.3f}")

        switch_table(("perf", "kprof"), 6)
        ratio("kprof", "perf", "ratio")
        # scheduler analysis: sched record vs perf sched record, runqlat vs BCC's
        sched_tools = ("perf-sched", "kprof-sched", "bcc-runqlat", "kprof-runqlat",
                       "bcc-offcputime", "kprof-offcpu")
        if any(t in sw_ok or t in skipped for t in sched_tools):
            print()
            print("scheduler analysis on the same workload (samples: events recorded; runqlat: waits"
                  " counted; offcpu: stacks printed)")
            switch_table(sched_tools, 14)
            ratio("kprof-sched", "perf-sched", "sched_record_ratio")
            ratio("kprof-runqlat", "bcc-runqlat", "runqlat_ratio")
            ratio("kprof-offcpu", "bcc-offcputime", "offcpu_ratio")

    # ---- lock contention: cost per contention event, the uncontended fast path ----
    lk_rows = [r for r in rows if r.get("kind") == "lock"]
    lock = None
    if lk_rows:
        lock = {}
        print()
        print("lock contention, system-wide (-a): `workload --lockpipe` (4 writers on one pipe's"
              " mutex) and `workload --pipeself` (the same mutex, uncontended)")
        hdr4 = (f"{'tool':>9}  {'mode':>8}  {'units/s':>10}  {'overhead':>8}  {'contended':>9}  "
                f"{'ns/contention':>13}")
        print(hdr4)
        print("-" * len(hdr4))
        for mode in ("lockpipe", "pipeself"):
            ok = {}
            for r in lk_rows:
                if r.get("mode") == mode and r.get("status") == "ok":
                    ok.setdefault(r["tool"], []).append(r)
            base = mean(num(r.get("throughput")) for r in ok.get("baseline", []))
            lock[mode] = {"baseline": base,
                          "baseline_runs": [num(r.get("throughput")) for r in ok.get("baseline", [])]}
            for tool in ("baseline", "perf", "kprof", "kprof-agg"):
                sel = ok.get(tool)
                if not sel:
                    if any(r["tool"] == tool and r.get("mode") == mode for r in lk_rows):
                        print(f"{tool:>9}  {mode:>8}  FAILED")
                    continue
                tp = mean(num(r.get("throughput")) for r in sel)
                secs = mean(num(r.get("seconds")) for r in sel)
                cont = mean(num(r.get("contended")) for r in sel) if tool != "baseline" else None
                ovh = 1 - tp / base if base and tp and tool != "baseline" else None
                # extra guest ns (= instructions) over the run, per contention seen
                per = (ovh * secs * 1e9 / cont) if ovh is not None and secs and cont else None
                lock[mode][tool] = {"throughput": tp, "overhead": ovh, "contended": cont,
                                    "ns_per_contention": per}
                print(f"{tool:>9}  {mode:>8}  {fmt(tp, '.1f', 10)}  "
                      f"{fmt(ovh * 100 if ovh is not None else None, '.2f', 7)}%  "
                      f"{fmt(cont, '.0f', 9)}  {fmt(per, '.0f', 13)}")
        lp = lock.get("lockpipe", {})
        for a in ("kprof", "kprof-agg"):
            if lp.get(a, {}).get("ns_per_contention") and lp.get("perf", {}).get("ns_per_contention"):
                key = f"{a}_perf_ratio"
                lock[key] = lp[a]["ns_per_contention"] / lp["perf"]["ns_per_contention"]
                print(f"{a}/perf cost per contention: {lock[key]:.3f}")

    # ---- decoding speed ----
    dec_rows = [r for r in rows if r.get("kind") == "decode"]
    decode = None
    skips = {r.get("what"): r.get("reason") for r in rows if r.get("kind") == "skip"}
    if dec_rows:
        decode = {"commands": []}
        rec = {r["tool"]: r for r in dec_rows if r.get("cmd") == "record"}
        print()
        print("decoding speed: CPU time (user+sys = guest instructions) of each command on a "
              "recording of `workload` with -a -g -c PERIOD -e cpu-clock")
        for tool, r in rec.items():
            print(f"  {tool} recording: {r.get('samples')} samples, "
                  f"{(num(r.get('bytes')) or 0) / 1e6:.1f} MB, -c {r.get('period')} for "
                  f"{r.get('seconds')} s")
        hdr4 = f"{'command':>24}  {'samples':>8}  {'cpu s':>8}  {'wall s':>8}  {'samples/s':>10}"
        print(hdr4)
        print("-" * len(hdr4))
        names = {"report": "report", "report-g": "report -g", "script": "script",
                 "folded": "folded"}
        speed = {}
        for r in dec_rows:
            if r.get("cmd") == "record":
                continue
            n = num(r.get("samples"))
            cpu = ((num(r.get("user")) or 0) + (num(r.get("sys")) or 0)
                   if r.get("user") not in (None, "-") else None)
            sps = n / cpu if n and cpu and r.get("status") == "ok" else None
            label = (f"kprofctl {names.get(r['cmd'], r['cmd'])}" if r["tool"] == "kprof"
                     else f"perf {r['cmd']}" + (" --stdio" if r["cmd"] == "report" else ""))
            speed[(r["tool"], r["cmd"])] = sps
            decode["commands"].append({"tool": r["tool"], "cmd": r["cmd"], "status": r.get("status"),
                                       "samples": n, "cpu_seconds": cpu,
                                       "wall_seconds": num(r.get("real")),
                                       "samples_per_second": sps})
            print(f"{label:>24}  {fmt(n, '.0f', 8)}  {fmt(cpu, '.2f', 8)}  "
                  f"{fmt(num(r.get('real')), '.2f', 8)}  {fmt(sps, '.0f', 10)}"
                  + ("" if r.get("status") == "ok" else "  FAILED"))
        ratios = {}
        pr, ps = speed.get(("perf", "report")), speed.get(("perf", "script"))
        for cmd, base in (("report", pr), ("report-g", pr), ("script", ps), ("folded", ps)):
            k = speed.get(("kprof", cmd))
            if k and base:
                ratios[f"kprof_{cmd}_vs_perf_{'report' if base is pr else 'script'}"] = k / base
        decode["speedups"] = ratios
        decode["recordings"] = {t: {k: num(v) if num(v) is not None else v for k, v in r.items()}
                                for t, r in rec.items()}
        if ratios:
            print("speed-up over perf: " + ", ".join(f"{k} {v:.1f}x" for k, v in ratios.items()))
    elif "decode" in skips:
        print()
        print(f"decoding speed: skipped ({skips['decode']})")
    if "agg" in skips:
        print(f"aggregate mode: skipped ({skips['agg']})")

    # ---- targets (issue 37), reported, never asserted ----
    targets = {}
    for name, mine, other, limit in RATIO_TARGETS:
        sel = [e for e in rates if f"{mine}/{other}" in e["multiples"] and
               (mine != "kprof" or e["rate"] in STREAM_TARGET_RATES)]
        if sel:
            targets[name] = all(e["multiples"][f"{mine}/{other}"] <= limit for e in sel)
    k999 = [e for e in rates if e["rate"] == 999 and e["kprof"]]
    if k999 and k999[0]["kprof"]["lost"] is not None:
        targets["goal_stream_zero_loss_at_999"] = k999[0]["kprof"]["lost"] == 0
    bal = [r for r in ok_runs if r["tool"] in ("kprof", "agg", "three")]
    if bal:
        targets["every_balance_exact"] = all(r.get("balance") == "ok" for r in bal)
    if spreads:
        targets["rounds_agree_within_0.1pct"] = all(x[2] <= 0.001 for x in spreads)
    for k, v in targets.items():
        print(f"target {k}: {'PASS' if v else 'FAIL'}")

    failed = [r for r in runs if r["status"] != "ok"]
    for r in failed:
        print(f"FAILED: {r['tool']} at {r['rate']} Hz round {r['round']} (exit {r['exit']})")
    for r in rows:
        if r.get("kind") in ("switch", "lock", "decode") and r.get("status") == "fail":
            print(f"FAILED: {r['kind']} {r.get('tool')} {r.get('cmd', '')} (exit {r.get('exit')})")
            failed.append(r)

    doc = {
        "info": info,
        "baseline": {"throughput": baseline, "runs": base_tp, "spread": spread},
        "rates": rates,
        "memory": memory,
        "sched_switch": switch,
        "lock": lock,
        "decode": decode,
        "skipped": skips,
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
    if args.markdown:
        meta = dict(kv.partition("=")[::2] for kv in args.meta)
        md = [f"# make bench: {info.get('kernel', '?')}, commit {meta.get('commit', '?')}, "
              f"{meta.get('date', '?')}",
              "",
              f"QEMU TCG `-icount shift=0,sleep=off`, {info.get('ncpus', '?')} vCPU (guest ns = "
              f"instructions), event {info.get('event', '?')}, system-wide with call chains, "
              f"{info.get('seconds', '?')} guest s per run, {info.get('rounds', '?')} rounds; "
              f"perf {info.get('perf_version', '-')}, bpftrace {info.get('bpftrace_version', '-')}, "
              f"BCC {info.get('bcc_version', '-')}.  Overhead = lost workload throughput "
              f"against the workload alone"
              + (f" ({baseline:.2f} units/s, baseline runs {spread * 100:.4f} % apart)."
                 if baseline and spread is not None else "."),
              ""]
        md += sampling_tables(rates, md=True)
        st_md = stage_table(rates, md=True)
        if st_md:
            md += [""] + st_md
        md += ["", "| target | result |", "|---|---|"]
        md += [f"| {k} | {'PASS' if v else 'FAIL'} |" for k, v in targets.items()]
        if spreads:
            md += ["", f"Rounds of one build (kprof, perf, the floor): throughputs at most "
                   f"{worst[2] * 100:.4f} % apart ({worst[0]} at {worst[1]} Hz)."]
        if peer_spreads:
            md += [f"The BPF peers' rounds: at most {pworst[2] * 100:.4f} % apart "
                   f"({pworst[0]} at {pworst[1]} Hz)."]
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
        print(f"markdown: {args.markdown}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks on a kprof.data file, through `kprofctl dump --json`, used by
kprof_record_test.sh until kprofctl decodes symbols itself.

  kprof_record_check.py user-chain DATA BINARY LEAF CALLER... : samples of
      BINARY's process whose innermost user frame is LEAF have the callers
      in order; addresses are resolved with BINARY's symbol table (nm) and
      its program headers (readelf), through the recording's MMAP records.
  kprof_record_check.py kernel-path DATA COMM SYMBOL... : kernel chains of
      COMM's samples contain every SYMBOL (resolved with /proc/kallsyms).
  kprof_record_check.py only-pid DATA PID : every sample is PID's.
  kprof_record_check.py only-tid DATA TID : every sample is thread TID's.
  kprof_record_check.py modes DATA kernel|user : every sample is in that
      mode and has no chain of the other.
  kprof_record_check.py annotate DATA OUT : OUT is `kprofctl annotate
      --percent-type local-hits` of kernel or module symbols of DATA (read
      from /proc/kcore) of the first event: for each symbol, every address
      a sample was taken at (its ip, named with /proc/kallsyms) is an instruction line
      with the share of the symbol's samples there, and the hottest line is
      the most sampled address.
  kprof_record_check.py annotate-peer KPROF_OUT PERF_OUT : the hottest
      instruction of one symbol in kprofctl annotate's and perf annotate's
      --stdio outputs is the same or a neighbour, and the two shares of it
      are within 5 points.

Prints what it found and exits 1 when the check fails."""

import bisect
import json
import os
import subprocess
import sys

KPROFCTL = os.environ.get("KPROFCTL", "kprofctl")


def records(data):
    run = subprocess.run([KPROFCTL, "dump", "--json", "-i", data],
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit("kprofctl dump --json -i %s: exit %d: %s" %
                 (data, run.returncode, run.stderr.strip()[-2000:]))
    out = run.stdout
    objs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    return [o for o in objs if "type" in o]	# the first object is the header


class Symbols:
    def __init__(self, pairs):
        pairs.sort()
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr)
        return self.names[i - 1] if i else "?"


def elf_symbols(binary):
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    pairs = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            pairs.append((int(f[0], 16), f[2]))
    return Symbols(pairs)


def elf_loads(binary):
    """(offset, vaddr, filesz) of each PT_LOAD."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                         text=True, check=True).stdout
    loads = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return loads


def user_chain(data, binary, leaf, callers):
    recs = records(data)
    real = os.path.realpath(binary)
    maps = [r for r in recs if r["type"] == "MMAP" and os.path.realpath(r["filename"]) == real]
    if not maps:
        print(f"no MMAP record for {binary}")
        return 1
    pid = maps[-1]["pid"]
    syms, loads = elf_symbols(binary), elf_loads(binary)

    def resolve(addr):
        for m in maps:
            start, ln = int(m["start"], 16), int(m["len"], 16)
            if m["pid"] == pid and start <= addr < start + ln:
                off = addr - start + int(m["pgoff"], 16)
                for poff, vaddr, size in loads:
                    if poff <= off < poff + size:
                        return syms.name(off - poff + vaddr)
        return "?"

    samples = [r for r in recs if r["type"] == "SAMPLE" and r["pid"] == pid]
    good = bad = 0
    example = None
    for s in samples:
        user = [int(a, 16) for a in s["user"]]
        if not user or resolve(user[0]) != leaf:
            continue
        # return addresses point just after the call: look up addr - 1
        got = [resolve(a - 1) for a in user[1:1 + len(callers)]]
        if got == callers:
            good += 1
        else:
            bad += 1
            example = example or [leaf] + got
    print(f"pid {pid}: {len(samples)} samples, {good + bad} in {leaf}, "
          f"{good} with callers {' <- '.join(callers)}, {bad} otherwise"
          + (f" (e.g. {' <- '.join(example)})" if example else ""))
    return 0 if good >= 50 and bad <= good // 20 else 1


def kallsyms():
    """The kernel's and modules' text symbols, or None when addresses read 0."""
    pairs = []
    with open("/proc/kallsyms") as f:
        for line in f:
            a, t, n = line.split()[:3]
            if t in "tT" and int(a, 16):
                pairs.append((int(a, 16), n))
    return Symbols(pairs) if pairs else None


def kernel_path(data, comm, wanted):
    recs = records(data)
    pids = {r["pid"] for r in recs if r["type"] == "COMM" and r["comm"] == comm}
    ksyms = kallsyms()
    if not ksyms:
        print("no kernel addresses in /proc/kallsyms")
        return 1
    kernel = [r for r in recs if r["type"] == "SAMPLE" and r["pid"] in pids and r["kernel"]]
    hits = sum(all(any(ksyms.name(int(a, 16)) == w for a in r["kernel"]) for w in wanted)
               for r in kernel)
    print(f"{comm} (pids {sorted(pids)}): {len(kernel)} kernel samples, "
          f"{hits} through {' and '.join(wanted)}")
    # the rest are interrupt and preemption paths, more of them on PREEMPT_RT
    return 0 if len(kernel) >= 20 and hits * 2 >= len(kernel) else 1


def only_pid(data, pid):
    samples = [r for r in records(data) if r["type"] == "SAMPLE"]
    other = [r for r in samples if r["pid"] != pid]
    print(f"{len(samples)} samples, {len(other)} not of pid {pid}")
    return 0 if len(samples) >= 20 and not other else 1


def only_tid(data, tid):
    samples = [r for r in records(data) if r["type"] == "SAMPLE"]
    other = [r for r in samples if r["tid"] != tid]
    print(f"{len(samples)} samples, {len(other)} not of thread {tid}")
    return 0 if len(samples) >= 20 and not other else 1


def modes(data, mode):
    samples = [r for r in records(data) if r["type"] == "SAMPLE"]
    if mode == "kernel":
        bad = [r for r in samples if (r["misc"] & 3) != 1 or r["nr_user"]]
    else:
        bad = [r for r in samples if (r["misc"] & 3) != 2 or r["nr_kernel"]]
    print(f"{len(samples)} samples, {len(bad)} not {mode}-only")
    return 0 if len(samples) >= 20 and not bad else 1


def annotate(data, out):
    ksyms = kallsyms()
    if not ksyms:
        print("no kernel addresses in /proc/kallsyms")
        return 1
    hits = {}
    for r in records(data):
        # the sample's address (the leaf with or without a chain), first event's
        if r["type"] == "SAMPLE" and r["misc"] & 1 and r["event"] == 0:
            ip = int(r["ip"], 16)
            hits.setdefault(ksyms.name(ip), {}).setdefault(ip, 0)
            hits[ksyms.name(ip)][ip] += 1
    # the sections: "<sym>:" heads, then "  PCT :   ADDR:   insn" lines
    sections, cur = {}, None
    with open(out) as f:
        for line in f:
            f2 = line.split()
            if len(f2) == 3 and f2[0] == ":" and f2[2].startswith("<") and f2[2].endswith(">:"):
                cur = sections.setdefault(f2[2][1:-2], {})
            elif cur is not None and len(f2) >= 3 and f2[1] == ":" and f2[2].endswith(":"):
                cur[int(f2[2][:-1], 16)] = float(f2[0])
    if not sections:
        print("no annotated symbol in the output")
        return 1
    bad = 0
    for name, lines in sections.items():
        want = hits.get(name, {})
        total = sum(want.values())
        missing = [hex(a) for a in want if a not in lines]
        wrong = [hex(a) for a, n in want.items()
                 if a in lines and abs(lines[a] - 100.0 * n / total) > 0.011]
        top = max(want, key=lambda a: want[a]) if want else None
        hot = max(lines, key=lambda a: lines[a])
        ok = total > 0 and not missing and not wrong and lines[hot] == lines.get(top)
        print(f"{name}: {len(lines)} instructions, {total} samples at {len(want)} addresses; "
              f"hottest {hex(hot)} ({lines[hot]:.2f}%), most sampled "
              f"{hex(top) if top else None}; not an instruction: {missing[:5]}; "
              f"wrong share: {wrong[:5]}")
        bad += not ok
    return 1 if bad else 0


def annotate_lines(out):
    """[(addr, percent)] of the instruction lines of an annotate --stdio output."""
    lines = []
    with open(out) as f:
        for line in f:
            f2 = line.split()
            if len(f2) >= 3 and f2[1] == ":" and f2[2].endswith(":"):
                try:
                    lines.append((int(f2[2][:-1], 16), float(f2[0])))
                except ValueError:
                    pass
    return lines


def annotate_peer(kout, pout):
    k, p = annotate_lines(kout), annotate_lines(pout)
    if not k or not p:
        print(f"kprofctl: {len(k)} instruction lines, perf: {len(p)}")
        return 1
    addrs = [a for a, _ in k]
    kp = dict(k)
    khot = max(k, key=lambda x: x[1])
    phot = max(p, key=lambda x: x[1])
    near = phot[0] in kp and abs(addrs.index(phot[0]) - addrs.index(khot[0])) <= 1
    close = near and abs(kp[phot[0]] - phot[1]) <= 5.0
    print(f"kprofctl: hottest {hex(khot[0])} {khot[1]:.2f}% of {len(k)} instructions; "
          f"perf: hottest {hex(phot[0])} {phot[1]:.2f}% of {len(p)}; "
          f"kprofctl there: {kp.get(phot[0])}")
    return 0 if near and close else 1


def main(argv):
    cmd, data = argv[1], argv[2]
    if cmd == "user-chain":
        return user_chain(data, argv[3], argv[4], argv[5:])
    if cmd == "kernel-path":
        return kernel_path(data, argv[3], argv[4:])
    if cmd == "only-pid":
        return only_pid(data, int(argv[3]))
    if cmd == "only-tid":
        return only_tid(data, int(argv[3]))
    if cmd == "modes":
        return modes(data, argv[3])
    if cmd == "annotate":
        return annotate(data, argv[3])
    if cmd == "annotate-peer":
        return annotate_peer(data, argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

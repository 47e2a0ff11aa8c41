#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Where the return address of a frameless leaf sits at each syscall site of a
shared library (default: Debian's libc), from its .eh_frame: CFA = %rsp + N
at the instruction after each 'syscall', return address at CFA - 8.  Prints
the offset of the syscall wrappers that matter most and how many of all the
sites a stack window of W bytes above %rsp covers, which sizes kprof's leaf
window (Documentation/sampling.rst, issue 42).

    tools/bench/leaf-cfa.py [LIBRARY]

Needs binutils' readelf and objdump; reads nothing else.
"""
import bisect
import re
import subprocess
import sys

LIB = sys.argv[1] if len(sys.argv) > 1 else "/lib/x86_64-linux-gnu/libc.so.6"
WRAPPERS = ["read", "write", "pread", "pwrite", "poll", "ppoll", "select",
            "epoll_wait", "epoll_pwait", "clock_nanosleep",
            "futex_abstimed_wait_common", "lll_lock_wait", "accept", "recvmsg", "recvfrom",
            "sendmsg", "sendto", "connect", "openat", "close", "fsync",
            "waitid", "wait4", "getppid", "sched_yield", "ioctl"]
WINDOWS = [8, 16, 32, 48, 64, 96, 128, 192, 256, 336, 512]


def fdes():
    out = subprocess.run(["readelf", "--debug-dump=frames-interp", LIB],
                         capture_output=True, text=True, check=False).stdout
    table, cur, cols = [], None, []
    for line in out.splitlines():
        m = re.search(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
        if m:
            cur = (int(m.group(1), 16), int(m.group(2), 16), [])
            table.append(cur)
            continue
        if cur is None:
            continue
        if line.strip().startswith("LOC"):
            cols = line.split()
            continue
        f = line.split()
        if len(f) >= 2 and re.fullmatch(r"[0-9a-f]{16}", f[0]):
            rbp = f[cols.index("rbp")] if "rbp" in cols else "u"
            cur[2].append((int(f[0], 16), f[1], rbp))
    table.sort()
    return table


def syscalls():
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", LIB],
                         capture_output=True, text=True, check=False).stdout
    sym, sites = None, []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            sym = re.sub(r"^(__libc_|__GI_|__)", "", m.group(1).split("@")[0])
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+syscall\b", line)
        if m:
            sites.append((int(m.group(1), 16) + 2, sym))
    return sites


def rule(table, starts, pc):
    i = bisect.bisect_right(starts, pc) - 1
    if i < 0 or not table[i][0] <= pc < table[i][1]:
        return None
    row = (table[i][0], "rsp+8", "u")	# the CIE's initial rule
    for r in table[i][2]:
        if r[0] <= pc:
            row = r
    return row


def main():
    table = fdes()
    starts = [f[0] for f in table]
    sites = syscalls()
    offs, anyrsp, named = [], [], {}
    for pc, sym in sites:
        r = rule(table, starts, pc)
        if not r:
            offs.append(None)
            continue
        m = re.fullmatch(r"rsp\+(\d+)", r[1])
        n = int(m.group(1)) if m and r[2] == "u" else None
        offs.append(n)
        anyrsp.append(int(m.group(1)) if m else None)
        named.setdefault(sym, []).append(r[1] + ("" if r[2] == "u" else " rbp " + r[2]))
    print(f"# {LIB}: {len(sites)} syscall sites")
    print("# the wrappers that matter (CFA rule at each of their sites):")
    for w in WRAPPERS:
        if w in named:
            print(f"#   {w:32s} {', '.join(named[w])}")
    print("# window bytes above %rsp -> sites whose return address it holds:")
    print("# %rbp unchanged (spliced) | any %rsp-based CFA")
    for w in WINDOWS:
        cov = sum(1 for n in offs if n is not None and n - 8 < w)
        cov2 = sum(1 for n in anyrsp if n is not None and n - 8 < w)
        print(f"{w:5d} {cov:5d} {100.0 * cov / len(sites):5.1f} % | "
              f"{cov2:5d} {100.0 * cov2 / len(sites):5.1f} %")
    other = sum(1 for n in offs if n is None)
    print(f"# not %rsp-based with %rbp unchanged (or no CFI): {other}")


main()

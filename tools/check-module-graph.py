#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's shape (issue 36), read from the built objects and the
sources:

  - call circles among module objects: object A references (nm: U) a
    symbol object B defines, and B, through any chain, one of A's;
  - include circles among module files (#include "x.h"), x.c and x.h
    counted as one unit x: session.c including probes.h while probes.c
    includes session.h is a circle of two;
  - netlink outside the netlink files: an undefined nla_*, genlmsg_*,
    nlmsg_*, netlink_* or sk_buff helper in an object that is not one;
  - perf counters created or released outside target.o
    (perf_event_create_kernel_counter, perf_event_release_kernel).

Usage: tools/check-module-graph.py [--objdir DIR] [--selftest]

--objdir: where the module's objects are (default: module/ beside this
tool's tree, as 'make module' leaves them).  --selftest plants three
violations in what was read (a call from sideband.o into session.o, an
nla_put in aggread.o, a counter created in counting.o) and checks that each
is reported, then exits.  Prints one line per finding and the circles;
exit status 1 when there is any.

Run by make check and make check-quick on the objects 'make module'
leaves in module/ (Documentation/kprof.rst, "Layers").
"""
import argparse
import os
import re
import subprocess
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
# the files netlink belongs to (issue 36: "netlink only in the netlink files")
NETLINK_OBJS = {'genl.o'}
NETLINK_SYM = re.compile(r'^(__)?(nla_|genlmsg_|nlmsg_|netlink_|genl_|skb_put|__alloc_skb|'
                         r'kfree_skb|consume_skb|skb_trim)')
COUNTER_SYMS = ('perf_event_create_kernel_counter', 'perf_event_release_kernel')
COUNTER_OWNER = 'target.o'


def read_objects(objdir):
    """{object: (defined symbols, undefined symbols)} of module/*.o."""
    objs = {}
    for f in sorted(os.listdir(objdir)):
        if not f.endswith('.o') or f.endswith('.mod.o'):
            continue
        out = subprocess.run(['nm', os.path.join(objdir, f)], capture_output=True,
                             text=True, check=True).stdout
        defined, undefined = set(), set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == 'U':
                undefined.add(parts[1])
            elif len(parts) == 3 and parts[1] in 'TDBR':
                defined.add(parts[2])
        objs[f] = (defined, undefined)
    return objs


def read_includes(srcdir):
    """{file: [module files it includes]} of module/*.[ch]."""
    inc = {}
    for f in sorted(os.listdir(srcdir)):
        if f.endswith(('.c', '.h')):
            with open(os.path.join(srcdir, f), encoding='utf-8') as fh:
                text = fh.read()
            inc[f] = [h for h in re.findall(r'^#include\s+"([^"/]+)"', text, re.M)
                      if os.path.exists(os.path.join(srcdir, h))]
    return inc


def circles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(objs, includes):
    """The findings, one line each."""
    found = []
    owner = {}
    for o, (defined, _) in objs.items():
        for s in defined:
            owner.setdefault(s, o)
    calls = {o: set() for o in objs}
    why = {}
    for o, (_, undefined) in objs.items():
        for s in sorted(undefined):
            d = owner.get(s)
            if d and d != o:
                calls[o].add(d)
                why.setdefault((o, d), s)
    for comp in circles(calls):
        found.append(f'call circle of {len(comp)} objects: {" ".join(comp)}')
        members = set(comp)
        for o in comp:
            for d in sorted(calls[o] & members):
                found.append(f'  {o} -> {d} ({why[(o, d)]})')
    units = {}
    for f, inc in includes.items():
        u = units.setdefault(os.path.splitext(f)[0], set())
        u.update(os.path.splitext(h)[0] for h in inc if os.path.splitext(h)[0] != os.path.splitext(f)[0])
    for comp in circles(units):
        found.append(f'include circle of {len(comp)} units (x.c with x.h): {" ".join(comp)}')
        members = set(comp)
        for f in sorted(includes):
            for h in includes[f]:
                if os.path.splitext(h)[0] in members and os.path.splitext(f)[0] in members \
                        and os.path.splitext(h)[0] != os.path.splitext(f)[0]:
                    found.append(f'  {f} includes {h}')
    for o, (_, undefined) in sorted(objs.items()):
        if o in NETLINK_OBJS:
            continue
        nl = sorted(s for s in undefined if NETLINK_SYM.match(s))
        if nl:
            found.append(f'netlink outside the netlink files: {o} uses {", ".join(nl)}')
        pc = sorted(s for s in undefined if s in COUNTER_SYMS)
        if pc and o != COUNTER_OWNER:
            found.append(f'perf counters outside {COUNTER_OWNER}: {o} uses {", ".join(pc)}')
    return found


def selftest(objs, includes):
    """Plant three violations; each must be reported."""
    def planted(o, sym, pattern):
        d, u = objs[o]
        trial = dict(objs)
        trial[o] = (d, u | {sym})
        return any(re.search(pattern, line) for line in check(trial, includes))

    session_fn = sorted(s for s in objs['session.o'][0] if s.startswith('kprof_'))[0]
    sideband_fn = sorted(s for s in objs['sideband.o'][0] if s.startswith('kprof_'))[0]
    # a circle needs session.o to reach sideband.o too: plant both ways
    d, u = objs['session.o']
    base = dict(objs)
    base['session.o'] = (d, u | {sideband_fn})
    results = []
    d2, u2 = base['sideband.o']
    trial = dict(base)
    trial['sideband.o'] = (d2, u2 | {session_fn})
    results.append(('a call from sideband.o into session.o (and back)',
                    any('call circle' in line and 'sideband.o' in line and 'session.o' in line
                        for line in check(trial, includes))))
    results.append(('an nla_put in aggread.o',
                    planted('aggread.o', 'nla_put', r'netlink outside .*aggread\.o.*nla_put')))
    results.append(('a counter created in counting.o',
                    planted('counting.o', 'perf_event_create_kernel_counter',
                            r'perf counters outside .*counting\.o')))
    bad = 0
    for i, (name, ok) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {i} - planted {name} is reported')
        bad += not ok
    print(f'1..{len(results)}')
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--objdir', default=os.path.join(TOP, 'module'))
    ap.add_argument('--selftest', action='store_true')
    args = ap.parse_args()
    objs = read_objects(args.objdir)
    if not objs:
        print(f'check-module-graph: no objects in {args.objdir} (make module)', file=sys.stderr)
        return 2
    includes = read_includes(os.path.join(TOP, 'module'))
    if args.selftest:
        return selftest(objs, includes)
    found = check(objs, includes)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())

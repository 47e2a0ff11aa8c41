#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One owner per header: every function a module header declares is
defined in the .c file of the same name (module/X.h -> module/X.c), and
no .c file includes another .c file.  Prints one line per violation; exit 1 when any."""
import os
import re
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'module')
owner_of = {}
# headers of inline helpers only, or of state shared on purpose
decl_re = re.compile(r'^(?!static\b)(?:[a-z_][\w\s\*]*?)\b(kprof_\w+)\(([^;{]*)\);', re.M)
def_re = r'^(?!static\b)[a-z_][\w\s\*]*?\b%s\([^;]*?\)\s*\{'

sources = {f: open(os.path.join(top, f)).read() for f in os.listdir(top)
           if f.endswith('.c')}
bad = 0
for f, text in sources.items():
    for inc in re.findall(r'#include\s+"([^"]+\.c)"', text):
        print(f'module/{f}: includes module/{inc}')
        bad += 1
for h in sorted(x for x in os.listdir(top) if x.endswith('.h')):
    text = open(os.path.join(top, h)).read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'\\\n', ' ', text)
    owner = owner_of.get(h, h[:-2] + '.c')
    for name, _ in decl_re.findall(re.sub(r'\n\s+', ' ', text)):
        where = [c for c, src in sources.items()
                 if re.search(def_re % re.escape(name), src, re.M | re.S)]
        if not where:
            continue        # a macro, or defined elsewhere (checked by the build)
        if owner not in where:
            print(f'module/{h}: declares {name}(), defined in module/{where[0]}'
                  f' (not module/{owner})')
            bad += 1
sys.exit(1 if bad else 0)

# SPDX-License-Identifier: GPL-2.0
#
# kprof's Core module for perf-style scripts (kprofctl script -s), used
# when perf's own Perf-Trace-Util is not installed: the same names, so
# that a script's 'from Core import *' finds what perf's scripts call.
#
# kprofctl script fills the tables of each tracepoint's __print_flags()
# and __print_symbolic() through define_*() before its first record;
# flag_str() and symbol_str() turn a field's value into their text.

import os
import sys
from collections import defaultdict


def autodict():
    """A dict whose missing keys are dicts of the same kind."""
    return defaultdict(autodict)


flag_fields = autodict()
symbolic_fields = autodict()


def define_flag_field(event_name, field_name, delim):
    flag_fields[event_name][field_name]['delim'] = delim


def define_flag_value(event_name, field_name, value, field_str):
    flag_fields[event_name][field_name]['values'][value] = field_str


def define_symbolic_field(event_name, field_name):
    symbolic_fields[event_name][field_name]


def define_symbolic_value(event_name, field_name, value, field_str):
    symbolic_fields[event_name][field_name]['values'][value] = field_str


def flag_str(event_name, field_name, value):
    """The names of the flags set in value, joined by the field's delimiter."""
    table = flag_fields[event_name][field_name]
    if not table:
        return ""
    values = table['values']
    delim = table['delim'] if 'delim' in table else ""
    names = []
    for bit in sorted(values):
        if value == 0 and bit == 0:
            return values[bit]
        if bit and value & bit == bit:
            names.append(values[bit])
            value &= ~bit
    sep = " " + delim + " " if delim else ""
    return sep.join(names)


def symbol_str(event_name, field_name, value):
    """The name of value in the field's __print_symbolic() table, or ""."""
    table = symbolic_fields[event_name][field_name]
    if not table:
        return ""
    return table['values'].get(value, "")


trace_flags = {0x00: "NONE", 0x01: "IRQS_OFF", 0x02: "IRQS_NOSUPPORT",
               0x04: "NEED_RESCHED", 0x08: "HARDIRQ", 0x10: "SOFTIRQ"}


def trace_flag_str(value):
    """common_flags(context) as names: "IRQS_OFF | NEED_RESCHED"."""
    if not value:
        return "NONE"
    return " | ".join(trace_flags[bit] for bit in sorted(trace_flags)
                      if bit and value & bit == bit)


def taskState(state):
    """A task state of sched_switch's prev_state as the letter ps shows."""
    letters = {0: "R", 1: "S", 2: "D", 64: "DEAD"}
    return letters.get(state, "Unknown")


NSECS_PER_SEC = 1000000000


def avg(total, n):
    return total / n


def nsecs(secs, nsecs):
    return secs * NSECS_PER_SEC + nsecs


def nsecs_secs(nsecs):
    return nsecs // NSECS_PER_SEC


def nsecs_nsecs(nsecs):
    return nsecs % NSECS_PER_SEC


def nsecs_str(nsecs):
    return "%5u.%09u" % (nsecs_secs(nsecs), nsecs_nsecs(nsecs))


def add_stats(dict, key, value):
    """dict[key]: (min, max, avg, count) of the values added."""
    if key not in dict:
        dict[key] = (value, value, value, 1)
    else:
        lo, hi, mean, count = dict[key]
        lo = min(lo, value)
        hi = max(hi, value)
        mean = (mean * count + value) / (count + 1)
        dict[key] = (lo, hi, mean, count + 1)


def clear_term():
    sys.stdout.write("\x1b[H\x1b[2J")

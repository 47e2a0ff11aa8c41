#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that Documentation/netlink/specs/kprof.yaml, the source of truth of
the kprof netlink family, agrees with include/uapi/linux/kprof.h (names and
values of every constant, enum, attribute and command) and module/genl.c
(each operation's policy accepts exactly the request attributes of the spec,
with the spec's types and checks, and the perfmon flag).  Linux 6.1 has no
ynl-gen, so the C side is written by hand; this keeps it honest.

Prints one line per problem and exits 1 when there is any."""

import os
import re
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(TOP, "Documentation/netlink/specs/kprof.yaml")
HDR = os.path.join(TOP, "include/uapi/linux/kprof.h")
GENL = os.path.join(TOP, "module/genl.c")

NLA_TYPES = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32",
             "u64": "NLA_U64", "s32": "NLA_S32", "s64": "NLA_S64",
             "string": "NLA_NUL_STRING", "flag": "NLA_FLAG",
             "binary": "NLA_BINARY", "nest": "NLA_NESTED"}

problems = []


def cname(*parts):
    return "_".join(p.replace("-", "_").upper() for p in parts if p)


def expected_symbols(spec):
    """{C name: value} the header must define."""
    syms = {}
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            syms[cname("kprof", d["name"])] = d["value"]
        elif d["type"] == "enum":
            v = d.get("value-start", 0)
            for e in d["entries"]:
                syms[cname("kprof", d["name"], e)] = v
                v += 1
        elif d["type"] == "flags":
            for i, e in enumerate(d["entries"]):
                syms[cname(d["name-prefix"].rstrip("-"), e)] = 1 << i
    for aset in spec["attribute-sets"]:
        v = 1
        for a in aset["attributes"]:
            v = a.get("value", v)
            syms[cname(aset["name-prefix"].rstrip("-"), a["name"])] = v
            v += 1
    v = 1
    for op in spec["operations"]["list"]:
        v = op.get("value", v)
        syms[cname(spec["operations"]["name-prefix"].rstrip("-"), op["name"])] = v
        v += 1
    return syms


def header_values(names):
    """Compile a program that prints each name's value from the header."""
    src = ("#include <stdio.h>\n#include <linux/perf_event.h>\n"
           "#include <linux/kprof.h>\nint main(void)\n{\n")
    for n in names:
        src += '\tprintf("%%s %%lld\\n", "%s", (long long)(%s));\n' % (n, n)
    src += "\treturn 0;\n}\n"
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "t.c")
        exe = os.path.join(tmp, "t")
        with open(c, "w") as f:
            f.write(src)
        r = subprocess.run(["cc", "-I", os.path.join(TOP, "include/uapi"),
                            "-o", exe, c], capture_output=True, text=True)
        if r.returncode:
            missing = sorted(set(re.findall(r"'([A-Z][A-Z0-9_]+)' undeclared",
                                            r.stderr)))
            for m in missing:
                problems.append(f"header: {m} missing (spec defines it)")
            if not missing:
                problems.append("header: does not compile:\n" + r.stderr)
            return {}
        out = subprocess.run([exe], capture_output=True, text=True).stdout
    return {k: int(v) for k, v in (l.split() for l in out.splitlines())}


def check_header(spec):
    syms = expected_symbols(spec)
    got = header_values(syms)
    for n, v in syms.items():
        if n in got and got[n] != v:
            problems.append(f"header: {n} = {got[n]}, spec says {v}")
    # no enumerator the spec does not know (sentinels excepted)
    text = open(HDR).read()
    netlink = re.compile(r"KPROF_(A|EV_A|STATS_A|COUNT_A|AGG_A|HIST_A|CMD|STATE)_")
    for body in re.findall(r"enum(?:\s+\w+)?\s*\{(.*?)\};", text, re.S):
        names = re.findall(r"^\s*(KPROF_[A-Z0-9_]+)", body, re.M)
        if not any(netlink.match(n) for n in names):
            continue	# data-path enums (records, loss causes): not netlink
        for n in names:
            if n.endswith("_MAX") or n.startswith("__"):
                continue
            if n not in syms:
                problems.append(f"header: {n} is not in the spec")
    return got


def c_blocks(text, pattern):
    """Bodies of C initialisers whose declaration matches pattern."""
    out = {}
    for m in re.finditer(pattern, text):
        i = text.index("{", m.end() - 1)
        depth, j = 0, i
        while True:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out[m.group(1)] = text[i + 1:j]
    return out


def policy_entries(body):
    """{attr C name: (nla type, {check: value})} of a policy initialiser."""
    out = {}
    pat = r"\[(KPROF_\w+)\]\s*=\s*(\{[^}]*\}|NLA_POLICY_\w+\([^)]*\))"
    for name, val in re.findall(pat, body):
        checks = {}
        m = re.match(r"NLA_POLICY_(\w+)\((.*)\)", val, re.S)
        if m:
            kind, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
            if kind == "NESTED":
                out[name] = ("NLA_NESTED", {"nested": args[0]})
                continue
            t = args[0]
            if kind == "MIN":
                checks["min"] = args[1]
            elif kind == "MAX":
                checks["max"] = args[1]
            elif kind == "RANGE":
                checks["min"], checks["max"] = args[1], args[2]
            elif kind == "FULL_RANGE":
                checks["range"] = args[1].lstrip("&")
            elif kind == "MASK":
                checks["flags-mask"] = args[1]
        else:
            t = re.search(r"\.type\s*=\s*(\w+)", val)
            t = t.group(1) if t else None
            ln = re.search(r"\.len\s*=\s*([^,}]+)", val)
            if ln:
                checks["max-len"] = ln.group(1).strip()
        out[name] = (t, checks)
    return out


def c_eval(expr, values, text):
    """Evaluate a C constant expression of the header's names."""
    unknown = [n for n in re.findall(r"\b[A-Z][A-Z0-9_]+\b", expr) if n not in values]
    if unknown:
        values.update(header_values(unknown))
    expr = re.sub(r"(\d+)U?L*L?\b", r"\1", expr)
    for k in sorted(values, key=len, reverse=True):
        expr = re.sub(r"\b%s\b" % k, str(values[k]), expr)
    try:
        return eval(expr, {"__builtins__": {}})
    except Exception:
        return expr


def spec_value(v, spec):
    """A check's value: a number or the name of a const/flags definition."""
    if isinstance(v, int):
        return v
    for d in spec.get("definitions", []):
        if d["name"] == v:
            if d["type"] == "const":
                return d["value"]
            if d["type"] == "flags":
                return (1 << len(d["entries"])) - 1
    return v


def check_attr_policy(cmd, n, spec_attr, entry, policies, sets, values, spec, text):
    t, checks = entry
    want_t = NLA_TYPES[spec_attr["type"]]
    if t != want_t:
        problems.append(f"genl.c: {cmd}: {n} type {t}, spec says {want_t}")
        return
    if spec_attr["type"] == "nest":
        check_nested(cmd, n, checks.get("nested"), spec_attr["nested-attributes"],
                     policies, sets, values, spec, text)
        return
    spec_checks = spec_attr.get("checks", {})
    got = dict(checks)
    if "range" in got:
        rng = re.search(r"%s\s*=\s*\{(.*?)\}" % got.pop("range"), text, re.S)
        if rng:
            for k in ("min", "max"):
                m = re.search(r"\.%s\s*=\s*([^,\n]+)" % k, rng.group(1))
                if m:
                    got[k] = m.group(1).strip()
    for k in ("min", "max", "max-len", "flags-mask"):
        want = spec_checks.get(k)
        have = got.get(k)
        if want is None and have is None:
            continue
        want = spec_value(want, spec) if want is not None else None
        have = c_eval(have, values, text) if have is not None else None
        if want != have:
            problems.append(f"genl.c: {cmd}: {n} check {k} is {have}, spec says {want}")


def check_nested(cmd, n, polname, setname, policies, sets, values, spec, text):
    aset = sets[setname]
    prefix = aset["name-prefix"].rstrip("-")
    if polname not in policies:
        problems.append(f"genl.c: {cmd}: {n}: nested policy '{polname}' not found")
        return
    entries = policy_entries(policies[polname])
    wanted = {cname(prefix, a["name"]): a for a in aset["attributes"] if a["type"] != "pad"}
    for x in sorted(set(entries) - set(wanted)):
        problems.append(f"genl.c: {cmd}: {polname} accepts {x}, the spec does not")
    for x, a in wanted.items():
        if x not in entries:
            problems.append(f"genl.c: {cmd}: {polname} lacks {x}")
        else:
            check_attr_policy(cmd, x, a, entries[x], policies, sets, values, spec, text)


def check_genl(spec, values):
    text = open(GENL).read()
    policies = c_blocks(text, r"static const struct nla_policy (\w+)\[[^\]]*\]\s*=\s*\{")
    ops_table = c_blocks(text, r"static const struct genl_ops (\w+)\[\]\s*=\s*\{")
    if len(ops_table) != 1:
        problems.append("genl.c: expected one genl_ops table")
        return
    ops = {}
    for body in re.findall(r"\{(.*?)\}", list(ops_table.values())[0], re.S):
        fields = dict(re.findall(r"\.(\w+)\s*=\s*([^,]+),", body))
        if "cmd" in fields:
            ops[fields["cmd"].strip()] = fields
    sets = {a["name"]: a for a in spec["attribute-sets"]}
    top = spec["attribute-sets"][0]
    aset = {a["name"]: a for a in top["attributes"]}
    prefix = top["name-prefix"].rstrip("-")
    seen = set()
    for op in spec["operations"]["list"]:
        cmd = cname(spec["operations"]["name-prefix"].rstrip("-"), op["name"])
        seen.add(cmd)
        f = ops.get(cmd)
        if f is None:
            problems.append(f"genl.c: no operation for {cmd}")
            continue
        for mode, handler in (("do", "doit"), ("dump", "dumpit")):
            if (mode in op) != (handler in f):
                problems.append(f"genl.c: {cmd}: {handler} {'missing' if mode in op else 'not in the spec'}")
        want = []
        for mode in ("do", "dump"):
            want += op.get(mode, {}).get("request", {}).get("attributes", [])
        perfmon = "perfmon" in op.get("flags", [])
        has = "KPROF_NL_PERFMON" in f.get("internal_flags", "")
        if perfmon != has:
            problems.append(f"genl.c: {cmd}: perfmon flag {has}, spec says {perfmon}")
        pol = f.get("policy", "").strip()
        if not want:
            if pol:
                problems.append(f"genl.c: {cmd} takes no attributes but has a policy")
            continue
        if pol not in policies:
            problems.append(f"genl.c: {cmd}: policy '{pol}' not found")
            continue
        entries = policy_entries(policies[pol])
        wanted = {cname(prefix, a): a for a in want}
        for n in sorted(set(entries) - set(wanted)):
            problems.append(f"genl.c: {cmd}: policy accepts {n}, the spec does not")
        for n, a in wanted.items():
            if n not in entries:
                problems.append(f"genl.c: {cmd}: policy lacks {n}")
                continue
            check_attr_policy(cmd, n, aset[a], entries[n], policies, sets, values, spec, text)
    for cmd in sorted(set(ops) - seen):
        problems.append(f"genl.c: operation {cmd} is not in the spec")


def main():
    spec = yaml.safe_load(open(SPEC))
    values = check_header(spec)
    check_genl(spec, values)
    for p in problems:
        print(p)
    if not problems:
        print("spec, uapi header and genl.c agree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

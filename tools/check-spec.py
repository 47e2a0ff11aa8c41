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
    src = "#include <stdio.h>\n#include <linux/kprof.h>\nint main(void)\n{\n"
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
            missing = sorted(set(re.findall(r"'(KPROF_[A-Z0-9_]+)' undeclared",
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
    for body in re.findall(r"enum(?:\s+\w+)?\s*\{(.*?)\};", text, re.S):
        for n in re.findall(r"^\s*(KPROF_[A-Z0-9_]+)", body, re.M):
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
    aset = {a["name"]: a for a in spec["attribute-sets"][0]["attributes"]}
    prefix = spec["attribute-sets"][0]["name-prefix"].rstrip("-")
    seen = set()
    for op in spec["operations"]["list"]:
        cmd = cname(spec["operations"]["name-prefix"].rstrip("-"), op["name"])
        seen.add(cmd)
        f = ops.get(cmd)
        if f is None:
            problems.append(f"genl.c: no operation for {cmd}")
            continue
        want = op.get("do", {}).get("request", {}).get("attributes", [])
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
        entries = dict(re.findall(r"\[(KPROF_A_\w+)\]\s*=\s*\{([^}]*)\}",
                                  policies[pol]))
        wanted = {cname(prefix, a): a for a in want}
        for n in sorted(set(entries) - set(wanted)):
            problems.append(f"genl.c: {cmd}: policy accepts {n}, the spec does not")
        for n, a in wanted.items():
            if n not in entries:
                problems.append(f"genl.c: {cmd}: policy lacks {n}")
                continue
            spec_attr = aset[a]
            t = re.search(r"\.type\s*=\s*(\w+)", entries[n])
            if not t or t.group(1) != NLA_TYPES[spec_attr["type"]]:
                problems.append(f"genl.c: {cmd}: {n} type {t and t.group(1)}, "
                                f"spec says {NLA_TYPES[spec_attr['type']]}")
            maxlen = spec_attr.get("checks", {}).get("max-len")
            if maxlen is not None:
                m = re.search(r"\.len\s*=\s*([^,}]+)", entries[n])
                expr = m.group(1).strip() if m else "0"
                for k, v in values.items():
                    expr = re.sub(r"\b%s\b" % k, str(v), expr)
                try:
                    got = eval(expr, {"__builtins__": {}})
                except Exception:
                    got = expr
                if got != maxlen:
                    problems.append(f"genl.c: {cmd}: {n} max length {got}, spec says {maxlen}")
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

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end test of 'kprofctl flamegraph': the SVG of a known folded input
# is well-formed (xmllint), has the expected frames with widths proportional
# to their counts, a 1M-line input is drawn in reasonable time, and the
# interaction works in headless Chromium: the SVG's script reads
# "#search=REGEX&zoom=fN&ignorecase" on load, and the DOM that Chromium
# dumps shows the highlighted frames, the "Matched: x%" text and the zoomed
# widths.  Without Chromium the browser checks are skipped (# SKIP).
#
# usage: ctl/tests/flamegraph-browser.py [KPROFCTL]	(default ctl/kprofctl)
# Prints TAP; exits 1 if a check failed.

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg"}
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FULL = 1180.0		# default width minus the margins
SEARCH_FILL = "rgb(230,0,230)"

FOLDED = """main;foo;bar 30
main;foo;baz 10
main;qux 20
main;read;entry_SYSCALL_64_[k];ksys_read_[k] 15
main;foo;bar 5
x<&>"'y;z 1
"""
TOTAL = 81
COUNTS = {"all": 81, "main": 80, "foo": 45, "bar": 35, "baz": 10, "qux": 20, "read": 15,
	  "entry_SYSCALL_64": 15, "ksys_read": 15, "x<&>\"'y": 1, "z": 1}

n_tests = 0
n_failed = 0


def tap(cond, desc, diag=None):
	global n_tests, n_failed
	n_tests += 1
	print("%sok %d - %s" % ("" if cond else "not ", n_tests, desc), flush=True)
	if not cond:
		n_failed += 1
		if diag:
			for line in str(diag).splitlines()[:20]:
				print("#   " + line)
	return cond


def skip(desc, why):
	global n_tests
	n_tests += 1
	print("ok %d - %s # SKIP %s" % (n_tests, desc, why), flush=True)


def frames(svg_text):
	"""name -> dict(id, title, x, y, width, fill, cls, style) of the frames."""
	root = ET.fromstring(svg_text)
	area = root.find(".//s:g[@id='frames']", NS)
	out = {}
	for g in area.findall("s:g", NS):
		title = g.find("s:title", NS).text
		rect = g.find("s:rect", NS)
		name = title[:title.rfind(" (")]
		out.setdefault(name, {
			"id": g.get("id"), "title": title, "x": float(rect.get("x")),
			"y": float(rect.get("y")), "width": float(rect.get("width")),
			"fill": rect.get("fill"), "cls": g.get("class") or "",
			"style": g.get("style") or "",
			"label": g.find("s:text", NS).text or "",
		})
	return root, out


def text_of(root, ident):
	el = root.find(".//s:text[@id='%s']" % ident, NS)
	return el.text if el is not None else None


class Browser:
	def __init__(self, exe, tmp):
		self.exe = exe
		self.tmp = tmp
		self.errors = []

	def dump(self, path, fragment):
		profile = tempfile.mkdtemp(dir=self.tmp)
		url = "file://" + urllib.parse.quote(path) + "#" + fragment
		cmd = [self.exe, "--headless", "--no-sandbox", "--disable-gpu",
		       "--disable-background-networking", "--disable-component-update",
		       "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
		       "--enable-logging=stderr", "--v=0", "--dump-dom", url]
		try:
			p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
		except subprocess.TimeoutExpired:
			self.errors.append("timeout: " + url)
			return None
		for line in p.stderr.splitlines():
			if "CONSOLE" in line or "Uncaught" in line:
				self.errors.append(line)
		if p.returncode != 0 or "<svg" not in p.stdout:
			self.errors.append("exit %d: %s" % (p.returncode, p.stderr[-500:]))
			return None
		try:
			return frames(p.stdout)
		except ET.ParseError as e:
			self.errors.append("unparseable DOM: %s" % e)
			return None


def kprofctl(exe, *args):
	return subprocess.run([exe] + list(args), capture_output=True, text=True)


def test_svg(exe, tmp):
	src = os.path.join(tmp, "in.folded")
	svg = os.path.join(tmp, "flame.svg")
	with open(src, "w") as f:
		f.write(FOLDED)
	p = kprofctl(exe, "flamegraph", "-i", src, "-o", svg, "--title", "Test <graph>")
	tap(p.returncode == 0 and os.path.exists(svg), "flamegraph: SVG written", p.stderr)
	if p.returncode:
		return None
	if shutil.which("xmllint"):
		x = subprocess.run(["xmllint", "--noout", svg], capture_output=True, text=True)
		tap(x.returncode == 0, "xmllint --noout: well-formed", x.stderr)
	else:
		skip("xmllint --noout: well-formed", "xmllint not installed (libxml2-utils)")
	with open(svg) as f:
		text = f.read()
	root, fr = frames(text)
	tap(set(fr) == set(COUNTS), "the expected frames, kernel suffix stripped", sorted(fr))
	bad = [(n, fr[n]["width"], FULL * c / TOTAL) for n, c in COUNTS.items()
	       if n in fr and abs(fr[n]["width"] - FULL * c / TOTAL) > 0.006]
	tap(not bad, "frame widths proportional to their counts (1180 px = %d samples)" % TOTAL,
	    bad)
	tap(all(("(%s samples" % format(c, ",")) in fr[n]["title"] or
		("(kernel, %s samples" % c) in fr[n]["title"]
		for n, c in COUNTS.items() if n in fr), "tooltips with the samples")
	tap("(kernel, 15 samples, 18.52%)" in fr.get("ksys_read", {}).get("title", ""),
	    "kernel frame tooltip")

	def rgb(s):
		return [int(v) for v in re.findall(r"\d+", s)]
	k, u = rgb(fr["ksys_read"]["fill"]), rgb(fr["bar"]["fill"])
	tap(k[2] > k[0] and u[0] > u[2], "kernel and user frames in distinct hues (%s, %s)" %
	    (fr["ksys_read"]["fill"], fr["bar"]["fill"]))
	tap(text_of(root, "title") == "Test <graph>" and text_of(root, "subtitle") == "81 samples",
	    "title and subtitle")
	return svg, fr


def test_big(exe, tmp):
	"""1M lines: 30000 distinct stacks, shuffled, ~13 frames each."""
	rnd = random.Random(42)
	names = ["fn%d_%s" % (i, rnd.choice(["alloc", "copy", "hash", "parse", "read"]))
		 for i in range(2000)]
	stacks = []
	for i in range(30000):
		st = ["proc%d" % rnd.randrange(16), "main"]
		st += [rnd.choice(names[:40 + i % 2000]) for _ in range(rnd.randrange(4, 16))]
		if rnd.random() < 0.3:
			st += ["k%d_[k]" % rnd.randrange(300) for _ in range(rnd.randrange(1, 6))]
		stacks.append(";".join(st))
	src = os.path.join(tmp, "big.folded")
	with open(src, "w") as f:
		f.writelines("%s %d\n" % (rnd.choice(stacks), rnd.randrange(1, 50))
			     for _ in range(1000000))
	svg = os.path.join(tmp, "big.svg")
	t0 = time.monotonic()
	p = kprofctl(exe, "flamegraph", "-i", src, "-o", svg)
	dt = time.monotonic() - t0
	tap(p.returncode == 0 and dt < 30,
	    "1M-line input drawn in %.1f s (limit 30 s), %d kB of SVG" %
	    (dt, os.path.getsize(svg) // 1024 if os.path.exists(svg) else 0), p.stderr)
	if shutil.which("xmllint") and os.path.exists(svg):
		x = subprocess.run(["xmllint", "--noout", svg], capture_output=True, text=True)
		tap(x.returncode == 0, "1M-line SVG well-formed", x.stderr)


def test_browser(exe, tmp, svg, fr):
	chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or \
		shutil.which("chromium-browser")
	checks = ["search: matched frames highlighted", "search: Matched: x%",
		  "zoom: the frame spans the width", "zoom: callees scaled, others hidden",
		  "zoom and case-insensitive search together",
		  "search: kernel frames, names with XML specials", "icicle (--reverse): zoom",
		  "differential graph: loads, zooms and searches", "no JavaScript errors"]
	if not chromium:
		for c in checks:
			skip("browser: " + c, "chromium not installed")
		return
	b = Browser(chromium, tmp)

	r = b.dump(svg, "search=%5Eba")
	if r:
		root, d = r
		hit = sorted(n for n in d if d[n]["cls"] == "match")
		tap(hit == ["bar", "baz"] and all(d[n]["fill"] == SEARCH_FILL for n in hit) and
		    d["foo"]["fill"] == fr["foo"]["fill"],
		    "browser: search: matched frames highlighted", hit)
		tap(text_of(root, "matched") == "Matched: 55.6%" and
		    text_of(root, "search") == "Reset Search",
		    "browser: search: Matched: x% (45 of 81 samples)", text_of(root, "matched"))
	else:
		tap(False, "browser: search", b.errors)

	foo = fr["foo"]["id"]
	r = b.dump(svg, "zoom=" + foo)
	if r:
		root, d = r
		tap(d["foo"]["width"] == FULL and d["foo"]["x"] == 10,
		    "browser: zoom: the frame spans the width", d["foo"])
		tap(abs(d["bar"]["width"] - FULL * 35 / 45) < 0.01 and
		    abs(d["baz"]["x"] - (10 + FULL * 35 / 45)) < 0.01 and
		    "display: none" in d["qux"]["style"] and "display: none" in d["ksys_read"]["style"] and
		    "opacity: 0.5" in d["main"]["style"] and d["main"]["width"] == FULL,
		    "browser: zoom: callees scaled, ancestors full width, others hidden",
		    {n: (d[n]["x"], d[n]["width"], d[n]["style"]) for n in ("bar", "baz", "qux", "main")})
	else:
		tap(False, "browser: zoom", b.errors)

	r = b.dump(svg, "zoom=%s&search=BAR&ignorecase" % foo)
	if r:
		root, d = r
		tap(d["foo"]["width"] == FULL and d["bar"]["cls"] == "match" and
		    text_of(root, "matched") == "Matched: 43.2%",
		    "browser: zoom and case-insensitive search together", text_of(root, "matched"))
	else:
		tap(False, "browser: zoom and search", b.errors)

	r = b.dump(svg, "search=" + urllib.parse.quote("^ksys_|^x<&>\"'"))
	if r:
		root, d = r
		hit = sorted(n for n in d if d[n]["cls"] == "match")
		tap(hit == ["ksys_read", "x<&>\"'y"] and text_of(root, "matched") == "Matched: 19.8%",
		    "browser: search: kernel frames (suffix stripped), names with XML specials",
		    (hit, text_of(root, "matched")))
	else:
		tap(False, "browser: search kernel frames and special characters", b.errors)

	icicle = os.path.join(tmp, "icicle.svg")
	p = kprofctl(exe, "flamegraph", "-i", os.path.join(tmp, "in.folded"), "-o", icicle,
		     "--reverse")
	r = b.dump(icicle, "zoom=" + frames(open(icicle).read())[1]["bar"]["id"]) \
		if p.returncode == 0 else None
	if r:
		root, d = r
		tap(d["bar"]["width"] == FULL and d["all"]["y"] < d["bar"]["y"] and
		    "display: none" in d["qux"]["style"],
		    "browser: icicle (--reverse): the root on top, zoom works", d["bar"])
	else:
		tap(False, "browser: icicle", (p.stderr, b.errors))

	base = os.path.join(tmp, "base.folded")
	with open(base, "w") as f:
		f.write("main;foo;bar 10\nmain;foo;baz 30\nmain;qux 20\n")
	dsvg = os.path.join(tmp, "diff.svg")
	p = kprofctl(exe, "diff", "--flamegraph", "-o", dsvg, base, os.path.join(tmp, "in.folded"))
	r = b.dump(dsvg, "zoom=f2&search=qux") if p.returncode == 0 else None
	if r:
		root, d = r
		tap(d["foo"]["width"] == FULL and d["qux"]["cls"] == "match" and
		    text_of(root, "matched") == "Matched: 24.7%" and d["bar"]["fill"].startswith("rgb(255,"),
		    "browser: differential graph: loads, zooms and searches",
		    (d["foo"], text_of(root, "matched"), d["bar"]["fill"]))
	else:
		tap(False, "browser: differential graph", (p.stderr, b.errors))

	tap(not b.errors, "browser: no JavaScript errors", b.errors)


def main():
	exe = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "ctl", "kprofctl"))
	if not os.access(exe, os.X_OK):
		print("Bail out! no kprofctl at %s (run 'make -C ctl')" % exe)
		return 1
	with tempfile.TemporaryDirectory(prefix="kprof-flame.") as tmp:
		got = test_svg(exe, tmp)
		test_big(exe, tmp)
		if got:
			test_browser(exe, tmp, *got)
	print("1..%d" % n_tests)
	if n_failed:
		print("# failed %d of %d" % (n_failed, n_tests))
	return 1 if n_failed else 0


if __name__ == "__main__":
	sys.exit(main())

// SPDX-License-Identifier: GPL-2.0
//
// The interaction of kprofctl's flame graphs (lib/flame.c embeds this file
// in every SVG, after "var cfg = {...}", the graph's geometry): zoom
// (click), reset (Reset Zoom, Escape), search (Search, Ctrl-F; "ic" or
// Ctrl-I for case-insensitive) with "Matched: x%", details of the frame
// under the mouse, and the state in the URL fragment
// ("#search=REGEX&zoom=fN&ignorecase"), read on load.  Frames are <g id=fN>
// in pre-order, so a subtree is a range of indices.  It must not contain
// the end of a CDATA section (test-flame checks).
var frames = [], details, matchedtxt, unzoombtn, searchbtn, icbtn;
var ignorecase = false, term = null, zoomed = -1;
function fit(name, w) {
	var chars = Math.floor((w - 6) / (cfg.fs * cfg.fw));
	if (chars < 3) return "";
	if (name.length <= chars) return name;
	return name.substring(0, chars - 2) + "..";
}
function init(evt) {
	details = document.getElementById("details").firstChild;
	matchedtxt = document.getElementById("matched");
	unzoombtn = document.getElementById("unzoom");
	searchbtn = document.getElementById("search");
	icbtn = document.getElementById("ignorecase");
	var gs = document.getElementById("frames").getElementsByTagName("g");
	var stack = [];
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], r = g.getElementsByTagName("rect")[0];
		var info = g.getElementsByTagName("title")[0].textContent;
		var y = parseFloat(r.getAttribute("y"));
		var d = Math.round((y - cfg.top) / cfg.fh);
		var f = { g: g, r: r, t: g.getElementsByTagName("text")[0], info: info,
			name: info.substring(0, info.lastIndexOf(" (")),
			x: parseFloat(r.getAttribute("x")), w: parseFloat(r.getAttribute("width")),
			depth: cfg.inverted ? d : cfg.maxdepth - d, fill: r.getAttribute("fill"),
			parent: -1, end: i };
		while (stack.length && frames[stack[stack.length - 1]].depth >= f.depth)
			stack.pop();
		if (stack.length) f.parent = stack[stack.length - 1];
		for (var k = 0; k < stack.length; k++) frames[stack[k]].end = i;
		stack.push(i);
		frames.push(f);
	}
	var area = document.getElementById("frames");
	area.addEventListener("click", function (e) {
		var i = frame_of(e.target);
		if (i >= 0) zoom(i);
	});
	area.addEventListener("mouseover", function (e) {
		var i = frame_of(e.target);
		if (i >= 0) details.nodeValue = "Function: " + frames[i].info;
	});
	area.addEventListener("mouseout", function (e) { details.nodeValue = " "; });
	unzoombtn.addEventListener("click", function () { unzoom(); });
	searchbtn.addEventListener("click", function () { search_prompt(); });
	icbtn.addEventListener("click", function () { toggle_ignorecase(); });
	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
			e.preventDefault();
			search_prompt();
		} else if (e.ctrlKey && e.keyCode === 73) {
			e.preventDefault();
			toggle_ignorecase();
		} else if (e.keyCode === 27) {
			reset_search();
			unzoom();
		}
	});
	load_params();
}
function frame_of(e) {
	for (; e && e.id !== "frames"; e = e.parentNode)
		if (e.tagName === "g" && e.id && e.id.charAt(0) === "f")
			return parseInt(e.id.substring(1), 10);
	return -1;
}
function place(f, x, w, opacity) {
	f.g.style.display = "";
	f.g.style.opacity = opacity;
	f.r.setAttribute("x", x.toFixed(2));
	f.r.setAttribute("width", w.toFixed(2));
	f.t.setAttribute("x", (x + 3).toFixed(2));
	f.t.textContent = fit(f.name, w);
}
function zoom(i) {
	var z = frames[i], full = cfg.width - 2 * cfg.xpad, ratio = full / z.w;
	var anc = {};
	for (var p = z.parent; p >= 0; p = frames[p].parent) anc[p] = true;
	for (var j = 0; j < frames.length; j++) {
		var f = frames[j];
		if (anc[j]) place(f, cfg.xpad, full, "0.5");
		else if (j >= i && j <= z.end) place(f, cfg.xpad + (f.x - z.x) * ratio, f.w * ratio, "");
		else f.g.style.display = "none";
	}
	zoomed = i;
	unzoombtn.style.opacity = "1";
	save_params();
}
function unzoom() {
	for (var j = 0; j < frames.length; j++) {
		var f = frames[j];
		place(f, f.x, f.w, "");
	}
	zoomed = -1;
	unzoombtn.style.opacity = "0";
	save_params();
}
function reset_search() {
	for (var j = 0; j < frames.length; j++) {
		frames[j].r.setAttribute("fill", frames[j].fill);
		frames[j].g.removeAttribute("class");
	}
	term = null;
	searchbtn.firstChild.nodeValue = "Search";
	searchbtn.style.opacity = "0.5";
	matchedtxt.firstChild.nodeValue = " ";
	save_params();
}
function search_prompt() {
	if (term !== null) {
		reset_search();
		return;
	}
	var t = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
		(ignorecase ? ", ignoring case" : "") +
		"\nPress Ctrl-i to toggle case sensitivity", "");
	if (t !== null && t !== "") search(t);
}
function toggle_ignorecase() {
	ignorecase = !ignorecase;
	icbtn.style.opacity = ignorecase ? "1" : "0.5";
	if (term !== null) search(term);
	else save_params();
}
function search(t) {
	var re;
	try {
		re = new RegExp(t, ignorecase ? "i" : "");
	} catch (err) {
		matchedtxt.firstChild.nodeValue = "Bad regexp: " + t;
		return;
	}
	reset_search();
	term = t;
	var sum = 0, end = -1, hits = 0;
	for (var j = 0; j < frames.length; j++) {
		var f = frames[j];
		if (j === 0 || !re.test(f.name)) continue;
		f.r.setAttribute("fill", cfg.searchcolor);
		f.g.setAttribute("class", "match");
		hits++;
		/* Count a matched frame once, not again for its matched callees. */
		if (j > end) {
			sum += f.w;
			end = f.end;
		}
	}
	var pct = frames.length ? 100 * sum / frames[0].w : 0;
	searchbtn.firstChild.nodeValue = "Reset Search";
	searchbtn.style.opacity = "1";
	matchedtxt.firstChild.nodeValue = "Matched: " +
		(pct >= 99.995 ? "100" : pct.toFixed(1)) + "%";
	matchedtxt.setAttribute("data-frames", hits);
	save_params();
}
function load_params() {
	var h = location.hash.substring(1), z = null, s = null;
	if (!h) return;
	var kv = h.split("&");
	for (var i = 0; i < kv.length; i++) {
		var eq = kv[i].indexOf("=");
		var k = eq < 0 ? kv[i] : kv[i].substring(0, eq);
		var v = eq < 0 ? "" : kv[i].substring(eq + 1);
		try {
			v = decodeURIComponent(v);
		} catch (err) {
		}
		if (k === "search" || k === "s") s = v;
		else if (k === "zoom" || k === "z") z = parseInt(v.replace(/^f/, ""), 10);
		else if (k === "ignorecase" || k === "i") {
			ignorecase = true;
			icbtn.style.opacity = "1";
		}
	}
	if (z !== null && z >= 0 && z < frames.length) zoom(z);
	if (s !== null && s !== "") search(s);
}
function save_params() {
	var p = [];
	if (term !== null) p.push("search=" + encodeURIComponent(term));
	if (zoomed >= 0) p.push("zoom=f" + zoomed);
	if (ignorecase) p.push("ignorecase");
	try {
		history.replaceState(null, "",
			p.length ? "#" + p.join("&") : location.pathname + location.search);
	} catch (err) {
	}
}

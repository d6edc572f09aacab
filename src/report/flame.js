/*
 * flame.js -- heapprof report --html: the flame graph explorer.  html.c
 * inlines it after the page and the profile (JSON in #hp-data); it needs
 * nothing else: no network, no library.
 *
 * The data is the flame tree (flame.h) in preorder: per node its name (an
 * index into names), its number of children, its value v and companion o
 * (objects for bytes, bytes for objects), and for a diff the base's bv and
 * bo and the sums of the call paths' increases (grow) and decreases
 * (shrink) under it.  Node 0 is the root.
 *
 * What it draws: the zoomed frame full width with everything under it,
 * its callers as full-width dimmed rows, frames narrower than half a pixel
 * left out; rows from the bottom (flame) or from the top (icicle).  It
 * redraws everything on each change: a redraw is a few thousand elements.
 * The view (zoom, search, orientation, widths) is kept in the address's
 * fragment, #z=..&s=..&o=..&w=.., and read back on load.
 */
(function () {
	"use strict";

	var D = JSON.parse(document.getElementById("hp-data").textContent);
	var T = D.nodes, names = D.names, N = T.name.length;
	var ROW = 17, FRAME_H = 16, MIN_W = 0.5, FONT = "12px Verdana, Helvetica, sans-serif";

	var $ = function (id) { return document.getElementById(id); };
	var svg = $("frames"), main = $("graph"), tip = $("tip"), details = $("details");
	var search = $("search"), matchEl = $("match"), orientBtn = $("orient");
	var widthsSel = $("widths");

	/* ---- the tree ------------------------------------------------------ */

	/* end[i]: the index after i's subtree; children of i are i + 1,
	 * end[i + 1], ... up to end[i]. */
	var parent = new Int32Array(N), depth = new Int32Array(N), end = new Int32Array(N);
	(function () {
		var stack = [], left = [];
		for (var i = 0; i < N; i++) {
			while (left.length && left[left.length - 1] === 0) {
				end[stack.pop()] = i;
				left.pop();
			}
			parent[i] = stack.length ? stack[stack.length - 1] : -1;
			depth[i] = stack.length;
			if (left.length)
				left[left.length - 1]--;
			stack.push(i);
			left.push(T.kids[i]);
		}
		while (stack.length)
			end[stack.pop()] = N;
	})();

	/* ---- values and words -------------------------------------------- */

	var mode = D.diff ? "change" : "now";	/* what widths are */
	function width(i) {
		if (mode === "base")
			return T.bv[i];
		if (mode === "change")
			return T.grow[i] - T.shrink[i];
		return T.v[i];
	}
	function net(i) { return T.v[i] - T.bv[i]; }

	/* Sizes as the text report prints them: powers of 1024, KiB, MiB... */
	function size(v) {
		var x = Math.abs(v), sign = v < 0 ? "-" : "", units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
		if (x < 1024)
			return sign + Math.round(x) + "B";
		var u = 0;
		x /= 1024;
		while (x >= 1023.95 && u + 1 < units.length) {
			x /= 1024;
			u++;
		}
		return sign + x.toFixed(1) + units[u];
	}
	function count(v, one, many) { return v + " " + (Math.abs(v) === 1 ? one : many); }
	/* A value of the kind shown (D.unit) or of the companion's kind. */
	function value(v, unit) {
		unit = unit || D.unit;
		if (unit === "bytes")
			return D.showBytes ? v + " B" : size(v);
		return count(v, "object", "objects");
	}
	function signed(v, unit) { return (v > 0 ? "+" : "") + value(v, unit); }
	function pct(part, whole) {
		return whole ? (100 * part / whole).toFixed(1) + "%" : "-";
	}
	function esc(s) {
		return String(s).replace(/[&<>"']/g, function (c) {
			return "&#" + c.charCodeAt(0) + ";";
		});
	}
	function nameOf(i) { return names[T.name[i]]; }

	/* ---- colours ------------------------------------------------------ */

	/* flamegraph.pl's "hot" palette from a hash of the name: stable. */
	function hot(s) {
		var h = 0x811c9dc5;
		for (var k = 0; k < s.length; k++)
			h = Math.imul(h ^ s.charCodeAt(k), 0x01000193) >>> 0;
		return "rgb(" + (205 + h % 51) + "," + ((h >>> 8) % 231) + "," + ((h >>> 16) % 56) + ")";
	}

	/* flame.c's hp_flame_diff_color: grey to red (grew) or blue (shrank),
	 * linear in |delta| / max. */
	var NEUTRAL = [238, 238, 238], RED = [215, 38, 38], BLUE = [38, 88, 215];
	function diffColor(delta, max) {
		var t = max > 0 ? Math.min(1, Math.abs(delta) / max) : 0;
		var to = delta < 0 ? BLUE : RED, c = [];
		for (var k = 0; k < 3; k++)
			c.push(Math.round(NEUTRAL[k] + (to[k] - NEUTRAL[k]) * t));
		return "rgb(" + c.join(",") + ")";
	}
	var maxChange = 0;
	if (D.diff)
		for (var k = 1; k < N; k++)
			maxChange = Math.max(maxChange, Math.abs(net(k)));

	/* ---- names that fit ----------------------------------------------- */

	var ctx = document.createElement("canvas").getContext("2d");
	ctx.font = FONT;
	var measured = new Map();
	function textWidth(s) {
		var w = measured.get(s);
		if (w === undefined) {
			w = ctx.measureText(s).width;
			measured.set(s, w);
		}
		return w;
	}
	/* The name, or its longest prefix that fits in room px with "…". */
	function fit(s, room) {
		if (room < 14)
			return "";
		if (textWidth(s) <= room)
			return s;
		var lo = 0, hi = s.length;
		while (lo < hi) {
			var mid = (lo + hi + 1) >> 1;
			if (ctx.measureText(s.slice(0, mid) + "…").width <= room)
				lo = mid;
			else
				hi = mid - 1;
		}
		return lo >= 2 ? s.slice(0, lo) + "…" : "";
	}

	/* ---- state -------------------------------------------------------- */

	var zoom = 0, icicle = !!D.icicle, re = null, hits = null;
	var matched = { frames: 0, sum: 0, net: 0, inZoom: 0 };

	function computeHits() {
		hits = null;
		matched = { frames: 0, sum: 0, net: 0, inZoom: 0 };
		if (!re)
			return;
		var byName = new Int8Array(names.length);
		for (var n = 0; n < names.length; n++)
			byName[n] = re.test(names[n]) ? 1 : 0;
		hits = new Uint8Array(N);
		/* A match inside a match counts once: its bytes are in both. */
		var covered = 0;
		for (var i = 1; i < N; i++) {
			if (!byName[T.name[i]] || width(i) <= 0)
				continue;
			hits[i] = 1;
			matched.frames++;
			if (i < covered)
				continue;
			covered = end[i];
			matched.sum += width(i);
			if (D.diff)
				matched.net += net(i);
			if (i >= zoom && i < end[zoom])
				matched.inZoom += width(i);
		}
		/* Matches above the zoomed frame cover all of it. */
		for (var a = zoom; a > 0; a = parent[a])
			if (hits[a])
				matched.inZoom = width(zoom);
	}

	function showMatch() {
		if (!re) {
			matchEl.textContent = "";
			return;
		}
		var m = matched, s = "matched " + count(m.frames, "frame", "frames");
		if (m.frames) {
			s += ": " + value(m.sum) + ", " + pct(m.sum, width(0)) + " of " +
			     (mode === "change" ? "the changes" : "the total");
			if (D.diff && mode === "change")
				s += " (net " + signed(m.net) + ")";
			if (zoom)
				s += ", " + pct(m.inZoom, width(zoom)) + " of the zoomed frame";
		}
		matchEl.textContent = s;
	}

	/* ---- drawing ------------------------------------------------------ */

	function draw() {
		var W = Math.max(100, main.clientWidth - 20), out = [], maxd = depth[zoom];
		var zw = width(zoom);

		for (var a = parent[zoom]; a >= 0; a = parent[a])
			out.push([a, 0, W, 1]);
		if (zw > 0) {
			var scale = W / zw;
			/* Preorder walk of the zoomed subtree, skipping what is too
			 * narrow: x advances over every child, drawn or not. */
			var stack = [[zoom, 0]];
			while (stack.length) {
				var e = stack.pop(), i = e[0], x = e[1], w = width(i) * scale;
				if (w < MIN_W)
					continue;
				out.push([i, x, w, 0]);
				if (depth[i] > maxd)
					maxd = depth[i];
				var kids = [];
				for (var c = i + 1, cx = x; c < end[i]; c = end[c]) {
					kids.push([c, cx]);
					cx += width(c) * scale;
				}
				for (var k = kids.length - 1; k >= 0; k--)
					stack.push(kids[k]);
			}
		}
		var H = (maxd + 1) * ROW + 2, html = [];
		for (var f = 0; f < out.length; f++) {
			var n = out[f][0], fx = out[f][1], fw = out[f][2], anc = out[f][3];
			var y = icicle ? depth[n] * ROW + 1 : H - 1 - (depth[n] + 1) * ROW;
			var name = nameOf(n), label = fit(name, fw - 6);
			var fill = D.diff ? diffColor(net(n), maxChange) :
				   D.age ? diffColor(T.v[n] > 0 ? T.o[n] / T.v[n] : 0, 1) : hot(name);
			var cls = "f" + (anc ? " anc" : "") + (hits && hits[n] ? " hit" : "");
			html.push('<g class="' + cls + '" data-i="' + n + '" data-name="' + esc(name) +
				  '"><rect x="' + fx.toFixed(2) + '" y="' + y + '" width="' +
				  fw.toFixed(2) + '" height="' + FRAME_H + '" rx="2" fill="' + fill + '"/>' +
				  (label ? '<text x="' + (fx + 3).toFixed(2) + '" y="' + (y + FRAME_H - 4) +
					   '">' + esc(label) + "</text>" : "") + "</g>");
		}
		svg.setAttribute("width", W);
		svg.setAttribute("height", H);
		svg.setAttribute("viewBox", "0 0 " + W + " " + H);
		svg.innerHTML = html.join("");
		$("empty").style.display = width(0) > 0 ? "none" : "block";
		orientBtn.textContent = icicle ? "Flame (root at the bottom)" : "Icicle (root at the top)";
		$("reset").disabled = zoom === 0;
		showMatch();
		if (!tip.dataset.i)
			idle();
	}

	/* The footer when no frame is under the pointer. */
	function idle() {
		details.textContent = zoom ? "zoomed to " + nameOf(zoom) + ": " + summary(zoom) +
			"; click a caller's row or Reset zoom to go back" : hint;
	}

	/* Scrolls the graph's box (never the window: see flame.css) so that
	 * frame i shows: at its bottom for a flame graph (what it calls grows
	 * up from it), at its top for an icicle. */
	function reveal(i) {
		var g = svg.querySelector('g[data-i="' + i + '"]');
		if (!g)
			return;
		var r = g.getBoundingClientRect(), box = main.getBoundingClientRect();
		if (icicle)
			main.scrollTop += r.top - box.top - 4;
		else
			main.scrollTop += r.bottom - box.bottom + 4;
	}

	/* ---- words about a frame ------------------------------------------ */

	var hint = "Click a frame to zoom in, Esc or Reset zoom to go back; " +
		   "/ or Ctrl+F to search (a regular expression)";

	function summary(i) {
		if (D.diff)
			return signed(net(i)) + " (" + value(T.bv[i]) + " → " + value(T.v[i]) + ")";
		return value(T.v[i]) + ", " + pct(T.v[i], T.v[0]) + " of the total";
	}

	function tipHtml(i) {
		var s = "<b>" + esc(nameOf(i)) + "</b><br>";
		if (D.diff) {
			var d = net(i);
			s += "change " + esc(signed(d)) + (T.bv[i] ? " (" + (d > 0 ? "+" : "") +
			     pct(d, T.bv[i]) + ")" : " (new)") + "<br>";
			s += "base " + esc(value(T.bv[i])) + ", " + esc(value(T.bo[i], D.other)) + "<br>";
			s += "now " + esc(value(T.v[i])) + ", " + esc(value(T.o[i], D.other)) + "<br>";
			s += "grew " + esc(value(T.grow[i])) + " and shrank " + esc(value(T.shrink[i])) +
			     " in the paths under it";
		} else {
			s += esc(value(T.v[i]));
			if (D.unit === "bytes" && !D.showBytes)
				s += " (" + T.v[i] + " bytes)";
			if (D.age)
				s += ", long-lived " + esc(value(T.o[i], D.other)) + " (" +
				     pct(T.o[i], T.v[i]) + ")<br>";
			else
				s += ", " + esc(value(T.o[i], D.other)) + "<br>";
			s += pct(T.v[i], T.v[0]) + " of the total";
			if (parent[i] >= 0)
				s += ", " + pct(T.v[i], T.v[parent[i]]) + " of its caller";
			if (zoom && i !== zoom && i >= zoom && i < end[zoom])
				s += ", " + pct(T.v[i], T.v[zoom]) + " of the zoomed frame";
		}
		return s;
	}

	/* ---- events ------------------------------------------------------- */

	function frameOf(ev) {
		var g = ev.target.closest && ev.target.closest("g.f");
		return g ? +g.dataset.i : -1;
	}

	function zoomTo(i) {
		zoom = i;
		computeHits();
		draw();
		reveal(zoom);
		remember();
	}

	/* The view in the address's fragment (#z=12&s=regex&o=icicle&w=now),
	 * so that a reload or a link shows the same. */
	function remember() {
		var parts = [];
		if (zoom)
			parts.push("z=" + zoom);
		if (search.value)
			parts.push("s=" + encodeURIComponent(search.value));
		if (icicle !== !!D.icicle)
			parts.push("o=" + (icicle ? "icicle" : "flame"));
		if (D.diff && mode !== "change")
			parts.push("w=" + mode);
		var h = parts.length ? "#" + parts.join("&") : " ";
		try {
			history.replaceState(null, "", h === " " ? location.pathname + location.search : h);
		} catch (err) {
			/* some browsers refuse it for file: pages; the view stays */
		}
	}
	function recall() {
		location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
			var k = kv.slice(0, kv.indexOf("=")), v = kv.slice(kv.indexOf("=") + 1);
			try {
				v = decodeURIComponent(v);
			} catch (err) {
				return;
			}
			if (k === "z" && +v > 0 && +v < N)
				zoom = +v;
			else if (k === "s")
				search.value = v;
			else if (k === "o")
				icicle = v === "icicle";
			else if (k === "w" && D.diff && /^(change|now|base)$/.test(v) && widthsSel)
				mode = widthsSel.value = v;
		});
		if (width(zoom) <= 0)
			zoom = 0;
	}

	svg.addEventListener("click", function (ev) {
		var i = frameOf(ev);
		if (i >= 0 && i !== zoom)
			zoomTo(i);
	});
	svg.addEventListener("mousemove", function (ev) {
		var i = frameOf(ev);
		if (i < 0) {
			tip.style.display = "none";
			delete tip.dataset.i;
			idle();
			return;
		}
		if (tip.dataset.i !== String(i)) {
			tip.dataset.i = i;
			tip.innerHTML = tipHtml(i);
			details.textContent = nameOf(i) + ": " + summary(i);
		}
		tip.style.display = "block";
		/* Beside the pointer, kept inside the window. */
		var w = tip.offsetWidth, h = tip.offsetHeight;
		var x = ev.clientX + 14, y = ev.clientY + 16;
		if (x + w > window.innerWidth - 4)
			x = Math.max(4, ev.clientX - w - 14);
		if (y + h > window.innerHeight - 4)
			y = Math.max(4, ev.clientY - h - 12);
		tip.style.left = x + "px";
		tip.style.top = y + "px";
	});
	svg.addEventListener("mouseleave", function () {
		tip.style.display = "none";
		delete tip.dataset.i;
		idle();
	});
	$("reset").addEventListener("click", function () { zoomTo(0); });
	orientBtn.addEventListener("click", function () {
		icicle = !icicle;
		draw();
		reveal(zoom);
		remember();
	});
	if (widthsSel)
		widthsSel.addEventListener("change", function () {
			mode = widthsSel.value;
			/* A frame with no width in this mode cannot stay zoomed. */
			if (width(zoom) <= 0)
				zoom = 0;
			zoomTo(zoom);
		});

	function setSearch(text) {
		search.classList.remove("bad");
		re = null;
		if (text) {
			try {
				re = new RegExp(text);
			} catch (err) {
				search.classList.add("bad");
				computeHits();
				draw();
				matchEl.textContent = "not a regular expression: " + err.message;
				return;
			}
		}
		computeHits();
		draw();
		remember();
	}
	var pending = 0;
	search.addEventListener("input", function () {
		clearTimeout(pending);
		pending = setTimeout(function () { setSearch(search.value); }, 120);
	});
	search.addEventListener("keydown", function (ev) {
		if (ev.key === "Enter") {
			clearTimeout(pending);
			setSearch(search.value);
		}
	});
	document.addEventListener("keydown", function (ev) {
		if ((ev.key === "f" && (ev.ctrlKey || ev.metaKey)) ||
		    (ev.key === "/" && document.activeElement !== search)) {
			ev.preventDefault();
			search.focus();
			search.select();
		} else if (ev.key === "Escape") {
			if (search.value) {
				search.value = "";
				setSearch("");
			} else if (zoom) {
				zoomTo(0);
			}
			search.blur();
		}
	});
	var queued = false;
	window.addEventListener("resize", function () {
		if (queued)
			return;
		queued = true;
		requestAnimationFrame(function () {
			queued = false;
			draw();
		});
	});

	/* ---- start -------------------------------------------------------- */

	if (D.diff) {
		var stops = [];
		for (var s = -4; s <= 4; s++)
			stops.push(diffColor(s, 4) + " " + ((s + 4) * 12.5) + "%");
		$("legend").classList.add("on");
		$("scale").style.background = "linear-gradient(to right, " + stops.join(", ") + ")";
		$("shrank").textContent = "shrank " + value(-maxChange);
		$("grew").textContent = "grew " + signed(maxChange);
	}
	recall();
	if (search.value)
		setSearch(search.value);
	else
		draw();
	reveal(zoom);
})();

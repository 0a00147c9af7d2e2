/*
 * flamekit: interactive behaviour for flame graph SVGs.
 *
 * The C renderer pastes this file verbatim into a CDATA section, after a
 * script that defines `fk_config`.  It therefore must never contain the
 * CDATA terminator, and it may use nothing outside the SVG document itself.
 *
 * Expected DOM (written by the renderer):
 *   #frames            one child (<g> or <a>) per frame, each holding
 *                      <title>NAME (N unit, P%)</title> <rect/> <text/>
 *   #details           hover read-out        #matched    search read-out
 *   #unzoom            reset-zoom button     #search     search button
 *   #ignorecase        case toggle button
 *
 * Geometry is read from the attributes once, at init, and kept in plain
 * objects; zooming and searching then only write to the DOM, so there is
 * no layout thrashing even with tens of thousands of frames.
 */
var init = (function () {
	"use strict";

	var EPSILON = 1e-4;     // slack for floating-point comparisons
	var TEXT_PAD = 3;       // label x offset inside its rect

	var cfg;                // fk_config merged over defaults
	var svgWidth;           // width of the drawing, in user units
	var fullWidth;          // svgWidth - 2 * xpad: a zoomed frame's width
	var rootWidth;          // original width of the widest (root) frame
	var frames = [];        // one record per frame, see readFrame()
	var byElement = new Map();
	var framesEl, detailsEl, unzoomBtn, searchBtn, icBtn, matchedEl;
	var searchTerm = null;  // current search term, or null
	var unmatchedTerm = null; // the last term that matched nothing (for Ctrl-i)
	var ignoreCase = false;
	var started = false;

	var DEFAULTS = {
		nametype: "Function:",
		fontsize: 12,
		fontwidth: 0.59,
		xpad: 10,
		inverted: false,
		searchcolor: "rgb(230,0,230)"
	};

	/* ---------- setup ---------- */

	function init(evt) {
		if (started) return;
		framesEl = document.getElementById("frames");
		if (!framesEl) return;
		started = true;

		cfg = readConfig();
		detailsEl = document.getElementById("details");
		unzoomBtn = document.getElementById("unzoom");
		searchBtn = document.getElementById("search");
		icBtn = document.getElementById("ignorecase");
		matchedEl = document.getElementById("matched");

		svgWidth = readSvgWidth(framesEl.ownerSVGElement || document.documentElement);
		fullWidth = svgWidth - 2 * cfg.xpad;

		var children = framesEl.children;
		rootWidth = 0;
		for (var i = 0; i < children.length; i++) {
			var rec = readFrame(children[i]);
			if (!rec) continue;
			frames.push(rec);
			byElement.set(rec.el, rec);
			if (rec.w > rootWidth) rootWidth = rec.w;
		}

		framesEl.addEventListener("mouseover", onMouseOver);
		framesEl.addEventListener("mouseout", onMouseOut);
		window.addEventListener("click", onClick);
		window.addEventListener("keydown", onKeyDown);

		restoreFromUrl();
	}

	function readConfig() {
		var out = {};
		var given = (typeof fk_config === "object" && fk_config) ? fk_config : {};
		Object.keys(DEFAULTS).forEach(function (key) {
			out[key] = given[key] !== undefined ? given[key] : DEFAULTS[key];
		});
		out.fontsize = Number(out.fontsize) || DEFAULTS.fontsize;
		out.fontwidth = Number(out.fontwidth) || DEFAULTS.fontwidth;
		out.xpad = Number(out.xpad) || 0;
		out.inverted = Boolean(out.inverted);
		return out;
	}

	// Prefer the width attribute; fall back to the viewBox for SVGs
	// embedded with a relative width.
	function readSvgWidth(svg) {
		var w = parseFloat(svg.getAttribute("width"));
		if (isFinite(w) && !/%/.test(svg.getAttribute("width"))) return w;
		var vb = (svg.getAttribute("viewBox") || "").split(/[\s,]+/);
		w = parseFloat(vb[2]);
		return isFinite(w) ? w : 1200;
	}

	// Cache everything zoom and search need, so that later passes never
	// have to read the DOM.  Original attribute strings are kept verbatim
	// because the URL state refers to them.
	function readFrame(el) {
		var title = null, rect = null, text = null;
		for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
			var tag = c.localName;
			if (tag === "title" && !title) title = c;
			else if (tag === "rect" && !rect) rect = c;
			else if (tag === "text" && !text) text = c;
		}
		if (!rect) return null;
		var info = title ? title.textContent : "";
		return {
			el: el,
			rect: rect,
			text: text,
			info: info,
			name: frameName(info),
			xStr: rect.getAttribute("x"),
			wStr: rect.getAttribute("width"),
			yStr: rect.getAttribute("y"),
			fill: rect.getAttribute("fill"),
			x: parseFloat(rect.getAttribute("x")) || 0,
			w: parseFloat(rect.getAttribute("width")) || 0,
			y: parseFloat(rect.getAttribute("y")) || 0,
			textX: text ? text.getAttribute("x") : null,
			label: text ? text.textContent : "",
			shown: text ? text.textContent : "",  // label as currently drawn
			state: "",        // "", "parent" or "hide"
			moved: false,     // geometry differs from the original
			marked: false     // painted with the search colour
		};
	}

	// "NAME (N samples, P%)" -> "NAME"; the name itself may contain
	// parentheses, so only the final parenthesised group is dropped.
	function frameName(info) {
		return info.replace(/\s*\([^()]*\)\s*$/, "");
	}

	/* ---------- events ---------- */

	// The frame (direct child of #frames) that contains node, if any.
	function frameOf(node) {
		while (node && node.parentNode !== framesEl) node = node.parentNode;
		return node ? byElement.get(node) || null : null;
	}

	function onMouseOver(e) {
		var rec = frameOf(e.target);
		if (rec) setText(detailsEl, cfg.nametype + " " + rec.info);
	}

	function onMouseOut(e) {
		if (frameOf(e.target)) setText(detailsEl, " ");
	}

	function onClick(e) {
		var rec = frameOf(e.target);
		if (rec) {
			// Frames with links navigate on a plain click; Ctrl-click zooms.
			if (rec.el.localName === "a") {
				if (!e.ctrlKey) return;
				e.preventDefault();
			}
			zoomTo(rec);
			return;
		}
		var id = e.target && e.target.id;
		if (id === "unzoom") resetZoom();
		else if (id === "search") searchButton();
		else if (id === "ignorecase") toggleIgnoreCase();
	}

	function onKeyDown(e) {
		var key = (e.key || "").toLowerCase();
		var plainCtrl = e.ctrlKey && !e.shiftKey && !e.altKey;
		if (key === "f3" || e.keyCode === 114 ||
		    (plainCtrl && (key === "f" || e.keyCode === 70))) {
			e.preventDefault();
			searchButton();
		} else if (plainCtrl && (key === "i" || e.keyCode === 73)) {
			e.preventDefault();
			toggleIgnoreCase();
		}
	}

	/* ---------- zoom ---------- */

	// Frames nearer the root than `rec`: above it in an icicle graph,
	// below it in a flame graph.
	function isUpstack(f, rec) {
		return cfg.inverted ? f.y < rec.y : f.y > rec.y;
	}

	// Zooming always starts from the original geometry, so zooming in
	// further, or out to a parent, is the same operation.
	//
	// Coordinates are rounded by the renderer, so a child's right edge can
	// stick out past its parent's by a rounding step.  Deciding by centre
	// points instead of edges keeps that from hiding an ancestor or showing
	// a neighbour: ancestors contain the target's centre, and the frames
	// shown are those whose centre lies within the target.
	function zoomTo(target) {
		var mid = centre(target);
		var isAncestor = function (f) { return isUpstack(f, target) && spans(f, mid); };

		// Nothing above it: this is the root, and zooming to it is a reset.
		if (!frames.some(isAncestor)) {
			resetZoom();
			return;
		}

		var ratio = target.w > 0 ? fullWidth / target.w : 1;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (isUpstack(f, target)) {
				if (spans(f, mid)) {
					setState(f, "parent");
					place(f, cfg.xpad, fullWidth);
				} else {
					setState(f, "hide");
				}
			} else if (spans(target, centre(f))) {
				setState(f, "");
				place(f, (f.x - target.x) * ratio + cfg.xpad, f.w * ratio);
			} else {
				setState(f, "hide");
			}
		}
		classOn(unzoomBtn, "hide", false);
		updateUrl({ x: target.xStr, y: target.yStr });
		// No search refresh needed: highlighting and the matched figure
		// depend on the original geometry only, which zooming leaves alone.
	}

	// Every label is fitted again, as flamegraph.pl's unzoom does: the
	// root, drawn blank, then shows its name.
	function resetZoom() {
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			setState(f, "");
			if (f.moved) restorePlace(f);
			if (f.text) setLabel(f, fitLabel(f.name, f.w));
		}
		classOn(unzoomBtn, "hide", true);
		updateUrl({ x: null, y: null });
	}

	function centre(f) {
		return f.x + f.w / 2;
	}

	function spans(f, x) {
		return f.x - EPSILON <= x && x <= f.x + f.w + EPSILON;
	}

	function setState(f, state) {
		if (f.state === state) return;
		if (f.state) f.el.classList.remove(f.state);
		if (state) f.el.classList.add(state);
		f.state = state;
	}

	// Move and resize a frame, remembering the originals the first time.
	function place(f, x, w) {
		if (!f.moved) {
			f.rect.setAttribute("_orig_x", f.xStr);
			f.rect.setAttribute("_orig_width", f.wStr);
			if (f.text && f.textX !== null) f.text.setAttribute("_orig_x", f.textX);
			f.moved = true;
		}
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		if (f.text) {
			f.text.setAttribute("x", (x + TEXT_PAD).toFixed(2));
			setLabel(f, fitLabel(f.name, w));
		}
	}

	function restorePlace(f) {
		f.rect.setAttribute("x", f.xStr);
		f.rect.setAttribute("width", f.wStr);
		f.rect.removeAttribute("_orig_x");
		f.rect.removeAttribute("_orig_width");
		if (f.text) {
			if (f.textX !== null) f.text.setAttribute("x", f.textX);
			f.text.removeAttribute("_orig_x");
		}
		f.moved = false;
	}

	// Skip unchanged labels: rewriting text is the costliest DOM write here.
	function setLabel(f, label) {
		if (f.shown === label) return;
		f.text.textContent = label;
		f.shown = label;
	}

	// Truncate a label to the room available, estimating text width from
	// the average glyph width (the same estimate the renderer uses), which
	// needs no layout at all.
	function fitLabel(name, width) {
		var room = width - TEXT_PAD;
		var glyph = cfg.fontsize * cfg.fontwidth;
		if (room < 2 * glyph) return "";
		var fits = Math.floor(room / glyph);
		if (name.length <= fits) return name;
		var keep = fits - 2;            // leave space for ".."
		return keep >= 1 ? name.substring(0, keep) + ".." : "";
	}

	/* ---------- search ---------- */

	function searchButton() {
		if (searchTerm !== null) {
			clearSearch();
			return;
		}
		var term = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
			(ignoreCase ? ", ignoring case" : "") +
			"\nPress Ctrl-i to toggle case sensitivity", "");
		if (term) search(term);
	}

	function toggleIgnoreCase() {
		ignoreCase = !ignoreCase;
		classOn(icBtn, "show", ignoreCase);
		// Re-run the current search (or one that matched nothing) under
		// the new setting.
		var term = searchTerm !== null ? searchTerm : unmatchedTerm;
		if (term !== null) search(term);
	}

	function search(term) {
		var re;
		try {
			re = new RegExp(term, ignoreCase ? "i" : "");
		} catch (err) {
			// A bad pattern is reported, not thrown.
			clearSearch();
			setText(matchedEl, "Invalid regex");
			return;
		}
		searchTerm = term;
		unmatchedTerm = null;

		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			var hit = re.test(f.name);
			if (hit) hits.push(f);
			if (hit !== f.marked) mark(f, hit);
		}
		// No match shows nothing, as in flamegraph.pl; the term is kept
		// for Ctrl-i to try again ignoring case.
		if (!hits.length) {
			clearSearch();
			unmatchedTerm = term;
			return;
		}

		classOn(searchBtn, "show", true);
		setText(searchBtn, "Reset Search");
		setText(matchedEl, "Matched: " + formatPercent(matchedPercent(hits)) + "%");
		updateUrl({ s: term });
	}

	function clearSearch() {
		for (var i = 0; i < frames.length; i++) {
			if (frames[i].marked) mark(frames[i], false);
		}
		searchTerm = null;
		classOn(searchBtn, "show", false);
		setText(searchBtn, "Search");
		setText(matchedEl, " ");
		updateUrl({ s: null });
	}

	function mark(f, on) {
		if (on) {
			f.rect.setAttribute("_orig_fill", f.fill || "");
			f.rect.setAttribute("fill", cfg.searchcolor);
		} else {
			if (f.fill === null) f.rect.removeAttribute("fill");
			else f.rect.setAttribute("fill", f.fill);
			f.rect.removeAttribute("_orig_fill");
		}
		f.marked = on;
	}

	// Share of the whole profile covered by matches, each sample counted
	// once.  Sorted by x (widest first on ties), a nested match comes after
	// the match enclosing it and has its centre inside that match's span,
	// so it is skipped; centres rather than edges again absorb rounding.
	// Original geometry is used, so zooming does not change the figure.
	function matchedPercent(hits) {
		if (!rootWidth) return 0;
		hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
		var total = 0;
		var end = -Infinity;
		for (var i = 0; i < hits.length; i++) {
			var f = hits[i];
			if (centre(f) > end + EPSILON) {
				total += f.w;
				end = f.x + f.w;
			}
		}
		return 100 * total / rootWidth;
	}

	function formatPercent(p) {
		return p === 100 ? "100" : p.toFixed(1);
	}

	/* ---------- URL state ---------- */

	// The raw "key=value" pairs of the query string.
	function queryPairs() {
		var query = (window.location && window.location.search) || "";
		return query.replace(/^\?/, "").split("&").filter(Boolean);
	}

	// Our parameters, decoded.  Parsed by hand so that a malformed escape
	// is skipped instead of throwing.
	function readParams() {
		var params = {};
		queryPairs().forEach(function (pair) {
			var eq = pair.indexOf("=");
			if (eq <= 0) return;
			try {
				var value = decodeURIComponent(pair.substring(eq + 1));
				if (value) params[pair.substring(0, eq)] = value;
			} catch (err) {
				// ignore this pair
			}
		});
		return params;
	}

	// Set (or, with null, delete) some parameters, leaving any others in
	// the query string untouched.
	function updateUrl(changes) {
		var pairs = queryPairs().filter(function (pair) {
			return !Object.prototype.hasOwnProperty.call(changes, pair.split("=")[0]);
		});
		Object.keys(changes).forEach(function (key) {
			if (changes[key] !== null) pairs.push(key + "=" + encodeURIComponent(changes[key]));
		});
		try {
			var loc = window.location;
			var url = loc.pathname + (pairs.length ? "?" + pairs.join("&") : "") + loc.hash;
			if (url !== loc.pathname + loc.search + loc.hash)
				window.history.replaceState(null, "", url);
		} catch (err) {
			// Some viewers (sandboxed frames, data: URLs) forbid this;
			// the graph still works, only the state is not bookmarkable.
		}
	}

	// The x/y pair names a frame; should zero-width frames share it, the
	// widest one is meant.
	function restoreFromUrl() {
		var params = readParams();
		if (params.x && params.y) {
			var found = null;
			for (var i = 0; i < frames.length; i++) {
				var f = frames[i];
				if (f.xStr === params.x && f.yStr === params.y && (!found || f.w > found.w))
					found = f;
			}
			if (found) zoomTo(found);
		}
		if (params.s) search(params.s);
	}

	/* ---------- helpers ---------- */

	// The controls are looked up by id; tolerate a renderer leaving one out.
	function setText(el, value) {
		if (el) el.textContent = value;
	}

	function classOn(el, cls, on) {
		if (el) el.classList.toggle(cls, on);
	}

	return init;
}());

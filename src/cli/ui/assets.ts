// The page: one HTML document, its style and its script, plain (no framework, nothing fetched
// from elsewhere), served from these strings. The script reads the fleet's events, shows tiles
// by group (run, or stack resource), tells the server which tiles are in view
// (IntersectionObserver), and opens a computer's page at #/c/<name>.

export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentrun ui</title>
<link rel="stylesheet" href="/ui.css">
</head>
<body>
<header><h1><a href="#">agentrun</a></h1><span id="status">reading the fleet…</span></header>
<main id="fleet"></main>
<section id="computer" hidden></section>
<script src="/ui.js"></script>
</body>
</html>
`;

const CSS = `
:root { --bg: #f6f7f9; --ink: #1d2330; --muted: #667085; --line: #d0d5dd; --ok: #12b76a; --drift: #f79009; --ended: #d92d20; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--ink); }
header { display: flex; gap: 16px; align-items: baseline; padding: 10px 20px; background: #101828; color: #fff; }
header h1 { margin: 0; font-size: 18px; } header a { color: inherit; text-decoration: none; }
#status { color: #d0d5dd; } #status.error { color: #fda29b; }
main, #computer { padding: 16px 20px; }
.group h2 { font-size: 15px; margin: 12px 0 8px; color: var(--muted); }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.tile { background: #fff; border: 1px solid var(--line); border-left: 5px solid var(--ok); border-radius: 6px; padding: 10px 12px; cursor: pointer; }
.tile:hover { box-shadow: 0 2px 8px rgba(16, 24, 40, .12); }
.tile h3 { margin: 0 0 6px; font: 600 13px ui-monospace, monospace; }
.tile.drifted { border-left-color: var(--drift); background: #fffaeb; }
.tile.ended { border-left-color: var(--ended); background: #fef3f2; }
.tile dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
.tile dt { color: var(--muted); } .tile dd { margin: 0; overflow-wrap: anywhere; }
.drift-words { margin: 4px 0 0; padding-left: 18px; color: #b54708; font-size: 12px; }
.labels { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
.label { font: 11px ui-monospace, monospace; background: #eef4ff; color: #3538cd; border-radius: 4px; padding: 1px 5px; }
img.screen { display: block; width: 100%; margin-top: 8px; background: #000; aspect-ratio: 16 / 10; object-fit: contain; }
img.full { display: block; max-width: 100%; background: #000; }
img.full.control { cursor: crosshair; }
table { border-collapse: collapse; background: #fff; margin: 8px 0 16px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; font-size: 13px; vertical-align: top; }
td.mono, .mono { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; max-width: 640px; }
tr.differs td { background: #fffaeb; }
.note { color: var(--muted); } .note.on { color: #b42318; }
a.back { display: inline-block; margin-bottom: 8px; }
`;

const JS = `"use strict";
(function () {
  var secretParam = new URLSearchParams(location.search).has("secret");
  if (secretParam) history.replaceState(null, "", location.pathname + location.hash);
  var state = { fleet: null, client: null, visible: new Set(), opened: null, frames: {}, detailsTimer: null };
  var fleetEl = document.getElementById("fleet");
  var computerEl = document.getElementById("computer");
  var statusEl = document.getElementById("status");

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function marks(t) { return (t.drifted ? " drifted" : "") + (t.ended ? " ended" : ""); }
  function left(deadline) {
    if (!deadline) return "none";
    var ms = Date.parse(deadline) - Date.now();
    if (ms <= 0) return "past its deadline";
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return "ends in " + (d ? d + "d " : "") + (d || h ? h + "h " : "") + pad(m) + "m " + pad(s % 60) + "s";
  }
  function tick() {
    document.querySelectorAll(".countdown").forEach(function (n) { n.textContent = left(n.getAttribute("data-deadline")); });
  }
  function screenUrl(name) {
    var f = state.frames[name];
    return f ? "/api/screens/" + encodeURIComponent(name) + "?seq=" + f.seq : null;
  }

  // --- what is in view, told to the server ---
  var viewTimer = null;
  function sendView() {
    clearTimeout(viewTimer);
    viewTimer = setTimeout(function () {
      if (!state.client) return;
      fetch("/api/view", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ client: state.client, visible: state.opened ? [] : Array.from(state.visible), opened: state.opened }) });
    }, 100);
  }
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      var name = e.target.getAttribute("data-name");
      if (e.isIntersecting) state.visible.add(name); else state.visible.delete(name);
    });
    sendView();
  });

  // --- the fleet ---
  function tileEl(t) {
    var rows = [["provider", t.provider], ["kind", t.kind], ["state", t.state]];
    var dl = el("dl", {}, []);
    rows.forEach(function (r) { dl.appendChild(el("dt", { text: r[0] })); dl.appendChild(el("dd", { text: r[1] })); });
    dl.appendChild(el("dt", { text: "deadline" }));
    dl.appendChild(el("dd", { class: "countdown", "data-deadline": t.deadline || "", title: t.deadline || "", text: left(t.deadline) }));
    dl.appendChild(el("dt", { text: "drift" }));
    dl.appendChild(el("dd", { class: "drift", text: t.drift }));
    var words = t.driftWords.length ? el("ul", { class: "drift-words" }, t.driftWords.map(function (w) { return el("li", { text: w }); })) : null;
    var labels = el("div", { class: "labels" }, Object.keys(t.shownLabels).map(function (k) { return el("span", { class: "label", text: k + "=" + t.shownLabels[k] }); }));
    var img = null;
    if (t.screen) {
      img = el("img", { class: "screen", alt: "the screen of " + t.name, "data-name": t.name });
      var url = screenUrl(t.name);
      if (url) img.src = url;
    }
    var tile = el("article", { class: "tile" + marks(t), "data-name": t.name, title: "open " + t.name }, [el("h3", { text: t.name }), dl, words, labels, img]);
    tile.addEventListener("click", function () { location.hash = "#/c/" + encodeURIComponent(t.name); });
    return tile;
  }
  function renderFleet() {
    var f = state.fleet;
    if (!f) return;
    var count = f.groups.reduce(function (n, g) { return n + g.tiles.length; }, 0);
    statusEl.className = f.error ? "error" : "";
    statusEl.textContent = f.error ? f.error : count + " computer" + (count === 1 ? "" : "s") + " at " + f.provider +
      " · read " + (f.at ? new Date(f.at).toLocaleTimeString() : "-") + " · every " + f.everyMs / 1000 + " s · input " + (f.control ? "on" : "off");
    observer.disconnect();
    state.visible.clear();
    fleetEl.replaceChildren();
    if (count === 0 && f.at) fleetEl.appendChild(el("p", { class: "note", text: "no computers" }));
    f.groups.forEach(function (g) {
      fleetEl.appendChild(el("section", { class: "group", "data-group": g.title }, [el("h2", { text: g.title }), el("div", { class: "tiles" }, g.tiles.map(tileEl))]));
    });
    fleetEl.querySelectorAll(".tile").forEach(function (n) {
      var name = n.getAttribute("data-name");
      var t = findTile(name);
      if (t && t.screen) observer.observe(n);
    });
    sendView();
  }
  function findTile(name) {
    var out = null;
    (state.fleet ? state.fleet.groups : []).forEach(function (g) { g.tiles.forEach(function (t) { if (t.name === name) out = t; }); });
    return out;
  }

  // --- a computer's page ---
  function table(head, rows, rowClass) {
    return el("table", {}, [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))].concat(rows.map(function (r, i) {
      return el("tr", { class: rowClass ? rowClass(i) : "" }, r.map(function (c) { return el("td", { class: "mono", text: c }); }));
    })));
  }
  function renderDetails(d) {
    var t = d.tile;
    var parts = [el("a", { class: "back", href: "#", text: "← the fleet" }), el("h2", { class: "name" + marks(t), text: t.name + " · " + t.kind + " · " + t.state + " · drift " + t.drift })];
    if (t.driftWords.length) parts.push(el("ul", { class: "drift-words" }, t.driftWords.map(function (w) { return el("li", { text: w }); })));
    if (t.screen) {
      var phone = t.kind === "android" || t.kind === "ios";
      var input = d.control && (t.kind === "desktop" || phone);
      var img = el("img", { class: "full" + (input ? " control" : ""), id: "full", alt: "the screen of " + t.name });
      var url = screenUrl(t.name);
      if (url) img.src = url;
      if (input) {
        img.setAttribute("tabindex", "0");
        img.addEventListener("click", function (e) { img.focus(); click(t.name, img, e); });
        img.addEventListener("keydown", function (e) { key(t.name, e); });
      }
      parts.push(img);
      var note = t.kind === "browser" ? "input is over CDP for a browser (agentrun cdp), not here"
        : !d.control ? "input is off (start agentrun ui with --control to click and type on the screen)"
        : phone ? "input is on: a click on the screen taps the phone; once clicked, keys and text go to it"
        : "input is on: a click on the screen clicks the desktop; once clicked, keys go to it";
      parts.push(el("p", { class: "note" + (input ? " on" : ""), id: "input-note", text: note }));
    }
    parts.push(el("h3", { text: "spec: declared and read back" }));
    parts.push(el("p", { class: "note", text: d.declaredFrom }));
    if (d.readError) parts.push(el("p", { class: "note", text: d.readError }));
    parts.push(table(["field", "declared", "read back"], d.spec.map(function (r) { return [r.field, r.declared, r.readBack]; }), function (i) { return d.spec[i].differs ? "differs" : ""; }));
    if (d.commands.length) {
      parts.push(el("h3", { text: "commands the stack ran in it" }));
      parts.push(table(["resource", "exit", "passed", "stdout (its tail)", "stderr (its tail)"], d.commands.map(function (c) {
        return [c.resource, c.exitCode === null ? "" : String(c.exitCode) + (c.timedOut ? " (timed out)" : ""), c.passed === null ? "" : String(c.passed), c.stdout, c.stderr];
      })));
    }
    if (d.apps.length) {
      parts.push(el("h3", { text: "apps" }));
      parts.push(table(["resource", "app", "address (inside the computer)", "drift"], d.apps.map(function (a) { return [a.resource, a.name, a.address, a.drift.join("; ") || "ok"]; })));
    }
    parts.push(el("h3", { text: "processes" }));
    if (d.processError) parts.push(el("p", { class: "note", text: d.processError }));
    else parts.push(table(["id", "pid", "argv", "state", "started"], d.processes.map(function (p) {
      var how = p.running ? "running" : p.signal ? "killed by " + p.signal : "exited " + p.exitCode;
      return [p.id, String(p.pid), p.argv.join(" "), how, new Date(p.startedAt).toLocaleTimeString()];
    })));
    var keep = document.getElementById("full");
    computerEl.replaceChildren.apply(computerEl, parts);
    if (keep && document.getElementById("full") && keep.src) document.getElementById("full").src = keep.src;
  }
  // Inputs go one after another, in the order they were made.
  var sending = Promise.resolve();
  function send(name, input, said) {
    sending = sending.then(function () {
      return fetch("/api/computers/" + encodeURIComponent(name) + "/input", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(input) })
        .then(function (res) { return res.json(); })
        .then(function (b) { document.getElementById("input-note").textContent = b.error ? "refused: " + b.error : said; }, function () {});
    });
  }
  function click(name, img, e) {
    var f = state.frames[name];
    if (!f) return;
    var r = img.getBoundingClientRect();
    var x = (e.clientX - r.left) / r.width * f.width, y = (e.clientY - r.top) / r.height * f.height;
    send(name, { type: "click", x: x, y: y }, "clicked at " + Math.round(x) + ", " + Math.round(y));
  }
  var NAMED = { Enter: "enter", Tab: "tab", Backspace: "backspace", Delete: "delete", Escape: "escape", Insert: "insert", ArrowUp: "up", ArrowDown: "down",
    ArrowLeft: "left", ArrowRight: "right", Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown" };
  function key(name, e) {
    var modifiers = [];
    if (e.ctrlKey) modifiers.push("ctrl");
    if (e.altKey) modifiers.push("alt");
    if (e.metaKey) modifiers.push("super");
    var named = NAMED[e.key] || (/^F([1-9]|1[0-2])$/.test(e.key) ? e.key.toLowerCase() : null);
    if (e.key.length === 1 && modifiers.length === 0) send(name, { type: "text", text: e.key }, "typed " + JSON.stringify(e.key));
    else if (named || e.key.length === 1) {
      if (e.shiftKey && named) modifiers.push("shift");
      var k = named || (e.key === " " ? "space" : e.key.toLowerCase());
      send(name, { type: "key", key: k, modifiers: modifiers }, "pressed " + modifiers.concat([k]).join("+"));
    } else return;
    e.preventDefault();
  }
  function loadDetails() {
    var name = state.opened;
    if (!name) return;
    fetch("/api/computers/" + encodeURIComponent(name)).then(function (res) {
      return res.json().then(function (b) {
        if (state.opened !== name) return;
        if (!res.ok) computerEl.replaceChildren(el("a", { class: "back", href: "#", text: "← the fleet" }), el("p", { class: "note", text: b.error || "not found" }));
        else renderDetails(b);
      });
    });
  }
  function route() {
    var m = /^#\\/c\\/(.+)$/.exec(location.hash);
    state.opened = m ? decodeURIComponent(m[1]) : null;
    clearInterval(state.detailsTimer);
    fleetEl.hidden = !!state.opened;
    computerEl.hidden = !state.opened;
    if (state.opened) {
      computerEl.replaceChildren(el("p", { class: "note", text: "reading " + state.opened + "…" }));
      loadDetails();
      state.detailsTimer = setInterval(loadDetails, state.fleet ? state.fleet.everyMs : 5000);
    }
    sendView();
  }

  // --- the events ---
  var events = new EventSource("/api/events");
  events.addEventListener("hello", function (e) { state.client = JSON.parse(e.data).client; sendView(); });
  events.addEventListener("fleet", function (e) { state.fleet = JSON.parse(e.data); renderFleet(); });
  events.addEventListener("screen", function (e) {
    var s = JSON.parse(e.data);
    state.frames[s.name] = s;
    var url = screenUrl(s.name);
    if (state.opened === s.name) { var full = document.getElementById("full"); if (full) full.src = url; }
    else document.querySelectorAll("img.screen").forEach(function (img) { if (img.getAttribute("data-name") === s.name) img.src = url; });
  });
  events.onerror = function () { statusEl.className = "error"; statusEl.textContent = "the server is not answering (agentrun ui stopped?)"; };
  window.addEventListener("hashchange", route);
  setInterval(tick, 1000);
  route();
})();
`;

/** The page's assets, by path. */
export const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  "/ui.css": { type: "text/css; charset=utf-8", body: CSS },
  "/ui.js": { type: "text/javascript; charset=utf-8", body: JS },
};

// One seat's page. The seat token is in the URL fragment (#seat=…), which the browser never sends to any
// server; it goes only inside the WebSocket's first message. The page moves it at once into this tab's
// session storage and out of the address bar (and so out of history, bookmarks and screen shares); "New seat
// link" asks the server for a new token, which cuts off whoever had the old link. Everything shown comes from
// the server's rendering for this seat; the page never receives anything it must hide.
"use strict";
const $ = (id) => document.getElementById(id);
const tableId = decodeURIComponent(location.pathname.split("/").pop());
const TOKEN_KEY = `liturgy-seat:${tableId}`;
let token = new URLSearchParams(location.hash.slice(1)).get("seat");
try {
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, "", location.pathname + location.search);
  } else {
    token = sessionStorage.getItem(TOKEN_KEY);
  }
} catch { /* no storage (a private mode): the token stays in the address bar, as before */ }
let ws = null;
let state = null;
let retry = 500;

// Each part of the page is drawn again only when what it shows changed: a state (every move of every seat, a
// seat joining or leaving) usually changes a few parts. Rebuilding the rest cost the browser its style, layout
// and paint work for nothing (about 20 ms of Chromium's CPU a state, docs/performance.md), and lost the focus of
// a button it replaced. `drawn[part]` is the text of what the part was last drawn from.
const drawn = {};
function changed(part, ...from) {
  const key = JSON.stringify(from);
  if (drawn[part] === key) return false;
  drawn[part] = key;
  return true;
}
// text and visibility set only when they differ (setting the same text still replaces the element's text node)
function setText(e, text) { if (e.textContent !== text) e.textContent = text; }
function setHidden(e, hidden) { if (e.hidden !== hidden) e.hidden = hidden; }

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// ---------------------------------------------------------------- player-facing names (engine/names.py's rules)
const words = (id) => (id.includes("_") && !id.includes(" ") ? id.replaceAll("_", " ") : id);
const displayName = (id) => { const t = String(id).replaceAll("_", " "); return t.charAt(0).toUpperCase() + t.slice(1); };
const isHidden = (c) => c === "?" || c.startsWith("? (");
const isSeat = (k) => /^P\d+$/.test(k);

// what the server told this connection once: card texts (added to as cards come into sight), board pictures
const details = {};
let maps = {};
let boards = {};
let places = {};
let boardLinks = {};
const said = (v) => (typeof v === "string" && places[v]) || words(String(v));
// how many times what this connection was told once changed: the parts drawn with card texts or place names
// (chips' titles, counters' values) are drawn again when it does
let told = 0;
const toldText = {};
function tell(s) {
  for (const [name, text] of Object.entries(s.cards || {})) {
    if (details[name] !== text) { details[name] = text; told += 1; }
  }
  // a connection's states until the log's first line each tell these again (the same): kept when the same
  const again = (name, v) => {
    const text = JSON.stringify(v);
    if (toldText[name] === text) return false;
    toldText[name] = text; told += 1;
    return true;
  };
  if (s.maps && again("maps", s.maps)) maps = s.maps;
  if (s.boards && again("boards", s.boards)) boards = s.boards;
  if (s.places && again("places", s.places)) places = s.places;
  if (s.board_links && again("board_links", s.board_links)) boardLinks = s.board_links;
}

function showDetail(name) {
  $("card-detail").textContent = details[name] ? `${name} ${details[name]}` : name;
  $("card-detail").classList.remove("hint");
}

function chip(name, cls) {
  const c = el("button", name, "cardname" + (cls ? " " + cls : ""));
  c.type = "button";
  if (details[name]) c.title = details[name];
  c.onclick = () => showDetail(name);
  c.onmouseenter = () => showDetail(name);
  return c;
}

function stack(cards) {
  // a pile as a person sees it: face-up cards by name, face-down ones as one stack with its count
  const span = el("span", undefined, "pile");
  const shown = cards.filter((c) => !isHidden(c));
  const down = cards.length - shown.length;
  for (const c of shown) span.append(chip(c));
  if (down) span.append(el("span", `${down} face down`, "stack"));
  if (!cards.length) span.append(el("span", "empty", "hint"));
  return span;
}

function drawZones(zones, me) {
  if (!changed("zones", zones, me, told)) return;
  const box = $("zones"); box.replaceChildren();
  const hand = $("hand"); hand.replaceChildren();
  const row = (label, content) => { const r = el("div", undefined, "zone"); r.append(el("b", label), content); box.append(r); };
  for (const [name, z] of Object.entries(zones || {})) {
    const label = displayName(name);
    if (Array.isArray(z)) { if (z.length) row(label, stack(z)); continue; }
    for (const [owner, cards] of Object.entries(z)) {
      if (owner === me) {  // your own cards: large, in their own card at the top
        if (!cards.length) continue;
        const group = el("div", undefined, "mine");
        group.append(el("h3", label));
        const list = el("div", undefined, "big");
        for (const c of cards) if (!isHidden(c)) list.append(chip(c, "big"));
        const down = cards.filter(isHidden).length;  // your own face-down pile (your draw pile): one stack
        if (down) list.append(el("span", `${down} face down`, "stack big"));
        group.append(list); hand.append(group);
      } else if (cards.length) {
        row(`${label} · ${owner}`, cards.every(isHidden) && isSeat(owner) ? el("span", `${cards.length} cards`, "stack") : stack(cards));
      }
    }
  }
  setHidden($("hand-card"), !hand.childElementCount);
}

function show(v) {
  if (v === null || v === undefined) return "—";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (typeof v === "object") {
    const parts = Object.entries(v).filter(([, x]) => x !== 0 && x !== false && x !== null);
    return parts.length ? parts.map(([k, x]) => `${isSeat(k) ? k : words(k)}: ${show(x)}`).join(", ") : "—";
  }
  return said(v);
}

function drawCounters(counters) {
  // every counter, folded away: the board, the cards and the panel say what matters; this is for the curious
  if (!changed("counters", counters, told)) return;  // the fold kept as it is, open or not
  const box = $("counters");
  const open = box.querySelector("details") ? box.querySelector("details").open : false;
  box.replaceChildren();
  const fold = el("details"); fold.open = open;
  fold.append(el("summary", `All counters (${Object.keys(counters || {}).length})`));
  box.append(fold);
  const t = el("table", undefined, "counters");
  for (const [name, v] of Object.entries(counters || {})) {
    const tr = el("tr"); tr.append(el("th", displayName(name)), el("td", show(v))); t.append(tr);
  }
  fold.append(t);
}

// ---------------------------------------------------------------- pictures of the board (SVG)
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function graphSvg(name, m, markers, changes, lying) {
  const pic = svg("svg", { viewBox: "0 0 1000 1000", class: "map", role: "img", "aria-label": `map: ${displayName(name)}` });
  const at = (p) => m.places[p];
  const edge = (a, b, kind, extra) => {
    if (!at(a) || !at(b)) return;
    pic.append(svg("line", { x1: at(a)[0], y1: at(a)[1], x2: at(b)[0], y2: at(b)[1], class: `edge ${kind}${extra || ""}` }));
  };
  for (const [a, b, kind] of m.edges) edge(a, b, kind);
  for (const [a, b, kind] of (changes && changes.linked) || []) edge(a, b, kind, " made");
  const here = {};
  for (const [place, who] of markers || []) (here[place] = here[place] || []).push(who);
  for (const [place, [x, y, printed]] of Object.entries(m.places)) {
    // a space with a card lying on it (Slay the Spire's map token) is labelled by that card, as the seat sees it
    const label = (lying && lying[place]) || printed;
    const g = svg("g", { class: "place" + (here[place] ? " occupied" : "") + (label !== printed ? " token" : "") });
    g.append(svg("circle", { cx: x, cy: y, r: here[place] ? 13 : 6 }));
    g.append(svg("title", {}, label));
    g.append(svg("text", { x: x, y: y - 10, class: "label" }, label));
    if (here[place]) g.append(svg("text", { x: x, y: y + 28, class: "who" }, here[place].join(", ")));
    pic.append(g);
  }
  return pic;
}

function boardSvg(name, rows, names, marks, links) {
  // a grid of places: the bounding box of its filled cells, each a named tile (north row first)
  const filled = [];
  rows.forEach((row, r) => row.forEach((v, c) => { if (v !== null && v !== undefined) filled.push([r, c, v]); }));
  if (!filled.length) return null;
  const r0 = Math.min(...filled.map((f) => f[0])), r1 = Math.max(...filled.map((f) => f[0]));
  const c0 = Math.min(...filled.map((f) => f[1])), c1 = Math.max(...filled.map((f) => f[1]));
  const W = 130, H = 44;
  const pic = svg("svg", { viewBox: `0 0 ${(c1 - c0 + 1) * W + 10} ${(r1 - r0 + 1) * H + 10}`, class: "board", role: "img",
                           "aria-label": `board: ${displayName(name)}` });
  const centre = {};
  for (const [r, c, v] of filled) centre[v] = [5 + (c - c0) * W + (W - 6) / 2, 5 + (r - r0) * H + (H - 6) / 2];
  for (const [a, b] of links || []) {  // connections made in play (Betrayal's doors), under the tiles
    if (centre[a] && centre[b]) {
      pic.append(svg("line", { x1: centre[a][0], y1: centre[a][1], x2: centre[b][0], y2: centre[b][1], class: "edge made door" }));
    }
  }
  const here = {};
  for (const [place, who] of marks || []) (here[place] = here[place] || []).push(who);
  for (const [r, c, v] of filled) {
    const x = 5 + (c - c0) * W, y = 5 + (r - r0) * H;
    pic.append(svg("rect", { x: x, y: y, width: W - 6, height: H - 6, rx: 6, class: "tile" + (here[v] ? " occupied" : "") }));
    pic.append(svg("text", { x: x + (W - 6) / 2, y: y + (here[v] ? H / 2 - 8 : H / 2), class: "label" }, names[v] || displayName(v)));
    if (here[v]) pic.append(svg("text", { x: x + (W - 6) / 2, y: y + H / 2 + 8, class: "who small" }, here[v].join(", ")));
  }
  return pic;
}

// what the maps were last drawn from: a state that changes none of it (most states, for most of a map's places)
// keeps the pictures as they are instead of building every place and path again
let mapsDrawn = null;
function drawMaps(s) {
  const grids = s.view.grids || {};
  const key = JSON.stringify([s.markers || {}, s.view.graphs || {}, s.map_labels || {}, boardLinks,
                              Object.keys(boards).map((name) => grids[name] || null)]);
  if (mapsDrawn && mapsDrawn.maps === maps && mapsDrawn.boards === boards && mapsDrawn.key === key) return;
  mapsDrawn = { maps, boards, key };
  const box = $("maps"); box.replaceChildren();
  for (const [name, m] of Object.entries(maps)) {
    box.append(el("h3", displayName(name)), graphSvg(name, m, (s.markers || {})[name], ((s.view.graphs || {})[name]),
                                                     (s.map_labels || {})[name]));
  }
  for (const [name, names] of Object.entries(boards)) {
    const rows = (s.view.grids || {})[name];
    const links = ((s.view.graphs || {})[boardLinks[name]] || {}).linked;
    const pic = rows && boardSvg(name, rows, names, (s.markers || {})[name], links);
    if (pic) box.append(el("h3", displayName(name)), pic);
  }
  setHidden($("map-card"), !box.childElementCount);
}

function drawGrids(grids) {
  if (!changed("grids", grids, told)) return;
  const box = $("grids"); box.replaceChildren();
  for (const [name, rows] of Object.entries(grids || {})) {
    if (boards[name]) continue;  // drawn as a board above
    box.append(el("h3", displayName(name)));
    const t = el("table", undefined, "counters");
    for (const row of rows) { const tr = el("tr"); for (const cell of row) tr.append(el("td", cell)); t.append(tr); }
    box.append(t);
  }
}

function drawChanges(s) {
  const list = $("changes");
  if (!s.log_append) list.replaceChildren();
  if ((s.narration || []).length) {
    const li = el("li", undefined, "move");
    // a quoted log line heads the changes after it (indented two spaces): engine/causes.py
    for (const line of s.narration) {
      li.append(el("div", line.trimStart(), line.startsWith("  ") ? "caused" : line.startsWith("After “") ? "cause" : undefined));
    }
    list.append(li);
    while (list.childElementCount > 40) list.firstChild.remove();
  }
  setHidden($("changes-card"), !list.childElementCount);
}

let sentAt = null;  // the question (its move) last answered: a question is answered once, by a click or by itself
function choose(i) {
  if (!ws || !state || !state.decision || sentAt === state.decision.at) return;
  sentAt = state.decision.at;
  for (const b of $("options").querySelectorAll("button")) b.disabled = true;
  ws.send(JSON.stringify({ type: "choose", at: state.decision.at, choice: i }));
}

// a question with one possible answer is answered by the page and said in "What changed for you", unless the
// person asks to be asked everything (kept in this browser)
const askAll = () => localStorage.getItem("liturgy.askAll") === "1";
// how long (ms) such an answer stays on screen before the page sends it: 400 for a person to read it; a page
// driven by a test sets "liturgy.alonePause" to 0 (it asserts what is said and sent, never the pause)
const alonePause = () => {
  const v = Number(localStorage.getItem("liturgy.alonePause") ?? 400);
  return Number.isFinite(v) && v >= 0 ? v : 400;
};
let aloneAt = null;  // the one-answer question already said and answered
function answerAlone(d) {
  if (askAll() || d.options.length !== 1 || sentAt === d.at || aloneAt === d.at) return false;
  aloneAt = d.at;
  const o = d.options[0];
  const li = el("li", undefined, "move forced");
  li.append(el("div", `${d.prompt.replace(/[?:]\s*$/, "")}: ${said(o.label)}${o.detail ? " — " + o.detail : ""} (the only choice)`));
  $("changes").append(li); $("changes-card").hidden = false;
  setTimeout(() => { if (state && state.decision && state.decision.at === d.at) choose(0); }, alonePause());
  return true;
}

// a box-drawing character in an option's detail (Betrayal's "1 ┣ doors north, east, south") is a tile with an
// opening on each side the character's lines reach: drawn as a small picture of the tile turned that way
const SIDES = { "╹": "n", "╺": "e", "╻": "s", "╸": "w", "┃": "ns", "━": "ew", "┗": "ne", "┏": "es", "┓": "sw",
  "┛": "nw", "┣": "nes", "┳": "esw", "┫": "nsw", "┻": "new", "╋": "nesw" };
function tileSvg(detail) {
  const ch = [...detail].find((c) => SIDES[c]);
  if (!ch) return null;
  const pic = svg("svg", { viewBox: "0 0 40 40", class: "tile-turn", role: "img", "aria-label": `doors ${SIDES[ch]}` });
  pic.append(svg("rect", { x: 4, y: 4, width: 32, height: 32, rx: 3, class: "tile" }));
  const to = { n: [20, 4], e: [36, 20], s: [20, 36], w: [4, 20] };
  for (const side of SIDES[ch]) {
    pic.append(svg("line", { x1: 20, y1: 20, x2: to[side][0], y2: to[side][1], class: "edge door" }));
  }
  return pic;
}

// the question whose buttons are on the page. A state that asks the same question again (someone joined or left
// the table, another seat moved while this one is asked) keeps the very same buttons: drawn anew, a press that
// began on the old button would end on the new one, and the browser would send no click at all (the person's
// press lost, and a test's too). An answered question redrawn stays answered (its buttons stay disabled).
let shownQuestion = null;
function drawDecision(d, again) {
  setHidden($("decision-card"), !d);
  if (!d) { shownQuestion = null; return; }
  if (again) sentAt = null;  // the server refused the answer: the question may be answered again
  const question = JSON.stringify(d);
  const box = $("options");
  if (question === shownQuestion) {
    for (const b of box.querySelectorAll("button")) b.disabled = sentAt === d.at;
    return;
  }
  shownQuestion = question;
  setText($("prompt"), d.prompt);
  setHidden($("secret"), !d.simultaneous);
  box.replaceChildren();
  if (d.at !== sentAt) answerAlone(d);
  d.options.forEach((o, i) => {
    const b = el("button", said(o.label)); b.type = "button"; b.dataset.index = i;
    if (o.detail) b.append(el("small", o.detail));
    const turned = o.detail ? tileSvg(o.detail) : null;
    if (turned) b.prepend(turned);
    b.disabled = sentAt === d.at;
    b.onclick = () => choose(i);
    box.append(b);
  });
}

function drawResult(s) {
  const r = s.result;
  setHidden($("result-card"), !r && s.status === "running");
  if (!changed("result", r, s.status, s.error, s.outcome, told)) return;
  const box = $("result"); box.replaceChildren();
  if (s.status === "ended") box.append(el("p", "The host ended this table."));
  if (s.error) box.append(el("p", s.error, "error"));
  if (s.outcome) box.append(el("p", s.outcome, "turn"));
  if (r && !s.outcome) {  // the outcome sentence says it with seat names; the raw result numbers seats from 0
    const t = el("table", undefined, "counters");
    for (const [k, v] of Object.entries(r)) { const tr = el("tr"); tr.append(el("th", k), el("td", show(v))); t.append(tr); }
    box.append(t);
  }
}

// the lists kept scrolled to their newest line: scrolled again when lines came, or when the person (or a new
// window size) moved them since; reading their height costs a layout, which a state adding nothing skips
const scrolled = { log: null, changes: null };
const moved = { log: false, changes: false };
for (const id of Object.keys(scrolled)) {
  $(id).addEventListener("scroll", () => { if ($(id).scrollTop !== scrolled[id]) moved[id] = true; }, { passive: true });
}
window.addEventListener("resize", () => { moved.log = true; moved.changes = true; });
function keepScrolled(id, last, count) {
  const list = $(id);
  if (!moved[id] && list.lastElementChild === last && list.childElementCount === count) return;
  moved[id] = false;
  list.scrollTop = list.scrollHeight;
  scrolled[id] = list.scrollTop;
}

function drawSeats(s) {
  if (!changed("seats", s.seats, s.you, s.turn)) return;
  const seats = $("seats"); seats.replaceChildren();
  for (const seat of s.seats) {
    const cls = "seat" + (seat.seat === s.you ? " me" : "") + (s.turn.includes(seat.seat) ? " turn" : "");
    const span = el("span", undefined, cls);
    span.append(el("span", undefined, "dot" + (seat.online || seat.kind !== "human" ? " on" : "")));
    span.append(`${seat.seat} · ${seat.kind === "human" ? "person" : "bot " + seat.kind}` +
                (seat.absent ? " · not playing yet" : ""));  // a seat the rules have not brought in (absent_while)
    seats.append(span);
  }
}

function draw(s) {
  state = s;
  const log = $("log"), changes = $("changes");
  const before = [log.lastElementChild, log.childElementCount, changes.lastElementChild, changes.childElementCount];
  document.body.dataset.move = s.move;  // which state the page shows (tests read it)
  const title = `${s.ruleset} · ${s.you}`;
  if (document.title !== title) document.title = title;
  setText($("title"), s.ruleset);
  setText($("who"), s.you === "spectator" ? "spectating (public information only)" : `you are ${s.you}`);
  drawSeats(s);
  const mine = s.turn.includes(s.you);
  setText($("turn"), s.status !== "running" ? `Game ${s.status}.` :
    mine ? (s.turn.length > 1 ? "Your choice (with others, secretly)." : "Your turn.") : `Waiting for ${s.turn.join(", ")}…`);
  // what this connection was told once (card texts, place names) first: the options' labels use the names
  tell(s);
  drawDecision(s.decision);
  drawResult(s);
  setHidden($("panel-card"), !s.display);
  setText($("panel"), (s.display || []).join("\n"));
  drawChanges(s);
  drawZones(s.view.zones, s.you);
  drawMaps(s);
  drawCounters(s.view.counters);
  drawGrids(s.view.grids);
  if (!s.log_append) log.replaceChildren();  // else the lines are only the new ones: the page keeps the rest
  for (const line of s.view.log) log.append(el("li", line));
  // last, once every part is drawn: one layout for both lists, not one forced in the middle of the drawing
  keepScrolled("changes", before[2], before[3]);
  keepScrolled("log", before[0], before[1]);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(tableId)}`);
  ws.onopen = () => {
    retry = 500;
    // an answer sent on the old connection may have been lost with it: the question may be answered again (the
    // server takes one answer per move and refuses a second)
    sentAt = null; shownQuestion = null;
    $("conn").textContent = "live"; $("conn").className = "conn live";
    ws.send(JSON.stringify(token ? { type: "hello", token } : { type: "hello" }));
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") { setText($("error"), ""); draw(m); }
    else if (m.type === "token") {
      token = m.token;
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch { /* kept in memory for this page */ }
      const link = `${location.origin}/t/${encodeURIComponent(tableId)}#seat=${token}`;
      $("error").textContent = `Your seat's new link (the old one no longer works): ${link}`;
    }
    else if (m.type === "error") {
      $("error").textContent = m.message;
      if (state) drawDecision(state.decision, true);
    }
  };
  ws.onclose = (ev) => {
    $("conn").textContent = "reconnecting…"; $("conn").className = "conn";
    if (ev.code === 4403) { $("conn").textContent = "refused"; return; }
    setTimeout(connect, retry); retry = Math.min(retry * 2, 8000);
  };
}

function addRenewButton() {
  if (!token) return;  // spectators have no link to renew
  const b = el("button", "New seat link");
  b.title = "Make a new link for this seat; the old one stops working (use it if the link was shared by mistake)";
  b.onclick = () => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "rotate" })); };
  $("status-card").append(b);
}

addRenewButton();
$("ask-all").checked = askAll();
$("ask-all").onchange = (ev) => localStorage.setItem("liturgy.askAll", ev.target.checked ? "1" : "0");
connect();

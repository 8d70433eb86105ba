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

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function cardList(cards) {
  const span = el("span");
  if (!cards.length) span.append(el("span", "—", "hint"));
  for (const c of cards) span.append(el("span", c, "cardname" + (c === "?" ? " hidden" : "")));
  return span;
}

function drawZones(zones) {
  const box = $("zones"); box.replaceChildren();
  for (const [name, z] of Object.entries(zones || {})) {
    if (Array.isArray(z)) {
      const row = el("div", undefined, "zone"); row.append(el("b", name), cardList(z)); box.append(row);
    } else {
      for (const [owner, cards] of Object.entries(z)) {
        const row = el("div", undefined, "zone"); row.append(el("b", `${name} · ${owner}`), cardList(cards)); box.append(row);
      }
    }
  }
}

function show(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(", ");
  return String(v);
}

function drawCounters(counters) {
  const box = $("counters"); box.replaceChildren();
  const t = el("table", undefined, "counters");
  for (const [name, v] of Object.entries(counters || {})) {
    const tr = el("tr"); tr.append(el("th", name), el("td", show(v))); t.append(tr);
  }
  box.append(t);
}

function drawGrids(grids) {
  const box = $("grids"); box.replaceChildren();
  for (const [name, rows] of Object.entries(grids || {})) {
    box.append(el("h3", name));
    const t = el("table", undefined, "counters");
    for (const row of rows) { const tr = el("tr"); for (const cell of row) tr.append(el("td", cell)); t.append(tr); }
    box.append(t);
  }
}

function choose(i) {
  if (!ws || !state || !state.decision) return;
  for (const b of $("options").querySelectorAll("button")) b.disabled = true;
  ws.send(JSON.stringify({ type: "choose", at: state.decision.at, choice: i }));
}

function drawDecision(d) {
  $("decision-card").hidden = !d;
  if (!d) return;
  $("prompt").textContent = d.prompt;
  $("secret").hidden = !d.simultaneous;
  const box = $("options"); box.replaceChildren();
  d.options.forEach((o, i) => {
    const b = el("button", o.label); b.type = "button"; b.dataset.index = i;
    if (o.detail) b.append(el("small", o.detail));
    b.onclick = () => choose(i);
    box.append(b);
  });
}

function drawResult(s) {
  const r = s.result;
  $("result-card").hidden = !r && s.status === "running";
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

function draw(s) {
  state = s;
  document.body.dataset.move = s.move;  // which state the page shows (tests read it)
  document.title = `${s.ruleset} · ${s.you}`;
  $("title").textContent = s.ruleset;
  $("who").textContent = s.you === "spectator" ? "spectating (public information only)" : `you are ${s.you}`;
  const seats = $("seats"); seats.replaceChildren();
  for (const seat of s.seats) {
    const cls = "seat" + (seat.seat === s.you ? " me" : "") + (s.turn.includes(seat.seat) ? " turn" : "");
    const span = el("span", undefined, cls);
    span.append(el("span", undefined, "dot" + (seat.online || seat.kind !== "human" ? " on" : "")));
    span.append(`${seat.seat} · ${seat.kind === "human" ? "person" : "bot " + seat.kind}`);
    seats.append(span);
  }
  const mine = s.turn.includes(s.you);
  $("turn").textContent = s.status !== "running" ? `Game ${s.status}.` :
    mine ? (s.turn.length > 1 ? "Your choice (with others, secretly)." : "Your turn.") : `Waiting for ${s.turn.join(", ")}…`;
  drawDecision(s.decision);
  drawResult(s);
  $("panel-card").hidden = !s.display;
  $("panel").textContent = (s.display || []).join("\n");
  drawZones(s.view.zones);
  drawCounters(s.view.counters);
  drawGrids(s.view.grids);
  const log = $("log");
  if (!s.log_append) log.replaceChildren();  // else the lines are only the new ones: the page keeps the rest
  for (const line of s.view.log) log.append(el("li", line));
  log.scrollTop = log.scrollHeight;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(tableId)}`);
  ws.onopen = () => {
    retry = 500;
    $("conn").textContent = "live"; $("conn").className = "conn live";
    ws.send(JSON.stringify(token ? { type: "hello", token } : { type: "hello" }));
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") { $("error").textContent = ""; draw(m); }
    else if (m.type === "token") {
      token = m.token;
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch { /* kept in memory for this page */ }
      const link = `${location.origin}/t/${encodeURIComponent(tableId)}#seat=${token}`;
      $("error").textContent = `Your seat's new link (the old one no longer works): ${link}`;
    }
    else if (m.type === "error") {
      $("error").textContent = m.message;
      if (state) drawDecision(state.decision);
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
connect();

// The lobby: create a table, show its invite links. Everything is built with textContent (no HTML from data).
"use strict";
const $ = (id) => document.getElementById(id);
let catalog = { rulesets: [], bots: [] };
const STORE = "liturgy.tables";

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// an option's identifier as a person reads it (`final_boss_pick` → "Final boss pick"), as the table page does
const displayName = (id) => { const t = String(id).replaceAll("_", " "); return t.charAt(0).toUpperCase() + t.slice(1); };

function current() { return catalog.rulesets.find((r) => r.key === $("ruleset").value); }

function drawSeats() {
  const r = current();
  const n = Math.max(r.min_players, Math.min(r.max_players, Number($("players").value) || r.min_players));
  $("players").min = r.min_players; $("players").max = r.max_players; $("players").value = n;
  const seats = $("seats");
  const before = [...seats.querySelectorAll("select")].map((s) => s.value);
  seats.replaceChildren();
  for (let p = 0; p < n; p++) {
    const label = el("label", `Seat P${p + 1} `);
    const sel = el("select"); sel.name = "seat";
    for (const kind of ["human", ...catalog.bots]) {
      const o = el("option", kind === "human" ? "a person (invite link)" : `bot: ${kind}`); o.value = kind; sel.append(o);
    }
    sel.value = before[p] || (p < 2 ? "human" : (catalog.bots[0] || "human"));
    label.append(sel); seats.append(label);
  }
}

function drawOptions() {
  const box = $("options"); box.replaceChildren();
  for (const [name, values] of Object.entries(current().options)) {
    const label = el("label", `${displayName(name)} `);
    const sel = el("select"); sel.dataset.option = name;
    for (const v of values) { const o = el("option", String(v).replaceAll("_", " ")); o.value = v; sel.append(o); }
    label.append(sel); box.append(label);
  }
}

function saved() { try { return JSON.parse(localStorage.getItem(STORE) || "[]"); } catch { return []; } }

function linkItem(text, href) {
  const li = el("li");
  li.append(el("span", text + " "));
  const a = el("a", location.origin + href); a.href = href; a.target = "_blank"; a.rel = "noopener";
  li.append(a);
  const copy = el("button", "copy", "quiet");
  copy.type = "button";
  copy.onclick = () => navigator.clipboard && navigator.clipboard.writeText(location.origin + href);
  li.append(" ", copy);
  return li;
}

function drawMade(made) {
  $("made").hidden = false;
  const ul = $("links"); ul.replaceChildren(); ul.className = "links";
  for (const s of made.seats) {
    if (s.token) ul.append(linkItem(`${s.seat} (person):`, `/t/${made.table}#seat=${s.token}`));
    else ul.append(el("li", `${s.seat}: bot (${s.kind})`));
  }
  ul.append(linkItem("Spectators:", `/t/${made.table}`));
}

async function endTable(t) {
  const res = await fetch(`/api/tables/${encodeURIComponent(t.table)}/end`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ host: t.host }) });
  if (res.ok) { t.ended = true; localStorage.setItem(STORE, JSON.stringify(saved().map((x) => x.table === t.table ? t : x))); }
  drawMine();
}

function drawMine() {
  const ul = $("mine"); ul.replaceChildren();
  for (const t of saved().slice().reverse()) {
    const li = el("li");
    li.append(el("span", `${t.ruleset} · table ${t.table}${t.ended ? " (ended)" : ""} `));
    const show = el("button", "links", "quiet"); show.type = "button"; show.onclick = () => drawMade(t);
    li.append(show);
    if (!t.ended) {
      const end = el("button", "end table", "quiet"); end.type = "button"; end.onclick = () => endTable(t);
      li.append(" ", end);
    }
    ul.append(li);
  }
}

async function create(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  const body = {
    ruleset: $("ruleset").value,
    players: Number($("players").value),
    seats: [...$("seats").querySelectorAll("select")].map((s) => s.value),
    options: Object.fromEntries([...$("options").querySelectorAll("select")].map((s) => [s.dataset.option, s.value])),
  };
  const res = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) { $("create-error").textContent = data.error || "could not create the table"; return; }
  localStorage.setItem(STORE, JSON.stringify([...saved(), data].slice(-30)));
  drawMade(data);
  drawMine();
}

async function start() {
  catalog = await (await fetch("/api/rulesets")).json();
  for (const r of catalog.rulesets) {
    const o = el("option", `${r.name} (${r.min_players}–${r.max_players})`); o.value = r.key; $("ruleset").append(o);
  }
  $("ruleset").onchange = () => { drawSeats(); drawOptions(); };
  $("players").onchange = drawSeats;
  $("create").onsubmit = create;
  drawSeats(); drawOptions(); drawMine();
}

start();

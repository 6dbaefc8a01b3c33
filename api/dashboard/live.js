// The "Live agents" panel: the sessions real hosts open through the MCP
// fronts (docs/gameday.md), their calls with channel and verdict, and for
// each call its evidence: the reply text the host got and the upstream
// exchanges and injections the fault layer attributed to it. Everything
// the servers' replies say is put in the page as text, never as markup.

import { request, enc, authHeaders } from "./api.js";
import { parseFrame } from "./stream.js";
import { h, replace, setText, keyed, clock } from "./dom.js";

const $ = (id) => document.getElementById(id);

// Bounds: what the page keeps and draws, however long the game day.
const SESSIONS_SHOWN = 50; // newest first
const CALLS_SHOWN = 100; // the latest of an expanded session
const EVIDENCE_PER_CALL = 20; // exchanges and injections per call
const EVIDENCE_CALLS = 2000; // calls whose evidence is kept
const EVIDENCE_REPLAY = 4096; // events read back when a session opens (the bus keeps as many)
const TEXT_SHOWN = 4000; // characters of a reply shown
// Live events coalesce into one reload: soon when a session begins or
// ends, at most every second while calls come (a reload reads up to
// SESSIONS_SHOWN sessions with the tools their servers listed).
const RELOAD_SOON_MS = 250;
const RELOAD_CALLS_MS = 1000;

// Verdicts that mean the host did harm: drawn as such.
const HARM = new Set(["loop", "duplicate"]);

const live = {
  sessions: [], // GET /v1/live/sessions, in the order they started
  calls: new Map(), // session id → its calls (expanded sessions only)
  evidence: new Map(), // "session\ncall" → events, oldest first
  expanded: new Set(), // session ids open on screen
  total: 0, // sessions the server remembers
  timer: 0,
  due: 0, // performance.now() when the pending reload runs
  dirty: new Set(), // expanded sessions whose calls changed
};

// load reads the sessions (the page opened, or the server came back).
export async function load() {
  try {
    const res = await request("GET", `/v1/live/sessions?limit=${SESSIONS_SHOWN}`);
    live.sessions = res.sessions || [];
    live.total = res.stats ? res.stats.sessions : live.sessions.length;
    setText($("live-stats"), res.stats ? `${res.stats.sessions} session(s) · ${res.stats.open} call(s) open` : "");
    for (const id of live.expanded) live.dirty.add(id);
    await reloadCalls();
    render();
  } catch (err) {
    setText($("live-stats"), `cannot read the live sessions: ${err.message}`);
  }
}

// onEvent takes every event of the stream: live ones schedule a reload,
// exchanges and injections stamped with a live call are its evidence.
export function onEvent(e) {
  if ((e.type === "exchange" || e.type === "injection") && e.session && e.call > 0) {
    keep(e);
    if (live.expanded.has(e.session)) schedule(e.session, RELOAD_CALLS_MS);
    return;
  }
  if (e.type === "call") schedule(e.session, RELOAD_CALLS_MS);
  else if (e.type === "session_open" || e.type === "session_close") schedule(e.session, RELOAD_SOON_MS);
}

function keep(e) {
  const key = `${e.session}\n${e.call}`;
  let list = live.evidence.get(key);
  if (!list) {
    if (live.evidence.size >= EVIDENCE_CALLS) live.evidence.delete(live.evidence.keys().next().value);
    list = [];
    live.evidence.set(key, list);
  }
  if (list.some((x) => x.seq === e.seq && x.time === e.time)) return;
  list.push(e);
  list.sort((a, b) => a.seq - b.seq);
  if (list.length > EVIDENCE_PER_CALL) list.shift();
}

function schedule(session, delay) {
  if (session && live.expanded.has(session)) live.dirty.add(session);
  const due = performance.now() + delay;
  if (live.timer && live.due <= due) return;
  clearTimeout(live.timer);
  live.due = due;
  live.timer = setTimeout(() => {
    live.timer = 0;
    load();
  }, delay);
}

// reloadCalls reads the calls of the expanded sessions that changed.
async function reloadCalls() {
  const ids = [...live.dirty];
  live.dirty.clear();
  await Promise.all(
    ids.map(async (id) => {
      const res = await request("GET", `/v1/live/calls?session=${enc(id)}&limit=${CALLS_SHOWN}`);
      live.calls.set(id, res.calls || []);
    }),
  );
}

// readEvidence reads back the exchanges and injections the server still
// remembers, for a session just opened on screen.
async function readEvidence(session) {
  const res = await fetch(`/v1/events?follow=false&replay=${EVIDENCE_REPLAY}&type=exchange,injection`, {
    headers: { ...authHeaders(), Accept: "text/event-stream" },
    cache: "no-store",
  });
  if (!res.ok) return;
  for (const frame of (await res.text()).split(/\r?\n\r?\n/)) {
    const f = parseFrame(frame);
    if (!f) continue;
    let e;
    try {
      e = { ...JSON.parse(f.data), type: f.type };
    } catch {
      continue;
    }
    if (e.session === session && e.call > 0) keep(e);
  }
}

async function expand(id) {
  live.expanded.add(id);
  live.dirty.add(id);
  try {
    await Promise.all([reloadCalls(), readEvidence(id)]);
  } catch (err) {
    setText($("live-stats"), `cannot read session ${id}: ${err.message}`);
  }
  render();
}

// verdictOf is a session's verdict, "open" while it is.
const verdictOf = (s) => s.verdict || (s.end ? "ungraded" : "open");

function verdictBadge(v) {
  return h("span", { class: `badge verdict v-${HARM.has(v) ? v : v === "converged" ? "ok" : v === "open" ? "open" : "finding"}` }, v);
}

function render() {
  const shown = live.sessions.slice(-SESSIONS_SHOWN).reverse();
  $("live-empty").hidden = shown.length > 0;
  const more = live.total - shown.length;
  setText($("live-more"), more > 0 ? `${more} older session(s) not shown.` : "");
  keyed($("live-sessions"), shown, (s) => s.id, createSession, updateSession);
}

function createSession(s) {
  const summary = h("summary", {});
  const body = h("div", { class: "live-body" });
  const el = h("details", { class: "live-session" }, summary, body);
  el.parts = { summary, body };
  el.addEventListener("toggle", () => {
    if (el.open) expand(s.id);
    else live.expanded.delete(s.id);
  });
  return el;
}

function updateSession(el, s) {
  const v = verdictOf(s);
  el.dataset.verdict = v;
  el.classList.toggle("harm", HARM.has(v));
  replace(
    el.parts.summary,
    h("span", { class: "live-front" }, s.front),
    h("code", { class: "live-id" }, s.id),
    h("span", { class: "live-client" }, s.client || "host unknown"),
    h("span", { class: "live-calls" }, `${s.calls} call${s.calls === 1 ? "" : "s"}`),
    verdictBadge(v),
    s.findings && s.findings.length > 0 && h("span", { class: "hint" }, s.findings.join(" ")),
  );
  if (!el.open) return;
  const calls = live.calls.get(s.id);
  if (!calls) {
    replace(el.parts.body, h("p", { class: "empty" }, "Loading…"));
    return;
  }
  if (!el.parts.table) {
    const tbody = h("tbody");
    const table = h(
      "table",
      { class: "live-calls-table" },
      h("caption", { class: "sr-only" }, `Calls of session ${s.id}`),
      h("thead", {}, h("tr", {}, ["#", "Tool", "Attempt", "Channel", "Latency", "Verdict"].map((c) => h("th", { scope: "col" }, c)))),
      tbody,
    );
    el.parts.table = table;
    el.parts.tbody = tbody;
    el.parts.reason = h("p", { class: "hint" });
    replace(el.parts.body, el.parts.reason, table);
  }
  setText(el.parts.reason, s.end ? `Ended ${clock(new Date(s.end)).slice(0, 8)}: ${s.reason || "closed"}.` : "Open.");
  // A call and its evidence are two rows, kept together by their key.
  const rows = calls.flatMap((c) => [{ c, kind: "call" }, { c, kind: "evidence" }]);
  keyed(el.parts.tbody, rows, (r) => `${r.kind}-${r.c.seq}`, createRow, updateRow);
}

function createRow(r) {
  if (r.kind === "call") return h("tr", { class: "live-call" });
  const box = h("div", { class: "evidence" });
  const details = h("details", {}, h("summary", {}, "Reply and upstream traffic"), box);
  const tr = h("tr", { class: "live-evidence" }, h("td", { colspan: "6" }, details));
  tr.parts = { box };
  return tr;
}

function updateRow(tr, { c, kind }) {
  const harm = HARM.has(c.verdict);
  tr.classList.toggle("harm", harm);
  tr.dataset.verdict = c.verdict || "";
  if (kind === "call") {
    const ch = c.tamper ? `${c.channel} → ${c.tamper.mode}` : c.channel;
    replace(
      tr,
      h("td", { class: "num" }, String(c.seq)),
      h("td", {}, h("code", {}, c.tool)),
      h("td", { class: "num" }, c.attempt ? String(c.attempt) : "–"),
      h("td", { class: `ch-${c.channel}` }, ch, c.code ? ` (${c.code})` : ""),
      h("td", { class: "num" }, latency(c.elapsed_ns)),
      h("td", {}, c.verdict ? verdictBadge(c.verdict) : "–", (c.findings || []).length > 0 && h("span", { class: "hint" }, ` ${c.findings.join(" ")}`)),
    );
    return;
  }
  const text = c.text || "";
  const events = c.n ? live.evidence.get(`${c.session}\n${c.n}`) || [] : [];
  replace(
    tr.parts.box,
    h("p", { class: "hint" }, c.detail ? `The host got: (${c.detail})` : "The host got:"),
    h("pre", { class: "reply" }, text.length > TEXT_SHOWN ? `${text.slice(0, TEXT_SHOWN)}…` : text),
    c.truncated && h("p", { class: "hint" }, "(cut by the recorder)"),
    h("p", { class: "hint" }, events.length ? `Upstream traffic attributed to this call (call ${c.n} on the timeline):` : "No upstream traffic attributed to this call."),
    events.length > 0 && h("ul", { class: "exchanges" }, events.map(evidenceItem)),
  );
}

function evidenceItem(e) {
  if (e.type === "injection") {
    return h("li", { class: "ev-injection", dataset: { type: "injection" } }, h("span", { class: "kind" }, e.fault), ` by rule ${e.rule} on ${e.upstream || "?"}`);
  }
  const client = e.client_status && e.client_status !== e.status ? ` · client got ${e.client_status}` : "";
  return h(
    "li",
    { class: "ev-exchange", dataset: { type: "exchange" } },
    h("code", {}, `${e.method} ${e.path}`),
    ` on ${e.upstream || "?"} → `,
    h("strong", { class: e.status >= 500 || !e.status ? "bad" : e.status >= 400 ? "warn" : "good" }, e.status ? String(e.status) : "no upstream reply"),
    client,
    e.fault ? ` · ${e.fault}` : "",
    e.committed ? " · committed" : "",
  );
}

function latency(ns) {
  if (!ns) return "–";
  const ms = ns / 1e6;
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

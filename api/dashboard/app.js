// The game-day dashboard: what is broken right now, for how long, what
// the proxies and the simulated agents saw, and one button that stops
// everything. It is a client of the control API (docs/api.md) and of
// nothing else.

import { request, token, enc, APIError, Unreachable } from "./api.js";
import { EventStream } from "./stream.js";
import { h, replace, setText, keyed, clock, countdown } from "./dom.js";
import * as livePanel from "./live.js";

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------
// State
// ---------------------------------------------------------------------

const POLL_SECONDS = 2; // how often upstreams, faults and runs are read
const MAX_BACKOFF = 30; // longest wait between tries while unreachable
const TIMELINE_KEEP = 200; // entries per event category, and on screen

const state = {
  upstreams: [],
  faults: [],
  runs: [],
  kinds: [],
  examples: [],
  runsEnabled: null, // GET /healthz says whether POST /v1/runs is on
  // fetchedAt is performance.now() when the faults were read: TTLs
  // count down from their expires_in_seconds then, on the browser's
  // monotonic clock, so a skewed wall clock does not matter.
  fetchedAt: 0,
  metrics: "", // the text of GET /metrics
  report: null, // the latest finished run, with its report
  poll: "starting", // ok | unreachable | unauthorized | error
  stream: "starting", // live | retrying | unauthorized | stopped
  failures: 0,
  nextTry: 0, // performance.now() of the next try while unreachable
  lastOK: null, // Date of the last successful refresh
  askedToken: false, // the token dialog opened by itself once already
  timer: 0,
};

// ---------------------------------------------------------------------
// Connectivity: the status pill and the degraded-state banner
// ---------------------------------------------------------------------

function renderStatus() {
  const pill = $("status");
  let text, cls;
  if (state.poll === "unauthorized" || state.stream === "unauthorized") {
    [text, cls] = ["Token needed", "bad"];
  } else if (state.poll === "unreachable") {
    [text, cls] = ["Offline", "bad"];
  } else if (state.poll === "ok" && state.stream === "live") {
    [text, cls] = ["Live", "ok"];
  } else if (state.poll === "ok") {
    [text, cls] = ["Live (events reconnecting)", "warn"];
  } else {
    [text, cls] = ["Connecting…", "warn"];
  }
  setText(pill, text);
  pill.className = `pill ${cls}`;
  document.body.classList.toggle("stale", state.poll === "unreachable");
}

function renderBanner(message, { retry = false, tokenButton = false } = {}) {
  const banner = $("banner");
  if (!message) {
    banner.hidden = true;
    replace(banner);
    return;
  }
  replace(
    banner,
    h("p", { class: "banner-text" }, message),
    h("span", { id: "banner-countdown" }),
    retry && h("button", { type: "button", onclick: () => refreshNow() }, "Retry now"),
    tokenButton && h("button", { type: "button", onclick: openTokenDialog }, "Enter the token"),
  );
  banner.hidden = false;
}

function updateBannerCountdown() {
  const el = $("banner-countdown");
  if (!el || state.poll !== "unreachable") return;
  const left = Math.max(0, Math.ceil((state.nextTry - performance.now()) / 1000));
  setText(el, left > 0 ? `Retrying in ${left}s (attempt ${state.failures + 1}).` : "Retrying now…");
}

// ---------------------------------------------------------------------
// Refreshing: upstreams, faults, runs and metrics every few seconds
// ---------------------------------------------------------------------

function schedule(seconds) {
  clearTimeout(state.timer);
  state.nextTry = performance.now() + seconds * 1000;
  state.timer = setTimeout(refresh, seconds * 1000);
}

function refreshNow() {
  schedule(0);
}

async function refresh() {
  try {
    const [ups, faults, runs, metrics] = await Promise.all([
      request("GET", "/v1/upstreams"),
      request("GET", "/v1/faults"),
      request("GET", "/v1/runs"),
      request("GET", "/metrics"),
    ]);
    state.upstreams = ups.upstreams;
    state.faults = faults.faults;
    state.fetchedAt = performance.now();
    state.runs = runs.runs;
    state.metrics = metrics;
    const wasDown = state.poll !== "ok";
    state.poll = "ok";
    state.failures = 0;
    state.lastOK = new Date();
    renderBanner(null);
    if (wasDown) {
      await loadStatic();
      livePanel.load();
    }
    await loadLatestReport();
    render();
    // Faster while a run is in progress, so its end shows promptly.
    schedule(state.runs.some((r) => r.status === "running") ? 1 : POLL_SECONDS);
  } catch (err) {
    failed(err);
  }
  renderStatus();
}

// failed shows why a refresh failed and schedules the next try.
function failed(err) {
  if (err instanceof APIError && err.status === 401) {
    state.poll = "unauthorized";
    renderBanner("This server needs its API token. It is kept in this tab only (sessionStorage).", { tokenButton: true });
    if (!$("token-dialog").open && !state.askedToken) {
      state.askedToken = true;
      openTokenDialog();
    }
    clearTimeout(state.timer); // a new token calls refreshNow()
    return;
  }
  if (err instanceof Unreachable) {
    state.poll = "unreachable";
    const wait = Math.min(MAX_BACKOFF, 2 ** state.failures);
    state.failures++;
    const since = state.lastOK ? ` What you see is from ${clock(state.lastOK).slice(0, 8)} and may be out of date.` : "";
    renderBanner(
      `The mcpchaos API at ${location.host} is unreachable.${since} Faults still expire on their own TTL.`,
      { retry: true },
    );
    schedule(wait);
    updateBannerCountdown();
    return;
  }
  state.poll = "error";
  renderBanner(`The API refused the dashboard: ${err.message}`, { retry: true });
  schedule(MAX_BACKOFF);
}

// loadStatic reads what does not change while the server runs: the fault
// kinds, the example scenarios and whether runs are enabled.
async function loadStatic() {
  if (state.runsEnabled === null) {
    state.runsEnabled = (await request("GET", "/healthz")).runs === true;
    renderRunsEnabled();
  }
  if (state.kinds.length === 0) {
    state.kinds = (await request("GET", "/v1/kinds")).kinds;
    renderKindOptions();
  }
  if (state.examples.length === 0) {
    state.examples = (await request("GET", "/v1/examples")).examples;
    renderExamples();
  }
}

// loadLatestReport fetches the report of the newest finished run, once.
async function loadLatestReport() {
  const done = state.runs.filter((r) => r.status !== "running");
  const latest = done[done.length - 1];
  if (!latest || (state.report && state.report.id === latest.id)) return;
  state.report = await request("GET", `/v1/runs/${enc(latest.id)}`);
}

function render() {
  renderUpstreams();
  renderUpstreamOptions();
  renderTiles();
  renderVerdicts();
  renderRuns();
  tick();
}

// ---------------------------------------------------------------------
// Upstreams and their faults
// ---------------------------------------------------------------------

// groups returns one group per upstream, plus one per other upstream
// name the faults use ("" is "every upstream"), each with its faults.
function groups() {
  const out = [];
  for (const u of state.upstreams) {
    out.push({ key: u.name, upstream: u, faults: [] });
    // A forward upstream's destinations are upstreams of their own.
    for (const d of destinations(u)) out.push({ key: d.name, upstream: d, faults: [] });
  }
  const byName = new Map(out.map((g) => [g.key, g]));
  for (const f of state.faults) {
    const key = f.upstream || "";
    if (!byName.has(key)) {
      const g = { key, upstream: null, faults: [] };
      byName.set(key, g);
      out.push(g);
    }
    byName.get(key).faults.push(f);
  }
  return out;
}

// destinations lists a forward upstream's hosts as upstreams: named by
// the host (or the name it was given), reached via the forward upstream.
function destinations(u) {
  return (u.hosts || []).map((d) => ({
    name: d.name,
    host: d.host,
    via: u.name,
    protocol: "destination",
    enabled: u.enabled,
    refusing: d.ways.some((w) => w.refusing),
    ways: d.ways,
    declared: d.declared,
  }));
}

// upstreamMeta is the line under an upstream's name.
function upstreamMeta(u) {
  if (u.via) {
    const ways = u.ways.map((w) => `${w.way} :${w.port} → ${w.dial}`).join(", ");
    return `${u.host} via ${u.via}${ways ? ` · ${ways}` : " · not reached yet"}`;
  }
  if (u.protocol === "forward") return `${u.listen} → the hosts its clients name (HTTP_PROXY, HTTPS_PROXY)`;
  return `${u.listen} → ${u.target}`;
}

function renderUpstreams() {
  const list = groups();
  $("no-upstreams").hidden = list.length > 0;
  keyed($("upstreams"), list, (g) => g.key, createCard, updateCard);
}

function createCard(g) {
  const id = `up-${[...g.key].map((c) => c.charCodeAt(0).toString(16)).join("")}`;
  const title = h("h3", { id: `${id}-title`, tabindex: "-1" });
  const meta = h("p", { class: "up-meta" });
  const badges = h("span", { class: "badges" });
  const toggle = h("button", { type: "button", class: "small ghost" });
  const tbody = h("tbody");
  const table = h(
    "table",
    { class: "faults", "aria-labelledby": `${id}-title` },
    h(
      "thead",
      {},
      h("tr", {}, ["Fault", "Rule", "Hits", "Expires in", "State", h("span", { class: "sr-only" }, "Actions")].map((c) => h("th", { scope: "col" }, c))),
    ),
    tbody,
  );
  const empty = h("p", { class: "empty" }, "No fault on this upstream.");
  const card = h("article", { class: "card upstream" }, h("header", {}, title, badges, toggle), meta, table, empty);
  card.parts = { title, meta, badges, toggle, tbody, table, empty };
  toggle.addEventListener("click", () => toggleUpstream(card.group));
  return card;
}

function updateCard(card, g) {
  card.group = g;
  const p = card.parts;
  const u = g.upstream;
  setText(p.title, g.key === "" ? "Every upstream" : g.key);
  if (u) {
    setText(p.meta, upstreamMeta(u));
    replace(
      p.badges,
      h("span", { class: "badge proto" }, u.via ? `via ${u.via}` : u.protocol),
      u.forward && u.forward.intercept_tls && h("span", { class: "badge proto" }, "intercepts TLS"),
      !u.enabled && h("span", { class: "badge bad" }, "proxy disabled"),
      u.refusing && h("span", { class: "badge bad" }, "refusing connections"),
    );
    // A destination has no proxy of its own to disable: its forward
    // upstream's card has the button.
    p.toggle.hidden = !!u.via;
    setText(p.toggle, u.enabled ? "Disable proxy" : "Enable proxy");
    p.toggle.setAttribute("aria-label", `${u.enabled ? "Disable" : "Enable"} the proxy of ${u.name}`);
  } else {
    setText(p.meta, g.key === "" ? "Faults that apply to every upstream." : "No such upstream is running.");
    replace(p.badges);
    p.toggle.hidden = true;
  }
  card.classList.toggle("down", !!u && !u.enabled);
  p.table.hidden = g.faults.length === 0;
  p.empty.hidden = g.faults.length > 0;
  keyed(p.tbody, g.faults, (f) => f.name, createFaultRow, updateFaultRow);
}

function params(spec) {
  return Object.entries(spec)
    .filter(([k]) => k !== "kind")
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" ");
}

function createFaultRow() {
  const name = h("strong", { class: "fault-name" });
  const kind = h("span", { class: "kind" });
  const args = h("span", { class: "params" });
  const when = h("code", { class: "when" });
  const odds = h("span", { class: "odds" });
  const hits = h("span", { class: "hits" });
  const ttl = h("span", { class: "ttl" });
  const bar = h("span", { class: "bar", "aria-hidden": "true" }, h("span"));
  const stateBadge = h("span", { class: "badge" });
  const toggle = h("button", { type: "button", class: "small" });
  const remove = h("button", { type: "button", class: "small danger" }, "Remove");
  const row = h(
    "tr",
    {},
    h("th", { scope: "row" }, name, h("br"), kind, args),
    h("td", {}, when, odds),
    h("td", { class: "num" }, hits),
    h("td", { class: "ttl-cell" }, ttl, bar),
    h("td", {}, stateBadge),
    h("td", { class: "actions" }, toggle, remove),
  );
  row.parts = { name, kind, args, when, odds, hits, ttl, bar, stateBadge, toggle, remove };
  toggle.addEventListener("click", () => setEnabled(row.fault, !row.fault.enabled));
  remove.addEventListener("click", () => removeFault(row, row.fault));
  return row;
}

function updateFaultRow(row, f) {
  row.fault = f;
  const p = row.parts;
  row.dataset.state = f.state;
  setText(p.name, f.name);
  setText(p.kind, f.fault.kind);
  setText(p.args, params(f.fault));
  setText(p.when, f.when || "always");
  p.when.classList.toggle("always", !f.when);
  const odds = [];
  if (f.probability < 1) odds.push(`p=${f.probability}`);
  if (f.limit) odds.push(`limit ${f.limit}`);
  setText(p.odds, odds.join(" · "));
  setText(p.hits, f.limit ? `${f.hits} / ${f.limit}` : f.hits);
  setText(p.stateBadge, f.state);
  p.stateBadge.className = `badge state-${f.state}`;
  setText(p.toggle, f.enabled ? "Disable" : "Enable");
  p.toggle.setAttribute("aria-label", `${f.enabled ? "Disable" : "Enable"} fault ${f.name}`);
  p.remove.setAttribute("aria-label", `Remove fault ${f.name}`);
  // The TTL is drawn by tick(), every half second.
  row.expiry = f.expires_in_seconds === null ? null : state.fetchedAt + f.expires_in_seconds * 1000;
  row.lifetime = f.expires_at ? Date.parse(f.expires_at) - Date.parse(f.added_at) : 0;
}

// tick redraws every TTL countdown from the browser's monotonic clock.
function tick() {
  const now = performance.now();
  for (const row of document.querySelectorAll("#upstreams tbody tr")) {
    const p = row.parts;
    if (!p) continue;
    if (row.expiry === null) {
      setText(p.ttl, "never");
      p.bar.hidden = true;
      continue;
    }
    const left = (row.expiry - now) / 1000;
    setText(p.ttl, left > 0 ? countdown(left) : "expired");
    p.bar.hidden = false;
    const frac = row.lifetime > 0 ? Math.max(0, Math.min(1, (left * 1000) / row.lifetime)) : 0;
    p.bar.firstChild.style.width = `${(frac * 100).toFixed(1)}%`;
    row.classList.toggle("ending", left > 0 && left < 30);
  }
  updateBannerCountdown();
}

// ---------------------------------------------------------------------
// Fault and upstream actions
// ---------------------------------------------------------------------

async function act(what, fn) {
  try {
    await fn();
    refreshNow();
    return true;
  } catch (err) {
    notify(`${what} failed: ${err.message}`, true);
    if (err instanceof Unreachable) failed(err);
    return false;
  }
}

function setEnabled(f, enabled) {
  return act(`${enabled ? "Enabling" : "Disabling"} ${f.name}`, async () => {
    await request("PATCH", `/v1/faults/${enc(f.name)}`, { json: { enabled } });
    notify(`Fault “${f.name}” ${enabled ? "enabled" : "disabled"}; its TTL and hit count restarted.`);
  });
}

async function removeFault(row, f) {
  // The row goes away: move the focus to its card first, not to <body>.
  const card = row.closest("article");
  const ok = await act(`Removing ${f.name}`, async () => {
    await request("DELETE", `/v1/faults/${enc(f.name)}`);
    notify(`Fault “${f.name}” removed.`);
  });
  if (ok && card && card.contains(document.activeElement)) card.parts.title.focus();
}

function toggleUpstream(g) {
  const u = g.upstream;
  const verb = u.enabled ? "disable" : "enable";
  return act(`${verb} ${u.name}`, async () => {
    await request("POST", `/v1/upstreams/${enc(u.name)}/${verb}`);
    notify(u.enabled ? `Proxy of ${u.name} disabled: connections are refused until enabled or halted.` : `Proxy of ${u.name} enabled.`);
  });
}

// notify shows a short message; errors stay until the next message.
function notify(message, error = false) {
  const el = $("notice");
  setText(el, message);
  el.className = error ? "notice error" : "notice";
  el.hidden = false;
  clearTimeout(notify.timer);
  if (!error) notify.timer = setTimeout(() => (el.hidden = true), 8000);
}

// ---------------------------------------------------------------------
// Halt all
// ---------------------------------------------------------------------

function openHaltDialog() {
  const n = state.faults.length;
  const down = state.upstreams.filter((u) => !u.enabled).length;
  setText(
    $("halt-what"),
    `${n === 1 ? "1 fault" : `${n} faults`} will be removed` +
      (down ? ` and ${down === 1 ? "1 disabled proxy" : `${down} disabled proxies`} enabled again` : "") +
      ". Connections that faults hold heal at once.",
  );
  $("halt-dialog").showModal();
}

async function halt() {
  const button = $("halt");
  button.disabled = true;
  try {
    const res = await request("POST", "/v1/halt");
    const up = res.upstreams_enabled.length ? `; proxies enabled: ${res.upstreams_enabled.join(", ")}` : "";
    const errs = res.errors && res.errors.length ? ` Could not reopen: ${res.errors.join("; ")}.` : "";
    notify(`Halted: ${res.faults_removed} fault(s) removed${up}.${errs}`, !!errs);
    refreshNow();
  } catch (err) {
    // Say plainly that nothing is known to have stopped.
    notify(`HALT NOT CONFIRMED: ${err.message}. Faults still expire on their TTL; retry, or stop mcpchaos serve.`, true);
    if (err instanceof Unreachable) failed(err);
  } finally {
    button.disabled = false;
    button.focus();
  }
}

// ---------------------------------------------------------------------
// The token
// ---------------------------------------------------------------------

function openTokenDialog() {
  const input = $("token-input");
  input.value = "";
  setText($("token-state"), token.get() ? "A token is set for this tab." : "No token is set.");
  $("token-dialog").showModal();
  input.focus();
}

function useToken(value) {
  if (value) token.set(value);
  else token.clear();
  state.askedToken = false;
  renderTokenButton();
  stream.restart();
  refreshNow();
}

function renderTokenButton() {
  setText($("token-button"), token.get() ? "Token ✓" : "Token");
}

// ---------------------------------------------------------------------
// The add-a-fault form
// ---------------------------------------------------------------------

function renderUpstreamOptions() {
  const sel = $("f-upstream");
  const all = state.upstreams.flatMap((u) => [u, ...destinations(u)]);
  const want = all.map((u) => u.name).join("\n");
  if (sel.dataset.names === want) return;
  sel.dataset.names = want;
  const keep = sel.value;
  replace(
    sel,
    all.map((u) => h("option", { value: u.name }, u.via ? `${u.name} (via ${u.via})` : `${u.name} (${u.protocol})`)),
    h("option", { value: "" }, "every upstream"),
  );
  if ([...sel.options].some((o) => o.value === keep) && sel.dataset.touched) sel.value = keep;
  filterKinds();
}

function renderKindOptions() {
  replace(
    $("f-kind"),
    state.kinds.map((k) => h("option", { value: k.name }, k.name)),
  );
  filterKinds();
}

// filterKinds offers only the kinds the chosen upstream's protocol has
// (GET /v1/kinds says which protocols each kind applies to).
function filterKinds() {
  const u = state.upstreams.find((x) => x.name === $("f-upstream").value);
  const sel = $("f-kind");
  for (const o of sel.options) {
    const k = state.kinds.find((x) => x.name === o.value);
    // A forward upstream takes http and tcp kinds alike (a host behind it
    // is reached over either).
    const applies = !!u && !!k && (u.protocol === "forward" ? k.http || k.tcp : k[u.protocol]);
    o.disabled = !!u && !!k && !applies;
  }
  if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) {
    const first = [...sel.options].find((o) => !o.disabled);
    if (first) sel.value = first.value;
  }
  renderParams();
}

function renderParams() {
  const kind = state.kinds.find((k) => k.name === $("f-kind").value);
  const box = $("f-params");
  if (box.dataset.kind === (kind && kind.name)) return;
  box.dataset.kind = kind ? kind.name : "";
  setText($("f-kind-summary"), kind ? kind.summary : "");
  if (!kind) {
    replace(box);
    return;
  }
  replace(
    box,
    h("legend", {}, `Parameters of ${kind.name}`),
    kind.params.length === 0 && h("p", { class: "hint" }, "This kind has no parameters."),
    kind.params.map(paramField),
  );
}

// bounds says which values a parameter accepts, from GET /v1/kinds: the
// server checks them too, and names the parameter when one is out.
function bounds(p) {
  if (p.min !== undefined && p.max !== undefined) return `, ${p.min}–${p.max}`;
  if (p.min !== undefined) return `, at least ${p.min}`;
  if (p.max !== undefined) return `, at most ${p.max}`;
  return "";
}

function paramField(p) {
  const id = `f-param-${p.name}`;
  const def = p.default === undefined ? "" : typeof p.default === "object" ? JSON.stringify(p.default) : String(p.default);
  const hint = `${p.type}${def ? `, default ${def}` : ""}${p.required ? ", required" : ""}${bounds(p)}`;
  let input;
  if (p.type === "boolean") {
    input = h("input", { id, type: "checkbox", checked: p.default === true });
  } else if (p.choices) {
    input = h(
      "select",
      { id },
      h("option", { value: "" }, def ? `default (${def})` : "default"),
      p.choices.map((c) => h("option", { value: c }, c)),
    );
  } else if (p.type === "object") {
    input = h("textarea", { id, rows: "2", placeholder: "Retry-After: 30", spellcheck: "false" });
  } else {
    const numeric = p.type === "integer" || p.type === "number";
    input = h("input", {
      id,
      type: numeric ? "number" : "text",
      min: numeric && p.min !== undefined ? String(p.min) : null,
      max: numeric && p.max !== undefined ? String(p.max) : null,
      required: p.required || null,
      inputmode: numeric ? "numeric" : null,
      placeholder: def || (p.type === "duration" ? "e.g. 250ms" : ""),
      autocomplete: "off",
      spellcheck: "false",
    });
  }
  input.dataset.param = p.name;
  input.dataset.type = p.type;
  input.setAttribute("aria-describedby", `${id}-error`);
  return h(
    "div",
    { class: `field${p.type === "boolean" ? " check" : ""}` },
    h("label", { for: id }, p.name, " ", h("span", { class: "hint" }, `(${hint})`)),
    p.doc && h("p", { class: "hint" }, p.doc),
    input,
    h("p", { id: `${id}-error`, class: "field-error", hidden: true }),
  );
}

// faultRequest reads the form into a FaultRequest; only fields given are
// sent, so the server's defaults apply to the others.
function faultRequest() {
  const kind = $("f-kind").value;
  const upstream = $("f-upstream").value;
  const fault = { kind };
  for (const input of $("f-params").querySelectorAll("[data-param]")) {
    const name = input.dataset.param;
    const type = input.dataset.type;
    if (type === "boolean") {
      const def = (state.kinds.find((k) => k.name === kind).params.find((p) => p.name === name) || {}).default === true;
      if (input.checked !== def) fault[name] = input.checked;
      continue;
    }
    const v = input.value.trim();
    if (v === "") continue;
    if (type === "integer" || type === "number") fault[name] = Number(v);
    else if (type === "object") fault[name] = headerLines(name, v);
    else fault[name] = v;
  }
  const req = { name: $("f-name").value.trim() || suggestName(kind, upstream), fault };
  if (upstream) req.upstream = upstream;
  const when = $("f-when").value.trim();
  if (when) req.when = when;
  const prob = $("f-probability").value.trim();
  if (prob !== "") req.probability = Number(prob);
  const limit = $("f-limit").value.trim();
  if (limit !== "") req.limit = Number(limit);
  const ttl = $("f-ttl").value.trim();
  if (ttl) req.ttl = ttl;
  if (!$("f-enabled").checked) req.enabled = false;
  return req;
}

// headerLines reads "Name: value" lines into an object.
function headerLines(param, text) {
  const out = {};
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const at = line.indexOf(":");
    if (at <= 0) {
      throw new APIError(400, {
        error: { message: `write one per line as Name: value (line ${i + 1})`, field: `fault.${param}`, line: i + 1 },
      });
    }
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

// suggestName names a fault after its kind and upstream, unused so far.
function suggestName(kind, upstream) {
  const base = `${upstream || "all"}-${kind}`.replace(/_/g, "-");
  const taken = new Set(state.faults.map((f) => f.name));
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  return name;
}

function clearFormErrors() {
  for (const el of $("fault-form").querySelectorAll(".field-error")) {
    el.hidden = true;
    replace(el);
  }
  for (const el of $("fault-form").querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  setText($("form-status"), "");
  $("form-status").className = "form-status";
}

// fieldFor maps an error's field to the form control it is about.
function fieldFor(field) {
  const direct = { when: "f-when", name: "f-name", ttl: "f-ttl", probability: "f-probability", limit: "f-limit", upstream: "f-upstream", "fault.kind": "f-kind" };
  if (direct[field]) return $(direct[field]);
  if (field.startsWith("fault.")) return $(`f-param-${field.slice(6).split(/[.[]/)[0]}`);
  return null;
}

// showFormError puts the server's message next to the field it names;
// for the expression, with its line and column and a caret under the
// spot.
function showFormError(err) {
  const input = err.field ? fieldFor(err.field) : null;
  const status = $("form-status");
  status.className = "form-status error";
  if (!input) {
    setText(status, `Not created: ${err.message}`);
    return;
  }
  const box = $(`${input.id}-error`);
  const where = err.line ? `Line ${err.line}, column ${err.column}: ` : "";
  const children = [h("span", { class: "where" }, where), err.message];
  if (input.id === "f-when" && err.line) {
    const line = input.value.split("\n")[err.line - 1] || "";
    const caret = " ".repeat(Math.max(0, err.column - 1)) + "^";
    children.push(h("pre", { class: "caret", "aria-hidden": "true" }, `${line}\n${caret}`));
  }
  replace(box, children);
  box.hidden = false;
  input.setAttribute("aria-invalid", "true");
  setText(status, `Nothing was created: see the error next to “${input.labels[0] ? input.labels[0].firstChild.textContent.trim() : err.field}”.`);
  input.focus();
}

async function submitFault(ev) {
  ev.preventDefault();
  clearFormErrors();
  const button = $("f-submit");
  button.disabled = true;
  try {
    const req = faultRequest();
    const f = await request("POST", "/v1/faults", { json: req });
    $("f-name").value = "";
    const ttl = f.expires_in_seconds === null ? "never expires" : `expires in ${countdown(f.expires_in_seconds)}`;
    setText($("form-status"), `Added “${f.name}” (${f.fault.kind}); it ${ttl}.`);
    refreshNow();
  } catch (err) {
    if (err instanceof APIError && err.status !== 401) showFormError(err);
    else {
      setText($("form-status"), `Not created: ${err.message}`);
      $("form-status").className = "form-status error";
      if (err instanceof Unreachable || err.status === 401) failed(err);
    }
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------------
// Timeline: the live event stream
// ---------------------------------------------------------------------

// Events are kept per category, each capped, so a flood of connection
// events cannot push the injections out.
const timeline = { injection: [], exchange: [], conn: [], session: [], pending: [], frame: 0, paused: false, missed: 0 };
const CATEGORIES = ["injection", "exchange", "conn", "session"];

function category(type) {
  if (type === "conn_open" || type === "conn_close") return "conn";
  if (type === "session_close") return "session";
  return type === "exchange" ? "exchange" : "injection";
}

function shown(cat) {
  return $(`tl-${cat}`).checked;
}

// at orders events by the server's clock, then by seq: after a restart of
// the server, seq starts again from 1.
const at = (e) => [Date.parse(e.time) || 0, e.seq];

// LIVE_TYPES are the events of live MCP sessions (docs/gameday.md): they
// describe calls, not upstream traffic, so the timeline leaves them to
// the Live agents panel (a tampered reply is still an injection, and
// shows), except a session's end, with its verdict.
const LIVE_TYPES = ["call", "session_open"];

function onEvent(e) {
  livePanel.onEvent(e);
  if (LIVE_TYPES.includes(e.type)) return;
  if (e.type === "dropped") {
    e.seq = e.seq + 0.5; // after the last event delivered
    e.time = new Date().toISOString(); // the server sends none
  }
  const list = timeline[category(e.type)];
  // A reconnection replays recent events; keep one copy.
  if (list.some((x) => x.seq === e.seq && x.time === e.time)) return;
  list.push(e);
  if (list.length > TIMELINE_KEEP) list.shift();
  timeline.pending.push(e);
  if (!timeline.frame) timeline.frame = requestAnimationFrame(flushTimeline);
}

// flushTimeline adds the events that came since the last frame: one DOM
// update per frame, however many events arrive.
function flushTimeline() {
  timeline.frame = 0;
  const fresh = timeline.pending.filter((e) => shown(category(e.type)));
  timeline.pending = [];
  if (timeline.paused) {
    timeline.missed += fresh.length;
    setText($("tl-pause"), timeline.missed ? `Resume (${timeline.missed} new)` : "Resume");
    return;
  }
  const ol = $("timeline");
  for (const e of fresh) ol.prepend(entry(e));
  while (ol.children.length > TIMELINE_KEEP) ol.lastChild.remove();
  $("timeline-empty").hidden = ol.children.length > 0;
}

// redrawTimeline rebuilds the list from the kept events (a filter changed,
// or the pause ended).
function redrawTimeline() {
  const all = CATEGORIES.filter(shown).flatMap((c) => timeline[c]);
  all.sort((a, b) => {
    const [ta, sa] = at(a);
    const [tb, sb] = at(b);
    return tb - ta || sb - sa;
  });
  replace($("timeline"), all.slice(0, TIMELINE_KEEP).map(entry));
  $("timeline-empty").hidden = all.length > 0;
}

function bytes(n) {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

function entry(e) {
  const label = { injection: "inject", exchange: "exchange", conn_open: "open", conn_close: "close", dropped: "lost", session_close: "session" }[e.type] || e.type;
  let text;
  switch (e.type) {
    case "injection":
      text = [`${e.fault} by rule `, h("strong", {}, e.rule)];
      break;
    case "exchange":
      text = [
        h("code", {}, `${e.method} ${e.path}`),
        " → ",
        h("strong", { class: e.status >= 500 || !e.status ? "bad" : e.status >= 400 ? "warn" : "good" }, e.status ? String(e.status) : "no upstream reply"),
        e.fault ? ` · ${e.fault}` : "",
        e.committed ? " · committed" : "",
      ];
      break;
    case "conn_open":
      text = `connection #${e.conn} opened`;
      break;
    case "conn_close":
      text = `connection #${e.conn} closed · ${bytes(e.bytes_up || 0)} up, ${bytes(e.bytes_down || 0)} down`;
      break;
    case "dropped":
      text = `the stream fell behind and lost ${e.count} event(s); resuming`;
      break;
    case "session_close":
      text = [
        "session ",
        h("code", {}, e.session || ""),
        " ended: ",
        h("strong", { class: e.verdict === "loop" || e.verdict === "duplicate" ? "bad" : e.verdict === "converged" ? "good" : "warn" }, e.verdict || "ungraded"),
        e.detail ? ` · ${e.detail}` : "",
      ];
      break;
    default:
      text = e.detail || "";
  }
  const call = e.tool ? ` · ${e.tool} call ${e.call}${e.attempt > 1 ? `, attempt ${e.attempt}` : ""}` : "";
  const harm = e.type === "session_close" && (e.verdict === "loop" || e.verdict === "duplicate");
  return h(
    "li",
    { class: `ev ev-${e.type}${harm ? " harm" : ""}`, dataset: e.verdict ? { type: e.type, seq: String(e.seq), verdict: e.verdict } : { type: e.type, seq: String(e.seq) } },
    h("time", { datetime: e.time || "" }, e.time ? clock(new Date(e.time)) : ""),
    h("span", { class: "ev-type" }, label),
    h("span", { class: "ev-up" }, e.via ? `${e.upstream} via ${e.via}` : e.upstream || ""),
    h("span", { class: "ev-text" }, text, call),
  );
}

function togglePause() {
  timeline.paused = !timeline.paused;
  const b = $("tl-pause");
  b.setAttribute("aria-pressed", String(timeline.paused));
  if (!timeline.paused) {
    timeline.missed = 0;
    setText(b, "Pause");
    redrawTimeline();
  } else setText(b, "Resume");
}

const stream = new EventStream({
  query: {},
  onEvent,
  onState(s, wait) {
    state.stream = s;
    setText($("stream-state"), s === "live" ? "live" : s === "retrying" ? `reconnecting in ${wait}s` : s === "unauthorized" ? "needs the token" : "");
    if (s === "unauthorized") failed(new APIError(401, null));
    renderStatus();
  },
});

// ---------------------------------------------------------------------
// Tiles, verdicts and runs
// ---------------------------------------------------------------------

// metric reads one metric family of the Prometheus text format into
// [{labels, value}].
function metric(text, name) {
  const out = [];
  const re = new RegExp(`^${name}(?:\\{([^}]*)\\})?\\s+(\\S+)`, "gm");
  for (const m of (text || "").matchAll(re)) {
    const labels = {};
    for (const l of (m[1] || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, "$1");
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

const sum = (rows) => rows.reduce((a, r) => a + r.value, 0);

// Tiles show the server's counters (/metrics) and the latest run.
function renderTiles() {
  const active = state.faults.filter((f) => f.state === "active").length;
  setText($("tile-faults"), active);
  setText($("tile-injections"), sum(metric(state.metrics, "mcpchaos_injections_total")));
  setText($("tile-exchanges"), sum(metric(state.metrics, "mcpchaos_upstream_exchanges_total")));
  const worst = state.report && state.report.summary ? state.report.summary.findings : null;
  setText($("tile-findings"), worst ? (worst.error || 0) + (worst.warning || 0) + (worst.info || 0) : "–");
}

const CHANNELS = ["success", "tool_error", "protocol_error", "no_response", "server_exit", "transport_error"];

function renderVerdicts() {
  const rows = metric(state.metrics, "mcpchaos_tool_verdicts_total");
  const tools = new Map();
  const seen = new Set();
  for (const r of rows) {
    const t = tools.get(r.labels.tool) || new Map();
    t.set(r.labels.channel, r.value);
    tools.set(r.labels.tool, t);
    seen.add(r.labels.channel);
  }
  const channels = CHANNELS.filter((c) => seen.has(c)).concat([...seen].filter((c) => !CHANNELS.includes(c)));
  $("verdicts-empty").hidden = tools.size > 0;
  const table = $("verdicts");
  table.hidden = tools.size === 0;
  if (tools.size === 0) return;
  replace(
    table,
    h("caption", { class: "sr-only" }, "Judged tool calls by tool and channel, over every run since the server started"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Tool"), channels.map((c) => h("th", { scope: "col", class: `num ch-${c}` }, c.replace(/_/g, " "))))),
    h(
      "tbody",
      {},
      [...tools.entries()].sort().map(([tool, counts]) =>
        h("tr", {}, h("th", { scope: "row" }, tool), channels.map((c) => h("td", { class: `num ch-${c}` }, counts.get(c) || 0))),
      ),
    ),
  );
}

function renderExamples() {
  const sel = $("example");
  replace(
    sel,
    state.examples.map((e) => h("option", { value: e.name, title: e.description || "" }, e.scenario)),
  );
  const preferred = state.examples.find((e) => e.name === "careless-unreachable");
  if (preferred) sel.value = preferred.name;
  loadExample();
}

async function loadExample() {
  const name = $("example").value;
  if (!name) return;
  const ex = state.examples.find((e) => e.name === name);
  setText($("example-desc"), ex && ex.description ? ex.description : "");
  try {
    $("scenario").value = await request("GET", `/v1/examples/${enc(name)}`);
    $("scenario").dataset.example = name;
  } catch (err) {
    setText($("run-status"), `Cannot load ${name}: ${err.message}`);
  }
}

// RUNS_OFF says why the run form is off, and how to turn it on.
const RUNS_OFF =
  "Runs are off on this server. Start it with `mcpchaos serve --runs` to run scenarios from here " +
  "(that lets API clients run commands on the server's host).";

// renderRunsEnabled keeps the examples readable but turns the Start run
// button off, saying why, on a server started without --runs.
function renderRunsEnabled() {
  const off = state.runsEnabled === false;
  $("run-submit").disabled = off;
  if (off) setText($("run-status"), RUNS_OFF);
}

async function startRun(ev) {
  ev.preventDefault();
  const box = $("scenario-error");
  box.hidden = true;
  $("scenario").removeAttribute("aria-invalid");
  const button = $("run-submit");
  button.disabled = true;
  try {
    const name = `${$("scenario").dataset.example || "scenario"}.yaml`;
    const run = await request("POST", `/v1/runs?name=${enc(name)}`, { yaml: $("scenario").value });
    setText($("run-status"), `Started ${run.id}: ${run.scenario}.`);
    refreshNow();
  } catch (err) {
    if (err instanceof APIError && err.code === "runs_disabled") {
      state.runsEnabled = false;
      setText($("run-status"), RUNS_OFF);
      return;
    }
    setText($("run-status"), `Not started: ${err.message}`);
    if (err instanceof APIError && err.line) {
      replace(box, h("span", { class: "where" }, `Line ${err.line}, column ${err.column}: `), err.message);
      box.hidden = false;
      $("scenario").setAttribute("aria-invalid", "true");
      $("scenario-details").open = true;
    }
    if (err instanceof Unreachable) failed(err);
  } finally {
    button.disabled = state.runsEnabled === false;
  }
}

function renderRuns() {
  const recent = state.runs.slice(-5).reverse();
  $("runs-empty").hidden = recent.length > 0;
  keyed(
    $("runs"),
    recent,
    (r) => r.id,
    () => h("li", {}),
    (li, r) => {
      const worst = r.summary && r.summary.worst ? r.summary.worst : "";
      replace(
        li,
        h("span", { class: "run-id" }, r.id),
        " ",
        h("span", { class: "run-scenario" }, r.scenario),
        " ",
        h("span", { class: `badge run-${r.status}` }, r.status === "running" ? `running ${r.progress.done}/${r.progress.total}` : r.status),
        worst && h("span", { class: `badge sev-${worst}` }, `worst: ${worst}`),
        r.error && h("span", { class: "run-error" }, r.error),
      );
    },
  );
  renderReport();
}

// renderReport shows the latest finished run: a row per matrix cell, and
// its findings grouped by check and tool across cells.
function renderReport() {
  const run = state.report;
  const box = $("report");
  if (!run || box.dataset.id === run.id) return;
  box.dataset.id = run.id;
  const rep = run.report || { runs: [] };
  const groupsByKey = new Map();
  for (const cell of rep.runs) {
    for (const f of cell.findings || []) {
      const key = `${f.id}\n${f.tool || ""}\n${f.title}`;
      const g = groupsByKey.get(key) || { f, cells: [] };
      g.cells.push(`${cell.persona}/${cell.host}`);
      groupsByKey.set(key, g);
    }
  }
  const sev = { error: 0, warning: 1, info: 2 };
  const found = [...groupsByKey.values()].sort((a, b) => sev[a.f.severity] - sev[b.f.severity] || a.f.id.localeCompare(b.f.id));
  replace(
    box,
    h("h3", {}, `Latest run: ${run.scenario} `, h("span", { class: `badge run-${run.status}` }, run.status)),
    h(
      "p",
      { class: "hint" },
      `${run.id} · ${rep.runs.length} cell(s) · ${run.summary ? `${run.summary.converged} converged` : ""}` +
        (run.finished_at ? ` · finished ${clock(new Date(run.finished_at)).slice(0, 8)}` : ""),
    ),
    run.error && h("p", { class: "run-error" }, run.error),
    rep.runs.length > 0 &&
      h(
        "table",
        { class: "cells" },
        h("caption", { class: "sr-only" }, "Runs of the matrix"),
        h("thead", {}, h("tr", {}, ["Persona", "Host", "Calls", "Converged", "Committed", "Findings"].map((c) => h("th", { scope: "col" }, c)))),
        h(
          "tbody",
          {},
          rep.runs.map((c) =>
            h(
              "tr",
              {},
              h("td", {}, c.persona),
              h("td", {}, c.host),
              h("td", { class: "num" }, `${(c.calls || []).length}/${c.budget}`),
              h("td", {}, c.converged ? "yes" : h("strong", { class: "bad" }, "no")),
              h("td", { class: "num" }, c.side_effects_total ? `${c.side_effects_total.committed}/${c.side_effects_total.intended}` : "–"),
              h("td", {}, [...new Set((c.findings || []).map((f) => f.id))].join(" ") || "none"),
            ),
          ),
        ),
      ),
    found.length === 0
      ? h("p", { class: "good" }, "No findings.")
      : h(
          "ul",
          { class: "findings" },
          found.map(({ f, cells }) =>
            h(
              "li",
              { class: `finding sev-${f.severity}` },
              h("span", { class: `badge sev-${f.severity}` }, f.severity),
              " ",
              h("strong", {}, f.id),
              " ",
              f.title,
              f.tool && h("span", { class: "hint" }, ` · ${f.tool}`),
              h("span", { class: "hint" }, ` · ${cells.length} of ${rep.runs.length} cells`),
              h(
                "details",
                {},
                h("summary", {}, "Evidence and fix"),
                h("p", {}, h("span", { class: "hint" }, "Evidence: "), f.evidence || ""),
                f.hint && h("p", {}, h("span", { class: "hint" }, "Fix: "), f.hint),
              ),
            ),
          ),
        ),
  );
}

// ---------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------

function wire() {
  $("halt").addEventListener("click", openHaltDialog);
  $("halt-cancel").addEventListener("click", () => $("halt-dialog").close("cancel"));
  $("halt-confirm").addEventListener("click", () => $("halt-dialog").close("confirm"));
  $("halt-dialog").addEventListener("close", () => {
    if ($("halt-dialog").returnValue === "confirm") halt();
    else $("halt").focus();
    $("halt-dialog").returnValue = "";
  });

  $("token-button").addEventListener("click", openTokenDialog);
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = $("token-input").value.trim();
    $("token-dialog").close();
    if (v) useToken(v);
  });
  $("token-forget").addEventListener("click", () => {
    $("token-dialog").close();
    useToken("");
  });
  $("token-cancel").addEventListener("click", () => $("token-dialog").close());

  $("fault-form").addEventListener("submit", submitFault);
  $("f-upstream").addEventListener("change", () => {
    $("f-upstream").dataset.touched = "1";
    filterKinds();
  });
  $("f-kind").addEventListener("change", renderParams);
  for (const id of ["f-when", "f-name", "f-ttl", "f-probability", "f-limit"]) {
    $(id).addEventListener("input", () => {
      $(id).removeAttribute("aria-invalid");
      $(`${id}-error`).hidden = true;
    });
  }

  for (const cat of CATEGORIES) $(`tl-${cat}`).addEventListener("change", redrawTimeline);
  $("tl-pause").addEventListener("click", togglePause);
  $("tl-clear").addEventListener("click", () => {
    for (const cat of CATEGORIES) timeline[cat] = [];
    redrawTimeline();
  });

  $("example").addEventListener("change", loadExample);
  $("run-form").addEventListener("submit", startRun);

  setInterval(tick, 500);
}

wire();
renderTokenButton();
renderStatus();
stream.start();
refresh();

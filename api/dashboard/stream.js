// The live event stream: GET /v1/events (Server-Sent Events) read with
// fetch(), because EventSource cannot send the Authorization header and
// the token must not go into a URL (URLs end up in logs and history).

import { authHeaders } from "./api.js";

// parseFrame reads one SSE frame ("id: 7\nevent: injection\ndata: {...}")
// into {id, type, data}; comments (": keepalive") give null.
export function parseFrame(frame) {
  let id = "", type = "message";
  const data = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") id = value;
    else if (field === "event") type = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  return { id, type, data: data.join("\n") };
}

// EventStream follows /v1/events until stopped, reconnecting with a
// backoff. When the server drops the stream because the page fell behind,
// it resumes after the last event seen (Last-Event-ID). After any other
// break it asks for the last 200 events again instead: the server may
// have restarted, numbering its events from 1, and a Last-Event-ID from
// before would hide every new event up to that number. The consumer drops
// the events it already has (same seq and time).
//
// onEvent(event) gets each decoded event; onState(state, detail) hears
// "live", "retrying" (detail: seconds until the next try), "unauthorized"
// and "stopped".
export class EventStream {
  constructor({ query, onEvent, onState }) {
    this.query = query;
    this.onEvent = onEvent;
    this.onState = onState;
    this.lastId = "";
    this.resume = false; // the server said "dropped": resume after lastId
    this.abort = null;
    this.failures = 0;
    // gen counts starts: a loop whose generation is over (stopped, maybe
    // restarted since) ends at its next step, so two never run at once.
    this.gen = 0;
    this.running = false;
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.loop(++this.gen);
  }

  stop() {
    this.running = false;
    this.gen++;
    if (this.abort) this.abort.abort();
    this.onState("stopped");
  }

  // restart reconnects at once (a new token).
  restart() {
    this.stop();
    this.failures = 0;
    this.start();
  }

  async loop(gen) {
    const current = () => this.running && this.gen === gen;
    while (current()) {
      const abort = new AbortController();
      this.abort = abort;
      let status = 0;
      try {
        status = await this.follow(abort.signal);
      } catch {
        // A network error, or an abort by stop(): current() tells.
      }
      if (!current()) return;
      if (status === 401) {
        // No retry can succeed until the token changes; restart() then.
        this.running = false;
        this.onState("unauthorized");
        return;
      }
      // A stream that delivered events and then ended (the server
      // restarted, or dropped us for falling behind) reconnects at once;
      // failures back off up to 30s.
      const wait = this.failures === 0 ? 0 : Math.min(30, 2 ** (this.failures - 1));
      this.failures++;
      if (wait > 0) {
        this.onState("retrying", wait);
        await new Promise((done) => setTimeout(done, wait * 1000));
      }
    }
  }

  // follow reads one connection to the end; it returns the HTTP status.
  async follow(signal) {
    const headers = { ...authHeaders(), Accept: "text/event-stream" };
    const q = new URLSearchParams(this.query);
    if (this.resume && this.lastId) headers["Last-Event-ID"] = this.lastId;
    else q.set("replay", "200");
    this.resume = false;
    const res = await fetch(`/v1/events?${q}`, { headers, signal, cache: "no-store" });
    if (!res.ok || !res.body) return res.status;
    this.onState("live");
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return res.status;
      // A stream that answers is healthy again, whatever came before.
      this.failures = 0;
      buf += value;
      let end;
      while ((end = buf.search(/\r?\n\r?\n/)) >= 0) {
        const frame = parseFrame(buf.slice(0, end));
        buf = buf.slice(end).replace(/^\r?\n\r?\n/, "");
        if (!frame) continue;
        if (frame.id) this.lastId = frame.id;
        if (frame.type === "dropped") this.resume = true;
        let data;
        try {
          data = JSON.parse(frame.data);
        } catch {
          continue;
        }
        this.onEvent({ ...data, type: frame.type });
      }
    }
  }
}

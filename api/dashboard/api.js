// The API client: the token, requests, and the errors they end in.

// The token lives in sessionStorage: this tab only, gone when it closes.
// Never localStorage, never a cookie (a cookie would be sent by the
// browser on requests the page did not make).
const TOKEN_KEY = "mcpchaos.token";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) || "",
  set: (v) => sessionStorage.setItem(TOKEN_KEY, v),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

// APIError is an answer of the API with an error status. Its fields are
// the body's {"error": {code, message, field, line, column}}.
export class APIError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || (typeof body === "string" && body.trim()) || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || "";
    this.field = e.field || "";
    this.line = e.line || 0;
    this.column = e.column || 0;
  }
}

// Unreachable is a request that got no answer: the server is down, the
// network is cut, or a proxy in between answered for it (502-504).
export class Unreachable extends Error {}

// authHeaders returns the headers every request carries.
export function authHeaders() {
  const t = token.get();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

// request sends one API request and returns the decoded answer: JSON as
// an object, anything else as text, null for 204. Options: json or yaml
// (the body), signal.
export async function request(method, path, opts = {}) {
  const headers = authHeaders();
  let body;
  if (opts.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.yaml !== undefined) {
    headers["Content-Type"] = "application/yaml";
    body = opts.yaml;
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body, signal: opts.signal, cache: "no-store" });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new Unreachable(`cannot reach the API: ${err.message}`);
  }
  if (res.status >= 502 && res.status <= 504) throw new Unreachable(`the API answered ${res.status}`);
  if (res.status === 204) return null;
  const type = res.headers.get("Content-Type") || "";
  let payload;
  try {
    payload = type.includes("json") ? await res.json() : await res.text();
  } catch (err) {
    throw new Unreachable(`the answer was cut: ${err.message}`);
  }
  if (!res.ok) throw new APIError(res.status, payload);
  return payload;
}

// enc escapes a name for a URL path: fault names may hold spaces and
// slashes.
export const enc = encodeURIComponent;

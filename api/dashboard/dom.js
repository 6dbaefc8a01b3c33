// DOM helpers: build elements, and update lists in place.
//
// The dashboard refreshes every couple of seconds. Rebuilding its lists
// each time would take the keyboard focus away from whoever is tabbing
// through the buttons, so lists are updated in place instead: an element
// per key is created once, then only its contents change.

// h builds an element: h("button", {type: "button", onclick: f}, "Remove").
// Attributes whose value is null, undefined or false are left out; "on*"
// attributes become event listeners; children may be strings, nodes or
// arrays of them.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

// replace sets an element's children.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

// setText changes a node's text only when it differs, so that screen
// readers and selections are not disturbed by no-op updates.
export function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

// keyed makes container's children match items, in order: one element
// per key(item), made by create(item) the first time and passed to
// update(el, item) every time. Elements whose key went away are removed;
// the others stay in the document (and keep their focus) unless the
// order changed.
export function keyed(container, items, key, create, update) {
  const old = new Map();
  for (const el of container.children) old.set(el.dataset.key, el);
  let i = 0;
  for (const item of items) {
    const k = String(key(item));
    let el = old.get(k);
    if (el) old.delete(k);
    else {
      el = create(item);
      el.dataset.key = k;
    }
    update(el, item);
    if (container.children[i] !== el) container.insertBefore(el, container.children[i] || null);
    i++;
  }
  for (const el of old.values()) el.remove();
}

// clock formats a time of day with milliseconds: 14:03:07.412.
export function clock(date) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}`;
}

// countdown formats seconds left: 1:02:03, 4:05, 0:09.
export function countdown(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

// The floor dashboard: tables, open alerts, hand search and review. Plain JavaScript, no build
// step, no network but this server. Live updates arrive as server-sent events (/api/events);
// on any doubt ("resync", a reconnect) the page reloads its state from the API.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
};

const state = { tables: new Map(), alerts: new Map(), me: null };

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...options });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error((data && data.error) || response.statusText);
  return data;
}
const post = (path, body) => api(path, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
});

// ---------------------------------------------------------------- tables and alerts
function drawTables() {
  const box = $("#tables");
  box.replaceChildren();
  for (const t of [...state.tables.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    const badges = Object.entries(t.open_alerts || {}).map(([sev, n]) =>
      el("span", { class: `badge sev-${sev}` }, `${n} ${sev}`));
    const sensors = Object.entries(t.sensors || {}).map(([name, ok]) =>
      el("span", { class: "sensor" }, `${name} ${ok ? "ok" : "OFFLINE"} `));
    box.append(el("div", {
      class: `table ${t.online ? "online" : "offline"}`,
      dataset: { table: t.id, online: String(t.online), hand: String(t.hand ?? "") },
    },
    el("h3", {}, `${t.name} `, el("small", {}, t.online ? "online" : "offline")),
    el("div", {}, t.hand ? `hand ${t.hand}` : "between hands", ` · pot ${t.pot} · ${t.players} players`),
    el("div", {}, ...badges), el("div", {}, ...sensors),
    t.problem ? el("div", { class: "problem" }, t.problem) : ""));
  }
}

function drawAlerts() {
  const box = $("#alerts");
  box.replaceChildren();
  const open = [...state.alerts.values()].filter(a => !a.resolved_by)
    .sort((a, b) => a.table.localeCompare(b.table) || a.id - b.id);
  for (const a of open) {
    const ack = el("button", { dataset: { ack: "" }, onclick: () => acknowledge(a) },
      a.acked_by ? `acknowledged by ${a.acked_by}` : "Acknowledge");
    ack.disabled = !state.me || Boolean(a.acked_by);
    box.append(el("div", {
      class: `alert ${a.severity}${a.acked_by ? " acked" : ""}`,
      dataset: { table: a.table, alertId: String(a.id), alertCode: a.code },
    },
    el("strong", {}, `${a.table} · ${a.code}`),
    el("span", {}, a.hand ? `hand ${a.hand}` : ""),
    el("span", {}, a.message || ""), el("span", { class: "remedy" }, a.remedy || ""),
    el("span", {}, (a.cards || []).join(" ")), ack));
  }
}

async function acknowledge(alert) {
  try {
    await post(`/api/alerts/${encodeURIComponent(alert.table)}/${alert.id}/ack`);
  } catch (err) { window.alert(err.message); }
}

async function reload() {
  const [tables, alerts] = await Promise.all([api("/api/tables"), api("/api/alerts?open=1")]);
  state.tables = new Map(tables.map(t => [t.id, t]));
  state.alerts = new Map(alerts.map(a => [`${a.table}/${a.id}`, a]));
  drawTables();
  drawAlerts();
}

function onMessage(table, m) {
  const key = `${table}/${m.id}`;
  if (m.type === "alert") {
    const old = state.alerts.get(key) || {};
    state.alerts.set(key, { ...old, ...m, table, resolved_by: old.resolved_by || null });
  } else if (m.type === "alert_resolved") {
    const old = state.alerts.get(key);
    if (old) old.resolved_by = m.by;
  } else if (m.type === "acknowledged") {  // at the table: by this floor or another one
    const old = state.alerts.get(key);
    if (old && !old.acked_by) old.acked_by = m.by;
  } else if (m.type === "hand_end") {  // the hand's alerts still open end with it
    for (const a of state.alerts.values()) {
      if (a.table === table && a.hand === m.hand && !a.resolved_by) a.resolved_by = "hand_end";
    }
  }
}

function live() {
  const source = new EventSource("/api/events");
  source.addEventListener("hello", () => reload());
  source.addEventListener("resync", () => reload());
  source.addEventListener("table", ev => {
    const t = JSON.parse(ev.data).table;
    state.tables.set(t.id, t);
    drawTables();
  });
  source.addEventListener("message", ev => {
    const e = JSON.parse(ev.data);
    state.tables.set(e.state.id, e.state);
    onMessage(e.table, e.message);
    drawTables();
    drawAlerts();
  });
  source.addEventListener("acknowledged", ev => {
    const e = JSON.parse(ev.data);
    const a = state.alerts.get(`${e.table}/${e.id}`);
    if (a) a.acked_by = e.by;
    drawAlerts();
  });
}

// ---------------------------------------------------------------- sign-in
async function who() {
  state.me = await api("/api/me");
  $("#who").textContent = state.me ? `${state.me.username} (${state.me.role})` : "viewer";
  for (const input of document.querySelectorAll("#login input, #login button[type=submit]")) {
    input.hidden = Boolean(state.me);
  }
  $("#logout").hidden = !state.me;
}

$("#login").addEventListener("submit", async ev => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  try {
    await post("/api/login", { username: form.get("username"), password: form.get("password") });
    location.reload();
  } catch (err) { window.alert(err.message); }
});
$("#logout").addEventListener("click", async () => { await post("/api/logout"); location.reload(); });

// ---------------------------------------------------------------- search and review
$("#hand-search").addEventListener("submit", async ev => {
  ev.preventDefault();
  const query = new URLSearchParams();
  for (const [k, v] of new FormData(ev.target)) if (v) query.set(k, v);
  const hands = await api(`/api/hands?${query}`);
  const body = $("#hands tbody");
  body.replaceChildren();
  for (const h of hands) {
    body.append(el("tr", { dataset: { table: h.table, hand: String(h.hand) } },
      el("td", {}, h.table), el("td", {}, h.hand), el("td", {}, h.started || ""),
      el("td", {}, h.seats.join(" ")), el("td", {}, h.pot ?? ""),
      el("td", {}, h.voided ? "void" : (h.ended ? "played" : "open")),
      el("td", {}, el("button", { dataset: { review: "" }, onclick: () => review(h.table, h.hand) },
        "Review"))));
  }
});

const reviewing = { steps: [], at: 0 };
const stacksText = stacks => Object.entries(stacks || {}).map(([s, v]) => `seat ${s}: ${v}`).join(", ");

function describe(m) {
  switch (m.type) {
    case "hand_start": return `hand ${m.hand} starts, button seat ${m.button}, stacks ${stacksText(m.stacks)}`;
    case "card": {
      const verb = { placed: "lands on", removed: "leaves", flipped: "is turned over on" }[m.event] || m.event;
      return `${m.card || "a card"} ${verb} ${m.zone}${m.face && m.face !== "unknown" ? ", face " + m.face : ""} (seen by ${m.source || "?"})`;
    }
    case "action": {
      if (m.cmd === "action") return `seat ${m.seat} ${m.kind}${m.amount != null ? " to " + m.amount : ""}${m.pot != null ? " · pot " + m.pot : ""}`;
      if (m.cmd === "acknowledge") return m.id ? `alert ${m.id} acknowledged by ${m.by || "?"}` : "the dealer acknowledged the alerts";
      if (m.cmd === "resolve") return `${m.code} resolved at the table`;
      if (m.cmd && m.cmd.startsWith("sim_")) return `dealer: ${m.cmd.slice(4)} ${m.street || (m.seats || []).join(" ")}`;
      return `${m.cmd}${m.pot != null ? " · pot " + m.pot : ""}`;
    }
    case "alert": return `${m.update ? "update" : "ALERT"} ${m.code} (${m.severity}): ${m.message}. Remedy: ${m.remedy} [${m.rule}]`;
    case "alert_resolved": return `${m.code} resolved (${m.by})`;
    case "hand_end": return `hand ends${m.voided ? " (void: " + m.cause + ")" : ""}, pot ${m.pot ?? "?"}, stacks ${stacksText(m.stacks)}`;
    case "sensor": return `${m.source} ${m.online ? "back online" : "OFFLINE"} ${m.detail || ""}`;
    default: return `${m.type} ${JSON.stringify(m)}`;
  }
}

function reviewState(shown) {
  const out = { board: [], pot: 0, stacks: null, alerts: new Map() };
  for (const m of shown) {
    if (m.stacks) out.stacks = m.stacks;
    if (m.pot != null) out.pot = m.pot;
    if (m.type === "card" && m.zone === "board" && m.card) {
      out.board = out.board.filter(c => c !== m.card);
      if (m.event !== "removed") out.board.push(m.card);
    }
    if (m.type === "alert") out.alerts.set(m.id, m.code);
    if (m.type === "alert_resolved" || m.type === "hand_end") {
      if (m.type === "hand_end") out.alerts.clear(); else out.alerts.delete(m.id);
    }
  }
  return out;
}

function drawReview() {
  const items = $("#review-steps").children;
  for (let i = 0; i < items.length; i++) {
    items[i].className = i < reviewing.at ? "past" : (i === reviewing.at ? "now" : "future");
  }
  $("#step-at").textContent = `step ${reviewing.at + 1} of ${reviewing.steps.length}`;
  const now = reviewState(reviewing.steps.slice(0, reviewing.at + 1));
  const open = [...now.alerts.values()];
  $("#review-state").textContent = `board: ${now.board.join(" ") || "-"} · pot: ${now.pot} · ` +
    `stacks: ${now.stacks ? stacksText(now.stacks) : "-"}${open.length ? " · open: " + open.join(", ") : ""}`;
  const box = $("#review");
  box.dataset.step = String(reviewing.at);
  box.dataset.stacks = now.stacks ? JSON.stringify(now.stacks) : "";
  box.dataset.pot = String(now.pot);
  box.dataset.board = now.board.join(" ");
  box.dataset.end = String(reviewing.at === reviewing.steps.length - 1);
}

async function review(table, hand) {
  const record = await api(`/api/hands/${encodeURIComponent(table)}/${hand}`);
  reviewing.steps = record.messages;
  reviewing.at = 0;
  const list = $("#review-steps");
  list.replaceChildren(...record.messages.map(m =>
    el("li", { dataset: { type: m.type, seq: String(m.seq) } },
      el("time", {}, (m.time || "").slice(11, 23)), " ", describe(m))));
  $("#review-title").textContent = `${table}, hand ${hand}`;
  $("#phh-link").href = `/api/hands/${encodeURIComponent(table)}/${hand}/phh`;
  $("#review").hidden = false;
  $("#review").dataset.table = table;
  $("#review").dataset.hand = String(hand);
  drawReview();
}
$("#step-next").addEventListener("click", () => { reviewing.at = Math.min(reviewing.at + 1, reviewing.steps.length - 1); drawReview(); });
$("#step-back").addEventListener("click", () => { reviewing.at = Math.max(reviewing.at - 1, 0); drawReview(); });
$("#step-end").addEventListener("click", () => { reviewing.at = reviewing.steps.length - 1; drawReview(); });

// ---------------------------------------------------------------- tabs
for (const button of document.querySelectorAll("nav button")) {
  button.addEventListener("click", () => {
    for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b === button);
    for (const s of document.querySelectorAll(".tab")) s.hidden = s.id !== button.dataset.tab;
  });
}

who().then(live);

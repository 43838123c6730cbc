// The dealer station: the table as the controller sees it, the player to act's legal actions,
// the alerts with their remedies. Plain JavaScript, no build step, nothing but this server.
// The controller sends its whole view on every change (server-sent events, /api/events), each
// with a seq one more than the last; on a lost connection the browser reconnects with the last
// seq it has and receives every view it missed, in order. Requests go to /api/request and are
// answered by the controller exactly as the dealer console's.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
};

// What the page knows; tests read it too (seqs applied, duplicates and gaps seen).
const station = window.station = {
  view: null, boot: null, seq: 0, applied: [], duplicates: 0, gaps: 0, resyncs: 0,
  alertSeen: {}, offset: 0, source: null, decision: null, seatOpen: null,
};

// ---------------------------------------------------------------- connection
function setLink(state) {
  const link = $("#link");
  link.dataset.state = state;
  link.textContent = { live: "live", lost: "connection lost, reconnecting…", connecting: "connecting…" }[state];
  document.body.dataset.link = state;
}

function connect() {
  const since = station.boot ? `?since=${encodeURIComponent(station.boot + "." + station.seq)}` : "";
  const source = new EventSource(`/api/events${since}`);
  station.source = source;
  source.addEventListener("open", () => setLink("live"));
  source.addEventListener("view", ev => receive(ev, false));
  source.addEventListener("resync", ev => receive(ev, true));
  source.addEventListener("error", () => {
    setLink("lost");
    if (source.readyState === EventSource.CLOSED) {  // refused: start again a little later
      source.close();
      setTimeout(connect, 1000);
    }
  });
}

function receive(ev, resync) {
  const msg = JSON.parse(ev.data);
  const view = msg.view;
  station.offset = msg.now - Date.now();
  if (!resync && view.boot === station.boot) {
    if (view.seq <= station.seq) { station.duplicates += 1; return; }
    if (view.seq !== station.seq + 1) station.gaps += 1;
  } else {
    station.resyncs += 1;
  }
  station.boot = view.boot;
  station.seq = view.seq;
  station.applied.push(`${view.boot}.${view.seq}${resync ? "!" : ""}`);
  if (station.applied.length > 2000) station.applied.splice(0, 1000);
  station.view = view;
  setLink("live");
  render(view);
}

// ---------------------------------------------------------------- requests
function showError(text, where = $("#error")) {
  where.textContent = text || "";
  where.dataset.error = text || "";
  where.hidden = !text;
}

async function send(request, errorBox = $("#error")) {
  showError("", errorBox);
  let answer;
  try {
    const response = await fetch("/api/request", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
    });
    answer = await response.json();
  } catch (err) {
    showError(`no answer from the controller (${err.message})`, errorBox);
    return null;
  }
  if (!answer.ok) {
    showError(answer.error, errorBox);
    return null;
  }
  return answer;
}

// ---------------------------------------------------------------- drawing
const seatName = (v, n) => {
  const s = v.seats[n - 1];
  return s && s.name ? `seat ${n} (${s.name})` : `seat ${n}`;
};

function place(n, count, rx, ry) {
  // Seat 1 on the dealer's left, then clockwise; the dealer sits at the bottom of the screen.
  const angle = Math.PI / 2 + (n * 2 * Math.PI) / (count + 1);
  return { left: 50 + rx * Math.cos(angle), top: 50 + ry * Math.sin(angle) };
}

function cards(list, cls) {
  return el("span", { class: cls }, ...list.map(c => window.cardSvg(c.joker ? "joker" : (c.card || null))));
}

function drawSeats(v) {
  const felt = $("#felt");
  for (const node of $$(".seat, .bet", felt)) node.remove();
  const count = v.table.seats;
  for (const s of v.seats) {
    const at = place(s.seat, count, 41, 39);
    const marks = [];
    if (s.button) marks.push(el("span", { class: "mark button", title: "button" }, "D"));
    if (s.blind) marks.push(el("span", { class: "mark blind" }, s.blind));
    const state = !s.occupied ? "empty" : s.to_act ? "to-act" : s.folded ? "folded"
      : s.all_in ? "all-in" : s.in_hand ? "in-hand" : s.waiting ? "waiting" : "out";
    const clock = v.clock && v.clock.seat === s.seat;
    const node = el("button", {
      type: "button", class: `seat ${state}`,
      style: `left:${at.left}%;top:${at.top}%`,
      dataset: { seat: String(s.seat), stack: s.occupied ? String(s.stack) : "", state },
      onclick: () => openSeat(s.seat),
    },
    el("span", { class: "who" }, el("b", {}, s.seat), " ", s.name || (s.occupied ? "" : "empty")),
    s.occupied ? el("span", { class: "stack" }, s.stack) : null,
    s.cards.length ? cards(s.cards, "hole") : null,
    marks.length ? el("span", { class: "marks" }, ...marks) : null,
    clock ? el("span", { class: "seat-clock", dataset: { clock: "" } }, "clock") : null,
    s.all_in ? el("span", { class: "tag" }, "all-in") : null,
    s.waiting ? el("span", { class: "tag" }, "waits for the button") : null);
    felt.append(node);
    if (s.bet) {
      const b = place(s.seat, count, 24, 21);
      felt.append(el("span", { class: "bet", style: `left:${b.left}%;top:${b.top}%`,
                               dataset: { betSeat: String(s.seat), bet: String(s.bet) } }, s.bet));
    }
  }
}

function drawCenter(v) {
  const h = v.hand;
  const pots = $("#pots");
  pots.replaceChildren();
  if (h) {
    pots.append(el("span", { class: "pot", dataset: { pot: String(h.pot) } }, `pot ${h.pot}`));
    if (h.pots.length > 1) {
      h.pots.forEach((p, i) => pots.append(el("span", { class: "side-pot" },
        `${i === 0 ? "main" : "side " + i}: ${p.amount} (${p.eligible.join(", ")})`)));
    }
  }
  const board = $("#board");
  board.replaceChildren(cards(v.board, "board-cards"));
  const show = $("#showdown");
  show.hidden = !(h && h.showdown_order);
  if (h && h.showdown_order) {
    const [first, ...rest] = h.showdown_order;
    show.replaceChildren(el("strong", {}, "Showdown: "),
      `${seatName(v, first)} shows first`, rest.length ? `, then ${rest.map(n => seatName(v, n)).join(", ")}` : "");
    show.dataset.order = h.showdown_order.join(",");
  }
  const result = $("#result");
  const last = v.last_hand;
  result.hidden = !last;
  if (last) {
    const lines = [el("strong", {}, `Hand ${last.number}${last.voided ? ` void (${last.cause || "the floor"}): every chip returned` : ""}`)];
    for (const p of last.pots) {
      const paid = Object.entries(p.shares).map(([s, c]) => `${seatName(v, Number(s))} ${c}`).join(", ");
      const odd = Object.keys(p.odd_chips).length
        ? ` · odd chip${Object.keys(p.odd_chips).length > 1 ? "s" : ""}: ${Object.entries(p.odd_chips).map(([s, c]) => `seat ${s} +${c}`).join(", ")}` : "";
      lines.push(el("div", { class: "paid", dataset: { pot: p.name } }, `${p.name} ${p.amount}: ${paid}${odd}`));
    }
    const net = Object.entries(last.net || {}).filter(([, n]) => n !== 0)
      .map(([s, n]) => `seat ${s} ${n > 0 ? "+" : ""}${n}`);
    if (net.length) lines.push(el("div", { class: "net" }, net.join(" · ")));
    for (const [seat, chips] of Object.entries(last.returned || {})) {
      lines.push(el("div", {}, `uncalled ${chips} back to seat ${seat}`));
    }
    for (const s of last.shown) {
      lines.push(el("div", { class: "shown" }, `${seatName(v, s.seat)}: `, cards(s.cards.map(c => ({ card: c })), "mini"), ` ${s.description}`));
    }
    if (last.rake) lines.push(el("div", {}, `rake ${last.rake}`));
    result.replaceChildren(...lines);
    result.dataset.hand = String(last.number);
  }
}

function drawAlerts(v) {
  const box = $("#alerts");
  box.replaceChildren();
  for (const a of v.alerts) {
    const gameAlert = ["stop", "fix", "warn"].includes(a.severity);
    const buttons = [];
    if (a.held) {
      buttons.push(el("button", { type: "button", class: "big", dataset: { remedyDone: "" },
                                  onclick: () => send({ cmd: "resolve", code: a.code }) }, "Remedy done"));
    } else if (gameAlert) {
      buttons.push(el("button", { type: "button", dataset: { dismiss: "" },
                                  onclick: () => send({ cmd: "dismiss", id: a.id }) }, "Dismiss"));
    } else {
      buttons.push(el("button", { type: "button", dataset: { remedyDone: "" },
                                  onclick: () => send({ cmd: "resolve", code: a.code }) }, "Done"));
    }
    buttons.push(el("button", { type: "button", dataset: { silence: "" }, disabled: a.silenced,
                                onclick: () => send({ cmd: "acknowledge" }) }, a.silenced ? "Buzzer silenced" : "Silence buzzer"));
    if (v.sim && a.held) {
      buttons.push(el("button", { type: "button", dataset: { simRemedy: "" }, disabled: v.sim_busy,
                                  onclick: () => send({ cmd: "sim_remedy", code: a.code }) }, "Sim: carry it out"));
    }
    const concerned = a.cards.map(c => c.card ? window.cardSvg(c.card) : el("span", { class: "hole-name" }, c.text));
    box.append(el("div", {
      class: `alert sev-${a.severity}`,
      dataset: { alertId: String(a.id), alertCode: a.code, severity: a.severity, updates: String(a.updates) },
    },
    el("div", { class: "alert-head" }, el("strong", {}, a.title), a.seat ? el("span", {}, ` seat ${a.seat}`) : null,
       el("small", {}, ` ${a.code}`)),
    el("div", { class: "remedy" }, a.remedy),
    el("div", { class: "message" }, a.message),
    concerned.length ? el("div", { class: "concerned" }, ...concerned) : null,
    el("div", { class: "rule" }, a.rule || ""),
    el("div", { class: "alert-buttons" }, ...buttons)));
    if (!(a.id in station.alertSeen)) {
      const id = a.id;
      station.alertSeen[id] = null;
      requestAnimationFrame(() => setTimeout(() => { station.alertSeen[id] = Date.now(); }, 0));
    }
  }
  box.hidden = v.alerts.length === 0;
}

function drawLog(v) {
  const log = $("#log");
  const actions = v.hand ? v.hand.actions : [];
  log.replaceChildren(...actions.slice(-14).reverse().map(a =>
    el("li", { dataset: { street: a.street } }, `${a.street}: ${a.text}`)));
}

function drawBar(v) {
  const h = v.hand;
  $("#hand-title").textContent = h
    ? `Hand ${h.number} · ${h.street}${h.halted ? " · HALTED" : ""}`
    : `Between hands${v.table.last_hand ? ` (last: hand ${v.table.last_hand})` : ""}`;
  const b = v.table.blinds;
  $("#blinds").textContent = `${b.game} ${b.small_blind}/${b.big_blind}${b.ante ? ` ante ${b.ante}` : ""}`;
  const next = v.table.next_blinds;
  $("#next-blinds").hidden = !next;
  if (next) $("#next-blinds").textContent = `next hand: ${next.small_blind}/${next.big_blind}${next.ante ? ` ante ${next.ante}` : ""}`;
  tickClock();
}

function tickClock() {
  const v = station.view;
  const box = $("#clock");
  if (!v || !v.clock) { box.hidden = true; return; }
  const now = Date.now() + station.offset;
  const c = v.clock;
  const left = Math.max(0, Math.ceil((c.deadline - now) / 1000));
  const counting = now >= c.count_at;
  box.hidden = false;
  box.dataset.phase = counting ? "count" : "minute";
  box.dataset.left = String(left);
  box.textContent = counting ? `${seatName(v, c.seat)}: ${left}`
    : `clock on ${seatName(v, c.seat)}: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}
setInterval(tickClock, 250);

function drawControls(v) {
  const h = v.hand;
  const legal = v.legal;
  $("#act").hidden = !legal;
  $("#wait").hidden = !h || Boolean(legal);
  $("#between").hidden = Boolean(h);
  for (const b of [$("#undo"), $("#undo-wait")]) {
    b.disabled = !v.undo.possible;
    b.title = v.undo.why_not || "";
    b.textContent = v.undo.last ? `Undo ${v.undo.last}` : "Undo";
  }
  if (legal) {
    const s = v.seats[legal.seat - 1];
    $("#act-seat").textContent = `${seatName(v, legal.seat)} to act · ${s.stack} behind`;
    const range = legal.raise || legal.bet;
    const input = $("input[name=amount]");
    const key = `${h.number}/${legal.seat}/${h.actions.length}`;
    input.disabled = !range;
    if (range) {
      input.min = range.min;
      input.max = range.max;
    }
    if (station.decision !== key) {  // a new decision: start from the minimum
      station.decision = key;
      input.value = range ? range.min : "";
    }
    const quick = $("#quick");
    quick.replaceChildren(...legal.quick.map(q => el("button", {
      type: "button", class: "quick", dataset: { amount: String(q.amount) },
      onclick: () => { input.value = q.amount; labelAmounts(); },
    }, `${q.label} ${q.amount}`)));
    const show = (action, ok, text) => {
      const b = $(`[data-action=${action}]`);
      b.hidden = !ok;
      if (text) b.textContent = text;
    };
    show("fold", legal.fold);
    show("check", legal.check);
    show("call", legal.call !== null, `Call ${legal.call}`);
    show("bet", Boolean(legal.bet));
    show("raise", Boolean(legal.raise));
    show("allin", legal.all_in !== null, `All in ${legal.all_in}`);
    labelAmounts();
    const clockButton = $("#call-clock");
    clockButton.textContent = v.clock ? "Cancel clock" : `Clock on seat ${legal.seat}`;
    clockButton.dataset.running = v.clock ? "yes" : "no";
  } else if (h) {
    const text = h.halted ? `The hand is halted by ${h.halted}: carry out the remedy, then press Remedy done.`
      : h.showdown_order ? "Showdown: turn the hands up in this order, then award the pots."
      : h.street === "preflop" || !h.betting_complete ? "Waiting for the cards."
      : `Betting on the ${h.street} is complete: deal the next street.`;
    $("#wait-text").textContent = text;
    $("#award").hidden = !h.showdown_order;
  }
  if (!h) {
    const felt = v.table.felt;
    $("#between-text").textContent = felt
      ? `Between hands: ${felt} card${felt > 1 ? "s" : ""} still on the felt.`
      : "Between hands: tap a seat to seat, pay or remove a player.";
  }
  const sim = $("#sim");
  sim.hidden = !v.sim;
  for (const b of $$("[data-sim]", sim)) b.disabled = v.sim_busy;
  // A new hand once the sensors see the felt clear (else its first cards look misdealt).
  $("[data-sim=sim_press]").disabled = v.sim_busy || (!h && v.table.felt > 0);
}

function labelAmounts() {
  const amount = $("input[name=amount]").value;
  const bet = $("[data-action=bet]"), raise = $("[data-action=raise]");
  bet.textContent = amount ? `Bet ${amount}` : "Bet";
  raise.textContent = amount ? `Raise to ${amount}` : "Raise";
}

function render(v) {
  document.body.dataset.state = v.hand ? (v.hand.halted ? "halted" : "hand") : "between";
  document.body.dataset.seq = String(v.seq);
  document.body.dataset.boot = v.boot;
  document.body.dataset.hand = v.hand ? String(v.hand.number) : "";
  drawBar(v);
  drawSeats(v);
  drawCenter(v);
  drawAlerts(v);
  drawLog(v);
  drawControls(v);
  if (station.seatOpen !== null) fillSeat(station.seatOpen);
}

// ---------------------------------------------------------------- the dealer's input
for (const b of $$("[data-action]")) {
  b.addEventListener("click", () => {
    const v = station.view;
    if (!v || !v.legal) return;
    const action = b.dataset.action;
    const request = { cmd: "action", seat: v.legal.seat, kind: action };
    if (action === "bet" || action === "raise") {
      const raw = $("input[name=amount]").value.trim();
      if (!/^\d+$/.test(raw)) { showError(`${action}: type the total amount ("to") first`); return; }
      request.amount = Number(raw);
    }
    send(request);
  });
}
$("input[name=amount]").addEventListener("input", labelAmounts);
$("#undo").addEventListener("click", () => send({ cmd: "undo" }));
$("#undo-wait").addEventListener("click", () => send({ cmd: "undo" }));
$("#award").addEventListener("click", () => send({ cmd: "showdown" }));
$("#call-clock").addEventListener("click", () => {
  const v = station.view;
  if (v.clock) send({ cmd: "cancel_clock" });
  else if (v.legal) send({ cmd: "call_clock", seat: v.legal.seat });
});
for (const b of $$("[data-sim]")) {
  b.addEventListener("click", () => {
    const what = b.dataset.sim;
    const v = station.view;
    if (what.startsWith("sim_")) send({ cmd: what });
    else if (what === "show") {
      const seats = v.hand ? (v.hand.showdown_order || v.seats.filter(s => s.in_hand && !s.folded).map(s => s.seat)) : [];
      send({ cmd: "sim_show", seats });
    } else send({ cmd: "sim_deal", street: what });
  });
}

// A seat: seat a player there, or name, pay, move the button to, or remove the one there.
function openSeat(n) {
  station.seatOpen = n;
  const dialog = $("#seat-dialog");
  showError("", $(".dialog-error", dialog));
  const s = station.view.seats[n - 1];
  $("input[name=name]", dialog).value = "";
  $("input[name=stack]", dialog).value = "";
  $("input[name=rename]", dialog).value = s.name || "";
  $("input[name=chips]", dialog).value = "";
  fillSeat(n);
  if (!dialog.open) dialog.showModal();
}
function fillSeat(n) {
  const dialog = $("#seat-dialog");
  const s = station.view.seats[n - 1];
  dialog.dataset.seat = String(n);
  $("#seat-title").textContent = s.occupied ? `Seat ${n}: ${s.name || "player"}, ${s.stack} chips` : `Seat ${n}: empty`;
  $("#seat-empty").hidden = s.occupied;
  $("#seat-taken").hidden = !s.occupied;
}
$("#seat-dialog").addEventListener("close", () => { station.seatOpen = null; });
for (const b of $$("[data-seat-do]")) {
  b.addEventListener("click", async () => {
    const dialog = $("#seat-dialog");
    const seat = Number(dialog.dataset.seat);
    const box = $(".dialog-error", dialog);
    const what = b.dataset.seatDo;
    const number = name => {
      const raw = $(`input[name=${name}]`, dialog).value.trim();
      return /^\d+$/.test(raw) ? Number(raw) : raw;
    };
    const request = { cmd: what, seat };
    if (what === "seat_player") {
      request.stack = number("stack");
      const name = $("input[name=name]", dialog).value.trim();
      if (name) request.name = name;
    } else if (what === "name_player") request.name = $("input[name=rename]", dialog).value.trim();
    else if (what === "add_chips") request.chips = number("chips");
    const answer = await send(request, box);
    if (answer && what !== "name_player" && what !== "add_chips") dialog.close();
  });
}

$("#open-blinds").addEventListener("click", () => {
  const dialog = $("#blinds-dialog");
  const b = station.view.table.next_blinds || station.view.table.blinds;
  for (const k of ["small_blind", "big_blind", "ante", "small_bet", "big_bet"]) $(`input[name=${k}]`, dialog).value = b[k];
  for (const l of $$(".fixed-only", dialog)) l.hidden = b.game !== "Fixed limit";
  showError("", $(".dialog-error", dialog));
  dialog.showModal();
});
$("#set-blinds").addEventListener("click", async () => {
  const dialog = $("#blinds-dialog");
  const request = { cmd: "set_blinds" };
  const keys = ["small_blind", "big_blind", "ante"];
  if (station.view.table.blinds.game === "Fixed limit") keys.push("small_bet", "big_bet");
  for (const k of keys) {
    const raw = $(`input[name=${k}]`, dialog).value.trim();
    request[k] = /^\d+$/.test(raw) ? Number(raw) : raw;
  }
  if (await send(request, $(".dialog-error", dialog))) dialog.close();
});

connect();

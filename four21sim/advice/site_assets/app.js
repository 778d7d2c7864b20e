/* 421 at the table: the advisor's page. It holds no rule and computes no chance: every keep,
   its order and its number are read from the data files four21sim writes (data/index.js and the
   files it names; docs/site.md). Data files are scripts, so that the page works from file://. */
(function () {
  "use strict";
  const DATA = (window.F421DATA = window.F421DATA || {});
  const M = DATA.index;
  const $ = (id) => document.getElementById(id);
  const FIELD_LABELS = { pot: "pot", mine: "yours", theirs: "opponent's" };
  const MAX_PLAYERS = 8;

  if (!M) {
    $("loading").textContent = "The tables (data/index.js) are missing: write the site with four21sim site --out DIR.";
    return;
  }
  const HAND_INDEX = {};
  M.hands.forEach((name, i) => { HAND_INDEX[name] = i; });
  const KEEPS = M.keeps.map((row) => {
    const o = {};
    row.forEach(([k, label, stop]) => { o[k] = { label, stop }; });
    return o;
  });

  // ------------------------------------------------------------------ loading data files
  const pending = {};
  function load(key) {
    if (DATA[key]) return Promise.resolve(DATA[key]);
    if (!pending[key]) {
      pending[key] = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = "data/" + key + ".js";
        s.onload = () => (DATA[key] ? resolve(DATA[key]) : reject(new Error("data/" + key + ".js holds no table")));
        s.onerror = () => {
          delete pending[key];
          s.remove();
          reject(new Error("data/" + key + ".js is missing from this site"));
        };
        document.head.appendChild(s);
      });
    }
    return pending[key];
  }

  // ------------------------------------------------------------------ numbers
  function hundredths(q) { // q: hundredths of a percent (BigInt or number) -> "12.34%"
    const s = q.toString().padStart(3, "0");
    return s.slice(0, -2) + "." + s.slice(-2) + "%";
  }
  function halfEven(n, d) { // round n/d to an integer, exactly (BigInt)
    let q = n / d;
    const r2 = 2n * (n % d);
    if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
    return q;
  }
  const pctRound = (num, den) => hundredths(halfEven(BigInt(num) * 10000n, BigInt(den)));
  const pctGame = (m) => hundredths(halfEven(BigInt(m), 100n));
  function gcd(a, b) { while (b) { [a, b] = [b, a % b]; } return a; }
  function fraction(num, den) {
    const g = gcd(BigInt(num), BigInt(den)) || 1n;
    return (BigInt(num) / g).toString() + (BigInt(den) / g === 1n ? "" : "/" + (BigInt(den) / g).toString());
  }
  const pp = (x) => (100 * x).toFixed(2) + " pp";

  // ------------------------------------------------------------------ the situation
  function fail(msg) { throw new Error(msg); }
  function parseHand(text, name) {
    const digits = String(text || "").replace(/[\s,.\-]/g, "");
    if (!/^[1-6]{3}$/.test(digits)) {
      fail(name + ": '" + text + "' is not allowed; allowed: three dice 1 to 6, such as 631");
    }
    const i = HAND_INDEX[digits.split("").sort().reverse().join("")];
    if (i === undefined) fail(name + ": '" + text + "' is not a hand of the tables");
    return i;
  }
  function intIn(name, text, lo, hi) {
    const n = Number(text);
    if (!/^\d+$/.test(String(text)) || n < lo || n > hi) {
      fail(name + ": '" + text + "' is not allowed; allowed: " + (lo === hi ? lo : lo + " to " + hi));
    }
    return n;
  }
  function gameOf(v, players) { return v.game[String(players)] || null; }

  function readState(raw, g) {
    if (!raw || !g) return null;
    const vals = raw.includes("=") || raw.includes(":")
      ? g.fields.map((f) => { const m = raw.match(new RegExp("(?:^|,)" + f + "[=:](\\d+)")); return m ? m[1] : ""; })
      : raw.split(",");
    if (vals.length !== g.fields.length || vals.some((x) => !/^\d+$/.test(x))) {
      fail("state: '" + raw + "' is not allowed; allowed: " + g.fields.length + " whole numbers " +
           g.fields.map((f) => f.toUpperCase()).join(","));
    }
    return vals.map(Number);
  }

  // s: strings from the address or the form -> a checked situation
  function situation(p) {
    const v = M.variants[p.variant || Object.keys(M.variants)[0]];
    if (!v) fail("variant: '" + p.variant + "' is not allowed; allowed: " + Object.keys(M.variants).join(", "));
    const role = p.role || (p.beat ? "follower" : "leader");
    if (role !== "leader" && role !== "follower") fail("role: '" + role + "' is not allowed; allowed: leader, follower");
    const players = intIn("players", p.players || "2", 2, MAX_PLAYERS);
    const g = gameOf(v, players);
    const state = readState(p.state, g);
    let phase = p.phase || "charge";
    if (state) phase = state[0] > 0 ? "charge" : "decharge";
    if (!(phase in v.limits)) fail("phase: '" + phase + "' is not allowed; allowed: charge, decharge");
    const L = v.limits[phase];
    const s = { v, role, players, g, state, phase, L };
    s.hand = p.hand ? parseHand(p.hand, "hand") : null;
    if (role === "follower") {
      s.beat = p.beat ? parseHand(p.beat, "beat") : null;
      s.count = intIn("count", p.count || String(L), 1, L);
    } else {
      s.count = L;
    }
    const limit = s.count - 1;
    s.throws = intIn("throws", p.throws === undefined || p.throws === "" ? String(limit) : p.throws, 0, limit);
    if (state) {
      const ok = g.states.some((t) => t.every((x, i) => x === state[i]));
      if (!ok) {
        fail("state: (" + state.join(", ") + ") is not a state of these tables; allowed: " + g.fields.join(",") +
             " adding up to tokens=" + v.tokens + ", both players holding tokens once the pot is empty");
      }
    }
    return s;
  }

  // ------------------------------------------------------------------ the answers, from the tables
  function keepsOf(flat, hand) {
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ k: flat[i], n: flat[i + 1], ...KEEPS[hand][flat[i]] });
    return out;
  }
  async function roundTable(s) {
    if (s.role === "leader") {
      const d = await load(s.v.name + "/round-lead");
      return d[String(s.L)][String(s.throws)];
    }
    const d = await load(s.v.name + "/round-beat-" + M.hands[s.beat]);
    return d[String(s.throws)];
  }
  async function gameRows(s) {
    if (!s.state) return null;
    const where = s.g.folder + "/" + s.state.join("-");
    const made = s.count - s.throws;
    if (s.role === "leader") {
      const d = await load(s.v.name + "/" + where + "/lead");
      return keepsOf(d[String(made)][s.hand], s.hand);
    }
    const d = await load(s.v.name + "/" + where + "/beat-" + M.hands[s.beat]);
    return keepsOf(d[String(s.count)][String(made)][s.hand], s.hand);
  }

  // ------------------------------------------------------------------ the words (ties, near-ties, gaps)
  const what = (k) => (k.stop ? "stop" : "keep " + k.label);
  function list(ks) {
    const names = ks.map(what);
    return names.length === 1 ? names[0] : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }
  function explain(s, measure, den, round, game) {
    const best = round[0];
    const p = (k) => k.n / den;
    const tied = round.filter((k) => k.n === best.n);
    const near = round.filter((k) => k.n !== best.n && p(best) - p(k) < M.near_tie);
    const lines = [];
    let roundTies = "";
    if (tied.length > 1) roundTies = tied.length + " keeps tie on " + measure + ": " + list(tied) + " all give " +
      pctRound(best.n, den) + " exactly. ";
    if (near.length) roundTies += "Near-tie on " + measure + " (within " + pp(M.near_tie) + "): " +
      near.map((k) => what(k) + " " + pp(p(best) - p(k)) + " lower").join(", ") + ". ";
    if (!game) {
      lines.push("Round answer only: " + what(best) + " maximises " + measure + " this round (" +
                 pctRound(best.n, den) + "). " + roundTies +
                 (s.g ? "Give the tokens for the game answer, P(winning the game)."
                      : "No exact game answer at " + s.players + " players in these tables: the round answer holds at " +
                        "any table (a follower plays against the worst hand on the table)."));
      return lines;
    }
    const g = game[0];
    const gameOfK = {};
    game.forEach((k) => { gameOfK[k.k] = k.n / M.game_scale; });
    const roundOfK = {};
    round.forEach((k) => { roundOfK[k.k] = k; });
    const gNear = game.filter((k) => k !== g && (g.n - k.n) / M.game_scale < M.near_tie);
    const gameTies = gNear.length ? "Near-tie on P(win the game) (within " + pp(M.near_tie) + "): " +
      gNear.map((k) => what(k) + " " + pp((g.n - k.n) / M.game_scale) + " lower").join(", ") + "." : "";
    if (g.k === best.k) {
      lines.push("Both answers say " + what(best) + ": it maximises " + measure + " (" + pctRound(best.n, den) +
                 ") and P(winning the game) (" + pctGame(g.n) + "). " + roundTies + gameTies);
      return lines;
    }
    if (tied.some((k) => k.k === g.k)) {
      const others = tied.filter((k) => k.k !== g.k);
      lines.push("The round answer is a tie: " + list(tied) + " all give " + measure + " = " + pctRound(best.n, den) +
                 "; the game answer breaks it: " + what(g) + " gives P(win the game) " + pctGame(g.n) + ", against " +
                 others.map((k) => pctGame(gameOfK[k.k] * M.game_scale) + " for " + what(k)).join(", ") + ".");
      return lines;
    }
    const r = tied.reduce((a, k) => (gameOfK[k.k] > gameOfK[a.k] ? k : a), tied[0]);
    const dRound = p(r) - p(roundOfK[g.k]);
    const dGame = g.n / M.game_scale - gameOfK[r.k];
    lines.push((tied.length > 1 ? roundTies : "") + "They differ: " + what(r) + " gives " + measure + " " +
               pctRound(r.n, den) + " and P(win the game) " + pctGame(Math.round(gameOfK[r.k] * M.game_scale)) + "; " +
               what(g) + " gives " + pctRound(roundOfK[g.k].n, den) + " and " + pctGame(g.n) + ". The round answer is " +
               "ahead by " + pp(dRound) + " on the round, the game answer by " + pp(dGame) + " on the game.");
    if (dGame < M.near_tie) lines.push("For the game that is a near-tie (under " + pp(M.near_tie) + "): either keep will do.");
    if (dRound < M.near_tie) lines.push("For the round that is a near-tie (under " + pp(M.near_tie) + ").");
    lines.push("The game answer weighs the tokens at stake; the command below splits the gap over the round's " +
               "outcomes (how often each keep wins the round, what a won or lost round is then worth).");
    return lines;
  }

  function command(s) {
    const parts = ["four21sim advise", M.hands[s.hand], "--variant", s.v.name];
    if (s.role === "leader") parts.push("--role leader");
    else parts.push("--beat", M.hands[s.beat], "--count", s.count);
    parts.push("--throws-left", s.throws);
    if (s.state) parts.push("--state", s.state.join(","));
    else parts.push("--phase", s.phase);
    return parts.join(" ");
  }

  // ------------------------------------------------------------------ drawing
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([a, v]) => { if (v !== null && v !== undefined) e.setAttribute(a, v); });
    kids.flat().forEach((k) => e.append(k instanceof Node ? k : document.createTextNode(String(k))));
    return e;
  }
  function measureOf(s) { return s.role === "leader" ? "P(not losing the round)" : "P(beat " + M.hands[s.beat] + ")"; }

  function drawAnswer(s, tbl, game) {
    const box = $("answer");
    box.replaceChildren();
    const measure = measureOf(s);
    const round = keepsOf(tbl.keeps[s.hand], s.hand);
    const best = round[0];
    const gameBy = {};
    (game || []).forEach((k) => { gameBy[k.k] = k; });
    const head = el("div", { class: "best" },
      el("p", { id: "best-round" }, "For the round: ", el("strong", {}, what(best)), " — " + measure + " = ",
         el("strong", { "data-num": best.n, "data-den": tbl.den }, pctRound(best.n, tbl.den))));
    if (game) {
      head.append(el("p", { class: "game", id: "best-game" }, "For the game: ", el("strong", {}, what(game[0])),
        " — P(win the game) = ", el("strong", { "data-m": game[0].n }, pctGame(game[0].n))));
    }
    box.append(head);
    const table = el("table", { id: "keeps" },
      el("caption", { class: "help" }, "Every keep, best first for the round" +
         (s.role === "follower" && s.v.followers === "exact" ? " (exact rule: a follower re-throws at least one die)" : "")),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "keep"), el("th", { scope: "col" }, measure),
         game ? el("th", { scope: "col" }, "P(win game)") : [])));
    const body = el("tbody");
    round.forEach((k, i) => {
      const gk = gameBy[k.k];
      const isGame = Boolean(game && gk === game[0]);
      const cls = [i === 0 ? "is-round" : "", isGame ? "is-game" : ""].join(" ").trim();
      const badge = i === 0 && isGame ? "best for both" : i === 0 ? "best for the round" : isGame ? "best for the game" : null;
      body.append(el("tr", { class: cls || null, "data-keep": k.label },
        el("td", { class: "keep", "data-best": badge }, k.label),
        el("td", { "data-num": k.n, "data-den": tbl.den, title: "exact: " + fraction(k.n, tbl.den) }, pctRound(k.n, tbl.den)),
        game ? el("td", { "data-m": gk.n }, pctGame(gk.n)) : []));
    });
    table.append(body);
    box.append(table);
    const why = el("div", { class: "why", id: "why" });
    explain(s, measure, tbl.den, round, game).forEach((line) => why.append(el("p", {}, line)));
    why.append(el("p", { class: "help" }, "On the command line: ", el("code", { id: "cli" }, command(s))));
    box.append(why);
  }

  function drawSheet(s, lead, beatData) {
    const body = $("sheet-body");
    body.replaceChildren();
    const notes = el("ul", { class: "help" });
    s.v.notes[s.role].forEach((n) => notes.append(el("li", {}, n)));
    let cols, title;
    if (s.role === "leader") {
      const byM = lead[String(s.L)];
      const ms = Object.keys(byM).map(Number).filter((m) => m > 0 || s.L === 1).sort((a, b) => b - a);
      cols = ms.map((m) => ["after throw " + (s.L - m) + " (" + m + " left)", byM[String(m)]]);
      title = "Leader, " + s.L + " throw" + (s.L > 1 ? "s" : "") + " (" + s.phase + "): the best keep and P(not losing the round)";
    } else if (beatData) {
      cols = [2, 1].map((m) => [m + " left", beatData[String(m)]]);
      title = "Follower against " + M.hands[s.beat] + ": the best keep and P(beat it)";
    } else {
      body.append(el("p", { class: "help" }, "Give the hand to beat for the follower's sheet."), notes);
      return;
    }
    const table = el("table", { id: "sheet-table" }, el("caption", { class: "help" }, title),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "hand"), cols.map(([c]) => el("th", { scope: "col" }, c)))));
    const tb = el("tbody");
    s.v.order.forEach((h) => {
      tb.append(el("tr", { "aria-current": h === s.hand ? "true" : null },
        el("th", { scope: "row" }, M.hands[h]),
        cols.map(([, t]) => {
          const k = keepsOf(t.keeps[h], h)[0];
          return el("td", {}, (k.stop ? "stop" : k.label) + " " + pctRound(k.n, t.den));
        })));
    });
    table.append(tb);
    body.append(table, notes);
  }

  // ------------------------------------------------------------------ the form and the address
  const form = $("situation");
  const params = () => Object.fromEntries(new URLSearchParams(location.hash.replace(/^#/, "")));

  function options(select, values, labels, keep, fallback) {
    const old = keep !== undefined ? String(keep) : select.value;
    select.replaceChildren(...values.map((x, i) => el("option", { value: x }, labels ? labels[i] : x)));
    if (values.map(String).includes(old)) select.value = old;
    else if (fallback !== undefined) select.value = String(fallback);
  }
  function stateFields(g) {
    const set = $("state-fields");
    const want = g ? g.fields : [];
    const have = [...set.querySelectorAll("input")].map((i) => i.name);
    if (want.join() !== have.join()) {
      set.replaceChildren(...want.map((f) => el("label", { class: "num" }, (FIELD_LABELS[f] || f) + " ",
        el("input", { id: f, name: f, inputmode: "numeric", size: 3 }))));
    }
    $("state-set").hidden = !g;
  }

  function fillForm(p) {
    const v = M.variants[p.variant] || M.variants[Object.keys(M.variants)[0]];
    $("variant").value = v.name;
    const role = p.role || (p.beat ? "follower" : "leader");
    (role === "follower" ? $("role-follower") : $("role-leader")).checked = true;
    $("hand").value = p.hand || "";
    $("beat").value = p.beat || "";
    $("players").value = p.players || "2";
    const g = gameOf(v, Number($("players").value));
    stateFields(g);
    const st = (p.state || "").split(",");
    if (g) g.fields.forEach((f, i) => { $(f).value = p.state ? (st[i] !== undefined ? st[i].replace(/^\D+/, "") : "") : ""; });
    $("phase").value = p.phase || "charge";
    syncChoices(p.count, p.throws);
  }

  function syncChoices(count, throws) {
    const v = M.variants[$("variant").value];
    const g = gameOf(v, Number($("players").value));
    stateFields(g);
    const st = g ? g.fields.map((f) => $(f).value.trim()) : [];
    const complete = st.length && st.every((x) => x !== "");
    if (complete && /^\d+$/.test(st[0])) $("phase").value = Number(st[0]) > 0 ? "charge" : "decharge";
    $("phase").disabled = Boolean(complete);
    const L = v.limits[$("phase").value];
    const follower = $("role-follower").checked;
    document.querySelectorAll(".follower-only").forEach((e) => { e.hidden = !follower; });
    const counts = Array.from({ length: L }, (_, i) => i + 1);
    options($("count"), counts, counts.map((c) => c + (c === 1 ? " throw" : " throws")), count, L);
    const c = follower ? Number($("count").value) : L;
    const left = Array.from({ length: c }, (_, i) => c - 1 - i);
    options($("throws"), left, left.map((m) => m + " (after throw " + (c - m) + ")"),
            throws !== undefined ? throws : undefined);
    $("state-help").textContent = g ? "adding up to " + v.tokens + "; leave empty for the round answer only" : "";
  }

  function formParams() {
    const v = M.variants[$("variant").value];
    const p = { variant: v.name, role: $("role-follower").checked ? "follower" : "leader", hand: $("hand").value.trim(),
                throws: $("throws").value, players: $("players").value };
    if (p.role === "follower") { p.beat = $("beat").value.trim(); p.count = $("count").value; }
    const g = gameOf(v, Number(p.players));
    const st = g ? g.fields.map((f) => $(f).value.trim()) : [];
    if (st.length && st.every((x) => x !== "")) p.state = st.join(",");
    else p.phase = $("phase").value;
    return p;
  }
  function toHash(p) {
    const order = ["variant", "role", "hand", "throws", "beat", "count", "phase", "players", "state"];
    return "#" + order.filter((k) => p[k]).map((k) => k + "=" + encodeURIComponent(p[k]).replace(/%2C/g, ",")).join("&");
  }

  let drawing = 0;
  async function render(p) {
    const ticket = ++drawing;
    const err = $("error");
    try {
      const s = situation(p);
      const lead = s.role === "leader" ? await load(s.v.name + "/round-lead") : null;
      const beatData = s.role === "follower" && s.beat !== null ? await load(s.v.name + "/round-beat-" + M.hands[s.beat]) : null;
      if (ticket !== drawing) return;
      drawSheet(s, lead, beatData);
      if (s.hand === null || (s.role === "follower" && s.beat === null)) {
        $("answer").replaceChildren(el("p", { class: "help" },
          s.hand === null ? "Give your hand (three dice, e.g. 631)." : "Give the hand to beat (e.g. 611)."));
        err.hidden = true;
        return;
      }
      const [tbl, game] = await Promise.all([roundTable(s), gameRows(s)]);
      if (ticket !== drawing) return;
      drawAnswer(s, tbl, game);
      err.hidden = true;
    } catch (e) {
      if (ticket !== drawing) return;
      err.textContent = e.message;
      err.hidden = false;
      $("answer").replaceChildren();
    }
  }

  function onForm(ev) {
    if (ev && ["variant", "phase", "players", "count"].includes(ev.target.name) || (ev && ev.target.name === "role")) {
      syncChoices();
    } else if (ev && FIELD_LABELS[ev.target.name] !== undefined) {
      syncChoices(undefined, $("throws").value);
    }
    const p = formParams();
    history.replaceState(null, "", toHash(p));
    render(p);
  }

  // ------------------------------------------------------------------ start
  options($("variant"), Object.keys(M.variants), Object.values(M.variants).map((v) => v.describe));
  const counts = Array.from({ length: MAX_PLAYERS - 1 }, (_, i) => i + 2);
  options($("players"), counts, counts.map((n) => n + (M.variants[Object.keys(M.variants)[0]].game[String(n)] ? ""
    : " (round answer only)")));
  $("generator").textContent = M.generator;
  form.addEventListener("input", onForm);
  form.addEventListener("change", onForm);
  form.addEventListener("submit", (e) => { e.preventDefault(); onForm(); });
  window.addEventListener("hashchange", () => { const p = params(); fillForm(p); render(p); });
  const start = params();
  fillForm(start);
  render(Object.keys(start).length ? start : formParams());
})();

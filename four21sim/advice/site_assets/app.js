/* 421 at the table: the advisor's page. It holds no rule. The round answers (every keep, its order,
   its exact fraction) are read from the data files four21sim writes; the 2-player game answer is
   computed here from the solver's values of the round's outcomes, by the solver kernel's own backward
   induction over the round (same operations, same order, in double precision), and the keeps are
   ranked as advisor.keep_order ranks them (docs/site.md). Data files are scripts, so that the page
   works from file://. */
(function () {
  "use strict";
  const DATA = (window.F421DATA = window.F421DATA || {});
  const M = DATA.index;
  const $ = (id) => document.getElementById(id);
  const FIELD_LABELS = { pot: "pot", mine: "yours", theirs: "opponent's" };

  if (!M) {
    $("loading").textContent = "The tables (data/index.js) are missing: write the site with four21sim site --out DIR.";
    return;
  }
  // a value from the address is looked up among the object's own keys only: "__proto__", "constructor" or
  // "toString" must be unknown names, not what every object inherits
  const own = (obj, key) => (Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined);
  const HAND_INDEX = new Map(M.hands.map((name, i) => [name, i]));
  const KEEPS = M.keeps.map((row) => {
    const o = {};
    row.forEach(([k, label, stop]) => { o[k] = { label, stop }; });
    return o;
  });
  const PLAYERS = M.players;

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
  const pctGame = (p) => (100 * p).toFixed(2) + "%"; // as the command line: f"{100 * p:.2f}%"
  function gcd(a, b) { while (b) { [a, b] = [b, a % b]; } return a; }
  function fraction(num, den) {
    const g = gcd(BigInt(num), BigInt(den)) || 1n;
    return (BigInt(num) / g).toString() + (BigInt(den) / g === 1n ? "" : "/" + (BigInt(den) / g).toString());
  }
  const pp = (x) => (100 * x).toFixed(2) + " pp";

  // ------------------------------------------------------------------ the 2-player round, played backwards
  // The solver kernel's round_value (four21sim/exact/_two_player_kernels.py), step for step: the same
  // sums in the same order on the same doubles, so that its ties (within keep_tie) fall the same way.
  const NH = M.hands.length;
  const FULL = M.full_keep;
  const TIE = M.keep_tie;
  const HAND_KEEPS = M.keeps.map((row) => row.map(([k]) => k)); // stop first, then more dice kept
  const TT = M.throws;
  const KT_PROB = new Float64Array(TT.count.length); // count / denom of the entry's keep, as the kernel's _KT_PROB
  for (let k = 0; k < FULL; k++) for (let i = TT.start[k]; i < TT.start[k + 1]; i++) KT_PROB[i] = TT.count[i] / TT.denom[k];
  const P0 = TT.first.map((c) => c / TT.first_denom);
  const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

  function keepValues(level) { // kv[k]: the value of throwing with keep k, the next hands worth level[]
    const kv = new Float64Array(FULL);
    for (let k = 0; k < FULL; k++) {
      let acc = 0.0;
      for (let i = TT.start[k]; i < TT.start[k + 1]; i++) acc += KT_PROB[i] * level[TT.hand[i]];
      kv[k] = acc;
    }
    return kv;
  }
  function bestValue(h, stop, kv, first) { // the kernel's _best_keep: ties within TIE go to the earlier keep
    let best = -1.0;
    for (let i = first; i < HAND_KEEPS[h].length; i++) {
      const k = HAND_KEEPS[h][i];
      const v = k === FULL + h ? stop : kv[k];
      if (v > best + TIE) best = v;
    }
    return best;
  }
  // advisor.keep_order: the first keep (HAND_KEEPS order) within TIE of the best, then by value
  function keepOrder(h, opts) {
    const order = HAND_KEEPS[h].filter((k) => k in opts);
    const top = Math.max(...order.map((k) => opts[k]));
    const best = order.find((k) => opts[k] >= top - TIE);
    const pos = {};
    order.forEach((k, i) => { pos[k] = i; });
    const rest = order.filter((k) => k !== best).sort((a, b) => (opts[b] - opts[a]) || (pos[a] - pos[b]));
    return [best, ...rest];
  }

  const decoded = {};
  function outcomes(vname, g2, phase) { // code + 1 and pay, per [leader hand][count-1][hand][throws-1]
    const key = vname + "/" + phase;
    if (!decoded[key]) {
      const dec = (text) => Int8Array.from(text, (ch) => DIGITS.indexOf(ch));
      decoded[key] = { code: dec(g2.outcomes[phase].code), pay: dec(g2.outcomes[phase].pay) };
    }
    return decoded[key];
  }

  const solved = {};
  // the round from state (pot, a, b), the leader holding a: every value the page shows
  function roundSolver(v, g2, pot, a, b) {
    const key = v.name + "/" + pot + "-" + a + "-" + b;
    if (solved[key]) return solved[key];
    const [vl, vf] = g2.values[pot + "-" + a + "-" + b];
    const phase = pot ? "charge" : "decharge";
    const L = v.limits[phase];
    const first = v.followers === "exact" ? 1 : 0; // exact followers may not stop early
    const oc = outcomes(v.name, g2, phase);
    const foll = {};
    function follower(hL, c) { // wf[f-1][h]: stopping on h after f throws; lv[made][h]: holding h after made
      const fk = hL * 4 + c;
      if (foll[fk]) return foll[fk];
      const wf = [];
      for (let f = 1; f <= c; f++) {
        const row = new Float64Array(NH);
        for (let h = 0; h < NH; h++) {
          const i = ((hL * 3 + c - 1) * NH + h) * 3 + f - 1;
          const code = oc.code[i] - 1;
          const p = oc.pay[i];
          const w = code === 0 ? vl[p] : code === 1 ? vf[p] : 0.5 * (vl[p] + vf[p]);
          row[h] = 1.0 - w;
        }
        wf.push(row);
      }
      const lv = {};
      let level = wf[c - 1];
      for (let made = c - 1; made > 0; made--) {
        const kv = keepValues(level);
        const next = new Float64Array(NH);
        for (let h = 0; h < NH; h++) next[h] = bestValue(h, wf[made - 1][h], kv, first);
        lv[made] = next;
        level = next;
      }
      let acc = 0.0;
      for (let h = 0; h < NH; h++) acc += P0[h] * level[h];
      foll[fk] = { wf, lv, value: acc };
      return foll[fk];
    }
    let leadVal = null;
    let U = null;
    function leader() { // U[c-1][h]: stopping on h after c throws; leadVal[made-1][h]: holding h after made
      if (leadVal) return { U, leadVal };
      U = [];
      for (let c = 1; c <= L; c++) U.push(Float64Array.from({ length: NH }, (_, hL) => 1.0 - follower(hL, c).value));
      leadVal = [];
      leadVal[L - 1] = U[L - 1];
      let level = U[L - 1];
      for (let made = L - 1; made > 0; made--) {
        const kv = keepValues(level);
        const next = new Float64Array(NH);
        for (let h = 0; h < NH; h++) next[h] = bestValue(h, U[made - 1][h], kv, 0);
        leadVal[made - 1] = next;
        level = next;
      }
      return { U, leadVal };
    }
    solved[key] = { L, follower, leader, mayStop: first === 0 };
    return solved[key];
  }

  // {keep: P(win the game)} of the hand held, as site.game_lead / site.game_beat build them
  function gameOptions(s, g2) {
    const [pot, mine, theirs] = s.state;
    const h = s.hand;
    const made = s.count - s.throws;
    const opts = {};
    const throwing = HAND_KEEPS[h].filter((k) => k !== FULL + h);
    if (s.role === "leader") {
      const R = roundSolver(s.v, g2, pot, mine, theirs);
      const { U, leadVal } = R.leader();
      if (made === R.L) { opts[FULL + h] = leadVal[R.L - 1][h]; return opts; }
      const kv = keepValues(leadVal[made]);
      throwing.forEach((k) => { opts[k] = kv[k]; });
      opts[FULL + h] = U[made - 1][h];
      return opts;
    }
    const R = roundSolver(s.v, g2, pot, theirs, mine); // the leader holds the opponent's tokens
    const c = s.count;
    const F = R.follower(s.beat, c);
    if (made === c) { opts[FULL + h] = F.wf[c - 1][h]; return opts; }
    const kv = keepValues(made + 1 < c ? F.lv[made + 1] : F.wf[c - 1]);
    throwing.forEach((k) => { opts[k] = kv[k]; });
    if (R.mayStop) opts[FULL + h] = F.wf[made - 1][h];
    return opts;
  }

  // ------------------------------------------------------------------ the situation
  function fail(msg) { throw new Error(msg); }
  function parseHand(text, name) {
    const digits = String(text || "").replace(/[\s,.\-]/g, "");
    if (!/^[1-6]{3}$/.test(digits)) {
      fail(name + ": '" + text + "' is not allowed; allowed: three dice 1 to 6, such as 631");
    }
    const i = HAND_INDEX.get(digits.split("").sort().reverse().join(""));
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
  function gameOf(v, players) { return own(v.game, String(players)) || null; }

  // POT,MINE,THEIRS or pot=P,mine=M,theirs=T (":" for "="): every field once, nothing more, or it is said
  function readState(raw, v, players, g) {
    if (!raw) return null;
    if (!g) { // a state the page has no game answer for is said, not dropped
      const withGame = Object.keys(v.game);
      fail("state: '" + raw + "' is not allowed at " + players + " players; allowed: no state (the round answer)" +
           (withGame.length ? ", or a state at " + withGame.join(" or ") + " players" : ""));
    }
    const forms = g.fields.length + " whole numbers " + g.fields.map((f) => f.toUpperCase()).join(",") + " or " +
      g.fields.map((f) => f + "=" + f.charAt(0).toUpperCase()).join(",");
    const parts = raw.split(",");
    let vals;
    if (raw.includes("=") || raw.includes(":")) {
      const got = new Map();
      parts.forEach((part) => {
        const m = part.match(/^(\w+)[=:](\d+)$/);
        if (m && g.fields.includes(m[1]) && !got.has(m[1])) got.set(m[1], m[2]);
        else got.set(null, part);
      });
      vals = got.has(null) ? [] : g.fields.map((f) => got.get(f));
    } else {
      vals = parts;
    }
    if (vals.length !== g.fields.length || vals.some((x) => x === undefined || !/^\d+$/.test(x))) {
      fail("state: '" + raw + "' is not allowed; allowed: " + forms);
    }
    return vals.map(Number);
  }

  // s: strings from the address or the form -> a checked situation
  function situation(p) {
    const v = own(M.variants, p.variant || Object.keys(M.variants)[0]);
    if (!v) fail("variant: '" + p.variant + "' is not allowed; allowed: " + Object.keys(M.variants).join(", "));
    const role = p.role || (p.beat ? "follower" : "leader");
    if (role !== "leader" && role !== "follower") fail("role: '" + role + "' is not allowed; allowed: leader, follower");
    const players = intIn("players", p.players || "2", PLAYERS.min, PLAYERS.max);
    const g = gameOf(v, players);
    const state = readState(p.state, v, players, g);
    let phase = p.phase || "charge";
    if (state) phase = state[0] > 0 ? "charge" : "decharge";
    if (own(v.limits, phase) === undefined) fail("phase: '" + phase + "' is not allowed; allowed: charge, decharge");
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
    const d = await load(s.v.name + "/round");
    return s.role === "leader" ? d.lead[String(s.L)][String(s.throws)] : d.beat[M.hands[s.beat]][String(s.throws)];
  }
  async function gameRows(s) {
    if (!s.state) return null;
    const g2 = await load(s.v.name + "/" + s.g.file);
    const opts = gameOptions(s, g2);
    return keepOrder(s.hand, opts).map((k) => ({ k, p: opts[k], ...KEEPS[s.hand][k] }));
  }

  // ------------------------------------------------------------------ the words (ties, near-ties, gaps)
  const what = (k) => (k.stop ? "stop" : "keep " + k.label);
  function list(ks) {
    const names = ks.map(what);
    return names.length === 1 ? names[0] : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }
  function roundTies(round) { return round.filter((k) => k.n === round[0].n); }
  // the round's best keep as the page shows it: of keeps that tie exactly, the one the game answer prefers;
  // without a game answer the first, as the data lists them in advise's order (its round tie rule)
  function roundPick(round, game) {
    const tied = roundTies(round);
    if (!game || tied.length === 1) return tied[0];
    const gameOfK = {};
    game.forEach((k) => { gameOfK[k.k] = k.p; });
    return tied.reduce((a, k) => (gameOfK[k.k] > gameOfK[a.k] ? k : a), tied[0]);
  }
  function where(s) { return "from pot " + s.state[0] + ", you " + s.state[1] + ", the opponent " + s.state[2]; }

  // the words of four21sim.advice.explain.explain, with the same numbers
  function explain(s, measure, den, round, game) {
    const best = round[0];
    const p = (k) => k.n / den;
    const tied = roundTies(round);
    const near = round.filter((k) => k.n !== best.n && p(best) - p(k) < M.near_tie);
    const lines = [];
    let ties = "";
    if (tied.length > 1) ties = tied.length + " keeps tie on " + measure + ": " + list(tied) + " all give " +
      pctRound(best.n, den) + " exactly. ";
    if (near.length) ties += "Near-tie on " + measure + " (within " + pp(M.near_tie) + "): " +
      near.map((k) => what(k) + " " + pp(p(best) - p(k)) + " lower").join(", ") + ". ";
    if (!game) {
      let more;
      if (s.g) more = "Give the tokens for the game answer, P(winning the game).";
      else if (s.players <= PLAYERS.game_max) {
        more = "The game answer for 3 to " + PLAYERS.game_max + " players, P(pay), needs the n-player solver at " +
               "run time: " + command(s, true) + " (the round answer holds at any table: a follower plays " +
               "against the worst hand on the table).";
      } else {
        more = "No exact game answer at " + s.players + " players (the solvers go up to " + PLAYERS.game_max +
               "): the round answer holds at any table (a follower plays against the worst hand on the table).";
      }
      lines.push("Round answer only: " + what(best) + " maximises " + measure + " this round (" +
                 pctRound(best.n, den) + "). " + ties + more);
      return lines;
    }
    const g = game[0];
    const gameOfK = {};
    game.forEach((k) => { gameOfK[k.k] = k.p; });
    const roundOfK = {};
    round.forEach((k) => { roundOfK[k.k] = k; });
    const gTied = game.filter((k) => Math.abs(k.p - g.p) <= TIE);
    const gNear = game.filter((k) => !gTied.includes(k) && g.p - k.p < M.near_tie);
    const gameTies = (gTied.length > 1 ? gTied.length + " keeps tie on P(win the game): " + list(gTied) +
      " all give " + pctGame(g.p) + ". " : "") + (gNear.length ? "Near-tie on P(win the game) (within " +
      pp(M.near_tie) + "): " + gNear.map((k) => what(k) + " " + pp(g.p - k.p) + " lower").join(", ") + "." : "");
    if (g.k === best.k) {
      lines.push("Both answers say " + what(best) + ": it maximises " + measure + " (" + pctRound(best.n, den) +
                 ") and P(winning the game) " + where(s) + " (" + pctGame(g.p) + "). " + ties + gameTies);
      return lines;
    }
    if (tied.some((k) => k.k === g.k)) {
      const others = tied.filter((k) => k.k !== g.k);
      lines.push("The round answer is a tie: " + list(tied) + " all give " + measure + " = " + pctRound(best.n, den) +
                 "; the game answer breaks it: " + what(g) + " gives P(win the game) " + pctGame(g.p) + " " +
                 where(s) + ", against " + others.map((k) => pctGame(gameOfK[k.k]) + " for " + what(k)).join(", ") +
                 ".");
      return lines;
    }
    const r = roundPick(round, game);
    const dRound = p(r) - p(roundOfK[g.k]);
    const dGame = g.p - gameOfK[r.k];
    lines.push((tied.length > 1 ? ties : "") + "They differ: " + what(r) + " gives " + measure + " " +
               pctRound(r.n, den) + " and P(win the game) " + pctGame(gameOfK[r.k]) + "; " + what(g) + " gives " +
               pctRound(roundOfK[g.k].n, den) + " and " + pctGame(g.p) + " (" + where(s) + "). The round answer is " +
               "ahead by " + pp(dRound) + " on the round, the game answer by " + pp(dGame) + " on the game.");
    if (dGame < M.near_tie) lines.push("For the game that is a near-tie (under " + pp(M.near_tie) + "): either keep will do.");
    if (dRound < M.near_tie) lines.push("For the round that is a near-tie (under " + pp(M.near_tie) + ").");
    lines.push("The game answer weighs the tokens at stake; the command below splits the gap over the round's " +
               "outcomes (how often each keep wins the round, what a won or lost round is then worth).");
    return lines;
  }

  // the equivalent command line; table: the n-player game answer's (a state for every seat)
  function command(s, table) {
    const parts = ["four21sim advise", M.hands[s.hand], "--variant", s.v.name];
    if (s.role === "leader") parts.push("--role leader");
    else parts.push("--beat", M.hands[s.beat], "--count", s.count);
    parts.push("--throws-left", s.throws);
    if (s.players !== 2) parts.push("--players", s.players);
    if (table) {
      const seats = Array.from({ length: s.players }, (_, i) => "t" + i + "=T" + i).join(",");
      parts.push("--seat", "SEAT", "--state", "pot=P," + seats + ",leader=SEAT");
    } else if (s.state) parts.push("--state", s.state.join(","));
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
    const tied = roundTies(round);
    const best = roundPick(round, game);
    const gameBy = {};
    (game || []).forEach((k) => { gameBy[k.k] = k; });
    const others = tied.filter((k) => k !== best);
    const tieWords = !others.length ? [] : game
      ? [" (a tie on the round with " + list(others) + "; the game answer breaks it)"]
      : [" (a tie with " + list(others) + ")"];
    const head = el("div", { class: "best" },
      el("p", { id: "best-round" }, "For the round: ", el("strong", {}, what(best)), ...tieWords, " — " + measure + " = ",
         el("strong", { "data-num": best.n, "data-den": tbl.den }, pctRound(best.n, tbl.den))));
    if (game) {
      head.append(el("p", { class: "game", id: "best-game" }, "For the game: ", el("strong", {}, what(game[0])),
        " — P(win the game) = ", el("strong", { "data-p": game[0].p }, pctGame(game[0].p))));
    }
    box.append(head);
    const table = el("table", { id: "keeps" },
      el("caption", { class: "help" }, "Every keep, best first for the round" +
         (s.role === "follower" && s.v.followers === "exact" ? " (exact rule: a follower re-throws at least one die)" : "")),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "keep"), el("th", { scope: "col" }, measure),
         game ? el("th", { scope: "col" }, "P(win game)") : [])));
    const body = el("tbody");
    round.forEach((k) => {
      const gk = gameBy[k.k];
      const isGame = Boolean(game && gk === game[0]);
      const isRound = k === best;
      const cls = [isRound ? "is-round" : "", isGame ? "is-game" : ""].join(" ").trim();
      const badge = isRound && isGame ? "best for both" : isRound ? "best for the round"
        : isGame ? "best for the game" : tied.includes(k) ? "tie for the round" : null;
      body.append(el("tr", { class: cls || null, "data-keep": k.label },
        el("td", { class: "keep", "data-best": badge }, k.label),
        el("td", { "data-num": k.n, "data-den": tbl.den, title: "exact: " + fraction(k.n, tbl.den) }, pctRound(k.n, tbl.den)),
        game ? el("td", { "data-p": gk.p }, pctGame(gk.p)) : []));
    });
    table.append(body);
    box.append(table);
    const why = el("div", { class: "why", id: "why" });
    explain(s, measure, tbl.den, round, game).forEach((line) => why.append(el("p", {}, line)));
    why.append(el("p", { class: "help" }, "On the command line: ", el("code", { id: "cli" }, command(s))));
    box.append(why);
  }

  function drawSheet(s, rounds) {
    const body = $("sheet-body");
    body.replaceChildren();
    const notes = el("ul", { class: "help" });
    s.v.notes[s.role].forEach((n) => notes.append(el("li", {}, n)));
    let cols, title;
    if (s.role === "leader") {
      const byM = rounds.lead[String(s.L)];
      const ms = Object.keys(byM).map(Number).filter((m) => m > 0 || s.L === 1).sort((a, b) => b - a);
      cols = ms.map((m) => ["after throw " + (s.L - m) + " (" + m + " left)", byM[String(m)]]);
      title = "Leader, " + s.L + " throw" + (s.L > 1 ? "s" : "") + " (" + s.phase + "): the best keep and P(not losing the round)";
    } else if (s.beat !== null) {
      const beatData = rounds.beat[M.hands[s.beat]];
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
  const params = () => Object.assign(Object.create(null),
    Object.fromEntries(new URLSearchParams(location.hash.replace(/^#/, ""))));

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
    const v = own(M.variants, p.variant) || M.variants[Object.keys(M.variants)[0]];
    $("variant").value = v.name;
    const role = p.role || (p.beat ? "follower" : "leader");
    (role === "follower" ? $("role-follower") : $("role-leader")).checked = true;
    $("hand").value = p.hand || "";
    $("beat").value = p.beat || "";
    $("players").value = p.players || "2";
    const g = gameOf(v, Number($("players").value));
    stateFields(g);
    let st;
    try {  // the fields in the form's order, whatever the address's (a bad state is said by render)
      st = (readState(p.state, v, Number($("players").value), g) || []).map(String);
    } catch (e) {
      st = (p.state || "").split(",").map((x) => x.replace(/^\D+/, ""));
    }
    if (g) g.fields.forEach((f, i) => { $(f).value = st[i] !== undefined ? st[i] : ""; });
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
    $("phase-row").hidden = Boolean(complete); // the tokens say it (the help below them): room for the answer
    const L = v.limits[$("phase").value];
    const follower = $("role-follower").checked;
    document.querySelectorAll(".follower-only").forEach((e) => { e.hidden = !follower; });
    const counts = Array.from({ length: L }, (_, i) => i + 1);
    options($("count"), counts, counts.map((c) => c + (c === 1 ? " throw" : " throws")), count, L);
    const c = follower ? Number($("count").value) : L;
    const left = Array.from({ length: c }, (_, i) => c - 1 - i);
    options($("throws"), left, left.map((m) => m + " (after throw " + (c - m) + ")"),
            throws !== undefined ? throws : undefined);
    $("state-help").textContent = !g ? "" : complete
      ? ($("phase").value === "charge" ? "the charge: tokens in the pot" : "the décharge: the pot is empty")
      : v.tokens + " in all; empty: round only";
    const withGame = Object.keys(v.game).join(", ");
    $("players-help").textContent = g ? "tokens below: the game answer"
      : "the round answer" + (withGame ? " (the game answer here: " + withGame + " players)" : "");
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
      const rounds = await load(s.v.name + "/round");
      if (ticket !== drawing) return;
      drawSheet(s, rounds);
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

  // for the tests (tests/test_site.py): the game answer of a situation, and the ranking, as the page computes them
  window.F421 = {
    keepOrder,
    async game(p) { const s = situation(p); return (await gameRows(s)).map((k) => [k.k, k.p]); },
  };

  // ------------------------------------------------------------------ start
  options($("variant"), Object.keys(M.variants), Object.values(M.variants).map((v) => v.describe));
  const counts = Array.from({ length: PLAYERS.max - PLAYERS.min + 1 }, (_, i) => i + PLAYERS.min);
  options($("players"), counts);
  $("generator").textContent = M.generator;
  form.addEventListener("input", onForm);
  form.addEventListener("change", onForm);
  form.addEventListener("submit", (e) => { e.preventDefault(); onForm(); });
  window.addEventListener("hashchange", () => { const p = params(); fillForm(p); render(p); });
  const start = params();
  fillForm(start);
  render(Object.keys(start).length ? start : formParams());
})();

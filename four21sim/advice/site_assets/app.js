/* 421 at the table: the advisor's page. It holds no rule. The round answers (every keep, its order,
   its exact fraction) are read from the data files four21sim writes; the game answer is computed here,
   at 2 players from the solver's values of the round's outcomes, from 3 players from the n-player
   equilibrium's rounds (its contexts, outcomes and values), by the solver kernels' own backward
   induction over the round (same operations, same order, in double precision), and the keeps are
   ranked as advisor.keep_order ranks them (docs/site.md). Data files are scripts, so that the page
   works from file://. */
(function () {
  "use strict";
  const DATA = (window.F421DATA = window.F421DATA || {});
  const M = DATA.index;
  const $ = (id) => document.getElementById(id);
  const FIELD_LABELS = { pot: "pot", mine: "yours", theirs: "opponent's", leader: "leader" };
  for (let i = 0; i < 8; i++) FIELD_LABELS["t" + i] = "seat " + i;

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

  // ------------------------------------------------------------------ the n-player round, played backwards
  // The round kernel of four21sim.exact._nplayer_kernels (solve_round: the outcomes' values, then every
  // follower's player_turn from the last level up, then the leader's) on the equilibrium's own arrays
  // (data/<variant>/g<n>.js, from four21sim.exact.round_tables): the same sums in the same order, the same
  // ties (the first keep within keep_tie of the best). Large arrays come deflated (base64) as byte planes
  // (site._packed): the browser's DecompressionStream inflates them, and they are put back together here.
  let GAME_SECONDS = 5; // past this, the page says so and gives the round answer (the tests may lower it)
  class TooSlow extends Error {}
  async function inflate(b64) {
    if (typeof DecompressionStream === "undefined") {
      throw new TooSlow("This browser cannot inflate the game's tables (it has no DecompressionStream)");
    }
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  // site._packed: n doubles as their 8 byte planes, or n integers as their w low byte planes
  async function unpack(o) {
    const b = await inflate(o.z);
    const n = o.n;
    if (o.f8) {
      const out = new Uint8Array(8 * n);
      for (let k = 0; k < 8; k++) for (let i = 0, at = k * n; i < n; i++) out[8 * i + k] = b[at + i];
      return new Float64Array(out.buffer);
    }
    const out = new Int32Array(n);
    for (let k = 0; k < o.w; k++) {
      const shift = 8 * k;
      for (let i = 0, at = k * n; i < n; i++) out[i] |= b[at + i] << shift;
    }
    return out;
  }
  // site._packed_rows: the stored rows, kept column by column (entry (r, h) at h * rows + r): each entry the
  // step from the column before, less the same step of the row above (zigzag, site._escaped: one byte, 255
  // meaning 255 plus the next of `esc`)
  async function unpackRows(o) {
    const [small, esc] = await Promise.all([inflate(o.steps.z), unpack(o.steps.esc)]);
    const R = o.rows, W = o.width, cols = o.cols;
    const out = new Int32Array(R * W);
    const x = new Int32Array(R); // each row's value at the column before
    for (let j = 0, i = 0, k = 0; j < W; j++) {
      const at = cols[j] * R;
      let acc = 0; // the step of the row above, in this column
      for (let r = 0; r < R; r++, i++) {
        let v = small[i];
        if (v === 255) v += esc[k++];
        acc += (v >>> 1) ^ -(v & 1);
        x[r] += acc;
        out[at + r] = x[r];
      }
    }
    return out;
  }
  const tablesN = {};
  function nTables(v, g) {
    const key = v.name + "/" + g.file;
    if (!tablesN[key]) {
      tablesN[key] = (async () => {
        const d = await load(key);
        // a phase's contexts are inflated when a state of that phase is first asked (the décharge's are most)
        const phases = {};
        const phase = (ph) => {
          const c = d.phases[ph];
          if (!phases[ph]) {
            // trans is rows of NH (a context's, or one per throw count of a follower who may stop: those of
            // context g from first[g]); equal rows are stored once, `slots` says which stored row each is;
            // kept column by column: hand h of stored row r at h * R + r
            const first = c.row_len ? Promise.resolve(Int32Array.from({ length: c.G }, (_, g) => g))
              : unpack(c.row_start).then((rs) => rs.map((x) => x / NH));
            phases[ph] = Promise.all([unpack(c.ctx_c), first, unpack(c.trans.index), unpackRows(c.trans),
                                      unpack(c.fin_len), unpack(c.fin_cls), unpack(c.fin_w)])
              .then(([ctx, fst, slots, trans, flen, fcls, fw]) => {
                const fs = new Int32Array(flen.length + 1);
                for (let e = 0; e < flen.length; e++) fs[e + 1] = fs[e] + flen[e];
                return Object.assign({}, c, { ctx_c: ctx, first: fst, slots, trans, R: c.trans.rows, fin_start: fs,
                                              fin_cls: fcls, fin_w: fw });
              });
            phases[ph].catch(() => { delete phases[ph]; });
          }
          return phases[ph];
        };
        const flat = await unpack(d.states); // field by field: the pots, then seat 0's tokens, ...
        const nS = flat.length / (d.players + 1);
        const states = Array.from({ length: nS }, (_, i) => Array.from({ length: d.players + 1 }, (_, k) => flat[k * nS + i]));
        const values = await unpack(d.values);
        const X = new Float64Array(values.length + d.consts.length);
        X.set(values);
        X.set(d.consts, values.length);
        const st = d.steps;
        // the leader's values after each final hand, where the build wrote them (a phase of many contexts)
        const ends = {};
        const leadEnds = (ph) => {
          const c = d.phases[ph];
          if (!c.lead_ends) return null;
          if (!ends[ph]) {
            const pos = new Map();
            states.forEach((t, i) => { if ((t[0] > 0) === (ph === "charge")) pos.set(i, pos.size); });
            ends[ph] = unpack(c.lead_ends).then((U) => ({ pos, U, L: c.L }));
            ends[ph].catch(() => { delete ends[ph]; });
          }
          return ends[ph];
        };
        return { n: d.players, states, index: new Map(states.map((t, i) => [t.join(","), i])), phase, X,
                 leadEnds,
                 succ: await unpack(d.succ), start: await unpack(d.succ_start),
                 ST2: Int32Array.from(st.step2), ST1: Int32Array.from(st.step1), ST0: Int32Array.from(st.step0),
                 EMPTY: st.empty, NP: st.partial, PK: Int32Array.from(st.pk), PKS: Int32Array.from(st.pk_start),
                 P0: Float64Array.from(st.p0), TIE: st.tie, rounds: new Map() };
      })();
      tablesN[key].catch(() => { delete tablesN[key]; });
    }
    return tablesN[key];
  }

  // the kernel's _keep_values: kv[k*K + j] from level[h*K + j], one die added at a time
  function keepValuesN(T, level, kv, K) {
    const { ST2, ST1, ST0 } = T;
    const SIXTH = 1.0 / 6.0;
    for (let r = 0; r < ST2.length; r += 7) {
      const k = ST2[r] * K;
      const a1 = ST2[r + 1] * K, a2 = ST2[r + 2] * K, a3 = ST2[r + 3] * K;
      const a4 = ST2[r + 4] * K, a5 = ST2[r + 5] * K, a6 = ST2[r + 6] * K;
      for (let j = 0; j < K; j++) {
        kv[k + j] = (level[a1 + j] + level[a2 + j] + level[a3 + j] + level[a4 + j] + level[a5 + j] + level[a6 + j]) * SIXTH;
      }
    }
    for (let r = 0; r < ST1.length; r += 7) {
      const k = ST1[r] * K;
      const a1 = ST1[r + 1] * K, a2 = ST1[r + 2] * K, a3 = ST1[r + 3] * K;
      const a4 = ST1[r + 4] * K, a5 = ST1[r + 5] * K, a6 = ST1[r + 6] * K;
      for (let j = 0; j < K; j++) kv[k + j] = (kv[a1 + j] + kv[a2 + j] + kv[a3 + j] + kv[a4 + j] + kv[a5 + j] + kv[a6 + j]) * SIXTH;
    }
    const e = T.EMPTY * K;
    const b0 = ST0[0] * K, b1 = ST0[1] * K, b2 = ST0[2] * K, b3 = ST0[3] * K, b4 = ST0[4] * K, b5 = ST0[5] * K;
    for (let j = 0; j < K; j++) kv[e + j] = (kv[b0 + j] + kv[b1 + j] + kv[b2 + j] + kv[b3 + j] + kv[b4 + j] + kv[b5 + j]) * SIXTH;
  }

  // one round of state s: the outcomes' values (_final_values), contexts solved on demand
  async function nRound(T, s) {
    if (T.rounds.has(s)) return T.rounds.get(s);
    const P = await T.phase(T.states[s][0] ? "charge" : "decharge");
    if (T.rounds.has(s)) return T.rounds.get(s); // asked twice meanwhile
    const K = T.n;
    const nOut = P.fin_start.length - 1;
    const vals = new Float64Array((P.G + nOut) * K);
    const base = T.start[s];
    for (let e = 0; e < nOut; e++) {
      for (let j = 0; j < K; j++) {
        let acc = 0.0;
        for (let t = P.fin_start[e]; t < P.fin_start[e + 1]; t++) acc += P.fin_w[t] * T.X[T.succ[base + P.fin_cls[t] * K + j]];
        vals[(P.G + e) * K + j] = acc;
      }
    }
    const R = { P, K, vals, done: new Uint8Array(P.G),
                work: { a: new Float64Array(NH * K), b: new Float64Array(NH * K), kv: new Float64Array((T.NP + 1) * K) } };
    if (T.rounds.size >= 3) T.rounds.delete(T.rounds.keys().next().value); // a few states kept (memory)
    T.rounds.set(s, R);
    return R;
  }
  // where context g's follower ends on h after f throws (the kernel's _follower_tix)
  const endOf = (P, g, f, h) => P.trans[h * P.R + P.slots[P.first[g] + (P.exact ? 0 : f - 1)]];
  function roleOf(P, g) { let i = 1; while (g >= P.lvl[i]) i++; return i; }

  // the kernel's player_turn for context g (every component after the keep best for its role): vals[g]
  function contextTurn(T, R, g) {
    const { P, K, vals, work } = R;
    const { PK, PKS, TIE, P0 } = T;
    const trans = P.trans;
    const role = roleOf(P, g);
    const c = P.ctx_c[g];
    const exact = P.exact;
    const base = P.first[g];
    let level = work.a;
    let next = work.b;
    const kv = work.kv;
    const rows = P.R;
    const last = P.slots[base + (exact ? 0 : c - 1)];
    for (let h = 0; h < NH; h++) {
      const x = trans[h * rows + last] * K;
      for (let j = 0; j < K; j++) level[h * K + j] = vals[x + j];
    }
    for (let made = c - 1; made > 0; made--) {
      keepValuesN(T, level, kv, K);
      const row = exact ? 0 : P.slots[base + made - 1]; // stopping (not for an exact follower): the ends after `made` throws
      for (let h = 0; h < NH; h++) {
        let t0 = PKS[h];
        const t1 = PKS[h + 1];
        let src, best;
        if (!exact) { src = trans[h * rows + row]; best = vals[src * K + role]; src = -1 - src; }
        else { src = PK[t0]; best = kv[src * K + role]; t0++; }
        for (let t = t0; t < t1; t++) {
          const v = kv[PK[t] * K + role];
          if (v > best + TIE) { best = v; src = PK[t]; }
        }
        const from = src < 0 ? vals : kv;
        const at = (src < 0 ? -1 - src : src) * K;
        for (let j = 0; j < K; j++) next[h * K + j] = from[at + j];
      }
      const swap = level;
      level = next;
      next = swap;
    }
    for (let j = 0; j < K; j++) {
      let acc = 0.0;
      for (let h = 0; h < NH; h++) acc += P0[h] * level[h * K + j];
      vals[g * K + j] = acc;
    }
    R.done[g] = 1;
  }

  const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
  // solve the contexts `list` (later levels first), yielding to the page every ~30 ms; past the deadline, TooSlow
  // (what is solved stays solved: asked again, the page goes on from there); live() false: another situation
  async function solveContexts(T, R, list, deadline, live) {
    let tick = performance.now();
    for (let i = 0; i < list.length; i++) {
      if (!R.done[list[i]]) contextTurn(T, R, list[i]);
      const now = (i & 63) === 63 ? performance.now() : 0;
      if (now && (now - tick > 50 || now > deadline)) {
        await pause();
        if (live && !live()) throw new TooSlow("Stopped: another situation was asked");
        if (performance.now() > deadline) {
          throw new TooSlow("The game answer at " + T.n + " players takes over " + GAME_SECONDS + " s on this device");
        }
        tick = performance.now();
      }
    }
  }
  // the contexts after context g (its follower's ends, theirs, ...), later levels first
  function after(R, g) {
    const { P } = R;
    const seen = new Set();
    let frontier = [g];
    const levels = [];
    while (frontier.length) {
      const nxt = [];
      for (const x of frontier) {
        const c = P.ctx_c[x];
        for (let f = P.exact ? c : 1; f <= c; f++) {
          for (let h = 0; h < NH; h++) {
            const y = endOf(P, x, f, h);
            if (y < P.G && !seen.has(y)) { seen.add(y); nxt.push(y); }
          }
        }
      }
      if (nxt.length) levels.push(nxt);
      frontier = nxt;
    }
    return levels.reverse().flat();
  }

  // utilities of every keep of one decision for the player choosing (component `role`), its own play after
  // it the profile's (the best for itself, ties to the first keep), as nplayer.keep_utilities
  function chooser(T, ends, c, first, made, hand, role) {
    let level = Float64Array.from({ length: NH }, (_, h) => ends(c, h));
    const kv = new Float64Array(T.NP + 1);
    for (let m = c - 1; m > made; m--) {
      keepValuesN(T, level, kv, 1);
      level = Float64Array.from({ length: NH }, (_, h) => {
        let t0 = T.PKS[h];
        let best;
        if (first === 0) best = ends(m, h);
        else { best = kv[T.PK[t0]]; t0++; }
        for (let t = t0; t < T.PKS[h + 1]; t++) if (kv[T.PK[t]] > best + T.TIE) best = kv[T.PK[t]];
        return best;
      });
    }
    const opts = {};
    if (made === c) { opts[FULL + hand] = ends(c, hand); return opts; }
    keepValuesN(T, level, kv, 1);
    for (let t = T.PKS[hand]; t < T.PKS[hand + 1]; t++) opts[T.PK[t]] = kv[T.PK[t]];
    if (first === 0) opts[FULL + hand] = ends(made, hand);
    return opts;
  }

  // {keep: utility (1 - P(pay))} of the hand held at a table of n, everyone playing the equilibrium after it
  async function gameOptionsN(s) {
    const deadline = performance.now() + GAME_SECONDS * 1000; // reading the tables counts too
    const T = await nTables(s.v, s.g);
    const byRole = [s.state.pot, ...s.order.map((seat) => s.state.toks[seat])];
    const idx = T.index.get(byRole.join(","));
    if (idx === undefined) {
      fail("state: " + stateText(s) + " is not a state of these tables; allowed: pot=P," +
           s.order.map((_, i) => "t" + i + "=T" + i).join(",") + ",leader=SEAT adding up to tokens=" + s.v.tokens +
           ", every seat holding tokens once the pot is empty");
    }
    const made = s.count - s.throws;
    const stored = s.r === 0 ? await T.leadEnds(s.state.pot > 0 ? "charge" : "decharge") : null;
    if (stored) { // the leader's values after each final hand, as the build computed them
      const at = stored.pos.get(idx) * stored.L * NH;
      return chooser(T, (f, h) => stored.U[at + (f - 1) * NH + h], s.count, 0, made, s.hand, 0);
    }
    const R = await nRound(T, idx);
    const { P, K, vals } = R;
    if (s.r === 0) {
      const list = [];
      for (let g = P.G - 1; g >= 0; g--) list.push(g);
      await solveContexts(T, R, list, deadline, s.live);
      const ends = (f, h) => vals[P.lead_next[(f - 1) * NH + h] * K];
      return chooser(T, ends, s.count, 0, made, s.hand, 0);
    }
    let g = P.lead_next[(s.count - 1) * NH + s.hands[0]];
    for (const h of s.hands.slice(1)) g = endOf(P, g, s.count, h);
    await solveContexts(T, R, after(R, g), deadline, s.live);
    const ends = (f, h) => vals[endOf(P, g, f, h) * K + s.r];
    return chooser(T, ends, s.count, P.exact ? 1 : 0, made, s.hand, s.r);
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
  // the state's fields at a table size: the game's where the site has it; at 3 players up to the solver's reach
  // without data (a site not written with that size) those of advise's --state all the same (missing: the page
  // reads the state and prints the command that gives the game answer)
  function tableOf(v, players) {
    const g = gameOf(v, players);
    if (g || players < 3 || players > PLAYERS.game_max) return g;
    return { fields: ["pot", ...Array.from({ length: players }, (_, i) => "t" + i), "leader"], seats: true, missing: true };
  }

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
      const got = named(parts, g.fields);
      vals = got ? g.fields.map((f) => got.get(f)) : [];
    } else {
      vals = parts;
    }
    if (vals.length !== g.fields.length || vals.some((x) => x === undefined || !/^\d+$/.test(x))) {
      fail("state: '" + raw + "' is not allowed; allowed: " + forms);
    }
    return vals.map(Number);
  }

  // the "name=N" (or "name:N") parts of a state, each a field once: field -> digits, or null if a part is not
  function named(parts, fields) {
    const got = new Map();
    for (const part of parts) {
      const m = part.match(/^(\w+)[=:](\d+)$/);
      if (!m || !fields.includes(m[1]) || got.has(m[1])) return null;
      got.set(m[1], m[2]);
    }
    return got;
  }

  // a table of 3 or more, as `four21sim advise --players N --seat S --state pot=P,t0=..,leader=L`: advise's
  // forms POT,T0,..,T(N-1)[,LEADER] or the names in any order, each once (the leader may be left out)
  function readStateN(raw, g, players) {
    if (!raw) return null;
    const seats = g.fields.filter((f) => /^t\d+$/.test(f));
    const forms = "pot=P," + seats.map((f) => f + "=" + f.toUpperCase()).join(",") + ",leader=SEAT, or " +
      (players + 1) + " or " + (players + 2) + " whole numbers POT," + seats.map((f) => f.toUpperCase()).join(",") +
      "[,LEADER]";
    const bad = () => fail("state: '" + raw + "' is not allowed; allowed: " + forms);
    const parts = raw.split(",");
    let vals;
    if (raw.includes("=") || raw.includes(":")) {
      const got = named(parts, g.fields);
      if (!got) bad();
      vals = g.fields.map((f) => got.get(f));
      if (vals[vals.length - 1] === undefined) vals.pop();
    } else {
      vals = parts;
    }
    if ((vals.length !== players + 1 && vals.length !== players + 2) || vals.some((x) => x === undefined || !/^\d+$/.test(x))) bad();
    const n = vals.map(Number);
    return { pot: n[0], toks: n.slice(1, players + 1), leader: n.length === players + 2 ? n[players + 1] : null };
  }
  const stateText = (s) => "pot=" + s.state.pot + "," + s.state.toks.map((t, i) => "t" + i + "=" + t).join(",") +
    ",leader=" + s.state.leader;
  // the hands before the seat advised: "654,521" (each a hand; "6,5,4" is one hand)
  function parseHands(text) {
    const parts = String(text).split(",");
    if (parts.length > 1 && parts.every((x) => /^\s*[1-6]\s*$/.test(x))) return [parseHand(text, "beat")];
    return parts.map((x) => parseHand(x, "beat"));
  }

  // the situation at a table with the n-player game answer: the seat, the state, the hands before it
  function tableSituation(p, v, players, g) {
    const seat = intIn("seat", p.seat === undefined || p.seat === "" ? "0" : p.seat, 0, players - 1);
    const state = readStateN(p.state, g, players);
    const hands = p.beat ? parseHands(p.beat) : [];
    let role = p.role || (p.beat ? "follower" : "leader");
    if (role !== "leader" && role !== "follower") fail("role: '" + role + "' is not allowed; allowed: leader, follower");
    let phase = p.phase || "charge";
    const s = { v, players, g, seat, hands };
    if (state) {
      if (state.leader === null) {
        if (role === "follower") fail("state: '" + p.state + "' names no leader; allowed: a follower's state with leader=SEAT");
        state.leader = seat;
      }
      if (state.leader >= players) fail("state: leader=" + state.leader + " is not allowed; allowed: 0 to " + (players - 1));
      const implied = state.leader === seat ? "leader" : "follower";
      if (p.role && p.role !== implied) {
        fail("state: leader=" + state.leader + " does not match role " + p.role + " for seat " + seat + "; allowed: role " +
             implied + ", or another leader");
      }
      role = implied;
      s.order = Array.from({ length: players }, (_, k) => (state.leader + k) % players);
      s.r = s.order.indexOf(seat);
      if (hands.length !== s.r && (p.beat || s.r === 0)) {
        fail("beat: " + hands.length + " hands are not allowed; allowed: the " + s.r + " hands of the players before seat " +
             seat + " this round, in playing order from the leader (seat " + state.leader + ")");
      }
      phase = state.pot > 0 ? "charge" : "decharge";
    }
    if (own(v.limits, phase) === undefined) fail("phase: '" + phase + "' is not allowed; allowed: charge, decharge");
    Object.assign(s, { role, state, phase, L: v.limits[phase] });
    s.hand = p.hand ? parseHand(p.hand, "hand") : null;
    // the round answer plays against the worst hand before (the ranking's last)
    s.beat = role === "follower" && hands.length ? hands.reduce((a, h) => (v.order.indexOf(h) > v.order.indexOf(a) ? h : a)) : null;
    s.count = role === "follower" ? intIn("count", p.count || String(s.L), 1, s.L) : s.L;
    s.throws = intIn("throws", p.throws === undefined || p.throws === "" ? String(s.count - 1) : p.throws, 0, s.count - 1);
    return s;
  }

  // what a site without the game data of a table size says (the sizes it has, and the build that would have it)
  function noGameHere(v, players) {
    const here = Object.keys(v.game);
    const sizes = [...here.map(Number), players].sort((a, b) => a - b).join(",");
    return "This page holds no game answer at " + players + " players yet" + (here.length ? " (it does at " +
      here.join(", ") + ")" : "") + (players <= (PLAYERS.page_game_max || 0) ? "; a site built with four21sim " +
      "site --players " + sizes + " has it" : "");
  }

  // s: strings from the address or the form -> a checked situation
  function situation(p) {
    const v = own(M.variants, p.variant || Object.keys(M.variants)[0]);
    if (!v) fail("variant: '" + p.variant + "' is not allowed; allowed: " + Object.keys(M.variants).join(", "));
    const role = p.role || (p.beat ? "follower" : "leader");
    if (role !== "leader" && role !== "follower") fail("role: '" + role + "' is not allowed; allowed: leader, follower");
    const players = intIn("players", p.players || "2", PLAYERS.min, PLAYERS.max);
    const table = tableOf(v, players);
    const g = table && table.missing ? null : table;
    if (g && g.seats) return tableSituation(p, v, players, g);
    if (table && table.missing && p.state) {
      // a table the solver answers but this site holds no data for: the state is read (as advise reads it)
      // and the round answer given, with the command that gives the game answer
      const s = tableSituation(p, v, players, table);
      s.gameNote = noGameHere(v, players) + ": the command gives it, " + command(s) + ".";
      return s;
    }
    if (p.seat !== undefined && p.seat !== "" && players === 2) {
      fail("seat: '" + p.seat + "' is not allowed with 2 players; allowed: 3 players or more (with 2 you are " +
           "'mine': state=pot=P,mine=M,theirs=T)");
    }
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
  // the game answer's rows, best first: p the player's utility (P(win the game), or 1 - P(pay) at a table of
  // 3 or more), show the number shown (P(win the game), or P(pay))
  async function gameRows(s) {
    if (!s.state || s.g.missing) return null;
    if (s.g.seats) {
      const opts = await gameOptionsN(s);
      return keepOrder(s.hand, opts).map((k) => ({ k, p: opts[k], show: 1 - opts[k], ...KEEPS[s.hand][k] }));
    }
    const g2 = await load(s.v.name + "/" + s.g.file);
    const opts = gameOptions(s, g2);
    return keepOrder(s.hand, opts).map((k) => ({ k, p: opts[k], show: opts[k], ...KEEPS[s.hand][k] }));
  }
  const seated = (s) => Boolean(s.g && s.g.seats);
  const gameMeasure = (s) => (seated(s) ? "P(pay)" : "P(win the game)");

  // ------------------------------------------------------------------ the words (ties, near-ties, gaps)
  const what = (k) => (k.stop ? "stop" : "keep " + k.label);
  function list(ks) {
    const names = ks.map(what);
    return names.length === 1 ? names[0] : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }
  function roundTies(round) { return round.filter((k) => k.n === round[0].n); }
  // the round's best keep as the page shows it (advisor.best_play): of keeps that tie exactly, the one the game
  // answer prefers; of those equal on the game too (within TIE), the game answer's own keep (game[0], by its tie
  // rule, keepOrder) where it is one of them, else the first; without a game answer the first, as the data lists
  // them in advise's order (its round tie rule)
  function roundPick(round, game) {
    const tied = roundTies(round);
    if (!game || tied.length === 1) return tied[0];
    const gameOfK = {};
    game.forEach((k) => { gameOfK[k.k] = k.p; });
    if (tied.some((k) => !(k.k in gameOfK))) return tied[0]; // as best_play: a keep the game does not value
    const top = Math.max(...tied.map((k) => gameOfK[k.k]));
    const equal = tied.filter((k) => gameOfK[k.k] >= top - TIE);
    return equal.find((k) => k.k === game[0].k) || equal[0];
  }
  // the keeps of `ks` other than k equal to it on the game (within TIE)
  const gameEqual = (ks, k, game) => {
    const p = Object.fromEntries(game.map((x) => [x.k, x.p]));
    return ks.filter((x) => x.k !== k.k && Math.abs(p[x.k] - p[k.k]) <= TIE);
  };
  // where keeps the round ties tie on the game too: which keep both answers name (explain.game_tie_words)
  function tieOnGame(g, others, game, GM) {
    const equal = gameEqual(others, g, game);
    if (!equal.length) return ["", false];
    const every = equal.length === others.length;
    const who = every ? "They tie on " + GM + " too (" + pctGame(g.show) + ")"
      : list(equal) + (equal.length === 1 ? " ties" : " tie") + " with it on " + GM + " too";
    return [who.charAt(0).toUpperCase() + who.slice(1) + ": both answers name " + what(g) + ", the first of them in " +
            M.keep_order + ".", every];
  }
  function where(s) {
    if (seated(s)) return "from " + stateText(s) + ", you in seat " + s.seat;
    return "from pot " + s.state[0] + ", you " + s.state[1] + ", the opponent " + s.state[2];
  }

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
      if (s.gameNote) more = s.gameNote;
      else if (seated(s)) more = "Give every seat's tokens and the leader for the game answer, P(pay).";
      else if (s.g) more = "Give the tokens for the game answer, P(winning the game).";
      else if (s.players <= PLAYERS.game_max) {
        more = noGameHere(s.v, s.players) + ": P(pay) at " + s.players + " players comes from the n-player " +
               "solver at run time: " + command(s, true) + " (the round answer holds at any table: a follower " +
               "plays against the worst hand on the table).";
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
    const shownOfK = {};
    game.forEach((k) => { shownOfK[k.k] = k.show; });
    const GM = gameMeasure(s);
    const worse = seated(s) ? " higher" : " lower";
    const roundOfK = {};
    round.forEach((k) => { roundOfK[k.k] = k; });
    const gTied = game.filter((k) => Math.abs(k.p - g.p) <= TIE);
    const gNear = game.filter((k) => !gTied.includes(k) && g.p - k.p < M.near_tie);
    const gameTies = (gTied.length > 1 ? gTied.length + " keeps tie on " + GM + ": " + list(gTied) +
      " all give " + pctGame(g.show) + ". " : "") + (gNear.length ? "Near-tie on " + GM + " (within " +
      pp(M.near_tie) + "): " + gNear.map((k) => what(k) + " " + pp(g.p - k.p) + worse).join(", ") + "." : "");
    if (g.k === best.k) {
      lines.push("Both answers say " + what(best) + ": it maximises " + measure + " (" + pctRound(best.n, den) +
                 ") and " + (seated(s) ? "minimises P(pay) " : "P(winning the game) ") + where(s) + " (" +
                 pctGame(g.show) + "). " + ties + gameTies);
      return lines;
    }
    if (tied.some((k) => k.k === g.k)) {
      const others = tied.filter((k) => k.k !== g.k);
      const [same, every] = tieOnGame(g, others, game, GM);
      lines.push("The round answer is a tie: " + list(tied) + " all give " + measure + " = " + pctRound(best.n, den) +
                 (every ? "." : "; the game answer breaks it: " + what(g) + " gives " + GM + " " + pctGame(g.show) + " " +
                 where(s) + ", against " + others.map((k) => pctGame(shownOfK[k.k]) + " for " + what(k)).join(", ") +
                 ".") + (same ? " " + same : ""));
      return lines;
    }
    const r = roundPick(round, game);
    const dRound = p(r) - p(roundOfK[g.k]);
    const dGame = g.p - gameOfK[r.k];
    lines.push((tied.length > 1 ? ties : "") + "They differ: " + what(r) + " gives " + measure + " " +
               pctRound(r.n, den) + " and " + GM + " " + pctGame(shownOfK[r.k]) + "; " + what(g) + " gives " +
               pctRound(roundOfK[g.k].n, den) + " and " + pctGame(g.show) + " (" + where(s) + "). The round answer is " +
               "ahead by " + pp(dRound) + " on the round, the game answer by " + pp(dGame) + " on the game.");
    if (dGame < M.near_tie) lines.push("For the game that is a near-tie (under " + pp(M.near_tie) + "): either keep will do.");
    if (dRound < M.near_tie) lines.push("For the round that is a near-tie (under " + pp(M.near_tie) + ").");
    if (seated(s)) { // the words of explain.reason_table
      lines.push("The round answer plays for this round only (a leader against one follower, a follower against the " +
                 "worst hand so far), the game answer weighs the tokens at stake and every player still to throw.");
      return lines;
    }
    lines.push("The game answer weighs the tokens at stake; the command below splits the gap over the round's " +
               "outcomes (how often each keep wins the round, what a won or lost round is then worth).");
    return lines;
  }

  // the equivalent command line; table: the n-player game answer's (a state for every seat)
  function command(s, table) {
    const parts = ["four21sim advise", M.hands[s.hand], "--variant", s.v.name];
    if (s.role === "leader") parts.push("--role leader");
    else parts.push("--beat", (s.hands && s.hands.length ? s.hands : [s.beat]).map((h) => M.hands[h]).join(","),
                    "--count", s.count);
    parts.push("--throws-left", s.throws);
    if (s.players !== 2) parts.push("--players", s.players);
    if (seated(s) && s.state) {
      parts.push("--seat", s.seat, "--state", stateText(s));
    } else if (table) {
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

  // the headline (the best keep for the round and for the game) in #answer, under the hand and the throws;
  // every keep and the explanation in #more, after the table's fields
  function drawAnswer(s, tbl, game) {
    const box = $("more");
    box.replaceChildren();
    const measure = measureOf(s);
    const round = keepsOf(tbl.keeps[s.hand], s.hand);
    const tied = roundTies(round);
    const best = roundPick(round, game);
    const gameBy = {};
    (game || []).forEach((k) => { gameBy[k.k] = k; });
    const others = tied.filter((k) => k !== best);
    const tieWords = !others.length ? [] : !game ? [" (a tie with " + list(others) + ")"]
      : gameEqual(others, best, game).length === others.length
        ? [" (a tie with " + list(others) + ", on the round and on the game)"]
        : [" (a tie on the round with " + list(others) + "; the game answer breaks it)"];
    const head = el("div", { class: "best" },
      el("p", { id: "best-round" }, "For the round: ", el("strong", {}, what(best)), ...tieWords, " — " + measure + " = ",
         el("strong", { "data-num": best.n, "data-den": tbl.den }, pctRound(best.n, tbl.den))));
    if (game) {
      head.append(el("p", { class: "game", id: "best-game" }, "For the game: ", el("strong", {}, what(game[0])),
        " — " + gameMeasure(s) + " = ", el("strong", { "data-p": game[0].show }, pctGame(game[0].show))));
    } else if (s.gameHead) {
      head.append(el("p", { class: "game pending", id: "game-pending" }, s.gameHead));
    }
    $("answer").replaceChildren(head);
    const table = el("table", { id: "keeps" },
      el("caption", { class: "help" }, "Every keep, best first for the round" +
         (s.role === "follower" && s.v.followers === "exact" ? " (exact rule: a follower re-throws at least one die)" : "")),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "keep"), el("th", { scope: "col" }, measure),
         game ? el("th", { scope: "col" }, seated(s) ? "P(pay)" : "P(win game)") : [])));
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
        game ? el("td", { "data-p": gk.show }, pctGame(gk.show)) : []));
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
    const g = tableOf(v, Number($("players").value));
    stateFields(g);
    seatChoices(g, p.seat);
    let st;
    try {  // the fields in the form's order, whatever the address's (a bad state is said by render)
      if (g && g.seats) {
        const t = readStateN(p.state, g, Number($("players").value));
        st = t ? [t.pot, ...t.toks, t.leader === null ? $("seat").value : t.leader].map(String) : [];
        if (t) (Number(st[st.length - 1]) === Number($("seat").value) ? $("role-leader") : $("role-follower")).checked = true;
      } else {
        st = (readState(p.state, v, Number($("players").value), g) || []).map(String);
      }
    } catch (e) {
      st = (p.state || "").split(",").map((x) => x.replace(/^\D+/, ""));
    }
    if (g) g.fields.forEach((f, i) => { $(f).value = st[i] !== undefined ? st[i] : ""; });
    $("phase").value = p.phase || "charge";
    // the address's count and throws, or their defaults (the limit; all but the first): not what the menus held
    syncChoices(p.count === undefined ? "" : p.count, p.throws === undefined ? "" : p.throws);
  }

  function seatChoices(g, seat) {
    const n = Number($("players").value);
    $("seat-row").hidden = !(g && g.seats);
    if (g && g.seats) options($("seat"), Array.from({ length: n }, (_, i) => i), null, seat, 0);
  }

  function syncChoices(count, throws) {
    const v = M.variants[$("variant").value];
    const g = tableOf(v, Number($("players").value));
    stateFields(g);
    seatChoices(g);
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
    $("beat-help").textContent = g && g.seats ? "the hands before yours, the leader's first (e.g. 654,521)"
      : "the worst on the table";
    $("players-help").textContent = g && !g.missing ? "tokens below: the game answer"
      : "the round answer" + (withGame ? " (the game answer here: " + withGame + " players)" : "") +
        (g ? "; the tokens below go into the command that gives it" : "");
  }

  function formParams() {
    const v = M.variants[$("variant").value];
    const p = { variant: v.name, role: $("role-follower").checked ? "follower" : "leader", hand: $("hand").value.trim(),
                throws: $("throws").value, players: $("players").value };
    if (p.role === "follower") { p.beat = $("beat").value.trim(); p.count = $("count").value; }
    const g = tableOf(v, Number(p.players));
    const st = g ? g.fields.map((f) => $(f).value.trim()) : [];
    if (g && g.seats) p.seat = $("seat").value;
    if (st.length && st.every((x) => x !== "")) {
      // a table of 3 or more: advise's names; the role follows from the seat and the leader
      p.state = g.seats ? g.fields.map((f, i) => f + "=" + st[i]).join(",") : st.join(",");
      if (g.seats) delete p.role;
    } else {
      p.phase = $("phase").value;
    }
    return p;
  }
  function toHash(p) {
    const order = ["variant", "role", "hand", "throws", "beat", "count", "phase", "players", "seat", "state"];
    return "#" + order.filter((k) => p[k]).map((k) => k + "=" +
      encodeURIComponent(p[k]).replace(/%2C/g, ",").replace(/%3D/g, "=")).join("&");
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
        $("more").replaceChildren();
        err.hidden = true;
        return;
      }
      const tbl = await roundTable(s);
      if (ticket !== drawing) return;
      let game = null;
      if (seated(s) && s.state && !s.g.missing) { // the round answer at once, the game answer when it is computed
        s.live = () => ticket === drawing;
        s.gameNote = "Computing the game answer at " + s.players + " players…";
        s.gameHead = "For the game: computing P(pay) at " + s.players + " players…";
        drawAnswer(s, tbl, null);
        try {
          game = await gameRows(s);
          s.gameNote = s.gameHead = null;
        } catch (e) {
          if (!(e instanceof TooSlow)) throw e;
          s.gameNote = e.message + ": the round answer above holds; the command gives the game answer, " + command(s) + ".";
          s.gameHead = "For the game: not on this device (below: why, and the command that gives it)";
        }
      } else {
        game = await gameRows(s);
      }
      if (ticket !== drawing) return;
      drawAnswer(s, tbl, game);
      err.hidden = true;
    } catch (e) {
      if (ticket !== drawing) return;
      err.textContent = e.message;
      err.hidden = false;
      $("answer").replaceChildren();
      $("more").replaceChildren();
    }
  }

  function onForm(ev) {
    const g = tableOf(M.variants[$("variant").value], Number($("players").value));
    if (ev && ev.target.name === "role" && g && g.seats && $("leader").value.trim() !== "") {
      // at a table of 3 or more the state's leader says who leads: leading is leading from your seat
      const n = Number($("players").value);
      const seat = Number($("seat").value);
      if ($("role-leader").checked) $("leader").value = String(seat);
      else if (Number($("leader").value) === seat) $("leader").value = String((seat + n - 1) % n);
    }
    if (ev && ["variant", "phase", "players", "count", "seat"].includes(ev.target.name) || (ev && ev.target.name === "role")) {
      syncChoices();
    } else if (ev && FIELD_LABELS[ev.target.name] !== undefined) {
      syncChoices(undefined, $("throws").value);
    }
    const p = formParams();
    history.replaceState(null, "", toHash(p));
    render(p);
  }

  // for the tests (tests/test_site*.py) and experiments/site_game_timing.py: the game answer of a situation
  // (P(win the game), or P(pay) from 3 players), and the ranking, as the page computes them
  window.F421 = {
    keepOrder,
    async game(p) { const s = situation(p); return (await gameRows(s)).map((k) => [k.k, k.show]); },
    limit(seconds) { GAME_SECONDS = seconds; }, // how long a game answer may take before the page gives up
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

// tammi's board page. The server decides everything (legal moves, the game's end, the
// engine): the page draws what it is sent and sends back what is clicked.
'use strict';
const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const CELL = 40;
let session = null;   // session id
let state = null;     // the last state from the server
let flipped = false;
let selected = [];    // the squares clicked so far of the move being made
let lastInfo = null;  // the latest engine line for the current state
let pvs = [];         // the latest engine line of each rank (MultiPV), best first
let events = null;
let mode = 'play';    // 'play': the page's own game; 'watch': the match being watched
let watch = null;     // the last view of the watched match from the server
let watchAt = 0;      // when it arrived (performance.now()), for the running clock
let drag = null;      // a piece being dragged: {from, x0, y0, dx, dy, moved}

async function api(path, opts = {}) {
  const url = path + (path.includes('?') ? '&' : '?') + 's=' + encodeURIComponent(session);
  const res = await fetch(url, { method: opts.body !== undefined || opts.post ? 'POST' : 'GET', body: opts.body });
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: 'bad answer from the server' }; }
  if (!res.ok) throw new Error(data.error || ('HTTP ' + res.status));
  return data;
}

function post(path, body) {
  return api(path, { post: true, body }).then(show, (e) => message(e.message));
}

function message(text) { $('message').textContent = text || ''; }

async function start() {
  const vs = await (await fetch('/api/variants')).json();
  for (const v of vs.variants) {
    const o = document.createElement('option');
    o.value = o.textContent = v;
    $('variant').appendChild(o);
  }
  const saved = sessionStorage.getItem('tammi-session');
  if (saved) {
    session = saved;
    try { show(await api('/api/state')); } catch (e) { session = null; }
  }
  if (!session) await newSession();
  listen();
  await watchOptions();
  try { showWatch(await api('/api/watch')); } catch (e) { /* no match yet */ }
}

async function newSession() {
  const res = await fetch('/api/session?variant=' + encodeURIComponent($('variant').value || 'international'), { method: 'POST' });
  const data = await res.json();
  if (!res.ok) { message(data.error); return; }
  session = data.id;
  sessionStorage.setItem('tammi-session', session);
  state = null; // a new session counts its generations from 0 again
  show(data);
}

function listen() {
  if (events) events.close();
  events = new EventSource('/api/events?s=' + encodeURIComponent(session));
  events.addEventListener('state', (e) => show(JSON.parse(e.data)));
  events.addEventListener('info', (e) => info(JSON.parse(e.data)));
  events.addEventListener('watch', (e) => showWatch(JSON.parse(e.data)));
  events.onerror = async () => {
    // The session may have ended (the server restarted): start a new one.
    const res = await fetch('/api/state?s=' + encodeURIComponent(session)).catch(() => null);
    if (res && res.status === 404) { events.close(); await newSession(); listen(); }
  };
}

function show(s) {
  if (state && (s.generation < state.generation)) return;
  const changed = !state || s.generation !== state.generation;
  state = s;
  // What the page shows, for tests and styles: which game, which generation of it.
  document.body.dataset.variant = s.variant;
  document.body.dataset.generation = s.generation;
  if (changed) { selected = []; lastInfo = null; pvs = []; $('lines').textContent = ''; $('pvlines').textContent = ''; }
  $('variant').value = s.variant;
  $('save').href = '/api/pdn?s=' + encodeURIComponent(session);
  $('opponent').value = s.engine.side || 'none';
  $('analyse').checked = s.engine.analysing;
  $('multipv').value = String(s.engine.multipv || 1);
  if (document.activeElement !== $('fen')) $('fen').value = s.fen;
  let st;
  if (s.viewError) st = 'error: ' + s.viewError;
  else if (s.outcome) st = 'Game over: ' + s.outcome;
  else st = s.side + ' to move' + (s.engine.thinking ? ' (tammi is thinking)' : '');
  $('status').textContent = st;
  if (s.engine.notice) message(s.engine.notice);
  if (mode === 'play') { draw(); moves(); }
}

// What the board shows: the page's game, or the watched match's game.
function shown() {
  return mode === 'watch' ? (watch && watch.board) : state;
}

function squareName(n) {
  const [f, r] = shown().squares[n - 1];
  return String.fromCharCode(97 + f) + r;
}

function notation() {
  const c = $('coords').value;
  return c === 'auto' ? shown().notation : c;
}

function xy(n) {
  const b = shown();
  const w = b.width;
  const [f, r] = b.squares[n - 1];
  const col = flipped ? w - 1 - f : f;
  const row = flipped ? r - 1 : w - r;
  return [col * CELL, row * CELL];
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function draw() {
  const svg = $('board');
  const b = shown();
  if (!b) { svg.textContent = ''; return; }
  const w = b.width;
  svg.setAttribute('viewBox', `0 0 ${w * CELL} ${w * CELL}`);
  svg.textContent = '';
  const byCell = {};
  b.squares.forEach(([f, r], i) => { byCell[f + ',' + r] = i + 1; });
  const plain = b.layout === 'orthogonal';
  for (let f = 0; f < w; f++) {
    for (let r = 1; r <= w; r++) {
      const n = byCell[f + ',' + r];
      const col = flipped ? w - 1 - f : f, row = flipped ? r - 1 : w - r;
      const cls = plain ? 'sq-plain' : (n ? 'sq-dark' : 'sq-light');
      const rect = el('rect', { x: col * CELL, y: row * CELL, width: CELL, height: CELL, class: cls }, svg);
      if (n) { rect.dataset.sq = n; rect.addEventListener('click', () => click(n)); }
    }
  }
  const nota = $('coords').value;
  if (nota !== 'none') {
    const mode = notation();
    b.squares.forEach((_, i) => {
      const [x, y] = xy(i + 1);
      const t = el('text', { x: x + 2, y: y + 10, class: 'label' + (plain ? ' label-light' : '') }, svg);
      t.textContent = mode === 'letter' ? squareName(i + 1) : String(i + 1);
    });
  }
  if (b.last) for (const n of b.last) {
    const [x, y] = xy(n);
    el('rect', { x, y, width: CELL, height: CELL, class: 'hl-last' }, svg);
  }
  const board = b.board;
  for (let n = 1; n < board.length; n++) {
    const c = board[n];
    if (c === 'e') continue;
    const [x, y] = xy(n);
    const color = c.toLowerCase() === 'w' ? 'white' : 'black';
    const king = c === 'W' || c === 'B';
    const dragged = drag && drag.moved && drag.from === n;
    const g = el('g', { class: 'piece' + (dragged ? ' dragging' : ''), 'data-piece': c, 'data-at': n }, svg);
    if (dragged) g.setAttribute('transform', `translate(${drag.dx},${drag.dy})`);
    el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.38, class: (king ? 'king-' : 'man-') + color }, g);
    if (king) el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.2, class: 'crown crown-' + color }, g);
  }
  if (mode !== 'play') return;
  if (selected.length) {
    const [x, y] = xy(selected[selected.length - 1]);
    el('rect', { x: x + 1.5, y: y + 1.5, width: CELL - 3, height: CELL - 3, class: 'hl-sel' }, svg);
    for (const n of nextSquares()) {
      const [tx, ty] = xy(n);
      el('circle', { cx: tx + CELL / 2, cy: ty + CELL / 2, r: 6, class: 'target' }, svg);
    }
  }
  if (lastInfo && lastInfo.arrow.length > 1) {
    const pts = lastInfo.arrow.map((n) => { const [x, y] = xy(n); return (x + CELL / 2) + ',' + (y + CELL / 2); });
    el('polyline', { points: pts.join(' '), class: 'arrow', 'marker-end': 'url(#head)' }, svg);
    const defs = el('defs', {}, svg);
    const m = el('marker', { id: 'head', markerWidth: 4, markerHeight: 4, refX: 2, refY: 2, orient: 'auto' }, defs);
    el('path', { d: 'M0,0 L4,2 L0,4 z', fill: '#1f9d55' }, m);
  }
}

// The routes of the legal moves that begin with the squares clicked so far.
function matching(prefix) {
  const out = [];
  state.legal.forEach((m) => m.routes.forEach((r) => {
    if (prefix.every((s, i) => r[i] === s)) out.push({ move: m, route: r });
  }));
  return out;
}

function nextSquares() {
  const set = new Set();
  for (const { route } of matching(selected)) if (route.length > selected.length) set.add(route[selected.length]);
  return [...set];
}

function click(n) {
  if (mode !== 'play') return;
  message('');
  if (!state || state.outcome) return;
  if (selected.length === 0 || (selected.length === 1 && n === selected[0])) {
    selected = selected.length === 0 && matching([n]).length ? [n] : [];
    draw();
    return;
  }
  const prefix = selected.concat([n]);
  const hits = matching(prefix);
  if (hits.length === 0) {
    // The final square alone, where only one move of the piece ends there.
    const ends = matching(selected).filter(({ route }) => route[route.length - 1] === n);
    const distinct = [...new Set(ends.map((h) => h.move.text))];
    if (distinct.length === 1) return send(distinct[0]);
    if (selected.length === 1 && matching([n]).length) { selected = [n]; draw(); return; }
    // Not a legal move here: the server is asked all the same and says why.
    const name = (s) => (state.notation === 'letter' ? squareName(s) : String(s));
    selected = [];
    draw();
    return send(name(prefix[0]) + '-' + name(n));
  }
  // One move left: it is decided, whatever landing squares are still to come.
  const moves = [...new Set(hits.map((h) => h.move.text))];
  if (moves.length === 1) return send(moves[0]);
  const complete = hits.filter((h) => h.route.length === prefix.length);
  if (complete.length) return send(complete[0].move.text);
  selected = prefix;
  draw();
}

function send(text) {
  selected = [];
  return post('/api/move?move=' + encodeURIComponent(text));
}

function moves() {
  const box = $('moves');
  box.textContent = '';
  const b = shown();
  if (!b) return;
  const same = b.startSide === b.firstMover;
  b.plies.forEach((p, i) => {
    const k = same ? i : i + 1;
    if (k % 2 === 0 || i === 0) {
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = (Math.floor(k / 2) + 1) + (k % 2 ? '...' : '.');
      box.appendChild(num);
    }
    const s = document.createElement('span');
    s.className = 'ply' + (i + 1 === b.ply ? ' current' : '');
    s.textContent = p.text;
    s.dataset.ply = i + 1;
    if (mode === 'play') s.addEventListener('click', () => post('/api/goto?ply=' + (i + 1)));
    box.appendChild(s);
    box.appendChild(document.createTextNode(' '));
    for (const c of p.comments) { const e = document.createElement('span'); e.className = 'comment'; e.textContent = '{' + c + '} '; box.appendChild(e); }
    for (const v of p.variations) { const e = document.createElement('span'); e.className = 'var'; e.textContent = '(' + v + ') '; box.appendChild(e); }
  });
  const cur = box.querySelector('.current');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
}

// The score from White's view, as text.
function whiteScore(d) {
  const white = d.side === 'white' ? d.score : -d.score;
  return [white, (white > 0 ? '+' : '') + white.toFixed(2)];
}

function info(d) {
  if (!state || d.generation !== state.generation) return;
  // MultiPV: every rank's latest line; the best one also drives the bar and arrow.
  pvs.length = Math.min(pvs.length, d.lines || 1);
  pvs[(d.line || 1) - 1] = d;
  showPvs(d.lines || 1);
  if ((d.line || 1) !== 1) return;
  lastInfo = d;
  const [white, text] = whiteScore(d);
  $('evaltext').textContent = text;
  $('evalfill').style.height = (50 + 50 * Math.tanh(white / 3)) + '%';
  const line = document.createElement('div');
  line.className = 'line';
  line.textContent = `depth ${d.depth}/${d.seldepth}  ${text}  ${(d.nodes / 1000).toFixed(0)}k nodes  ${d.pv.join(' ')}`;
  const lines = $('lines');
  lines.prepend(line);
  while (lines.childNodes.length > 8) lines.removeChild(lines.lastChild);
  if (mode === 'play') draw();
}

function showPvs(count) {
  const box = $('pvlines');
  box.textContent = '';
  if (count < 2) return;
  pvs.slice(0, count).forEach((d, i) => {
    if (!d) return;
    const row = document.createElement('div');
    row.className = 'pvline';
    row.dataset.line = i + 1;
    const rank = document.createElement('span');
    rank.className = 'rank';
    rank.textContent = (i + 1) + '. ';
    row.appendChild(rank);
    row.appendChild(document.createTextNode(`${whiteScore(d)[1]}  d${d.depth}  ${d.pv.join(' ')}`));
    box.appendChild(row);
  });
}

// Dragging a piece: pointer events on the board. A press and release on one square
// is a click (handled above); a drop elsewhere plays the move that ends there, or,
// for a capture that several routes share, starts it for the landing squares to be
// clicked.
function squareAt(ev) {
  const svg = $('board');
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const ctm = svg.getScreenCTM();
  if (!ctm) return null;
  const p = pt.matrixTransform(ctm.inverse());
  const b = shown();
  for (let n = 1; n <= b.squares.length; n++) {
    const [x, y] = xy(n);
    if (p.x >= x && p.x < x + CELL && p.y >= y && p.y < y + CELL) return n;
  }
  return null;
}

function svgScale() {
  const svg = $('board');
  const r = svg.getBoundingClientRect();
  return r.width ? (state.width * CELL) / r.width : 1;
}

$('board').addEventListener('pointerdown', (ev) => {
  if (mode !== 'play' || !state || state.outcome || ev.button !== 0) return;
  const n = squareAt(ev);
  if (!n || !matching([n]).length) return;
  drag = { from: n, x0: ev.clientX, y0: ev.clientY, dx: 0, dy: 0, moved: false };
});
window.addEventListener('pointermove', (ev) => {
  if (!drag) return;
  const k = svgScale();
  drag.dx = (ev.clientX - drag.x0) * k;
  drag.dy = (ev.clientY - drag.y0) * k;
  if (!drag.moved && Math.hypot(ev.clientX - drag.x0, ev.clientY - drag.y0) > 5) {
    drag.moved = true;
    selected = [drag.from];
  }
  if (drag.moved) draw();
});
window.addEventListener('pointerup', (ev) => {
  const d = drag;
  drag = null;
  if (!d || !d.moved) return;
  const to = squareAt(ev);
  if (!to || to === d.from) { draw(); return; }
  drop(d.from, to);
});

function drop(from, to) {
  message('');
  const routes = matching([from]);
  const ending = [...new Set(routes.filter(({ route }) => route[route.length - 1] === to).map((h) => h.move.text))];
  if (ending.length === 1) return send(ending[0]);
  if (ending.length > 1) {
    selected = [from];
    draw();
    message('several captures end there: click the landing squares one by one');
    return;
  }
  // The first landing square of a longer capture: go on by clicking.
  if (routes.some(({ route }) => route[1] === to)) { selected = [from]; click(to); return; }
  // Not a legal move: the server says why.
  const name = (s) => (state.notation === 'letter' ? squareName(s) : String(s));
  selected = [];
  draw();
  send(name(from) + '-' + name(to));
}

// Watch: a match between two engines, run by the server.
async function watchOptions() {
  const o = await (await fetch('/api/watch/options')).json();
  for (const id of ['we1', 'we2']) {
    for (const name of o.engines) {
      const opt = document.createElement('option');
      opt.value = opt.textContent = name;
      $(id).appendChild(opt);
    }
  }
  for (const tc of o.timeControls) {
    const opt = document.createElement('option');
    opt.value = tc;
    opt.textContent = tc + ' s';
    $('wtc').appendChild(opt);
  }
  $('wtc').value = o.timeControls[1];
  $('wgames').max = o.maxGames;
  const own = () => { for (const n of ['1', '2']) $('wbook' + n).disabled = $('we' + n).value !== o.own; };
  $('we1').addEventListener('change', own);
  $('we2').addEventListener('change', own);
  own();
}

function setMode(m) {
  mode = m;
  document.body.classList.toggle('watching', m === 'watch');
  $('modeplay').setAttribute('aria-pressed', String(m === 'play'));
  $('modewatch').setAttribute('aria-pressed', String(m === 'watch'));
  selected = [];
  draw();
  moves();
  if (m === 'watch') showWatch(watch);
}

function showWatch(w) {
  if (!w) return;
  // Events of one match arrive in order; an answer to a request may be older.
  if (watch && w.id === watch.id && w.seq < watch.seq) return;
  watch = w;
  watchAt = performance.now();
  document.body.dataset.watch = w.running ? 'running' : 'over';
  document.body.dataset.watchPlies = w.board ? w.board.plies.length : 0;
  const [a, b] = w.names;
  const pts = (x, d) => { const p = x + d / 2; return Number.isInteger(p) ? String(p) : (Math.floor(p) || '') + '½'; };
  $('wscore').textContent = `${a} ${pts(w.score[0], w.score[1])} – ${pts(w.score[2], w.score[1])} ${b}  (${w.tc}, ${w.games} game${w.games > 1 ? 's' : ''})`;
  let st = w.game ? `game ${w.game} of ${w.games}: ${w.white} (white) – ${w.black} (black)` : '';
  if (w.result) st += ': ' + w.result;
  else if (w.board && w.running) st += ': ' + w.board.side + ' to move';
  if (w.last) st += `; last move ${w.last.time.toFixed(2)} s`;
  if (!w.running) st = (st ? st + '. ' : '') + 'The match is over.';
  if (w.message) st += ' ' + w.message;
  $('wstatus').textContent = st;
  const list = $('wgamelist');
  list.textContent = '';
  for (const f of w.finished) {
    const li = document.createElement('li');
    li.textContent = `${f.white} – ${f.black} ${f.result} (${f.termination})`;
    list.appendChild(li);
  }
  $('wstart').disabled = w.running;
  $('wstop').disabled = !w.running;
  tickClocks();
  if (mode === 'watch') { draw(); moves(); }
}

function clockText(ms) {
  const t = Math.max(0, ms) / 1000;
  const m = Math.floor(t / 60);
  const s = t - 60 * m;
  return m + ':' + (s < 10 ? '0' : '') + s.toFixed(1);
}

// Both clocks as last reported; the side to move's counts down between reports.
function tickClocks() {
  const w = watch;
  for (const [i, side] of [[0, 'white'], [1, 'black']]) {
    const box = $('wclock-' + side);
    const name = w ? (side === 'white' ? w.white : w.black) : '';
    if (!w || !w.clocks) { box.textContent = name; box.classList.remove('running'); continue; }
    const ticking = w.running && !w.result && w.board && w.board.side === side;
    const left = w.clocks[i] - (ticking ? performance.now() - watchAt : 0);
    box.textContent = `${name} ${clockText(left)}`;
    box.dataset.ms = Math.round(Math.max(0, left));
    box.classList.toggle('running', !!ticking);
  }
}
setInterval(() => { if (mode === 'watch') tickClocks(); }, 100);

function startWatch() {
  const q = new URLSearchParams({
    variant: $('variant').value, e1: $('we1').value, e2: $('we2').value,
    tc: $('wtc').value, games: $('wgames').value,
  });
  for (const n of ['1', '2']) if (!$('wbook' + n).disabled) q.set('book' + n, $('wbook' + n).checked ? '1' : '0');
  message('');
  api('/api/watch/start?' + q.toString(), { post: true }).then(showWatch, (e) => message(e.message));
}

function levelQuery() { return $('level').value; }

$('new').addEventListener('click', () => post('/api/new?variant=' + encodeURIComponent($('variant').value)));
$('variant').addEventListener('change', () => post('/api/new?variant=' + encodeURIComponent($('variant').value)));
$('flip').addEventListener('click', () => { flipped = !flipped; draw(); });
$('coords').addEventListener('change', draw);
$('setfen').addEventListener('click', () => post('/api/fen?variant=' + encodeURIComponent($('variant').value), $('fen').value));
$('pdnfile').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  if (f) post('/api/pdn', await f.text());
  e.target.value = '';
});
$('loadpdn').addEventListener('click', () => post('/api/pdn', $('pdntext').value));
$('opponent').addEventListener('change', () => post('/api/opponent?side=' + $('opponent').value + '&' + levelQuery()));
$('level').addEventListener('change', () => post('/api/opponent?side=' + $('opponent').value + '&' + levelQuery()));
$('go').addEventListener('click', () => post('/api/go'));
$('undo').addEventListener('click', () => post('/api/undo'));
$('analyse').addEventListener('change', (e) => post('/api/analyse?on=' + (e.target.checked ? 1 : 0)));
$('multipv').addEventListener('change', (e) => post('/api/multipv?lines=' + e.target.value));
$('modeplay').addEventListener('click', () => setMode('play'));
$('modewatch').addEventListener('click', () => setMode('watch'));
$('wstart').addEventListener('click', startWatch);
$('wstop').addEventListener('click', () => api('/api/watch/stop', { post: true }).then(showWatch, (e) => message(e.message)));
$('typed').addEventListener('submit', (e) => { e.preventDefault(); send($('movetext').value); });
const step = (ply) => state && mode === 'play' && post('/api/goto?ply=' + Math.max(0, Math.min(state.plies.length, ply)));
$('first').addEventListener('click', () => step(0));
$('prev').addEventListener('click', () => step(state.ply - 1));
$('next').addEventListener('click', () => step(state.ply + 1));
$('last').addEventListener('click', () => step(state.plies.length));
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || !state || mode !== 'play') return;
  if (e.key === 'ArrowLeft') step(state.ply - 1);
  if (e.key === 'ArrowRight') step(state.ply + 1);
});
start().catch((e) => message(e.message));

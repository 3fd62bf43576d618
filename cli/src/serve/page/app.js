// The page of `morris serve`. It knows no rules: the server says which
// moves are legal, what each leads to (value and resulting position) and
// how perfect play goes on; the page draws that and sends clicks back.
// Notation is only read to place stones and marks, and compared as text
// to find a repeated board.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const UNIT = 60; // board units per grid step
const REPLY_DELAY_MS = 300; // the perfect player waits this long, so a human sees its move come

const state = {
  variants: [],    // /api/variants
  variant: null,   // the one shown
  // [{position, move, value, plies, toMove}]: move is what led there (null
  // at the root); value and plies are the server's for the side to move,
  // once it answered.
  history: [],
  at: 0,           // index in history of the position shown
  analysis: null,  // /api/query of history[at], or null when it failed
  selected: null,  // a stone picked to move
  pending: null,   // moves that differ only in the stone they remove
  hovered: null,   // the move hovered in a list
  busy: 0,         // the number of the latest request: older answers are dropped
  mode: 'both',    // who the human plays: 'both', 'White' or 'Black'
  hideEval: false,
  rule: 'board',   // repetition: 'board' or 'threefold'
  edit: null,      // the position editor's stones, or null
  stats: null,     // /api/stats of the variant, once the database view opened
  distanceSector: null, // the sector whose distances the database view shows
};

// ---- reading notation -------------------------------------------------

function parseMove(text) {
  const m = /^(?:([a-z]\d+)-)?([a-z]\d+)(?:x([a-z]\d+))?$/.exec(text);
  return m ? { from: m[1] || null, to: m[2], remove: m[3] || null } : { from: null, to: null, remove: null };
}

function parsePosition(text) {
  const [board, side, whiteHand, blackHand] = text.trim().split(/\s+/);
  const cells = (board || '').replace(/\//g, '');
  const stones = {};
  state.variant.board.points.forEach((p, i) => {
    if (cells[i] === 'W') stones[p.name] = 'white';
    if (cells[i] === 'B') stones[p.name] = 'black';
  });
  return { stones, toMove: side === 'b' ? 'Black' : 'White', hands: { White: whiteHand, Black: blackHand } };
}

// The board field of a position's notation: what the board repetition
// rule compares.
const boardOf = (position) => position.trim().split(/\s+/)[0];

// Writes a position in notation, its board grouped as in the variant's
// start position (rings of eight, for instance).
function notationOf(stones, side, whiteHand, blackHand) {
  const groups = boardOf(state.variant.start).split('/').map((g) => g.length);
  const cells = state.variant.board.points.map((p) => ({ white: 'W', black: 'B' })[stones[p.name]] || '.');
  const parts = [];
  let i = 0;
  for (const n of groups) {
    parts.push(cells.slice(i, i + n).join(''));
    i += n;
  }
  return `${parts.join('/')} ${side} ${whiteHand} ${blackHand}`;
}

// ---- words and marks --------------------------------------------------

const plies = (n) => (n === 1 ? '1 ply' : `${n} plies`);

function inWords(value, distance, who) {
  if (value === 'draw') return 'Draw';
  const verb = value === 'win' ? 'wins' : 'loses';
  return distance === null ? `${who} ${verb}` : `${who} ${verb} in ${plies(distance)}`;
}

// "W11", "D", "L4"; a value found by search has no distance.
const badgeText = (m) => m.value[0].toUpperCase() + (m.plies === null ? '' : m.plies);

function badge(m) {
  const span = document.createElement('span');
  span.className = `badge ${m.value}`;
  span.textContent = badgeText(m);
  span.title = inWords(m.value, m.plies, 'the mover');
  return span;
}

// Win 1, draw 0, loss -1: enough to see a result thrown away.
const RESULT = { win: 1, draw: 0, loss: -1 };

// ---- requests ---------------------------------------------------------

// The number of requests under way is kept on <body data-inflight>, so
// that the browser tests can wait for the page to settle.
let inflight = 0;
function countInflight(delta) {
  inflight += delta;
  document.body.dataset.inflight = String(inflight);
}

async function getJson(path, params) {
  const url = `${path}?${new URLSearchParams(params)}`;
  countInflight(+1);
  try {
    const response = await fetch(url);
    let body;
    try {
      body = await response.json();
    } catch (e) {
      body = { error: `the server answered ${response.status} without JSON` };
    }
    return { status: response.status, body };
  } catch (e) {
    return { status: 0, body: { error: `no answer from the server: ${e}` } };
  } finally {
    // A macrotask: it runs after the caller's continuation has rendered.
    setTimeout(() => countInflight(-1), 0);
  }
}

// Asks the server about `position` (after `moves`, if given). On an
// answer about a real position it is shown; `record(position)` then
// updates the history. A refused request leaves everything as it was.
async function ask(position, moves, record) {
  const ticket = ++state.busy;
  const params = { variant: state.variant.name, position };
  if (moves) params.moves = moves;
  const reply = await getJson('/api/query', params);
  if (ticket !== state.busy) return reply;
  if (reply.status === 200) {
    record(reply.body.position);
    state.analysis = reply.body;
    const h = state.history[state.at];
    [h.value, h.plies, h.toMove] = [reply.body.value, reply.body.plies, reply.body.to_move];
    showNotice(null);
  } else if (reply.status === 404 && !moves) {
    // A legal position whose tables are missing: keep it on the board.
    record(position);
    state.analysis = null;
    showNotice(reply.body.error, true);
  } else {
    showNotice(reply.body.error, false);
    return reply;
  }
  state.selected = null;
  state.pending = null;
  state.hovered = null;
  $('hint').textContent = '';
  writeUrl();
  render();
  perfectPlayerTurn();
  return reply;
}

function showNotice(error, missing) {
  const box = $('notice');
  box.hidden = !error;
  box.textContent = '';
  if (!error) return;
  const command = /`([^`]+)`/.exec(error);
  const title = document.createElement('strong');
  title.textContent = missing ? 'Not in this database. ' : 'Refused: ';
  box.append(title, missing && command ? error.replace(/: run `[^`]+`$/, '') + '. Solve it with:' : error);
  if (missing && command) {
    const code = document.createElement('code');
    code.textContent = command[1];
    box.append(code);
  }
}

// ---- history and repetition -------------------------------------------

function current() {
  return state.history[state.at].position;
}

// Adds a position after the one shown, dropping what undo had left.
function pushing(move) {
  return (position) => {
    state.history = state.history.slice(0, state.at + 1);
    state.history.push({ position, move });
    state.at = state.history.length - 1;
  };
}

function stay() {
  return (position) => {
    state.history[state.at].position = position;
  };
}

function goTo(index) {
  if (index < 0 || index >= state.history.length) return;
  state.at = index;
  ask(current(), null, stay());
}

function play(m) {
  ask(m.position, null, pushing(m.move));
}

// The ply of the earlier position that `next` repeats under the rule (a
// game continued from `earlier`), or -1. Board rule: the same stones on
// the board; threefold: the same position for the third time.
function repeats(earlier, next) {
  if (state.rule === 'board') return earlier.findIndex((p) => boardOf(p) === boardOf(next));
  const same = earlier.map((p, i) => (p === next ? i : -1)).filter((i) => i >= 0);
  return same.length >= 2 ? same[0] : -1;
}

const positionsUpTo = (at) => state.history.slice(0, at + 1).map((h) => h.position);

// The ply the position shown repeats, or -1 when the game goes on.
function repeatedAt() {
  return repeats(positionsUpTo(state.at - 1), current());
}

// Whether playing `m` from the position shown ends the game by repetition.
const wouldRepeat = (m) => repeats(positionsUpTo(state.at), m.position) >= 0;

// ---- the perfect player -----------------------------------------------

const computerSide = () => ({ White: 'Black', Black: 'White' })[state.mode] || null;

function gameOver() {
  const a = state.analysis;
  return !a || a.moves.length === 0 || repeatedAt() >= 0;
}

// When it is the perfect player's turn, it moves after a short pause.
function perfectPlayerTurn() {
  const side = computerSide();
  if (!side || state.edit || gameOver()) return;
  if (parsePosition(current()).toMove !== side) return;
  const ticket = state.busy;
  setTimeout(async () => {
    if (ticket !== state.busy) return; // the human did something meanwhile
    const m = await chooseMove();
    if (ticket === state.busy && m) play(m);
  }, REPLY_DELAY_MS);
}

// The perfect player's move, as `morris play` chooses it: the server's
// `/api/move` (its `--tie-break` style), given the game's earlier
// positions for the repetition rule. Those with at most two stones more
// on the board than now are all a repetition can reach back to; the
// oldest go first if the request line would grow too long. Should the
// server not answer, the first of the best moves.
async function chooseMove() {
  const moves = state.analysis.moves;
  if (!moves.length) return null;
  const stones = (p) => boardOf(p).replace(/[^WB]/g, '').length;
  const now = stones(current());
  let earlier = positionsUpTo(state.at - 1).filter((p) => stones(p) <= now + 2);
  while (earlier.join(',').length > 8000) earlier = earlier.slice(1);
  const reply = await getJson('/api/move', {
    variant: state.variant.name,
    position: current(),
    earlier: earlier.join(','),
    rule: state.rule,
  });
  const chosen = reply.status === 200 && moves.find((m) => m.move === reply.body.move);
  return chosen || moves[0];
}

// ---- start ------------------------------------------------------------

async function startVariant(name, position) {
  state.variant = state.variants.find((v) => v.name === name) || state.variants[0];
  $('variant').value = state.variant.name;
  const v = state.variant;
  const part = (p) => `${p.solved} of ${p.sectors}`;
  const start = v.start_value ? `; start: ${inWords(v.start_value.value, v.start_value.plies, 'White')}` : '';
  $('coverage').textContent = `${v.rules}; sectors in the database: moving ${part(v.moving)}, placement ${part(v.placement)}${start}`;
  state.history = [{ position: position || v.start, move: null }];
  state.at = 0;
  state.analysis = null;
  state.edit = null;
  state.stats = null;
  if ($('database').open) showDatabase();
  const reply = await ask(current(), null, stay());
  if (reply.status !== 200 && reply.status !== 404 && position) {
    // A link with a position the server refuses: start from the start,
    // and keep saying why.
    state.history = [{ position: v.start, move: null }];
    await ask(current(), null, stay());
    showNotice(reply.body.error, false);
  }
}

function writeUrl() {
  const params = new URLSearchParams({ variant: state.variant.name, position: current() });
  history.replaceState(null, '', `?${params}`);
}

// ---- drawing ----------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

function render() {
  document.body.classList.toggle('hide-eval', state.hideEval);
  drawBanner();
  drawBoard();
  drawMoves();
  drawLine();
  drawHistory();
  drawChart();
  $('position').value = state.edit ? editedNotation() : current();
}

function drawBanner() {
  const banner = $('banner');
  const a = state.analysis;
  const who = parsePosition(current()).toMove;
  banner.className = '';
  if (state.edit) {
    banner.textContent = 'Editing the position';
    return;
  }
  const repeated = repeatedAt();
  if (repeated >= 0) {
    banner.classList.add('draw');
    const what = state.rule === 'board' ? `the board of ply ${repeated} is back` : `the position of ply ${repeated} has come three times`;
    banner.textContent = `Game over: a draw by repetition (${what})`;
    return;
  }
  if (!a) {
    banner.textContent = `${who} to move`;
    return;
  }
  if (a.moves.length === 0) {
    banner.textContent = a.value === 'draw' ? 'Game over: a draw' : `Game over: ${who} has lost`;
    return;
  }
  if (state.hideEval) {
    banner.textContent = `${who} to move`;
    return;
  }
  banner.classList.add(a.value);
  let text = `${who} to move: ${inWords(a.value, a.plies, who)}`;
  // line_missing: the database holds only the win/draw/loss tier of a
  // sector the line needs.
  if (a.line_missing) text += ' (win/draw/loss tier: distances need the full tables)';
  else if (!a.exact) text += ' (by search; distances need placement tables)';
  banner.textContent = text;
}

// The marks to show: for each point, the best move of those a click there
// would make (the server sends moves best first).
function marks() {
  const a = state.analysis;
  if (!a || state.edit || repeatedAt() >= 0) return new Map();
  const moves = a.moves.map((m) => ({ ...m, ...parseMove(m.move) }));
  const by = new Map();
  const add = (point, m) => {
    if (point && !by.has(point)) by.set(point, m);
  };
  if (state.pending) {
    state.pending.forEach((m) => add(m.remove, m));
  } else if (state.selected) {
    moves.filter((m) => m.from === state.selected).forEach((m) => add(m.to, m));
  } else {
    moves.forEach((m) => add(m.from === null ? m.to : m.from, m));
  }
  return by;
}

let boardAt = {}; // each point's centre on the board drawn last

function drawBoard() {
  const svg = $('board');
  const b = state.variant.board;
  const size = (b.grid + 1) * UNIT;
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.textContent = '';
  const defs = el('defs', {}, svg);
  const head = el('marker', { id: 'arrowhead', markerWidth: 8, markerHeight: 8, refX: 6, refY: 4, orient: 'auto' }, defs);
  el('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#d00' }, head);
  const at = {};
  b.points.forEach((p) => {
    at[p.name] = { x: (p.x + 1) * UNIT, y: (b.grid - p.y) * UNIT };
  });
  b.lines.forEach(([p, q]) => el('line', { class: 'edge', x1: at[p].x, y1: at[p].y, x2: at[q].x, y2: at[q].y }, svg));
  for (let i = 0; i < b.grid; i++) {
    const letter = String.fromCharCode(97 + i);
    el('text', { class: 'label', x: (i + 1) * UNIT, y: (b.grid + 0.6) * UNIT }, svg).textContent = letter;
    el('text', { class: 'label', x: 0.4 * UNIT, y: (b.grid - i) * UNIT }, svg).textContent = String(i + 1);
  }
  const stones = state.edit ? state.edit.stones : parsePosition(current()).stones;
  const shown = marks();
  const last = state.edit ? [] : lastMovePoints();
  b.points.forEach((p) => {
    const { x, y } = at[p.name];
    const stone = stones[p.name];
    if (stone) el('circle', { class: `stone ${stone}`, cx: x, cy: y, r: 20, 'data-point': p.name }, svg);
    else el('circle', { class: 'point', cx: x, cy: y, r: 7 }, svg);
    if (last.includes(p.name)) el('circle', { class: 'last', cx: x, cy: y, r: 9, 'data-point': p.name }, svg);
    if (state.selected === p.name) el('circle', { class: 'selected', cx: x, cy: y, r: 25 }, svg);
    const m = shown.get(p.name);
    if (m) drawMark(svg, x, y, m, Boolean(stone), p.name);
    const target = el('circle', { class: 'target', cx: x, cy: y, r: 27, fill: 'transparent', 'data-point': p.name }, svg);
    const hidden = state.hideEval || !m;
    el('title', {}, target).textContent = hidden ? p.name : `${p.name}: ${m.move}, ${inWords(m.value, m.plies, 'the mover')}`;
    target.addEventListener('click', () => clickPoint(p.name));
  });
  boardAt = at;
  drawHovered(el('g', { id: 'hover-layer' }, svg), at);
}

// The points the move that led to the position shown went from and to
// (a line played as one step shows its last move).
function lastMovePoints() {
  const move = state.history[state.at].move;
  if (!move || move === 'set') return [];
  const m = parseMove(move.split(' ').pop());
  return [m.from, m.to].filter(Boolean);
}

// A move's mark: a ring in its value's colour with W/D/L and the
// distance; with the evaluation hidden, a plain ring that only says the
// move is legal.
function drawMark(svg, x, y, m, onStone, point) {
  const value = state.hideEval ? 'neutral' : m.value;
  const colour = `var(--${value})`;
  el('circle', { class: `mark ${value}`, cx: x, cy: y, r: onStone ? 24 : 14, stroke: colour, 'data-point': point, 'data-move': m.move }, svg);
  if (state.hideEval) return;
  const text = badgeText(m);
  const width = 10 + 8 * text.length;
  const [bx, by] = onStone ? [x + 22, y - 22] : [x, y];
  el('rect', { class: 'mark-bg', x: bx - width / 2, y: by - 10, width, height: 20, rx: 5, fill: colour }, svg);
  const label = el('text', { class: 'mark-text', x: bx, y: by, fill: m.value === 'loss' ? '#000' : '#fff' }, svg);
  label.textContent = text;
}

function drawHovered(svg, at) {
  if (!state.hovered) return;
  const m = parseMove(state.hovered);
  if (m.from && at[m.from] && at[m.to]) {
    const [a, b] = [at[m.from], at[m.to]];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const cut = 22 / len;
    el('line', {
      class: 'arrow',
      x1: a.x + (b.x - a.x) * cut, y1: a.y + (b.y - a.y) * cut,
      x2: b.x - (b.x - a.x) * cut, y2: b.y - (b.y - a.y) * cut,
    }, svg);
  }
  for (const p of [m.from, m.to, m.remove]) {
    if (p && at[p]) el('circle', { class: 'hover', cx: at[p].x, cy: at[p].y, r: 28 }, svg);
  }
}

// Whether a click on the board may play a move for the side to move.
function humanToMove() {
  const side = computerSide();
  return !side || parsePosition(current()).toMove !== side;
}

function clickPoint(name) {
  if (state.edit) return editPoint(name);
  const a = state.analysis;
  if (!a || !humanToMove() || repeatedAt() >= 0) return;
  const moves = a.moves.map((m) => ({ ...m, ...parseMove(m.move) }));
  if (state.pending) {
    const m = state.pending.find((c) => c.remove === name);
    state.pending = null;
    if (m) return play(m);
    return render();
  }
  const here = state.selected
    ? moves.filter((m) => m.from === state.selected && m.to === name)
    : moves.filter((m) => m.from === null && m.to === name);
  if (here.length === 1) return play(here[0]);
  if (here.length > 1) {
    state.pending = here; // the same stone and point, a choice of removal
    $('hint').textContent = 'The move closes a mill: click the stone to remove.';
    return drawBoard();
  }
  state.selected = state.selected !== name && moves.some((m) => m.from === name) ? name : null;
  $('hint').textContent = state.selected ? `Moving ${name}: click where to.` : '';
  drawBoard();
}

function drawMoves() {
  const list = $('moves');
  list.textContent = '';
  const a = state.analysis;
  if (!a || state.edit) return;
  a.moves.forEach((m) => {
    const li = document.createElement('li');
    li.dataset.move = m.move;
    const name = document.createElement('span');
    name.textContent = m.move;
    const words = document.createElement('span');
    words.className = 'muted';
    words.textContent = inWords(m.value, m.plies, 'mover').replace(/^mover /, '');
    if (wouldRepeat(m)) words.textContent += '; repeats: a draw by repetition';
    li.append(badge(m), name, words);
    li.addEventListener('mouseenter', () => hover(m.move));
    li.addEventListener('mouseleave', () => hover(null));
    li.addEventListener('click', () => humanToMove() && repeatedAt() < 0 && play(m));
    list.append(li);
  });
}

// Only the hover layer is redrawn: rebuilding the board under the pointer
// would lose a click whose press and release straddle the rebuild.
function hover(move) {
  state.hovered = move;
  const layer = $('hover-layer');
  if (!layer) return;
  layer.textContent = '';
  drawHovered(layer, boardAt);
}

function drawLine() {
  const list = $('line');
  list.textContent = '';
  const a = state.edit ? null : state.analysis;
  $('line-note').textContent = !a
    ? ''
    : a.line_missing
      ? `No line: ${a.line_missing}`
      : a.line.length === 0
      ? 'The game is over.'
      : a.line_cut
        ? `${plies(a.line.length)} shown, cut there: the game is drawn. Click a move to play the line to it.`
        : `${plies(a.line.length)} to the end of the game. Click a move to play the line to it.`;
  if (!a) return;
  a.line.forEach((move, i) => {
    const li = document.createElement('li');
    li.textContent = move;
    li.addEventListener('mouseenter', () => i === 0 && hover(move));
    li.addEventListener('mouseleave', () => hover(null));
    const moves = a.line.slice(0, i + 1).join(' ');
    li.addEventListener('click', () => ask(current(), moves, pushing(moves)));
    list.append(li);
  });
}

function drawHistory() {
  const list = $('history');
  list.textContent = '';
  state.history.forEach((h, i) => {
    const li = document.createElement('li');
    li.textContent = h.move || 'from here';
    li.title = h.position;
    if (i === state.at) li.className = 'current';
    li.addEventListener('click', () => goTo(i));
    list.append(li);
  });
  $('undo').disabled = state.at === 0;
  $('redo').disabled = state.at === state.history.length - 1;
  const p = parsePosition(current());
  const hand = (c) => (p.hands[c] > 0 ? `${c} has ${p.hands[c]} in hand` : `${c} has none in hand`);
  $('hands').textContent = `${hand('White')}, ${hand('Black')}`;
}

// ---- the value chart --------------------------------------------------

// White's result at each ply of the history, or null where unknown.
function whiteResults() {
  return state.history.map((h) => {
    if (!h.value) return null;
    const r = RESULT[h.value];
    return h.toMove === 'white' ? r : -r;
  });
}

// The plies whose move threw a result away: the mover's result after the
// move is worse than before it (win to draw or loss, draw to loss).
function blunders(results) {
  const found = [];
  for (let i = 1; i < results.length; i++) {
    if (results[i] === null || results[i - 1] === null) continue;
    const mover = state.history[i - 1].toMove === 'white' ? 1 : -1;
    if (results[i] * mover < results[i - 1] * mover) found.push(i);
  }
  return found;
}

function drawChart() {
  const svg = $('chart');
  svg.textContent = '';
  const results = whiteResults();
  const n = Math.max(results.length - 1, 1);
  const [w, h, pad] = [600, 120, 24];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const x = (i) => pad + ((w - 2 * pad) * i) / n;
  const y = (r) => h / 2 - r * (h / 2 - pad);
  [[1, 'White wins'], [0, 'draw'], [-1, 'Black wins']].forEach(([r, label]) => {
    el('line', { class: 'chart-grid', x1: pad, y1: y(r), x2: w - pad, y2: y(r) }, svg);
    el('text', { class: 'chart-label', x: pad + 2, y: y(r) - 3 }, svg).textContent = label;
  });
  const known = results.map((r, i) => [i, r]).filter(([, r]) => r !== null);
  if (known.length > 1) {
    el('polyline', { class: 'chart-line', points: known.map(([i, r]) => `${x(i)},${y(r)}`).join(' ') }, svg);
  }
  known.forEach(([i, r]) => {
    const dot = el('circle', { class: `chart-dot${i === state.at ? ' current' : ''}`, cx: x(i), cy: y(r), r: 5, 'data-ply': i }, svg);
    el('title', {}, dot).textContent = `ply ${i}${state.history[i].move ? `, after ${state.history[i].move}` : ''}`;
    dot.addEventListener('click', () => goTo(i));
  });
  const thrown = blunders(results);
  thrown.forEach((i) => {
    const g = el('g', { class: 'blunder', 'data-ply': i }, svg);
    const [cx, cy, s] = [x(i), y(results[i]), 8];
    el('line', { x1: cx - s, y1: cy - s, x2: cx + s, y2: cy + s }, g);
    el('line', { x1: cx - s, y1: cy + s, x2: cx + s, y2: cy - s }, g);
  });
  const word = { 1: 'a win', 0: 'a draw', '-1': 'a loss' };
  const lost = thrown.map((i) => {
    const mover = state.history[i - 1].toMove === 'white' ? 1 : -1;
    return `ply ${i} ${state.history[i].move} (${word[results[i - 1] * mover]} to ${word[results[i] * mover]})`;
  });
  $('blunders').textContent = lost.length ? `Results thrown away: ${lost.join(', ')}.` : 'No move so far threw a result away.';
}

// ---- the position editor ----------------------------------------------

function startEditing() {
  const p = parsePosition(current());
  state.edit = { stones: { ...p.stones } };
  $('edit-side').value = p.toMove === 'Black' ? 'b' : 'w';
  $('edit-white-hand').value = p.hands.White;
  $('edit-black-hand').value = p.hands.Black;
  $('editor').hidden = false;
  render();
}

function editedNotation() {
  return notationOf(state.edit.stones, $('edit-side').value, $('edit-white-hand').value || 0, $('edit-black-hand').value || 0);
}

function editPoint(name) {
  const next = { undefined: 'white', white: 'black', black: undefined };
  const stone = next[state.edit.stones[name]];
  if (stone) state.edit.stones[name] = stone;
  else delete state.edit.stones[name];
  render();
}

function stopEditing() {
  state.edit = null;
  $('editor').hidden = true;
  render();
}

// The server checks the edited position; a refused one stays in the editor.
async function finishEditing() {
  const text = editedNotation();
  const edit = state.edit;
  state.edit = null;
  const reply = await ask(text, null, pushing('set'));
  if (reply.status === 200 || reply.status === 404) {
    $('editor').hidden = true;
  } else {
    state.edit = edit;
    render();
  }
}

// ---- the database view ------------------------------------------------

async function showDatabase() {
  const name = state.variant.name;
  const reply = await getJson('/api/stats', { variant: name });
  if (name !== state.variant.name) return;
  const body = $('db-sectors').querySelector('tbody');
  body.textContent = '';
  $('db-histogram').textContent = '';
  if (reply.status !== 200) {
    $('db-note').textContent = reply.body.error;
    return;
  }
  const rows = reply.body.filter((r) => !r.missing);
  state.stats = rows;
  const states = rows.reduce((s, r) => s + r.states, 0);
  $('db-note').textContent = `${rows.length} sectors, ${states.toLocaleString('en')} positions (up to symmetry).`;
  rows.forEach((r) => body.append(sectorRow(r)));
  if (rows.length) showDistances(rows[0].sector);
}

function sectorRow(r) {
  const tr = document.createElement('tr');
  tr.dataset.sector = r.sector;
  const cell = (text) => {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  };
  const bar = document.createElement('div');
  bar.className = 'bar';
  for (const kind of ['wins', 'draws', 'losses']) {
    const part = document.createElement('span');
    part.className = `part ${({ wins: 'win', draws: 'draw', losses: 'loss' })[kind]}`;
    part.style.width = `${(100 * r[kind]) / Math.max(r.states, 1)}%`;
    part.title = `${r[kind].toLocaleString('en')} ${kind}`;
    bar.append(part);
  }
  const share = document.createElement('td');
  share.append(bar);
  tr.append(cell(r.sector), cell(r.states.toLocaleString('en')), share, cell(r.max_win), cell(r.max_loss));
  tr.addEventListener('click', () => showDistances(r.sector));
  return tr;
}

// The positions of one sector by their distance to the end, read from
// the whole table by the server (a moment for the largest sectors).
async function showDistances(sector) {
  const name = state.variant.name;
  state.distanceSector = sector;
  document.querySelectorAll('#db-sectors tbody tr').forEach((tr) => tr.classList.toggle('chosen', tr.dataset.sector === sector));
  $('db-sector-name').textContent = sector;
  $('db-histogram').textContent = '';
  $('db-histogram-note').textContent = 'reading the table...';
  const reply = await getJson('/api/distances', { variant: name, sector });
  if (name !== state.variant.name || state.distanceSector !== sector) return;
  if (reply.status !== 200) {
    $('db-histogram-note').textContent = reply.body.error;
    return;
  }
  drawHistogram(reply.body);
}

// Wins (odd distances) rise above the axis and losses (even) hang below
// it, one bar per distance; both halves share one scale.
function drawHistogram(d) {
  const svg = $('db-histogram');
  const bars = [...d.wins.map(([p, n]) => ['win', p, n]), ...d.losses.map(([p, n]) => ['loss', p, n])];
  const longest = Math.max(0, ...bars.map((b) => b[1]));
  const most = Math.max(1, ...bars.map((b) => b[2]));
  const [w, h, pad] = [600, 180, 22];
  const axis = h / 2;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const step = (w - 2 * pad) / (longest + 1);
  for (const [kind, p, n] of bars) {
    const height = ((axis - pad) * n) / most;
    const y = kind === 'win' ? axis - height : axis;
    const bar = el('rect', { class: `hist-bar ${kind}`, x: pad + p * step, y, width: Math.max(step - 1, 1), height, 'data-plies': p }, svg);
    el('title', {}, bar).textContent = `${n.toLocaleString('en')} position${n === 1 ? '' : 's'}: ${kind} in ${plies(p)}`;
  }
  el('line', { class: 'chart-grid', x1: pad, y1: axis, x2: w - pad, y2: axis }, svg);
  el('text', { class: 'chart-label', x: pad, y: h - 6 }, svg).textContent = '0';
  el('text', { class: 'chart-label', x: w - pad - 60, y: h - 6 }, svg).textContent = plies(longest);
  el('text', { class: 'chart-label', x: pad, y: pad - 6 }, svg).textContent = `${most.toLocaleString('en')} positions`;
  const total = (side) => side.reduce((s, [, n]) => s + n, 0);
  $('db-histogram-note').textContent =
    `${d.states.toLocaleString('en')} positions: ${total(d.wins).toLocaleString('en')} wins, ` +
    `${total(d.losses).toLocaleString('en')} losses, ${d.draws.toLocaleString('en')} draws (no distance).`;
}

// ---- controls ---------------------------------------------------------

function setMode(mode) {
  state.mode = mode;
  $('mode').value = mode;
  state.busy++; // a reply the perfect player was about to make is dropped
  render();
  perfectPlayerTurn();
}

function wireControls() {
  $('undo').addEventListener('click', () => goTo(state.at - 1));
  $('redo').addEventListener('click', () => goTo(state.at + 1));
  $('start').addEventListener('click', () => startVariant(state.variant.name));
  $('variant').addEventListener('change', (e) => startVariant(e.target.value));
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    ask($('position').value, null, pushing('set'));
  });
  $('mode').addEventListener('change', (e) => setMode(e.target.value));
  $('swap').addEventListener('click', () => {
    setMode({ White: 'Black', Black: 'White', both: 'White' }[state.mode]);
  });
  $('hide-eval').addEventListener('change', (e) => {
    state.hideEval = e.target.checked;
    render();
  });
  $('repetition').addEventListener('change', (e) => {
    state.rule = e.target.value;
    render();
    perfectPlayerTurn();
  });
  $('edit').addEventListener('click', () => (state.edit ? stopEditing() : startEditing()));
  $('edit-done').addEventListener('click', finishEditing);
  $('edit-cancel').addEventListener('click', stopEditing);
  $('edit-clear').addEventListener('click', () => {
    state.edit.stones = {};
    render();
  });
  for (const id of ['edit-side', 'edit-white-hand', 'edit-black-hand']) $(id).addEventListener('input', render);
  $('copy-link').addEventListener('click', () => {
    navigator.clipboard.writeText(location.href).then(
      () => ($('hint').textContent = 'Link copied.'),
      () => ($('hint').textContent = `Copy this link: ${location.href}`),
    );
  });
  $('database').addEventListener('toggle', () => $('database').open && !state.stats && showDatabase());
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
    if (e.key === 'ArrowLeft') goTo(state.at - 1);
    if (e.key === 'ArrowRight') goTo(state.at + 1);
    if (e.key === 'Escape') {
      state.selected = null;
      state.pending = null;
      $('hint').textContent = '';
      drawBoard();
    }
  });
}

async function main() {
  wireControls();
  const reply = await getJson('/api/variants', {});
  if (reply.status !== 200) {
    $('banner').textContent = reply.body.error;
    return;
  }
  state.variants = reply.body.variants;
  for (const v of state.variants) {
    const option = document.createElement('option');
    option.value = v.name;
    option.textContent = `${v.name}${v.moving.solved + v.placement.solved === 0 ? ' (no tables)' : ''}`;
    $('variant').append(option);
  }
  const url = new URLSearchParams(location.search);
  // By default a variant whose start a table answers: a start answered by
  // the placement search (nine without placement tables) can take minutes.
  const solved = state.variants.find((v) => v.start_value) || state.variants.find((v) => v.moving.solved > 0) || state.variants[0];
  startVariant(url.get('variant') || solved.name, url.get('position'));
}

main();

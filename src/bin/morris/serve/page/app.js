// The page of `morris serve`. It knows no rules: the server says which
// moves are legal, what each leads to (value and resulting position) and
// how perfect play goes on; the page draws that and sends clicks back.
// Move and position notation are only read to place stones and marks.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const UNIT = 60; // board units per grid step

const state = {
  variants: [],    // /api/variants
  variant: null,   // the one shown
  history: [],     // [{position, move}]: move is what led there (null at the root)
  at: 0,           // index in history of the position shown
  analysis: null,  // /api/query of history[at], or null when it failed
  selected: null,  // a stone picked to move
  pending: null,   // moves that differ only in the stone they remove
  hovered: null,   // the move hovered in a list
  busy: 0,         // the number of the latest request: older answers are dropped
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

// ---- requests ---------------------------------------------------------

async function getJson(path, params) {
  const url = `${path}?${new URLSearchParams(params)}`;
  const response = await fetch(url);
  let body;
  try {
    body = await response.json();
  } catch (e) {
    body = { error: `the server answered ${response.status} without JSON` };
  }
  return { status: response.status, body };
}

// Asks the server about `position` (after `moves`, if given). On an
// answer about a real position it is shown; `record(position)` then
// updates the history. A refused request leaves everything as it was.
async function ask(position, moves, record) {
  const ticket = ++state.busy;
  const params = { variant: state.variant.name, position };
  if (moves) params.moves = moves;
  let reply;
  try {
    reply = await getJson('/api/query', params);
  } catch (e) {
    reply = { status: 0, body: { error: `no answer from the server: ${e}` } };
  }
  if (ticket !== state.busy) return reply;
  if (reply.status === 200) {
    record(reply.body.position);
    state.analysis = reply.body;
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
  writeUrl();
  render();
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

// ---- history ----------------------------------------------------------

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
  drawBanner();
  drawBoard();
  drawMoves();
  drawLine();
  drawHistory();
  $('position').value = current();
}

function drawBanner() {
  const banner = $('banner');
  const a = state.analysis;
  const who = parsePosition(current()).toMove;
  banner.className = '';
  if (!a) {
    banner.textContent = `${who} to move`;
    return;
  }
  banner.classList.add(a.value);
  if (a.moves.length === 0) {
    banner.textContent = a.value === 'draw' ? 'Game over: a draw' : `Game over: ${who} has lost`;
    return;
  }
  let text = `${who} to move: ${inWords(a.value, a.plies, who)}`;
  if (!a.exact) text += ' (by search; distances need placement tables)';
  banner.textContent = text;
}

// The marks to show: for each point, the best move of those a click there
// would make (the server sends moves best first).
function marks() {
  const a = state.analysis;
  if (!a) return new Map();
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
  const position = parsePosition(current());
  const shown = marks();
  b.points.forEach((p) => {
    const { x, y } = at[p.name];
    const stone = position.stones[p.name];
    if (stone) el('circle', { class: `stone ${stone}`, cx: x, cy: y, r: 20 }, svg);
    else el('circle', { class: 'point', cx: x, cy: y, r: 7 }, svg);
    if (state.selected === p.name) el('circle', { class: 'selected', cx: x, cy: y, r: 25 }, svg);
    const m = shown.get(p.name);
    if (m) drawMark(svg, x, y, m, Boolean(stone));
    const target = el('circle', { class: 'target', cx: x, cy: y, r: 27, fill: 'transparent' }, svg);
    el('title', {}, target).textContent = m ? `${p.name}: ${m.move}, ${inWords(m.value, m.plies, 'the mover')}` : p.name;
    target.addEventListener('click', () => clickPoint(p.name));
  });
  drawHovered(svg, at);
}

function drawMark(svg, x, y, m, onStone) {
  const colour = `var(--${m.value})`;
  el('circle', { class: 'mark', cx: x, cy: y, r: onStone ? 24 : 14, stroke: colour }, svg);
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

function clickPoint(name) {
  const a = state.analysis;
  if (!a) return;
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
  if (!a) return;
  a.moves.forEach((m) => {
    const li = document.createElement('li');
    const name = document.createElement('span');
    name.textContent = m.move;
    const words = document.createElement('span');
    words.className = 'muted';
    words.textContent = inWords(m.value, m.plies, 'mover').replace(/^mover /, '');
    li.append(badge(m), name, words);
    li.addEventListener('mouseenter', () => hover(m.move));
    li.addEventListener('mouseleave', () => hover(null));
    li.addEventListener('click', () => play(m));
    list.append(li);
  });
}

function hover(move) {
  state.hovered = move;
  drawBoard();
}

function drawLine() {
  const list = $('line');
  list.textContent = '';
  const a = state.analysis;
  $('line-note').textContent = !a
    ? ''
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

// ---- start ------------------------------------------------------------

async function main() {
  $('undo').addEventListener('click', () => goTo(state.at - 1));
  $('redo').addEventListener('click', () => goTo(state.at + 1));
  $('start').addEventListener('click', () => startVariant(state.variant.name));
  $('variant').addEventListener('change', (e) => startVariant(e.target.value));
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    ask($('position').value, null, pushing('set'));
  });
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
  const solved = state.variants.find((v) => v.moving.solved > 0) || state.variants[0];
  startVariant(url.get('variant') || solved.name, url.get('position'));
}

main();

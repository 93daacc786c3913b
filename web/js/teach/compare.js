// Side by side: a second configuration of the page stepped through beside the one
// teaching mode follows, on the same events. It holds a `Teach` of its own (the same
// bindings as the panel's), kept at the panel's event on every step, jump and scrub: its
// event line under the panel's, its heap map under the panel's heap map and its block
// map under the panel's block map, drawn with the same marks, and a table of both
// configurations' resident, live, pinned and kept bytes with the difference, so "why does
// B keep less than A here?" reads on one screen. Everything it shows is the module's:
// the line `heaplab explain` prints, blame as `heaplab blame` counts it.

import { $, messageOf, option } from '../dom.js';
import { formatBytes, formatCount, formatDelta } from '../format.js';
import { drawBlockMap, pieceAt } from './blockmap.js';
import { drawHeapMap } from './heapmap.js';

// The events run between two looks at the page while the compared run reaches a far event.
const SLICE = 200_000;

const c = {
  // The configuration compared, by index, or null; its Teach, and its label ("B: buddy").
  index: null,
  teach: null,
  label: '',
  // What the runs held depend on (the panel's key), so an edit reloads this one too.
  loaded: null,
  // The event shown, and what was read there.
  event: null,
  map: null,
  blame: null,
  blocks: null,
  error: null,
  // Each reach of an event takes a number; a newer one makes an older one stop.
  token: 0,
};

function breathe() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

const SHOWN = [
  '#teach-compare-step',
  '#teach-versus',
  '#teach-heap-a-head',
  '#teach-heap-b-head',
  '#teach-heap-b',
  '#teach-blocks-a-head',
  '#teach-blocks-b-head',
  '#teach-blocks-b',
  '#teach-blocks-b-legend',
];

function showParts(shown) {
  for (const selector of SHOWN) $(selector).hidden = !shown;
}

/** The configuration compared, by index, or null. */
export function comparedIndex() {
  return c.index;
}

/** Whether a second configuration is shown. */
export function comparing() {
  return c.teach !== null;
}

/**
 * Fills the "compare with" menu: nothing, or any configuration but the one followed
 * (`followed`), by `labels`.
 */
export function fillCompareMenu(labels, followed) {
  const menu = $('#teach-compare');
  const entries = [option('', 'nothing')];
  labels.forEach((label, i) => {
    if (i !== followed) entries.push(option(i, label));
  });
  menu.replaceChildren(...entries);
  menu.value = c.index != null && c.index !== followed && c.index < labels.length ? String(c.index) : '';
  menu.disabled = labels.length < 2;
}

/**
 * Holds configuration `index` (labelled `label`) for comparing, its run made by
 * `openRun(index)` (which answers a Teach, or throws the module's words). `key` says what
 * the run depends on; the run held is kept when it is the same.
 */
export async function openCompare(index, label, key, openRun) {
  if (c.teach && c.index === index && c.loaded === key) return;
  closeCompare();
  c.index = index;
  c.label = label;
  try {
    c.teach = await openRun(index);
  } catch (error) {
    c.teach = null;
    c.error = messageOf(error);
    $('#teach-compare-line').textContent = c.error;
    $('#teach-compare-step').hidden = false;
    return;
  }
  c.loaded = key;
  c.error = null;
  showParts(true);
}

/** Stops comparing: the second run is let go and its parts hidden. */
export function closeCompare() {
  c.token += 1;
  c.teach?.free();
  c.teach = null;
  c.index = null;
  c.loaded = null;
  c.event = null;
  c.map = null;
  c.blame = null;
  c.blocks = null;
  c.error = null;
  showParts(false);
}

/**
 * Shows the compared run at `event`, beside the panel's (`followed`: `{ label, map, blame
 * }` at that event), with the panel's marks (`view`: `{ zoom, page, bytes }`) and its rule
 * for the block map's pages (`blockRange(map)` → `[first, count]` or null). A far event
 * is reached in slices; `changed` hears when the picture is drawn, or fails.
 */
export async function showCompare(event, followed, view, blockRange, changed) {
  if (!c.teach) return;
  const teach = c.teach;
  const token = ++c.token;
  for (;;) {
    let done;
    try {
      done = teach.seek_some(event, SLICE);
    } catch (error) {
      c.error = messageOf(error);
      $('#teach-compare-line').textContent = c.error;
      changed();
      return;
    }
    if (done) break;
    $('#teach-compare-line').textContent = `${c.label}: replaying to event ${formatCount(event)}: ${Math.floor((100 * teach.position()) / Math.max(1, event))}%…`;
    await breathe();
    if (token !== c.token || c.teach !== teach) return;
  }
  c.event = event;
  c.map = teach.heap_map();
  c.blame = teach.blame();
  draw(followed, view, blockRange);
  changed();
}

function draw(followed, view, blockRange) {
  const step = c.event > 0 ? c.teach.step(c.event) : null;
  $('#teach-compare-line').textContent = `${c.label}: ${step ? step.line : 'before the first event, nothing is allocated.'}`;
  $('#teach-heap-a-head').textContent = `${followed.label}: ${figures(followed.map, followed.blame)}`;
  $('#teach-blocks-a-head').textContent = followed.label;
  $('#teach-heap-b-head').textContent = `${c.label}: ${figures(c.map, c.blame)}`;
  $('#teach-blocks-b-head').textContent = c.label;
  drawHeapMap(c.teach, $('#teach-heap-b'), { zoom: view.zoom, selected: view.page });
  const bytes = view.bytes && c.map.pages.some((p) => p.page === view.bytes.page) ? view.bytes : null;
  const range = bytes ? [bytes.page, 1] : blockRange(c.map);
  const canvas = $('#teach-blocks-b');
  if (range) {
    canvas.hidden = false;
    c.blocks = drawBlockMap(c.teach, canvas, $('#teach-blocks-b-legend'), range[0], range[1], view.page, bytes && { from: bytes.from, to: bytes.to });
  } else {
    canvas.hidden = true;
    c.blocks = null;
    $('#teach-blocks-b-legend').textContent = 'No page is committed yet.';
  }
  versus(followed);
}

/** A run's figures at the event, as its heap map's head says them. */
function figures(map, blame) {
  return `${formatBytes(blame.resident)} resident (${formatCount(map.counts.resident_pages)} pages), ${formatBytes(blame.live)} live, ${formatBytes(blame.pinned)} pinned`;
}

// The rows of the table: blame's split of resident bytes.
const ROWS = [
  ['resident', 'resident', 'end_resident_bytes'],
  ['live', 'live', 'end_live_bytes'],
  ['pinned', 'pinned by live blocks', null],
  ['kept_by_policy', 'kept by the policy', null],
];

/** The table of both runs' bytes at the event, with the compared one against the followed. */
function versus(followed) {
  const head = document.createElement('tr');
  for (const text of ['at this event', followed.label, c.label, `${c.label.split(':')[0]} against ${followed.label.split(':')[0]}`]) {
    const th = document.createElement('th');
    th.textContent = text;
    head.append(th);
  }
  const rows = ROWS.map(([field, words, metric]) => {
    const a = followed.blame[field];
    const b = c.blame[field];
    const tr = document.createElement('tr');
    const diff = b === a ? 'the same' : `${b > a ? '+' : '−'}${formatBytes(Math.abs(b - a))}${metric ? ` (${formatDelta(metric, a, b) || 'about the same'})` : ''}`;
    for (const text of [words, formatBytes(a), formatBytes(b), diff]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  const thead = document.createElement('thead');
  thead.append(head);
  const tbody = document.createElement('tbody');
  tbody.append(...rows);
  $('#teach-versus').replaceChildren(thead, tbody);
}

/**
 * Wires the compared run's block map as the panel's: the pointer's piece in the panel's
 * note (`note()` when on none), and the wheel through `wheel(event, teach, drawn)`, the
 * panel's zoom.
 */
export function wireCompare({ wheel, note }) {
  const canvas = $('#teach-blocks-b');
  canvas.addEventListener('mousemove', (event) => {
    const hit = c.teach && c.blocks ? pieceAt(c.teach, event) : null;
    $('#teach-blocks-note').textContent = hit ? `${c.label}: ${hit.text}` : note();
  });
  canvas.addEventListener('wheel', (event) => wheel(event, c.teach, c.blocks), { passive: false });
}

/** The test hook's part: where the compared run stands and what it shows, or null. */
export function compareInfo() {
  if (c.index == null) return null;
  const step = c.teach && c.event > 0 ? c.teach.step(c.event) : null;
  return {
    config: c.index,
    event: c.event,
    events: c.teach?.events() ?? 0,
    op: step?.op ?? null,
    line: step?.line ?? null,
    counts: c.map?.counts ?? null,
    blame: c.blame && { resident: c.blame.resident, live: c.blame.live, pinned: c.blame.pinned, kept_by_policy: c.blame.kept_by_policy },
    blocks: c.blocks && { rows: c.blocks.rows, links: c.blocks.links, regions: c.blocks.regions, bytes: c.blocks.bytes },
    error: c.error,
  };
}

// The teaching panel: one configuration of the editor (or a trace typed here) stepped
// through event by event with the core's `Teach` (wasm): play, pause, step, scrub; the
// event's op and its line (the same text as `heaplab explain`); the heap map, the block
// map, the selected page and blame at the event. The position (event, configuration,
// page, the heap map's zoom, the block map's zoom into a page's bytes, the configuration
// compared side by side) goes in the link's `view.teach`, so "look at step 212" is a
// link. Both maps are drawn by the teaching module, which answers what is under the
// pointer from the layout it drew.
//
// Teaching mode opens on any run the page makes, at any event: clicking the memory chart
// opens it there. It runs on the page's own thread, and a far event is reached in slices
// of `SLICE` events (the core keeps no explanation on the way, so a slice takes a few
// milliseconds), with the progress shown between them; the jumps (the peak, the next page
// operation, phase or event of a kind) read the run's index once, the same way.

import { teach_max_events } from '../../pkg/heaplab_wasm.js';
import { TRACE_ID } from '../catalog.js';
import { runLabels } from '../charts.js';
import { $, messageOf, option } from '../dom.js';
import { readForm, showWorkload } from '../editor.js';
import { formatBytes, formatCount } from '../format.js';
import { linkFollowsForm, setViewTeach, viewTeach } from '../state.js';
import { cardName, modulesOf } from '../modules.js';
import * as trace from '../trace.js';
import { drawBlockMap, pieceAt, zoomAt, zoomMiddle } from './blockmap.js';
import { closeCompare, compareInfo, comparedIndex, comparing, fillCompareMenu, openCompare, showCompare, wireCompare } from './compare.js';
import { renderBlame, renderPage } from './details.js';
import { renderFamily } from './families.js';
import { cellOf, drawHeapMap, legendHtml, pageAt } from './heapmap.js';

// The teaching bindings, each loaded the first time teaching mode needs it: the page's own
// module leaves the observer and the maps out, so every visitor downloads less, and
// only a configuration of your own allocator needs heaplab_mm, which adds its
// interpreter to them.
const bindings = { teach: null, mm: null };
function loadBindings(which) {
  const url = which === 'mm' ? '../../pkg/heaplab_mm.js' : '../../pkg/heaplab_teach.js';
  bindings[which] ??= import(url)
    .then(async (module) => {
      await module.default();
      return module;
    })
    .catch((error) => {
      bindings[which] = null;
      throw new Error(`teach: could not load the teaching module (${messageOf(error)})`);
    });
  return bindings[which];
}

/**
 * The bindings that step through `config`, the editor's configuration `index`:
 * heaplab_teach's, or heaplab_mm's with the module the config runs registered there.
 */
async function bindingsFor(config, index) {
  const modules = modulesOf([config], () => cardName(config, index));
  if (modules.length === 0) return loadBindings('teach');
  const mm = await loadBindings('mm');
  for (const { name, bytes } of modules) mm.module_load(name, bytes);
  return mm;
}

// The block map shows this many committed pages around the selected one, and fewer
// when a second configuration's map lies under it, so both fit on a screen.
const BLOCK_ROWS = 12;
const COMPARED_ROWS = 4;

// The events run between two looks at the page while a far event is reached.
const SLICE = 200_000;

// Each reach of an event takes a number; a newer one makes an older one stop.
let reachToken = 0;

/** Lets the page draw and answer input before the next slice of work. */
function breathe() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

const s = {
  teach: null,
  config: 0,
  policy: null,
  event: 0,
  page: null,
  zoom: null,
  // The block map's zoom into one page's bytes, `{ page, from, to }`, or null.
  bytes: null,
  // The teaching bindings the run was made with.
  bindings: null,
  map: null,
  blame: null,
  // What the block map last drew: `{ rows, links, regions }`.
  blocks: null,
  // Bytes of the trace file read for the run shown (a trace stops being read where the
  // run passes the limit), and the file's size.
  traceRead: null,
  timer: 0,
  drag: null,
  // What the status line says when no replay is under way.
  ready: '',
  // Whether a far event or the run's index is being reached.
  busy: false,
};

const BLOCK_NOTE = 'each committed page to scale, left to right; arrows: the free lists in the order the policy hands pieces out; point at a piece to see what it is; the wheel or + zooms into a page';

function setError(message) {
  const box = $('#teach-error');
  box.textContent = message ?? '';
  box.hidden = !message;
}

function status(text) {
  $('#teach-status').textContent = text;
}

/** The configurations of the editor as menu entries, keeping the one followed. */
function refreshMenu() {
  let configs;
  try {
    configs = readForm().configs;
  } catch {
    return;
  }
  const menu = $('#teach-config');
  const labels = runLabels(configs);
  menu.replaceChildren(...labels.map((label, i) => option(i, label)));
  s.config = Math.min(s.config, configs.length - 1);
  menu.value = String(s.config);
  // A configuration removed from the editor, or now the one followed, is compared no more,
  // so the link never names one that is not there.
  const compared = comparedIndex();
  if (compared != null && (compared >= configs.length || compared === s.config)) closeCompare();
  fillCompareMenu(labels, s.config);
}

/** The test hook: where the panel stands and what its map counts. */
function publish(error = null) {
  const info = s.map?.pages.find((p) => p.page === s.page) ?? null;
  const step = s.teach && s.event > 0 ? s.teach.step(s.event) : null;
  window.heaplabTeach = {
    events: s.teach?.events() ?? 0,
    event: s.event,
    config: s.config,
    op: step?.op ?? null,
    line: step?.line ?? null,
    counts: s.map?.counts ?? null,
    page: s.page,
    pageInfo: info && { blocks: info.blocks, why_resident: info.why_resident, resident: info.resident, live_bytes: info.live_bytes },
    blame: s.blame && {
      resident: s.blame.resident,
      live: s.blame.live,
      pinned: s.blame.pinned,
      kept_by_policy: s.blame.kept_by_policy,
      pinners: s.blame.pinners.length,
      // Pinned bytes by call site, for a trace with sites (empty otherwise).
      by_site: s.blame.by_site,
    },
    zoom: s.zoom,
    bytes: s.bytes,
    blocks: s.blocks && { rows: s.blocks.rows, links: s.blocks.links, regions: s.blocks.regions, bytes: s.blocks.bytes },
    // The configuration shown side by side, where it stands and what it shows, or null.
    compare: compareInfo(),
    traceRead: s.traceRead,
    busy: s.busy,
    // Whether Play is stepping on by itself: its timer is set.
    playing: Boolean(s.timer),
    error,
    // Where page `page` is drawn on the heap map's canvas, in CSS pixels, for a test to
    // click or drag across it; null when it is not on the map as shown.
    cell(page) {
      return cellOf(s.teach, page);
    },
    // The block map's piece at CSS pixel (x, y) of its canvas, `{ page, piece, text }`,
    // as the pointer finds it; null where there is none.
    piece(x, y) {
      const r = window.devicePixelRatio || 1;
      return s.teach && s.blocks ? s.teach.block_map_piece_at(x * r, y * r) ?? null : null;
    },
  };
}

function writeLink() {
  const teach = { event: s.event };
  if (s.config > 0) teach.config = s.config;
  if (s.page != null) teach.page = s.page;
  if (s.zoom) teach.zoom = [...s.zoom];
  if (s.bytes) teach.bytes = { ...s.bytes };
  if (comparedIndex() != null) teach.compare = comparedIndex();
  setViewTeach(teach);
  linkFollowsForm();
}

/** The pages the pinning blocks in blame's table lie on. */
function pinnedPages() {
  if (!$('#teach-highlight').checked || !s.blame) return [];
  const ids = new Set(s.blame.pinners.slice(0, 10).map((p) => p.id));
  return s.map.pages.filter((page) => page.blocks.some((b) => ids.has(b.id))).map((page) => page.page);
}

function drawMap() {
  const dragged = s.drag && s.drag.moved ? [Math.min(s.drag.start, s.drag.end), Math.max(s.drag.start, s.drag.end)] : null;
  drawHeapMap(s.teach, $('#teach-heap'), { zoom: s.zoom, selected: s.page, outlined: pinnedPages(), dragged });
}

/**
 * The committed pages the block map of `map` shows: around the selected page, or the
 * zoom's first; `[first, count]`, or null when none is committed.
 */
function blockRange(map = s.map) {
  const rows = comparing() ? COMPARED_ROWS : BLOCK_ROWS;
  let pages = map.pages;
  if (s.zoom) pages = pages.filter((p) => p.page >= s.zoom[0] && p.page <= s.zoom[1]);
  if (!pages.length) return null;
  // Around the selected page; with none selected, from the first resident page, where
  // the live blocks are.
  let at = s.page != null ? pages.findIndex((p) => p.page >= s.page) : pages.findIndex((p) => p.resident);
  if (at < 0) at = s.page != null ? pages.length - 1 : 0;
  const centre = s.page != null ? Math.floor(rows / 2) : 0;
  const from = Math.max(0, Math.min(at - centre, pages.length - rows));
  const shown = pages.slice(from, from + rows);
  return [shown[0].page, shown[shown.length - 1].page - shown[0].page + 1];
}

function drawBlocks() {
  // Zoomed into a page's bytes, that page alone.
  const range = s.bytes ? [s.bytes.page, 1] : blockRange();
  const canvas = $('#teach-blocks');
  if (!range) {
    s.blocks = null;
    canvas.hidden = true;
    $('#teach-blocks-note').textContent = 'No page is committed yet.';
    $('#teach-blocks-legend').textContent = '';
    return;
  }
  canvas.hidden = false;
  s.blocks = drawBlockMap(s.teach, canvas, $('#teach-blocks-legend'), range[0], range[1], s.page, s.bytes);
  $('#teach-blocks-note').textContent = blocksNote();
  $('#teach-bytes-whole').hidden = !s.bytes;
  if (document.activeElement !== $('#teach-bytes')) {
    const w = s.blocks.bytes;
    $('#teach-bytes').value = s.bytes && w ? `0x${w.from.toString(16)}..0x${w.to.toString(16)}` : '';
  }
}

/** What the block map's head says when the pointer is on no piece. */
function blocksNote() {
  const w = s.blocks?.bytes;
  if (!s.bytes || !w) return BLOCK_NOTE;
  if (s.blocks.rows === 0) return `page ${formatCount(s.bytes.page)} is not committed at this event; "Whole pages" shows those that are`;
  return `page ${formatCount(s.bytes.page)}, bytes +0x${w.from.toString(16)} to +0x${w.to.toString(16)} (${formatBytes(w.to - w.from)} of ${formatBytes(s.blocks.page_size)}) to scale; the ruler gives offsets from the page's start; point at a piece to see what it is`;
}

/** Zooms the block map into `bytes` (`{ page, from, to }`), or back to whole pages (null). */
function setBytes(bytes) {
  s.bytes = bytes;
  render();
  publish();
  writeLink();
}

/** The + button: into the selected page (or the first shown) whole, then by halves. */
function bytesIn() {
  if (!s.teach || !s.map) return;
  if (s.bytes) {
    const z = zoomMiddle(s.teach, s.blocks, 0.5);
    if (z) setBytes(z);
    return;
  }
  const range = blockRange();
  if (!range) return;
  const committed = (page) => s.map.pages.some((p) => p.page === page);
  const page = s.page != null && committed(s.page) ? s.page : range[0];
  setBytes({ page, from: 0, to: s.map.page_size });
}

/** The − button: by doubles, and from the whole page back to whole pages. */
function bytesOut() {
  if (!s.bytes) return;
  const w = s.blocks?.bytes;
  if (!w || (w.from === 0 && w.to >= s.blocks.page_size)) {
    setBytes(null);
    return;
  }
  const z = zoomMiddle(s.teach, s.blocks, 2);
  if (z) setBytes(z);
}

/** The bytes typed, FROM..TO, read by the module; an empty field goes back to whole pages. */
function bytesTyped() {
  const text = $('#teach-bytes').value.trim();
  if (!s.teach || !s.map) return;
  if (!text) {
    setBytes(null);
    return;
  }
  let window;
  try {
    window = s.bindings.block_map_bytes(text, s.map.page_size);
  } catch (error) {
    setError(messageOf(error));
    return;
  }
  setError(null);
  const range = blockRange();
  const page = s.bytes?.page ?? (s.page != null && s.map.pages.some((p) => p.page === s.page) ? s.page : range?.[0] ?? 0);
  $('#teach-bytes').blur();
  setBytes({ page, from: window.from, to: window.to });
}

/** The panel's marks, which the configuration compared is drawn with too. */
function marks() {
  return { zoom: s.zoom, page: s.page, bytes: s.bytes };
}

/** The configuration compared, at the panel's event, beside the one followed. */
function showCompared() {
  if (!comparing()) return;
  const followed = { label: runLabelOf(s.config), map: s.map, blame: s.blame };
  showCompare(s.event, followed, marks(), blockRange, () => publish());
}

/** A configuration's label, "B: buddy", as the menus say it. */
function runLabelOf(index) {
  try {
    return runLabels(readForm().configs)[index] ?? `configuration ${index + 1}`;
  } catch {
    return `configuration ${index + 1}`;
  }
}

/**
 * Compares with configuration `index` (null: nothing), its run made as the panel's is,
 * and shown at the panel's event.
 */
async function setCompare(index) {
  if (index == null || index === s.config) {
    closeCompare();
  } else {
    await openCompare(index, runLabelOf(index), runKey(index), compareRun);
    status(s.ready);
  }
  if (!s.teach) return;
  render();
  publish();
  writeLink();
}

function render() {
  const n = s.teach.events();
  $('#teach-scrub').max = String(n);
  $('#teach-scrub').value = String(s.event);
  $('#teach-position').textContent = `event ${formatCount(s.event)} of ${formatCount(n)}`;
  if (document.activeElement !== $('#teach-goto')) $('#teach-goto').value = String(s.event);
  const step = s.event > 0 ? s.teach.step(s.event) : null;
  $('#teach-op').textContent = step ? step.op : '';
  $('#teach-line').textContent = step ? step.line : 'Before the first event: nothing is allocated yet. Step forward to see what the policy does.';
  drawMap();
  const c = s.map.counts;
  $('#teach-counts').textContent =
    `After event ${formatCount(s.event)}: ${formatCount(c.resident_pages)} ${c.resident_pages === 1 ? 'page' : 'pages'} resident (${formatBytes(c.resident_pages * s.map.page_size)}), ` +
    `${formatCount(c.committed_pages)} committed, ${formatCount(c.reserved_pages)} reserved; ${formatBytes(c.live_bytes)} live.`;
  renderPage($('#teach-page'), s.map, s.page);
  drawBlocks();
  renderBlame($('#teach-blame'), s.blame, selectBlock);
  $('#teach-zoom-out').hidden = !s.zoom;
  showCompared();
}

/**
 * Shows the heap after event `k` (clamped to the run): at once when it is near, else in
 * slices with the progress in the status line. A newer call makes an older one stop.
 */
async function go(k, { link = true } = {}) {
  if (!s.teach) return;
  const teach = s.teach;
  const n = teach.events();
  const event = Math.max(0, Math.min(n, Math.round(k)));
  const token = ++reachToken;
  for (;;) {
    let done;
    try {
      done = teach.seek_some(event, SLICE);
    } catch (error) {
      s.busy = false;
      setError(messageOf(error));
      publish(messageOf(error));
      return;
    }
    if (done) break;
    s.busy = true;
    status(`Replaying to event ${formatCount(event)}: ${Math.floor((100 * teach.position()) / Math.max(1, event))}%…`);
    publish();
    await breathe();
    if (token !== reachToken || s.teach !== teach) return;
  }
  s.busy = false;
  status(s.ready);
  s.event = event;
  s.map = teach.heap_map();
  s.blame = teach.blame();
  render();
  publish();
  if (link) writeLink();
}

/** Reads the run's index for the jumps, in slices with the progress shown; false if it failed. */
async function readIndex() {
  const teach = s.teach;
  for (;;) {
    let done;
    try {
      done = teach.read_index(SLICE);
    } catch (error) {
      setError(messageOf(error));
      return false;
    }
    if (done) break;
    s.busy = true;
    status('Reading the whole run for the jumps…');
    publish();
    await breathe();
    if (s.teach !== teach) return false;
  }
  s.busy = false;
  status(s.ready);
  return true;
}

/** Goes to the run's peak. */
async function jumpToPeak() {
  if (!s.teach || !(await readIndex())) return;
  await go(s.teach.peak());
}

/** Goes to the next (`forward`) or previous event of kind `kind`, or says there is none. */
async function jump(kind, forward) {
  if (!s.teach || !(await readIndex())) return;
  let k;
  try {
    k = s.teach.find(kind, forward);
  } catch (error) {
    setError(messageOf(error));
    return;
  }
  if (k == null) {
    const words = kindWords.get(kind) ?? kind;
    status(`No event ${forward ? 'after' : 'before'} event ${formatCount(s.event)} is ${words}.`);
    return;
  }
  await go(k);
}

// The words of each kind of event, from the teaching bindings.
const kindWords = new Map();

/** Fills the kind menu from the bindings' `teach_kinds()`, keeping the one chosen. */
function fillKinds(kinds) {
  const menu = $('#teach-kind');
  const chosen = menu.value || 'decommit';
  menu.replaceChildren(...kinds.map((k) => option(k.name, k.words)));
  for (const k of kinds) kindWords.set(k.name, k.words);
  menu.value = kinds.some((k) => k.name === chosen) ? chosen : kinds[0].name;
}

function selectPage(page) {
  s.page = page;
  // Zoomed into a page's bytes, the zoom moves to the page chosen, at the same offsets.
  if (s.bytes && page != null && s.map.pages.some((p) => p.page === page)) s.bytes = { ...s.bytes, page };
  render();
  publish();
  writeLink();
}

function selectBlock(block) {
  const page = s.map.pages.find((p) => p.blocks.some((b) => b.id === block.id));
  if (page) selectPage(page.page);
}

function pause() {
  const playing = s.timer;
  clearInterval(s.timer);
  s.timer = 0;
  $('#teach-play').textContent = '▶ Play';
  // Only a pause of a playing run changes what the page says of itself; a pause on the
  // way into a load must not publish the half-loaded state.
  if (playing) publish();
}

function play() {
  if (s.timer) return pause();
  if (!s.teach) return;
  if (s.event >= s.teach.events()) go(0);
  $('#teach-play').textContent = '❚❚ Pause';
  s.timer = setInterval(() => {
    if (!s.teach || s.event >= s.teach.events()) return pause();
    go(s.event + 1);
  }, 1000 / Number($('#teach-speed').value));
  publish();
}

/**
 * The run of the editor's configuration `index` (its workload, or its trace's bytes) held
 * for stepping: `{ teach, bindings, config }`. Throws the core's words for a run it
 * refuses (too long, a bad trace line).
 */
async function openRun(index) {
  const form = readForm();
  const config = form.configs[index];
  if (!config) throw new Error(`teach: there is no configuration ${index + 1} in the editor`);
  const input = config.workload.id === TRACE_ID ? await trace.traceInput(form) : null;
  const bindings = await bindingsFor(config, index);
  const { Teach, TeachTrace } = bindings;
  if (input) {
    const read = await readTrace(new TeachTrace(config.workload.path ?? 'trace', form.lenient), input.file);
    try {
      return { teach: Teach.from_trace(config, read), bindings, config };
    } finally {
      read.free();
    }
  }
  status('Generating the workload…');
  await breathe();
  return { teach: new Teach(config, null, form.lenient), bindings, config };
}

/**
 * Configuration `index`'s run to show beside the one followed: the same events under its
 * policy, shared with the followed run rather than read or generated again, when both run
 * in one module (a long trace is then held once); else a run of its own.
 */
async function compareRun(index) {
  const config = readForm().configs[index];
  if (s.teach && config && (await bindingsFor(config, index)) === s.bindings) return s.teach.alongside(config);
  return (await openRun(index)).teach;
}

/**
 * Steps through the editor's configuration `s.config`, standing at `event` with `page`
 * selected, and beside it configuration `compare` if given. A run the core refuses (too
 * long, a bad trace line) says why in the panel's words and leaves no map.
 */
async function load({ event = 0, page = null, zoom = null, bytes = null, compare = comparedIndex() } = {}) {
  pause();
  setError(null);
  refreshMenu();
  try {
    s.traceRead = null;
    const { teach: next, bindings, config } = await openRun(s.config);
    // The key comes from the module, which holds the colours the map is drawn in.
    $('#teach-legend').innerHTML = legendHtml(bindings);
    fillKinds(bindings.teach_kinds());
    s.teach?.free();
    s.teach = next;
    s.bindings = bindings;
    s.policy = config.policy;
    s.loaded = loadKey();
  } catch (error) {
    s.teach?.free();
    s.teach = null;
    s.map = null;
    s.blame = null;
    closeCompare();
    status('');
    setError(messageOf(error));
    // A workload too long to step through: a short trace typed here is the way in.
    if (/^teach: the workload has/.test(messageOf(error))) $('#teach-typed').hidden = false;
    $('#teach-view').hidden = true;
    publish(messageOf(error));
    return;
  }
  $('#teach-view').hidden = false;
  s.ready = `${formatCount(s.teach.events())} events. Keys: ← → step, space plays; a click on the memory chart comes here at its event.`;
  status(s.ready);
  renderFamily($('#teach-family-title'), $('#teach-family-body'), s.policy);
  s.page = page;
  s.zoom = zoom ? [Math.min(zoom[0], zoom[1]), Math.max(zoom[0], zoom[1])] : null;
  s.bytes = bytes ? { ...bytes } : null;
  if (compare != null && compare !== s.config) {
    await openCompare(compare, runLabelOf(compare), runKey(compare), compareRun);
    status(s.ready);
  } else {
    closeCompare();
  }
  refreshMenu();
  await go(event, { link: false });
}

/** The bytes read from a trace file at a time, into one buffer used again for each. */
const READ_CHUNK = 1 << 20;

/**
 * Reads a trace file into `read` (a TeachTrace of the bindings in use) chunk by chunk, stopping at the first chunk it
 * refuses (a bad line, or the event past teaching mode's limit), so a huge file is never
 * read whole; `s.traceRead` says how much was read. The chunks are read into one buffer
 * handed back and forth with the stream (a "bring your own buffer" reader), so a file of
 * a hundred megabytes leaves no hundred megabytes of spent chunks for the collector,
 * which the tab would hold at once beside the run's events.
 */
async function readTrace(read, file) {
  const stream = file.stream();
  s.traceRead = { bytes: 0, size: file.size };
  let reader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    // A browser whose file streams are not byte streams reads chunks it allocates.
    reader = stream.getReader();
  }
  const byob = typeof ReadableStreamBYOBReader !== 'undefined' && reader instanceof ReadableStreamBYOBReader;
  let buffer = new ArrayBuffer(READ_CHUNK);
  try {
    for (;;) {
      const { done, value } = byob ? await reader.read(new Uint8Array(buffer)) : await reader.read();
      if (done) break;
      if (byob) buffer = value.buffer;
      s.traceRead.bytes += value.length;
      read.push(value);
      status(`Reading the trace: ${Math.floor((100 * s.traceRead.bytes) / Math.max(1, file.size))}%…`);
    }
  } catch (error) {
    read.free();
    await reader.cancel().catch(() => {});
    throw error;
  }
  return read;
}

/** Opens the panel (at a link's position, if given) and steps through its configuration. */
export function openTeach(position = {}) {
  $('#teach-body').hidden = false;
  $('#teach-open').hidden = true;
  $('#teach-close').hidden = false;
  s.config = position.config ?? s.config;
  // The run held already is the one asked for: only the event changes.
  const same = position.page === undefined && position.zoom === undefined && position.bytes === undefined && position.compare === undefined;
  if (s.teach && s.loaded === loadKey() && same) return go(position.event ?? 0);
  return load(position);
}

/** What the run held depends on: the configuration followed, as the editor has it. */
function loadKey() {
  return runKey(s.config);
}

/** What configuration `index`'s run depends on, as the editor has it. */
function runKey(index) {
  try {
    const form = readForm();
    return JSON.stringify([index, form.configs[index], form.lenient, trace.traceGeneration()]);
  } catch {
    return null;
  }
}

function closeTeach() {
  pause();
  $('#teach-body').hidden = true;
  $('#teach-open').hidden = false;
  $('#teach-close').hidden = true;
  s.teach?.free();
  s.teach = null;
  s.loaded = null;
  closeCompare();
  window.heaplabTeach = null;
  setViewTeach(null);
  linkFollowsForm();
}

/** Opens the panel where the link in the address bar stands, if it names a teaching position. */
export function openTeachFromLink() {
  const position = viewTeach();
  if (position) {
    openTeach({
      event: position.event,
      config: position.config ?? 0,
      page: position.page ?? null,
      zoom: position.zoom ?? null,
      bytes: position.bytes ?? null,
      compare: position.compare ?? null,
    });
  }
}

/** The typed trace becomes the editor's workload (a trace file named typed.trace), then is stepped through. */
async function useTypedTrace() {
  const text = $('#teach-trace').value;
  setError(null);
  try {
    showWorkload(TRACE_ID, {});
    await trace.chooseFile(new File([text.endsWith('\n') ? text : `${text}\n`], 'typed.trace', { type: 'text/plain' }));
  } catch (error) {
    setError(messageOf(error));
    return;
  }
  // The editor's own listeners rewrite the link and offer to run the comparison.
  $('#config').dispatchEvent(new Event('change'));
  await load();
}

function wireHeapMap() {
  const canvas = $('#teach-heap');
  const at = (event) => (s.teach ? pageAt(s.teach, event) : null);
  canvas.addEventListener('mousedown', (event) => {
    const page = at(event);
    if (page != null) s.drag = { start: page, end: page, moved: false };
  });
  canvas.addEventListener('mousemove', (event) => {
    const page = at(event);
    const info = page != null ? s.map?.pages.find((p) => p.page === page) : null;
    canvas.title = page != null ? `page ${page}${info ? `: ${Math.round(info.used * 100)}% live` : ': only reserved'}` : '';
    if (!s.drag || page == null || page === s.drag.end) return;
    s.drag.end = page;
    s.drag.moved = true;
    drawMap();
  });
  window.addEventListener('mouseup', () => {
    const drag = s.drag;
    s.drag = null;
    if (!drag || !s.teach) return;
    if (drag.moved && drag.start !== drag.end) {
      s.zoom = [Math.min(drag.start, drag.end), Math.max(drag.start, drag.end)];
      render();
      publish();
      writeLink();
    } else {
      selectPage(drag.start);
    }
  });
  $('#teach-zoom-out').addEventListener('click', () => {
    s.zoom = null;
    render();
    publish();
    writeLink();
  });
  $('#teach-blocks').addEventListener('mousemove', (event) => {
    const hit = s.teach && s.blocks ? pieceAt(s.teach, event) : null;
    $('#teach-blocks-note').textContent = hit ? hit.text : blocksNote();
  });
  wireByteZoom();
}

/**
 * The wheel over a block map (`teach`'s, which drew `drawn`): zooms around the byte under
 * the pointer, out of a whole page back to whole pages. Unzoomed, only a turn in zooms: a
 * turn out scrolls the page as it always does.
 */
function wheelBytes(event, teach, drawn) {
  if (!teach || !drawn || event.deltaY === 0) return;
  if (!s.bytes && event.deltaY > 0) return;
  const w = drawn.bytes;
  if (s.bytes && event.deltaY > 0 && w && w.from === 0 && w.to >= drawn.page_size) {
    event.preventDefault();
    setBytes(null);
    return;
  }
  const z = zoomAt(teach, event, event.deltaY < 0 ? 0.8 : 1.25);
  if (!z) return;
  event.preventDefault();
  setBytes(z);
}

/**
 * The block map's zoom into a page's bytes: the wheel over a page's row zooms around the
 * byte under the pointer (out of a whole page, back to whole pages), the buttons by
 * halves and doubles, and a range typed FROM..TO.
 */
function wireByteZoom() {
  $('#teach-blocks').addEventListener('wheel', (event) => wheelBytes(event, s.teach, s.blocks), { passive: false });
  // The compared run's block map zooms both alike, and says what is under the pointer.
  wireCompare({ wheel: wheelBytes, note: blocksNote });
  $('#teach-bytes-in').addEventListener('click', bytesIn);
  $('#teach-bytes-out').addEventListener('click', bytesOut);
  $('#teach-bytes-whole').addEventListener('click', () => setBytes(null));
  $('#teach-bytes').addEventListener('change', bytesTyped);
}

export function buildTeach() {
  $('#teach-trace').placeholder = `At most ${formatCount(teach_max_events())} events.`;
  $('#teach-open').addEventListener('click', () => openTeach({ event: 0 }));
  $('#teach-close').addEventListener('click', closeTeach);
  $('#teach-load').addEventListener('click', () => load({ event: s.event, page: s.page, zoom: s.zoom, bytes: s.bytes }));
  // The button opens the box and puts the cursor in it, whether or not the box is shown
  // already (a workload too long to step through shows it by itself): it never hides
  // what it offers.
  $('#teach-type').addEventListener('click', () => {
    $('#teach-typed').hidden = false;
    $('#teach-trace').focus();
  });
  $('#teach-use-trace').addEventListener('click', useTypedTrace);
  $('#teach-config').addEventListener('focus', refreshMenu);
  $('#teach-config').addEventListener('change', () => {
    s.config = Number($('#teach-config').value) || 0;
    load({ event: s.event, compare: comparedIndex() === s.config ? null : comparedIndex() });
  });
  $('#teach-compare').addEventListener('focus', refreshMenu);
  $('#teach-compare').addEventListener('change', () => {
    const value = $('#teach-compare').value;
    setCompare(value === '' ? null : Number(value));
  });
  $('#teach-first').addEventListener('click', () => go(0));
  $('#teach-back').addEventListener('click', () => go(s.event - 1));
  $('#teach-forward').addEventListener('click', () => go(s.event + 1));
  $('#teach-last').addEventListener('click', () => go(s.teach?.events() ?? 0));
  $('#teach-play').addEventListener('click', play);
  $('#teach-speed').addEventListener('change', () => {
    if (s.timer) {
      pause();
      play();
    }
  });
  $('#teach-scrub').addEventListener('input', () => go(Number($('#teach-scrub').value)));
  $('#teach-peak').addEventListener('click', jumpToPeak);
  $('#teach-prev-op').addEventListener('click', () => jump('page-op', false));
  $('#teach-next-op').addEventListener('click', () => jump('page-op', true));
  $('#teach-next-phase').addEventListener('click', () => jump('phase', true));
  $('#teach-prev-kind').addEventListener('click', () => jump($('#teach-kind').value, false));
  $('#teach-next-kind').addEventListener('click', () => jump($('#teach-kind').value, true));
  $('#teach-goto').addEventListener('change', () => {
    const k = Number($('#teach-goto').value);
    if (Number.isFinite(k)) go(k);
  });
  $('#teach-highlight').addEventListener('change', () => s.map && drawMap());
  $('#teach-body').addEventListener('keydown', (event) => {
    if (['TEXTAREA', 'INPUT', 'SELECT'].includes(event.target.tagName) && event.target.type !== 'range') return;
    if (event.key === 'ArrowRight') go(s.event + 1);
    else if (event.key === 'ArrowLeft') go(s.event - 1);
    else if (event.key === ' ') play();
    else return;
    event.preventDefault();
  });
  // An edit in the editor changes what Reload steps through; the menu follows it.
  $('#config').addEventListener('change', () => {
    refreshMenu();
    if (s.teach) status('The editor changed: press Reload to step through it as it stands.');
  });
  window.addEventListener('resize', () => s.map && render());
  wireHeapMap();
}

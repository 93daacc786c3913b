// The results chart, drawn by the wasm module (plotters) on the page's canvas: memory over
// time, page operations over time or the summary bars, redrawn when the window changes
// size so lines stay sharp. On a timeline the pointer reads values off the curves, a drag
// zooms to the events it spans, the wheel zooms around the pointer, and a double click or
// "Reset zoom" shows the whole run again. Runs with a clock can be drawn over their model
// time instead of their events; the zoom and the pointer still count events.

import { chart_event_at, chart_hover, draw_chart, run_labels } from '../pkg/heaplab_wasm.js';
import { $, configLetter, fitCanvas, messageOf, showError } from './dom.js';
import { formatBytes, formatCount } from './format.js';

/**
 * Chart, table and export labels, made by the core from the configurations: each one's
 * letter, as the editor names it, its preset or family and the parameters it changes
 * ("A: llvm-bump", "B: llvm-bump (slab_size=64 KiB)"), so two runs of one preset differ;
 * your own allocator by its module's file ("C: mm.wasm"), as the CLI's tables name it.
 */
export function runLabels(configs) {
  return run_labels(configs);
}

/** One run for the chart: its label, its series, the phases and figures its report names. */
export function chartRun(label, series, report) {
  return {
    label,
    series,
    phases: (report.phases ?? []).map(({ label: phase, end_event }) => ({ label: phase, end_event })),
    report,
  };
}

// What the chart shows: `kind` is a link's `view.chart` ("memory", "page_ops", "bars"),
// `zoom` the window [first, last] of events a timeline shows, or null for the whole run.
let kind = 'memory';
let zoom = null;
// What a timeline's x axis shows, "events" or "time" (for runs with a clock only).
let xAxis = 'events';
// Where the last timeline's plot landed (canvas pixels and its events), null for the bars.
let frame = null;
// The last runs drawn, kept so a resize, a tab or a zoom can redraw them.
let lastRuns = null;
// Told of every change the user makes to the view, so the link can follow it.
let onViewChange = () => {};
// Told of a click on a timeline, with the event under the pointer.
let onPick = () => {};

const CAPTIONS = {
  memory: "Solid lines: resident bytes; dashed lines: live bytes; both over the workload's events. Drag to zoom, double-click to reset, click to step through from that event.",
  page_ops: 'Solid lines: commit calls to the OS so far; dashed lines: decommit calls so far (the other page calls, reserve and release, are in the table). Drag to zoom, double-click to reset, click to step through from that event.',
  bars: 'Peak and end resident bytes, all page calls (reserve, commit, decommit and release), touched bytes and utilization, one bar per configuration.',
};
const TIMELINES = new Set(['memory', 'page_ops']);

/** The chart shown, "memory", "page_ops" or "bars". */
export function chartKind() {
  return kind;
}

/** What the timelines' x axis shows: "events", or "time" when the runs have a clock. */
export function chartX() {
  return xAxis;
}

/** Whether the runs drawn have each point's model time, so they can be drawn over time. */
function timed(runs) {
  return (runs ?? []).length > 0 && runs.every((run) => (run.series.ns?.length ?? 0) > 0);
}

/** The x axis the chart is drawn over: time only when asked for and the runs have it. */
function shownX(runs) {
  return xAxis === 'time' && timed(runs) ? 'time' : 'events';
}

/** The zoom window [first, last] of the timeline shown, or null. */
export function chartZoom() {
  return zoom;
}

/** Shows the view a link names (its `chart`, `zoom` and `x`), from the next draw on. */
export function setChartView(view) {
  kind = TIMELINES.has(view?.chart) || view?.chart === 'bars' ? view.chart : 'memory';
  zoom = Array.isArray(view?.zoom) ? [...view.zoom] : null;
  xAxis = view?.x === 'time' ? 'time' : 'events';
  for (const tab of document.querySelectorAll('.tab[data-chart]')) tab.setAttribute('aria-selected', String(tab.dataset.chart === kind));
}

function draw(runs) {
  const canvas = $('#chart');
  fitCanvas(canvas);
  // The series go to the module as the worker delivered them, Float64Arrays and all.
  const x = shownX(runs);
  frame = draw_chart(canvas, runs, kind, TIMELINES.has(kind) ? zoom : null, x);
  $('#chart-caption').textContent = x === 'time' ? CAPTIONS[kind].replace("over the workload's events", "over the run's model time") : CAPTIONS[kind];
  $('#reset-zoom').hidden = !(zoom && TIMELINES.has(kind));
  // The choice of axis is offered only where it means something: a timeline of runs
  // that have a clock.
  $('#x-axis-field').hidden = !(TIMELINES.has(kind) && timed(runs));
  $('#x-axis').value = xAxis;
  hideHover();
  // Test contract: what the chart shows (its x axis too), and where its plot is.
  window.heaplabChart = { kind, zoom, x, frame };
}

/** Draws `runs` (see `chartRun`); throws with the module's message if it cannot. */
export function drawChart(runs) {
  lastRuns = runs;
  try {
    draw(runs);
  } catch (error) {
    throw new Error(`Could not draw the chart: ${messageOf(error)}`);
  }
}

/** Forgets the chart, so a resize after a failed run redraws nothing stale. */
export function forgetChart() {
  lastRuns = null;
  frame = null;
}

function redraw() {
  if (!lastRuns) return;
  try {
    draw(lastRuns);
  } catch (error) {
    showError(`Could not redraw the chart: ${messageOf(error)}`);
  }
}

/** The pointer's column in canvas pixels, which the frame is measured in. */
function canvasX(event) {
  const canvas = $('#chart');
  const box = canvas.getBoundingClientRect();
  return ((event.clientX - box.left) * canvas.width) / Math.max(1, box.width);
}

/**
 * Whether the pointer is over the plot of a timeline, or a few pixels past either end, so
 * that the first and the last event are easy to reach (`chart_event_at` clamps).
 */
function overPlot(x) {
  const slack = 4 * (window.devicePixelRatio || 1);
  return frame !== null && lastRuns !== null && x >= frame.left - slack && x <= frame.right + slack;
}

/**
 * The event under canvas column `x`, clamped to the plot; over time the module reads it
 * off the runs' times, which a trace's clock does not spread evenly over the events.
 */
function eventAt(x) {
  return chart_event_at(frame, x, frame?.time ? lastRuns : null);
}

/** The last event of the runs drawn: a zoom never reaches past it. */
function lastEvent() {
  let last = 0;
  for (const run of lastRuns ?? []) {
    const t = run.series.t;
    if (t.length > 0) last = Math.max(last, t[t.length - 1]);
  }
  return last;
}

/** Zooms to [a, b], or back to the whole run when that covers it, and tells the link. */
function setZoom(a, b) {
  const last = lastEvent();
  const lo = Math.max(0, Math.min(a, b));
  const hi = Math.min(last, Math.max(a, b));
  zoom = hi - lo < 1 || (lo <= 0 && hi >= last) ? null : [Math.round(lo), Math.round(hi)];
  redraw();
  onViewChange();
}

function hideHover() {
  $('#chart-hover').hidden = true;
  $('#chart-guide').hidden = true;
}

/** The figure's pixel for a canvas pixel, to place the guide and the selection. */
function cssX(x) {
  const canvas = $('#chart');
  return canvas.offsetLeft + (x * canvas.clientWidth) / Math.max(1, canvas.width);
}

function showHover(x) {
  const event = eventAt(x);
  const rows = chart_hover(lastRuns, kind, event);
  if (rows.length === 0) {
    hideHover();
    return;
  }
  const [solid, dashed] = kind === 'page_ops' ? ['commits', 'decommits'] : ['resident', 'live'];
  const value = kind === 'page_ops' ? formatCount : formatBytes;
  const box = $('#chart-hover');
  const head = document.createElement('div');
  head.className = 'hover-event';
  head.textContent = rows[0].ns == null ? `event ${formatCount(rows[0].event)}` : `event ${formatCount(rows[0].event)}, ${formatTime(rows[0].ns)}`;
  box.replaceChildren(
    head,
    ...rows.map((row) => {
      const line = document.createElement('div');
      line.textContent = `${row.label}: ${solid} ${value(row.solid)}, ${dashed} ${value(row.dashed)}`;
      return line;
    }),
  );
  box.hidden = false;
  const guide = $('#chart-guide');
  guide.hidden = false;
  const left = cssX(x);
  guide.style.left = `${left}px`;
  guide.style.top = `${$('#chart').offsetTop + (frame.top * $('#chart').clientHeight) / $('#chart').height}px`;
  guide.style.height = `${((frame.bottom - frame.top) * $('#chart').clientHeight) / $('#chart').height}px`;
  // The box sits beside the pointer, on whichever side has room.
  const figure = box.parentElement;
  const room = figure.clientWidth - left;
  box.style.left = room > box.offsetWidth + 24 ? `${left + 12}px` : `${Math.max(0, left - box.offsetWidth - 12)}px`;
  window.heaplabHover = { event, rows };
}

/** Wires hover, drag-to-zoom, wheel zoom and reset on the chart's canvas. */
function wireZoom() {
  const canvas = $('#chart');
  const selection = $('#chart-selection');
  // The canvas column a drag started at, while the button is down over the plot.
  let dragFrom = null;
  let hoverQueued = null;
  canvas.addEventListener('pointerdown', (event) => {
    const x = canvasX(event);
    if (event.button !== 0 || !overPlot(x)) return;
    dragFrom = x;
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener('pointermove', (event) => {
    const x = canvasX(event);
    if (dragFrom !== null) {
      const [a, b] = [Math.min(dragFrom, x), Math.max(dragFrom, x)];
      selection.hidden = false;
      selection.style.left = `${cssX(Math.max(a, frame.left))}px`;
      selection.style.width = `${cssX(Math.min(b, frame.right)) - cssX(Math.max(a, frame.left))}px`;
      selection.style.top = `${canvas.offsetTop}px`;
      selection.style.height = `${canvas.clientHeight}px`;
    }
    if (!overPlot(x)) {
      hideHover();
      return;
    }
    // Reading the curves crosses into wasm: once a frame is enough.
    if (hoverQueued === null) {
      hoverQueued = requestAnimationFrame(() => {
        hoverQueued = null;
        if (frame && lastRuns) showHover(x);
      });
    }
  });
  canvas.addEventListener('pointerleave', hideHover);
  canvas.addEventListener('pointerup', (event) => {
    if (dragFrom === null) return;
    const from = dragFrom;
    dragFrom = null;
    selection.hidden = true;
    const to = canvasX(event);
    // A click is not a drag: it leaves the zoom as it is and picks the event under it.
    if (Math.abs(to - from) < 6 * (window.devicePixelRatio || 1)) {
      if (overPlot(to)) onPick(eventAt(to));
      return;
    }
    setZoom(eventAt(from), eventAt(to));
  });
  canvas.addEventListener('dblclick', () => {
    if (zoom) setZoom(0, Infinity);
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      const x = canvasX(event);
      if (!overPlot(x) || event.deltaY === 0) return;
      event.preventDefault();
      const at = eventAt(x);
      const [lo, hi] = [frame.first_event, frame.last_event];
      // Each notch shows a fifth fewer (or a quarter more) events, the one under the
      // pointer staying where it is.
      const factor = event.deltaY < 0 ? 0.8 : 1.25;
      setZoom(at - (at - lo) * factor, at + (hi - at) * factor);
    },
    { passive: false },
  );
  $('#reset-zoom').addEventListener('click', () => setZoom(0, Infinity));
  $('#x-axis').addEventListener('change', () => {
    xAxis = $('#x-axis').value === 'time' ? 'time' : 'events';
    redraw();
    onViewChange();
  });
}

/** A model time in nanoseconds as the hover reads it: "1.25 ms", "3.4 s". */
function formatTime(ns) {
  const [scale, unit] = ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : [1e3, 'µs'];
  return `${Number((ns / scale).toPrecision(4))} ${unit}`;
}

/**
 * Wires the chart's tabs, zoom and hover, and redraws on resize so lines stay sharp.
 * `changed` hears every change of the view the user makes (tab, zoom); `picked` hears a
 * click (or shift-click) on a timeline, with the event under the pointer.
 */
export function wireCharts(changed, picked = () => {}) {
  onViewChange = changed;
  onPick = picked;
  for (const tab of document.querySelectorAll('.tab[data-chart]')) {
    tab.addEventListener('click', () => {
      kind = tab.dataset.chart;
      for (const other of document.querySelectorAll('.tab[data-chart]')) other.setAttribute('aria-selected', String(other === tab));
      redraw();
      onViewChange();
    });
  }
  wireZoom();
  let timer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(redraw, 150);
  });
}

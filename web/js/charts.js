// The results chart, drawn by the wasm module (plotters) on the page's canvas: memory over
// time or the summary bars, redrawn when the window changes size so lines stay sharp.

import { draw_chart } from '../pkg/heaplab_wasm.js';
import { $, configLetter, fitCanvas, messageOf, showError } from './dom.js';

/**
 * Chart and table labels: each configuration's letter, as the editor names it, and its
 * preset or family ("A: glibc-like", "B: glibc-like"), so two runs of one preset differ.
 */
export function runLabels(configs) {
  return configs.map((config, index) => `${configLetter(index)}: ${config.policy.preset ?? config.policy.family}`);
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

// The chart shown: "memory" (over time) or "bars" (the summary per configuration).
let kind = 'memory';
const CAPTIONS = {
  memory: "Solid lines: resident bytes; dashed lines: live bytes; both over the workload's events.",
  bars: 'Peak and end resident bytes, page operations, touched bytes and utilization, one bar per configuration.',
};

export function chartKind() {
  return kind;
}

function draw(runs) {
  const canvas = $('#chart');
  fitCanvas(canvas);
  // The series go to the module as the worker delivered them, Float64Arrays and all.
  draw_chart(canvas, runs, kind);
  $('#chart-caption').textContent = CAPTIONS[kind];
}

// The last runs drawn, kept so a window resize or a tab can redraw the chart.
let lastRuns = null;

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
}

function redraw() {
  if (!lastRuns) return;
  try {
    draw(lastRuns);
  } catch (error) {
    showError(`Could not redraw the chart: ${messageOf(error)}`);
  }
}

/** Wires the chart's tabs and redraws on resize so lines stay sharp. */
export function wireCharts() {
  for (const tab of document.querySelectorAll('.tab[data-chart]')) {
    tab.addEventListener('click', () => {
      kind = tab.dataset.chart;
      for (const other of document.querySelectorAll('.tab[data-chart]')) other.setAttribute('aria-selected', String(other === tab));
      redraw();
    });
  }
  let timer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(redraw, 150);
  });
}

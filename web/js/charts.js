// Memory over time, drawn by the wasm module (plotters) on the page's canvas, and redrawn
// when the window changes size so lines stay sharp.

import { draw_chart } from '../pkg/heaplab_wasm.js';
import { $, configLetter, messageOf, showError } from './dom.js';

// The last runs drawn, kept so a window resize can redraw the chart crisply.
let lastRuns = null;

/**
 * Chart and table labels: each configuration's letter, as the editor names it, and its
 * preset or family ("A: glibc-like", "B: glibc-like"), so two runs of one preset differ.
 */
export function runLabels(configs) {
  return configs.map((config, index) => `${configLetter(index)}: ${config.policy.preset ?? config.policy.family}`);
}

/** One run for the chart: its label, its series and the phases its report names. */
export function chartRun(label, series, report) {
  return {
    label,
    series,
    phases: (report.phases ?? []).map(({ label: phase, end_event }) => ({ label: phase, end_event })),
  };
}

function draw(runs) {
  const canvas = $('#chart');
  // The canvas is sized in device pixels so lines and text stay sharp on high-DPI
  // screens; its CSS size is set by the stylesheet.
  const box = canvas.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(box.width * ratio));
  canvas.height = Math.max(1, Math.round(box.height * ratio));
  // The series go to the module as the worker delivered them, Float64Arrays and all.
  draw_chart(canvas, runs);
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
}

export function redrawOnResize() {
  let timer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!lastRuns) return;
      try {
        draw(lastRuns);
      } catch (error) {
        showError(`Could not redraw the chart: ${messageOf(error)}`);
      }
    }, 150);
  });
}

// The Export menu. What it writes is what the results column shows: the comparison (its
// summary, its memory over time, the chart on its tab) or the sweep (its table, each
// value's memory over time, its chart). Every file is made by the core's writers and
// heaplab-plot's drawing functions through wasm, under the labels the table uses and the
// provenance of what ran (workload or trace and its hash, provider, page size, heaplab's
// version, the link), which the module reads from the page's link. The page writes none
// of it itself.

import { $, messageOf } from './dom.js';
import { chartKind, chartRun, chartX, chartZoom } from './charts.js';
import { sweepShown } from './sweep.js';

// The export's bindings are in the teaching module, which the page loads when Export (or
// teaching mode) is first used: the module every visitor downloads carries no SVG writer.
let bindings = null;
function exportBindings() {
  bindings ??= import('../pkg/heaplab_teach.js')
    .then(async (module) => {
      await module.default();
      return module;
    })
    .catch((error) => {
      bindings = null;
      throw new Error(`the export module did not load (${messageOf(error)})`);
    });
  return bindings;
}

// A chart's size in CSS pixels, as the SVG has it; the PNG is drawn from the SVG at
// PNG_SCALE times that, sharp on a high-DPI screen and in print.
const WIDTH = 1200;
const HEIGHT = 720;
// A sweep stacks a chart per metric: this much for each, and room for the title and
// the provenance.
const SWEEP_METRIC_HEIGHT = 300;
const SWEEP_CAPTION_HEIGHT = 130;
export const PNG_SCALE = 2;

/** Saves `text` (or a Blob) as a download named `name`. */
function download(name, content, type) {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The SVG drawn as a PNG of PNG_SCALE times its size, by the browser's own SVG renderer. */
async function pngOf(svg, width, height) {
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = width * PNG_SCALE;
  canvas.height = height * PNG_SCALE;
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the browser did not encode the PNG'))), 'image/png');
  });
}

/** Writes the chart as SVG, or as PNG drawn from that SVG. */
async function saveChart(name, svg, width, height, png) {
  if (png) download(`${name}.png`, await pngOf(svg, width, height));
  else download(`${name}.svg`, svg, 'image/svg+xml');
}

/**
 * Writes the export `kind` ("summary-csv", "summary-json", "series-csv", "chart-png" or
 * "chart-svg") of what the results column shows; `comparison` is the last comparison's
 * `{ labels, outputs }`. Answers false when there is nothing to export.
 */
export async function exportShown(kind, comparison) {
  const sweep = $('#sweep-results').hidden ? null : sweepShown();
  if (!sweep && !comparison) return false;
  const wasm = await exportBindings();
  const link = window.location.href;
  if (sweep) {
    const { label, outputs, report, param, metrics } = sweep;
    if (kind === 'summary-csv') download('heaplab-sweep.csv', wasm.sweep_csv(link, label, outputs), 'text/csv');
    else if (kind === 'summary-json') download('heaplab-sweep.json', `${JSON.stringify(report, null, 2)}\n`, 'application/json');
    else if (kind === 'series-csv') {
      const labels = report.points.map((point) => `${label} at ${param}=${point.values.join(',')}`);
      download('heaplab-sweep-series.csv', wasm.series_csv(link, labels, outputs.map((output) => output.series)), 'text/csv');
    } else {
      const height = SWEEP_CAPTION_HEIGHT + SWEEP_METRIC_HEIGHT * metrics;
      await saveChart('heaplab-sweep', wasm.sweep_svg(link, label, outputs, WIDTH, height), WIDTH, height, kind === 'chart-png');
    }
    return true;
  }
  const { labels, outputs } = comparison;
  const reports = outputs.map((output) => output.report);
  if (kind === 'summary-csv') download('heaplab-summary.csv', wasm.summary_csv(link, labels, reports), 'text/csv');
  else if (kind === 'summary-json') download('heaplab-summary.json', `${JSON.stringify(reports, null, 2)}\n`, 'application/json');
  else if (kind === 'series-csv') download('heaplab-series.csv', wasm.series_csv(link, labels, outputs.map((output) => output.series)), 'text/csv');
  else {
    const runs = outputs.map((output, index) => chartRun(labels[index], output.series, output.report));
    const svg = wasm.chart_svg(link, runs, WIDTH, HEIGHT, chartKind(), chartZoom(), chartX());
    await saveChart(`heaplab-${chartKind()}`, svg, WIDTH, HEIGHT, kind === 'chart-png');
  }
  return true;
}

// Sweep mode: one configuration run at several values of one numeric parameter, each value
// a run in the worker pool, then the core's report of them (`sweep_report`, the object
// `heaplab sweep --json` prints) drawn by the core's sweep chart and listed value by value.
// The values text is read by the core as `--vary` reads it, so the page and the CLI take
// the same lists.

import { draw_sweep_chart, measure_label, sweep_points, sweep_report, sweep_values } from '../pkg/heaplab_wasm.js';
import { $, beginRun, cancelledRun, configLetter, endRun, fail, fitCanvas, isRunning, option, setProgress, setState, setStatus } from './dom.js';
import { MAX_POLICIES, TRACE_ID, familyById, lists, selection, workloadById } from './catalog.js';
import { addPolicyCard, policyCards, readForm } from './editor.js';
import { NUMERIC, carriedOver } from './params.js';
import { formatBytes, formatMetric, sizeText } from './format.js';
import { cardName } from './modules.js';
import { runLabels } from './charts.js';
import { Cancelled, runConfigs } from './runner.js';
import { formLinkState, linkFollowsForm, setViewSweep } from './state.js';
import * as trace from './trace.js';

// What the sweep chart shows by default: the question of the JIT-arenas scenario, peak,
// end and page operations against the slab size, one chart under another.
const DEFAULT_METRIC = 'peak_resident_bytes';
const DEFAULT_ALSO = ['end_resident_bytes', 'page_ops'];
// The metrics offered to plot under the first: the summary's main figures.
const ALSO_CHOICES = ['peak_resident_bytes', 'end_resident_bytes', 'page_ops', 'touched_bytes', 'utilization'];
// The height of each metric's chart, in CSS pixels.
const CHART_HEIGHT = 300;

// The last sweep shown: `{ state, outputs, report, label }`, redrawn when the window
// resizes and exported as it stands.
let last = null;

/**
 * The sweep on screen for the export, or null: the swept configuration's label as the
 * table names it, the points' outputs and the report, the swept parameter and how many
 * charts its figure stacks.
 */
export function sweepShown() {
  if (!last) return null;
  const { metric, also = [], param } = last.state.view.sweep;
  return { label: last.label, outputs: last.outputs, report: last.report, param, metrics: new Set([metric, ...also]).size };
}

/**
 * The numeric parameters of a card's policy, then of the workload (a name both have is
 * the policy's, as the core decides): `[{ name, target, spec }]`.
 */
function numericParams(card) {
  const { family } = selection($('select.family', card).value);
  const workloadId = $('#workload').value;
  const policy = (familyById(family)?.params ?? []).filter((spec) => NUMERIC.has(spec.kind));
  const names = new Set(policy.map((spec) => spec.name));
  const workload = workloadId === TRACE_ID ? [] : (workloadById(workloadId)?.params ?? []).filter((spec) => NUMERIC.has(spec.kind) && !names.has(spec.name));
  return [...policy.map((spec) => ({ name: spec.name, target: 'policy', spec })), ...workload.map((spec) => ({ name: spec.name, target: 'workload', spec }))];
}

/** A values text to start from for `spec` at `value`: a few doublings around it for a size. */
function suggestion(spec, value) {
  if (spec.kind === 'bytes') {
    const least = Math.max(Number(spec.min) || 1, 1);
    const from = Math.max(least, 2 ** Math.floor(Math.log2(Math.max(Number(value) || least, 1) / 4)));
    const to = Math.min(Number(spec.max), from * 256);
    return `${sizeText(from)}..${sizeText(to)}`;
  }
  if (spec.kind === 'int') {
    const base = Math.max(Number(value) || 1, 1);
    return [base, base * 2, base * 4, base * 8].filter((v) => v <= Number(spec.max)).join(',');
  }
  const base = Number(value) || 1;
  return [base / 2, base, base * 2].join(',');
}

/** Fills the sweep's menus from the editor, keeping what is chosen while it still exists. */
export function refreshSweepMenus() {
  const cards = policyCards();
  // Before the editor is filled there is nothing to sweep yet.
  if (cards.length === 0) return;
  const configMenu = $('#sweep-config');
  const chosenConfig = Math.min(Number(configMenu.value) || 0, cards.length - 1);
  configMenu.replaceChildren(...cards.map((card, index) => option(index, configLetter(index))));
  configMenu.value = String(chosenConfig);
  const paramMenu = $('#sweep-param');
  const chosenParam = paramMenu.value;
  const params = numericParams(cards[chosenConfig]);
  paramMenu.replaceChildren(...params.map(({ name, target }) => option(name, target === 'workload' ? `${name} (workload)` : name)));
  if (params.some(({ name }) => name === chosenParam)) paramMenu.value = chosenParam;
  suggestValues();
  const metricMenu = $('#sweep-metric');
  if (metricMenu.options.length === 0) {
    for (const metric of lists.metrics.filter((m) => m.better !== 'neither')) metricMenu.append(option(metric.key, metric.label, metric.doc));
    metricMenu.value = DEFAULT_METRIC;
    buildAlso(DEFAULT_ALSO);
  }
}

/**
 * Offers resident bytes at the end of each of `phases` (the last run's phase labels) as
 * metrics to sweep, `resident_bytes@<phase>`, after the summary's, keeping the one chosen.
 */
export function offerPhaseMetrics(phases) {
  const menu = $('#sweep-metric');
  const chosen = menu.value;
  menu.querySelector('optgroup.phases')?.remove();
  if (phases.length > 0) {
    const group = document.createElement('optgroup');
    group.className = 'phases';
    group.label = 'At the end of a phase';
    for (const phase of phases) {
      const key = `resident_bytes@${phase}`;
      group.append(option(key, measure_label(key) ?? key));
    }
    menu.append(group);
  }
  menu.value = [...menu.options].some((o) => o.value === chosen) ? chosen : DEFAULT_METRIC;
}

/** Makes sure the metric menu offers `key` (a link's phase figure), so it can be shown. */
function offerMetric(key) {
  const menu = $('#sweep-metric');
  if ([...menu.options].some((o) => o.value === key)) return;
  menu.append(option(key, measure_label(key) ?? key));
}

/** The "also plot" boxes, one per choice, those in `checked` ticked. */
function buildAlso(checked) {
  const group = $('#sweep-also');
  group.replaceChildren(
    ...ALSO_CHOICES.map((key) => {
      const metric = lists.metrics.find((m) => m.key === key);
      const label = document.createElement('label');
      label.className = 'inline check';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = key;
      box.checked = checked.includes(key);
      label.title = metric?.doc ?? '';
      label.append(box, ` ${metric?.label ?? key}`);
      return label;
    }),
  );
}

/** The ticked metrics to plot under the first, in the boxes' order, without the first. */
function alsoOfControls(metric) {
  return [...document.querySelectorAll('#sweep-also input:checked')].map((box) => box.value).filter((key) => key !== metric);
}

/** Puts a values text for the chosen parameter in the field's placeholder. */
function suggestValues() {
  const card = policyCards()[Number($('#sweep-config').value) || 0];
  const found = card && numericParams(card).find(({ name }) => name === $('#sweep-param').value);
  if (!found) return;
  const scope = found.target === 'policy' ? card : $('.workload');
  const input = scope.querySelector(`[data-param="${CSS.escape(found.name)}"]`);
  $('#sweep-values').placeholder = suggestion(found.spec, input?.value);
}

/** The sweep the controls ask for: `{ config, param, values, metric }`, values read by the core. */
function sweepOfControls(form) {
  const config = Number($('#sweep-config').value) || 0;
  const param = $('#sweep-param').value;
  const text = $('#sweep-values').value.trim() || $('#sweep-values').placeholder;
  const values = sweep_values(form.configs[config], param, text);
  const metric = $('#sweep-metric').value || DEFAULT_METRIC;
  const also = alsoOfControls(metric);
  return { config, param, values, metric, ...(also.length > 0 ? { also } : {}) };
}

/**
 * Shows a sweep (a link's) in the controls, so "Run sweep" runs it: at once when the link
 * opens, even while it waits for the trace file it names.
 */
export function showSweepControls(sweep) {
  // The menus are filled from the editor first, so the link's choices are there to pick.
  refreshSweepMenus();
  $('#sweep-config').value = String(sweep.config ?? 0);
  refreshSweepMenus();
  $('#sweep-param').value = sweep.param;
  $('#sweep-values').value = sweep.values.map((v) => String(v)).join(',');
  offerMetric(sweep.metric ?? DEFAULT_METRIC);
  $('#sweep-metric').value = sweep.metric ?? DEFAULT_METRIC;
  buildAlso(sweep.also ?? []);
}

// Where the drawn chart's points landed, `[{point, x, y}]` in canvas pixels.
let marks = [];

function drawSweep() {
  const canvas = $('#sweep-chart');
  const { metric, also = [] } = last.state.view.sweep;
  const charts = new Set([metric, ...also]).size;
  canvas.style.height = `${CHART_HEIGHT * charts}px`;
  fitCanvas(canvas);
  marks = draw_sweep_chart(canvas, last.state, last.outputs);
  // Test contract: where the points are, to click one as a person would.
  window.heaplabSweepMarks = marks;
}

/** The point under a pointer event on the chart, within a few pixels of its marker, or null. */
function markAt(event) {
  const canvas = $('#sweep-chart');
  const box = canvas.getBoundingClientRect();
  const scale = canvas.width / Math.max(1, box.width);
  const x = (event.clientX - box.left) * scale;
  const y = (event.clientY - box.top) * scale;
  let best = null;
  let bestDistance = (10 * scale) ** 2;
  for (const mark of marks) {
    const distance = (mark.x - x) ** 2 + (mark.y - y) ** 2;
    if (distance <= bestDistance) [best, bestDistance] = [mark, distance];
  }
  return best;
}

/** Clicking a point on the chart opens it as the table's rows do; the cursor says so. */
function wireChartClicks() {
  const canvas = $('#sweep-chart');
  canvas.addEventListener('pointermove', (event) => {
    const mark = last ? markAt(event) : null;
    canvas.style.cursor = mark ? 'pointer' : '';
    canvas.title = mark ? $(`#sweep-table tr[data-point="${mark.point}"]`)?.title ?? '' : '';
  });
  canvas.addEventListener('click', (event) => {
    const mark = last ? markAt(event) : null;
    if (mark) openPoint(mark.point);
  });
}

/** The table of the sweep: a row per value, the chosen metric first, then the main figures. */
function renderTable() {
  const { report } = last;
  const [axis] = report.params;
  const keys = [...new Set([report.metric, 'peak_resident_bytes', 'end_resident_bytes', 'page_ops', 'touched_bytes', 'utilization'])];
  const table = $('#sweep-table');
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const text of [axis.param, ...keys.map((key) => lists.metrics.find((m) => m.key === key)?.label ?? key)]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = text;
    head.append(th);
  }
  const body = table.createTBody();
  report.points.forEach((point, index) => {
    const row = body.insertRow();
    row.dataset.point = String(index);
    row.title = `Open ${axis.param} = ${point.values[0]} as a configuration beside the others`;
    row.insertCell().textContent = axis.size ? formatBytes(point.values[0]) : String(point.values[0]);
    const reportOf = last.outputs[index].report;
    for (const key of keys) row.insertCell().textContent = formatMetric(key, reportOf[key]);
    row.addEventListener('click', () => openPoint(index));
  });
}

/**
 * Opens a point as a configuration: a policy parameter becomes a copy of the swept card
 * with that value, added after the last card so the cards already there keep their
 * letters (the what-if against the original); a workload parameter is set in the
 * workload. Then the comparison shows again and runs.
 */
function openPoint(index) {
  const { report, state } = last;
  const [axis] = report.params;
  const value = report.points[index].values[0];
  const text = axis.size ? sizeText(value) : String(value);
  const cards = policyCards();
  const card = cards[state.view.sweep.config] ?? cards[0];
  if (axis.target === 'policy' && cards.length < MAX_POLICIES) {
    const select = $('select.family', card);
    const values = carriedOver($('.params', card), familyById(selection(select.value).family).params);
    values[axis.param] = text;
    const copy = addPolicyCard(select.value, values);
    copy.querySelector(`[data-param="${CSS.escape(axis.param)}"]`)?.dispatchEvent(new Event('input', { bubbles: true }));
  } else {
    const scope = axis.target === 'policy' ? card : $('.workload');
    const input = scope.querySelector(`[data-param="${CSS.escape(axis.param)}"]`);
    if (input) {
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }
  closeSweep();
  $('#run').click();
}

export function closeSweep() {
  $('#sweep-results').hidden = true;
  $('#results').hidden = false;
  setViewSweep(null);
  linkFollowsForm();
}

/**
 * Runs a sweep: the one a link opened with (`sweep`), or the one the controls ask for.
 * Test contract: `window.heaplabSweep` is the object `heaplab sweep --json` prints for
 * the same sweep (`heaplab sweep --link` of the page's link).
 */
export async function runSweep(sweep = null) {
  if (isRunning()) return;
  beginRun('Running the sweep…');
  delete window.heaplabSweep;
  try {
    const form = readForm();
    if (sweep) showSweepControls(sweep);
    const chosen = sweep ?? sweepOfControls(form);
    const state = formLinkState(form);
    state.view = { ...(state.view ?? {}), chart: 'sweep', sweep: chosen };
    const points = sweep_points(state);
    const config = form.configs[chosen.config];
    const traceFile = config?.workload.id === TRACE_ID ? await trace.traceInput(form) : null;
    setStatus(`Running ${points.length} values of ${chosen.param}…`);
    const outputs = await runConfigs(
      points.map((point) => point.config),
      traceFile,
      ({ share, total, bytesRead, bytesTotal }) => {
        setProgress(share);
        setStatus(
          bytesTotal
            ? `Read ${formatBytes(bytesRead)} of ${formatBytes(bytesTotal)} of the trace for ${total} values of ${chosen.param}…`
            : `Ran ${Math.round(share * total)} of ${total} values of ${chosen.param}…`,
        );
      },
      // A failure names the swept card and the value that failed.
      { name: (config, index) => `${cardName(config, chosen.config)} at ${chosen.param}=${points[index].values.join(',')}` },
    );
    const report = sweep_report(state, outputs);
    last = { state, outputs, report, label: runLabels(form.configs)[chosen.config] ?? cardName(config, chosen.config) };
    $('#results').hidden = true;
    $('#sweep-results').hidden = false;
    drawSweep();
    renderTable();
    setViewSweep(chosen);
    linkFollowsForm();
    window.heaplabSweep = report;
    window.heaplabResults = outputs.map((output) => output.report);
    window.heaplabConfigs = points.map((point) => point.config);
    setStatus(`Swept ${chosen.param} of ${configLetter(chosen.config)} over ${points.length} values.`);
    setState('done');
  } catch (error) {
    if (error instanceof Cancelled) cancelledRun();
    else fail(error);
  } finally {
    endRun();
  }
}

/** Wires the sweep's controls. */
export function buildSweep() {
  $('#sweep-config').addEventListener('change', () => refreshSweepMenus());
  // The editor may have changed from a link or a scenario since the menus were filled.
  $('#sweep').addEventListener('focusin', (event) => {
    if (event.target.id !== 'sweep-values') refreshSweepMenus();
  });
  $('#sweep-param').addEventListener('change', () => {
    $('#sweep-values').value = '';
    suggestValues();
  });
  $('#run-sweep').addEventListener('click', () => runSweep());
  wireChartClicks();
  $('#close-sweep').addEventListener('click', closeSweep);
  window.addEventListener('resize', () => {
    if (last && !$('#sweep-results').hidden) drawSweep();
  });
  refreshSweepMenus();
}

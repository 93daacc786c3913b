// The summary table: one column per run, one row per metric of the core's list
// (`metrics()`, in its reading order and groups), then the fields a report has beyond
// that list, the allocator's own counters and memory at the end of each phase, so that a
// figure added to the core shows up without a page change.

import { uncalibrated_note } from '../pkg/heaplab_wasm.js';
import { $ } from './dom.js';
import { lists } from './catalog.js';
import { formatBytes, formatCount, formatDelta, formatMetric } from './format.js';

const GROUP_TITLES = { workload: 'Workload', memory: 'Memory', page_calls: 'Page provider calls' };

// How a row prints a number: `[shown, tooltip]`, the tooltip holding the exact figure.
const asBytes = (value) => [formatBytes(value), `${formatCount(value)} bytes`];
const asCount = (value) => (Number.isInteger(value) ? [formatCount(value), String(value)] : [String(value), String(value)]);
const asMetric = (metric) => (value) => [
  formatMetric(metric.key, value),
  metric.unit === 'bytes' ? `${formatCount(value)} bytes` : String(value),
];

/**
 * The row groups: `{ title, rows: [{ label, title, get, format }] }`, `get` reading a
 * row's value from one report and `format` printing it.
 */
function summaryRows(reports) {
  const [report] = reports;
  const numeric = new Set(Object.keys(report).filter((key) => typeof report[key] === 'number'));
  const groups = Object.entries(GROUP_TITLES).map(([group, title]) => ({
    title,
    rows: lists.metrics
      .filter((metric) => metric.group === group && numeric.has(metric.key))
      .map((metric) => ({
        label: metric.label,
        title: `${metric.doc} (${metric.key})`,
        get: (r) => r[metric.key],
        format: asMetric(metric),
        delta: (base, value) => formatDelta(metric.key, base, value),
      })),
  }));
  const listed = new Set(lists.metrics.map((metric) => metric.key));
  const others = [...numeric].filter((key) => !listed.has(key)).sort();
  groups.push({
    title: 'Other',
    rows: others.map((key) => ({ label: key, title: key, get: (r) => r[key], format: key.endsWith('_bytes') ? asBytes : asCount })),
  });
  // Pike-style counters (num_malloc, malloc_bytes, ...): every name any policy reports.
  const counters = [...new Set(reports.flatMap((r) => Object.keys(r.counters ?? {})))].sort();
  groups.push({
    title: 'Allocator counters',
    rows: counters.map((name) => ({ label: name, title: name, get: (r) => r.counters?.[name] ?? '—', format: asCount })),
  });
  // Resident memory after each phase, the `ps` after each step of scenario S4.
  const phases = (report.phases ?? []).map((phase) => phase.label);
  groups.push({
    title: 'Resident at the end of each phase',
    rows: phases.map((label, i) => ({
      label,
      title: `Resident bytes when phase ${label} ended`,
      get: (r) => (r.phases?.[i]?.label === label ? r.phases[i].resident_bytes : '—'),
      format: asBytes,
    })),
  });
  return groups.filter(({ rows }) => rows.length > 0);
}

/**
 * Fills #summary: `labels` head the columns, `configs[i].policy` is run i's policy, and
 * every metric of a run other than `baseline` (an index) reads against the baseline's as
 * MallocBench prints it ("^ 1.12x smaller", "! 1.02x bigger", blank when equal).
 */
export function renderSummary(labels, configs, reports, baseline = 0) {
  const table = $('#summary');
  table.replaceChildren();
  // The core's one line on presets not checked against the allocator they model, as
  // `heaplab run` prints it under its table: a delta against one is the model's.
  const note = uncalibrated_note(configs.map((config) => config.policy.preset).filter(Boolean));
  $('#calibration-note').textContent = note ?? '';
  $('#calibration-note').hidden = note == null;

  const head = table.createTHead().insertRow();
  const corner = document.createElement('th');
  corner.scope = 'col';
  corner.textContent = 'Policy';
  head.append(corner);
  labels.forEach((label, index) => {
    const th = document.createElement('th');
    th.scope = 'col';
    // The core's label, the name every chart and export gives the column, with the
    // parameters the configuration changes on a line of their own under its name.
    const cut = label.indexOf(' (');
    const name = cut < 0 ? label : label.slice(0, cut);
    th.textContent = index === baseline && reports.length > 1 ? `${name} (baseline)` : name;
    if (cut >= 0) {
      const detail = document.createElement('span');
      detail.className = 'policy-params';
      detail.textContent = label.slice(cut);
      th.append(detail);
    }
    th.title = JSON.stringify(configs[index].policy.params);
    head.append(th);
  });

  const body = table.createTBody();
  for (const { title, rows } of summaryRows(reports)) {
    const groupRow = body.insertRow();
    groupRow.className = 'group';
    const groupCell = document.createElement('th');
    groupCell.scope = 'colgroup';
    groupCell.colSpan = reports.length + 1;
    groupCell.textContent = title;
    groupRow.append(groupCell);
    for (const row of rows) {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = row.label;
      th.title = row.title;
      tr.append(th);
      const base = row.get(reports[baseline] ?? reports[0]);
      reports.forEach((report, index) => {
        const td = tr.insertCell();
        const value = row.get(report);
        const [shown, exact] = typeof value === 'number' ? row.format(value) : [String(value), String(value)];
        td.textContent = shown;
        td.title = exact;
        const delta = index !== baseline && row.delta && typeof value === 'number' && typeof base === 'number' ? row.delta(base, value) : '';
        if (delta) {
          const mark = document.createElement('span');
          mark.className = `delta ${delta.startsWith('^') ? 'better' : 'worse'}`;
          mark.textContent = delta;
          td.append(mark);
        }
      });
    }
  }
}

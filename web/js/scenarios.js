// The seed scenarios: questions people asked about allocators, each a set of workloads and
// configurations with claims the numbers must bear out. A scenario runs in the worker as
// `heaplab scenario <id>` would, and opens in the editor to be changed.

import { resolve } from '../pkg/heaplab_wasm.js';
import { $, beginRun, cancelledRun, clearError, endRun, fail, isRunning, messageOf, option, setState, setStatus, showError } from './dom.js';
import { MAX_POLICIES, SERIES_POINTS, lists, scenarioById } from './catalog.js';
import { chartRun, drawChart, forgetChart } from './charts.js';
import { Cancelled, runScenario } from './runner.js';
import { linkFollowsForm, openConfigs, writeScenarioLink } from './state.js';
import { renderSummary } from './tables.js';

// The last scenario run, `{ spec, output, series }`, for switching between its workloads.
let lastScenario = null;

export function forgetScenario() {
  lastScenario = null;
  $('#finding').hidden = true;
  scenarioStatus('');
}

/** The scenario's status next to its button: running, ran, or failed. */
function scenarioStatus(text, state = '') {
  const status = $('#scenario-status');
  status.textContent = text;
  status.dataset.state = state;
}

function workloadLabel(workload) {
  const params = Object.entries(workload.params ?? {}).map(([key, value]) => `${key} ${value}`);
  return params.length ? `${workload.id} (${params.join(', ')})` : workload.id;
}

/** Shows the chosen scenario's question under the menu. */
export function showScenario(id) {
  const spec = scenarioById(id);
  $('#scenario').value = id;
  $('#scenario-question').textContent = spec ? spec.question : '';
}

/**
 * Loads one of a scenario's workloads and its configurations into the editor, each
 * resolved by the core so the editor shows every value the run will use.
 */
export function openScenarioInEditor(id, workloadIndex = 0) {
  const spec = scenarioById(id);
  const workload = spec?.workloads[workloadIndex] ?? spec?.workloads[0];
  if (!workload) throw new Error(`there is no scenario ${JSON.stringify(id)} with a workload to open`);
  const configs = spec.configs
    .slice(0, MAX_POLICIES)
    .map(({ policy }) => resolve({ workload, policy, series_points: SERIES_POINTS }));
  openConfigs(configs);
}

/** The finding: each claim with whether the numbers bear it out. */
function renderFinding(spec, output) {
  $('#finding').hidden = false;
  $('#finding-title').textContent = `Finding: ${output.title}`;
  $('#finding-expected').textContent = `Expected: ${spec.expected}`;
  const list = $('#finding-checks');
  list.replaceChildren();
  for (const check of output.finding.checks) {
    const item = document.createElement('li');
    item.className = check.holds ? 'holds' : 'fails';
    item.textContent = `${check.holds ? '✓' : '✗'} ${check.claim}`;
    list.append(item);
  }
  const select = $('#scenario-workload');
  select.replaceChildren(...spec.workloads.map((workload, index) => option(String(index), workloadLabel(workload))));
  $('#scenario-workload-field').hidden = spec.workloads.length < 2;
}

/** Draws the chart and the table for the runs of one of the scenario's workloads. */
function showScenarioWorkload(index) {
  const { spec, output, series } = lastScenario;
  const per = spec.configs.length;
  const first = index * per;
  const runs = output.runs.slice(first, first + per);
  drawChart(runs.map((run, i) => chartRun(run.label, series[first + i], run)));
  renderSummary(
    runs.map((run) => run.label),
    runs.map((run) => run.config),
    runs,
  );
}

/**
 * Runs scenario `id` and shows its finding, chart and table; its first workload and
 * configurations fill the editor, so the form below shows what ran.
 */
export async function runScenarioNow(id) {
  if (isRunning()) return;
  const spec = scenarioById(id);
  beginRun(`Running scenario ${id}…`);
  forgetScenario();
  forgetChart();
  scenarioStatus(`Running ${id}…`, 'running');
  let editorNote = '';
  try {
    openScenarioInEditor(id);
  } catch (error) {
    editorNote = ` The editor still shows the last form: the scenario did not fit it (${messageOf(error)}).`;
  }
  try {
    writeScenarioLink(id);
    const { output, series } = await runScenario(id);
    lastScenario = { spec, output, series };
    $('#results').hidden = false;
    renderFinding(spec, output);
    showScenarioWorkload(0);
    window.heaplabScenario = output;
    window.heaplabResults = output.runs;
    const verdict = output.finding.holds ? 'the finding holds' : 'the finding does not hold';
    const ran = `Ran scenario ${id}: ${output.runs.length} runs; ${verdict}.`;
    setStatus(`${ran}${editorNote}`);
    scenarioStatus(`${ran} Results shown.`, output.finding.holds ? 'holds' : 'fails');
    setState('done');
  } catch (error) {
    if (error instanceof Cancelled) {
      scenarioStatus(`Scenario ${id} cancelled.`, 'failed');
      cancelledRun();
      return;
    }
    scenarioStatus(`Scenario ${id} failed; see the message beside.`, 'failed');
    fail(error);
  } finally {
    endRun();
  }
}

/** Fills the scenario menu and wires its buttons. */
export function buildScenarios() {
  for (const spec of lists.scenarios) {
    $('#scenario').append(option(spec.id, spec.title, spec.question));
  }
  showScenario(lists.scenarios[0]?.id ?? '');
  $('#scenario').addEventListener('input', () => showScenario($('#scenario').value));
  $('#run-scenario').addEventListener('click', () => runScenarioNow($('#scenario').value));
  $('#edit-scenario').addEventListener('click', () => {
    clearError();
    const id = $('#scenario').value;
    const index = lastScenario?.spec.id === id ? Number($('#scenario-workload').value) : 0;
    try {
      openScenarioInEditor(id, index);
      linkFollowsForm();
    } catch (error) {
      showError(`Scenario ${id} did not fit the editor: ${messageOf(error)}`);
    }
    $('#config').scrollIntoView();
  });
  $('#scenario-workload').addEventListener('input', () => {
    const index = Number($('#scenario-workload').value);
    try {
      showScenarioWorkload(index);
      // The editor follows the workload shown, as it showed the first after the run.
      openScenarioInEditor(lastScenario.spec.id, index);
    } catch (error) {
      showError(`Could not show that workload: ${messageOf(error)}`);
    }
  });
}

// The heaplab page's start-up: loads the wasm module and the core's lists, builds the
// editor and the scenario menu, opens the link in the address bar and runs it, and runs
// the form's configs in the worker when Run is pressed.
//
// The modules depend one way: main on all; scenarios on state, runner and the result
// views (charts, tables); state on editor and trace; editor on params and trace; trace
// on runner; and all of them on dom, format and catalog, which need only the wasm
// module (and dom nothing at all).

import init from '../pkg/heaplab_wasm.js';
import { $, beginRun, clearError, endRun, fail, isRunning, messageOf, onIdle, setState, setStatus, showError } from './dom.js';
import { TRACE_ID, loadLists } from './catalog.js';
import { chartRun, drawChart, forgetChart, redrawOnResize, runLabels } from './charts.js';
import { buildEditor, readForm } from './editor.js';
import { formatCount } from './format.js';
import { runConfigs } from './runner.js';
import { buildScenarios, forgetScenario, openScenarioInEditor, runScenarioNow, showScenario } from './scenarios.js';
import { formLinkState, linkFollowsForm, openLink, writeLink } from './state.js';
import { renderSummary } from './tables.js';
import * as trace from './trace.js';

/** What the import found, for the status line: format, header, and what was skipped. */
function traceNote(report) {
  const found = report?.trace;
  if (!found) return '';
  const formats = { trace: 'heaplab .trace', rep: 'malloc-lab .rep', mtrace: 'glibc mtrace' };
  let note = ` Trace ${report.config.workload.path}: ${formats[found.format] ?? found.format}`;
  if (found.rep_header) note += `, ${found.rep_header} header`;
  if (found.gzip) note += ', gzip';
  note += `, ${formatCount(found.lines)} lines.`;
  if (report.skipped) {
    const kinds = Object.entries(report.skipped);
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    note += total === 0 ? ' Nothing skipped.' : ` Skipped ${total}: ${kinds.map(([kind, n]) => `${n} ${kind}`).join(', ')}.`;
  }
  return note;
}

function onRun(event) {
  event.preventDefault();
  runForm({ writesLink: true });
}

/**
 * Runs the form's configs. `writesLink`: Run rewrites the address from the form; a run
 * of the link the page was opened from leaves the address as it was opened.
 */
async function runForm({ writesLink }) {
  if (isRunning()) return;
  beginRun('Running…');
  forgetScenario();
  forgetChart();
  try {
    const form = readForm();
    const { configs } = form;
    const traceBytes = configs[0].workload.id === TRACE_ID ? await trace.traceInput(form.lenient) : null;
    if (writesLink) {
      try {
        writeLink(formLinkState(form));
      } catch {
        // A config only the run refuses makes no link; the run below says what is wrong.
      }
    }
    const outputs = await runConfigs(configs, traceBytes, (index) =>
      setStatus(`Running policy ${index + 1} of ${configs.length}…`),
    );
    const reports = outputs.map((output) => output.report);
    const labels = runLabels(configs);
    $('#results').hidden = false;
    drawChart(outputs.map((output, index) => chartRun(labels[index], output.series, output.report)));
    renderSummary(labels, configs, reports);
    window.heaplabConfigs = configs;
    window.heaplabResults = reports;
    const count = `${configs.length} ${configs.length === 1 ? 'policy' : 'policies'}`;
    setStatus(`Ran ${count}.${traceNote(reports[0])}`);
    setState('done');
  } catch (error) {
    fail(error);
  } finally {
    endRun();
  }
}

// What the link in the address bar asked to run once the page is free: `{ scenario }`,
// `{ form: true }` for the configurations it filled the editor with, or null.
let pending = null;

/**
 * Opens the link in the address bar; returns the message to show when it could not be
 * opened, in which case the editor shows the defaults. A link runs when opened, as a
 * scenario link always did, unless it names a trace file the page does not have yet:
 * that one waits for the file and Run.
 */
function openAddress() {
  pending = null;
  try {
    const { scenario, runnable } = openLink(window.location.hash);
    if (scenario != null) {
      // A scenario link: the scenario is chosen, its first workload and configurations
      // fill the editor, and it runs as soon as the page is ready.
      showScenario(scenario);
      openScenarioInEditor(scenario);
      pending = { scenario };
    } else if (runnable && window.location.hash.length > 1) {
      pending = { form: true };
    }
    return null;
  } catch (error) {
    openLink('');
    const message = messageOf(error);
    return `${message}${/[.?!]$/.test(message) ? '' : '.'} The page shows its defaults instead.`;
  }
}

/**
 * Starts what the link asked for, unless a run goes on: its end calls this again. A link
 * opens to its results, so the page scrolls to them once shown, from the Run row and its
 * status down.
 */
async function runPending() {
  if (pending === null || isRunning()) return;
  const asked = pending;
  pending = null;
  if (asked.scenario != null) await runScenarioNow(asked.scenario);
  else await runForm({ writesLink: false });
  if (document.body.dataset.state === 'done' && pending === null) $('#config .actions').scrollIntoView({ block: 'start' });
}

function wire() {
  onIdle(runPending);
  buildEditor(linkFollowsForm);
  buildScenarios();
  $('#trace-file').addEventListener('change', () => {
    trace.chooseFile($('#trace-file').files?.[0] ?? null).then(linkFollowsForm, (error) => showError(messageOf(error)));
  });
  const form = $('#config');
  form.addEventListener('submit', onRun);
  form.addEventListener('input', (event) => {
    event.target.removeAttribute?.('aria-invalid');
    linkFollowsForm();
  });
  form.addEventListener('change', linkFollowsForm);

  // Pasting a different permalink into the address bar of an open page only changes
  // the hash, so the form follows it here, and runs it as a link opened afresh would.
  window.addEventListener('hashchange', () => {
    clearError();
    const problem = openAddress();
    if (problem) showError(problem);
    runPending();
  });
  redrawOnResize();
}

async function main() {
  try {
    await init();
    loadLists();
  } catch (error) {
    showError(
      `Could not load the heaplab WebAssembly module (${messageOf(error)}). ` +
        'Build it with `cargo xtask build-wasm`, or serve the page with `cargo xtask serve`.',
    );
    setState('error');
    return;
  }
  wire();
  const problem = openAddress();
  if (problem) {
    showError(problem);
    setState('error');
  } else {
    setState('ready');
    runPending();
  }
}

main();

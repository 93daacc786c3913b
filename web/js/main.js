// The heaplab page's start-up: loads the wasm module and the core's lists, builds the
// editor and the scenario menu, opens the link in the address bar and runs it, and runs
// the form's configs in the worker when Run is pressed.
//
// The modules depend one way: main on all; scenarios on state, runner and the result
// views (charts, tables); state on editor and trace; editor on params and trace; trace
// on runner; and all of them on dom, format and catalog, which need only the wasm
// module (and dom nothing at all).

import init, { link_decode } from '../pkg/heaplab_wasm.js';
import { exportShown } from './export.js';
import { $, beginRun, cancelledRun, clearError, endRun, fail, isRunning, messageOf, onIdle, option, restorePrevious, runsBegun, setProgress, setState, setStatus, showError } from './dom.js';
import { TRACE_ID, loadLists } from './catalog.js';
import { chartKind, chartRun, chartX, chartZoom, drawChart, forgetChart, runLabels, setChartView, wireCharts } from './charts.js';
import { buildEditor, readForm, refreshModuleMenus, showModuleCard, showWorkload } from './editor.js';
import { formatBytes, formatCount } from './format.js';
import * as modules from './modules.js';
import { Cancelled, cancelAll, checkModule, runConfigs } from './runner.js';
import { buildScenarios, forgetScenario, openScenarioInEditor, runScenarioNow, showScenario } from './scenarios.js';
import { formLinkState, linkFollowsForm, openLink, setViewBaseline, setViewChart, setViewSweep, viewBaseline, viewChart, viewSweep, writeLink } from './state.js';
import { buildSweep, offerPhaseMetrics, refreshSweepMenus, runSweep, showSweepControls } from './sweep.js';
import { renderSummary } from './tables.js';
import { buildTeach, openTeach, openTeachFromLink } from './teach/panel.js';
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
  // As `heaplab run` warns: an empty recording is not a program that used no memory.
  if (report.events === 0) note += ` ${report.config.workload.path} holds no events: every figure is zero.`;
  if (report.skipped) {
    const kinds = Object.entries(report.skipped);
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    note += total === 0 ? ' Nothing skipped.' : ` Skipped ${total}: ${kinds.map(([kind, n]) => `${n} ${kind}`).join(', ')}.`;
  }
  return note;
}

function onRun(event) {
  event.preventDefault();
  restart();
}

// The form's run (or a sweep a trace file started) in progress, if any: a new request
// cancels it and waits for its end, so Run (or an edit under auto-run) always runs the
// form as it stands now.
let active = null;
// Set while a run is cancelled to make way for a new one, which the page then shows: the
// cancelled run neither reports "Cancelled" nor settles the page's state.
let superseded = false;

async function restart(start = () => runForm({ writesLink: true })) {
  clearTimeout(autoTimer);
  if (active) {
    superseded = true;
    cancelAll();
    await active;
    superseded = false;
  }
  if (isRunning()) return; // A scenario runs: its end starts nothing, Run is pressed again.
  active = start();
  await active;
  active = null;
}

// Auto-run: a change re-runs by itself after this pause, when the last run of the same
// workload had at most AUTO_RUN_EVENTS events; a larger one waits for Run.
const AUTO_RUN_DELAY_MS = 300;
const AUTO_RUN_EVENTS = 2_000_000;
let autoTimer = 0;
// The workload of the last finished run and its event count, `{ key, events }`.
let lastRun = null;
// The last finished run's labels, configs and outputs, for the baseline menu and export.
let shown = null;

function workloadKey(configs) {
  return JSON.stringify(configs[0]?.workload ?? null);
}

// The trace file's own switches: ticking one reads the trace the page holds again, as
// choosing the file does, so it runs whatever the trace's length.
const TRACE_SWITCHES = new Set(['lenient', 'strict']);

/**
 * After an edit of `field`: re-runs soon if auto-run is on and the workload is known to
 * be small, or the edit is a trace switch of a trace the page holds.
 */
function scheduleAutoRun(field = null) {
  clearTimeout(autoTimer);
  if (!$('#auto-run').checked) return;
  let form;
  try {
    form = readForm();
  } catch {
    return; // A field the run would refuse: the field or Run says what is wrong.
  }
  const traceSwitch = TRACE_SWITCHES.has(field?.id) && trace.hasTrace();
  const small = lastRun && lastRun.key === workloadKey(form.configs) && lastRun.events <= AUTO_RUN_EVENTS;
  if (!small && !traceSwitch) {
    if (lastRun) setStatus('Changed: press Run (auto-run waits for a new or large workload).');
    return;
  }
  const begun = runsBegun();
  autoTimer = setTimeout(() => {
    // A scenario or a sweep that ran meanwhile has its own results on screen.
    if (runsBegun() === begun) (traceSwitch ? runShown : restart)();
  }, AUTO_RUN_DELAY_MS);
}

/**
 * Runs again what the results column is for: the sweep when the page shows one (or a
 * link opened one that waits for its trace), else the comparison.
 */
function runShown() {
  return viewSweep() ? restart(() => runSweep()) : restart();
}

/**
 * The results of another workload: gone from view (and from the test hooks) once a new
 * trace is chosen, so that no chart stands under "Trace file…" that is not the trace's.
 */
function forgetResults() {
  shown = null;
  forgetChart();
  $('#results').hidden = true;
  $('#sweep-results').hidden = true;
  delete window.heaplabResults;
  delete window.heaplabConfigs;
  delete window.heaplabSweep;
}

/**
 * A trace file chosen in "Trace file…" or dropped on the page: the form's workload from
 * now on. A file the page refuses (over its limits, unreadable) is named at the file
 * input and the page keeps what it showed. Otherwise, with auto-run on, the trace runs
 * (the sweep, when the page is on one). The results of a built-in workload are cleared
 * at once, since they say nothing of a trace; those of a trace that ran stay until the
 * new one has run, so a file whose run is refused leaves them, and that trace, in place.
 */
async function takeTraceFile(file) {
  clearError();
  try {
    await trace.chooseFile(file);
  } catch (error) {
    // The page keeps what it showed; the message and the file input say what is wrong.
    showError(messageOf(error));
    error.input?.setAttribute('aria-invalid', 'true');
    return;
  } finally {
    linkFollowsForm();
  }
  if (!file) return;
  // Without auto-run, what is shown would stand under a file it is not of until Run.
  if (!trace.choseAnother() || viewSweep() || !$('#auto-run').checked) forgetResults();
  if ($('#auto-run').checked) {
    runShown();
  } else {
    setStatus(`${file.name} is chosen: press ${viewSweep() ? 'Run sweep' : 'Run'} to run it.`);
  }
}

/** Fills the baseline menu with the configurations that ran, keeping the choice. */
function showBaselineMenu(labels, baseline) {
  const menu = $('#baseline');
  menu.replaceChildren(...labels.map((label, index) => option(index, label)));
  menu.value = String(Math.min(baseline, labels.length - 1));
  menu.closest('.table-head').hidden = labels.length < 2;
}

function renderShown() {
  const { labels, configs, outputs } = shown;
  const baseline = Number($('#baseline').value) || 0;
  renderSummary(labels, configs, outputs.map((output) => output.report), baseline);
}

/**
 * Runs the form's configs. `writesLink`: Run rewrites the address from the form; a run
 * of the link the page was opened from leaves the address as it was opened.
 */
async function runForm({ writesLink }) {
  if (isRunning()) return;
  clearTimeout(autoTimer);
  beginRun('Running…');
  // Whether this is the first run of a trace chosen after another one had run.
  let newTrace = false;
  try {
    const form = readForm();
    const { configs } = form;
    newTrace = configs[0].workload.id === TRACE_ID && trace.choseAnother();
    const traceFile = configs[0].workload.id === TRACE_ID ? await trace.traceInput(form) : null;
    if (writesLink) {
      try {
        writeLink(formLinkState(form));
      } catch {
        // A config only the run refuses makes no link; the run below says what is wrong.
      }
    }
    setStatus(`Running ${configs.length} ${configs.length === 1 ? 'configuration' : 'configurations'}…`);
    // A re-run of the workload last run knows its length, so the bar follows the
    // events; a new workload's bar follows the configurations as they finish, and a
    // trace's the bytes read.
    const expected = lastRun?.key === workloadKey(configs) ? lastRun.events : null;
    const outputs = await runConfigs(
      configs,
      traceFile,
      ({ share, bytesRead, bytesTotal }) => {
        setProgress(share);
        setStatus(
          bytesTotal
            ? `Read ${formatBytes(bytesRead)} of ${formatBytes(bytesTotal)} of the trace…`
            : `Running ${configs.length} ${configs.length === 1 ? 'configuration' : 'configurations'}: ${Math.floor(share * 100)}%…`,
        );
      },
      { expectedEvents: expected },
    );
    // A trace hashed by this run (a large file's first) is named by its hash from now on.
    if (writesLink && traceFile?.hash) linkFollowsForm();
    forgetScenario();
    // The comparison takes the results column back from a sweep.
    $('#sweep-results').hidden = true;
    $('#results').hidden = false;
    setViewSweep(null);
    const reports = outputs.map((output) => output.report);
    const labels = runLabels(configs);
    shown = { labels, configs, outputs };
    // A zoom into one workload's events means nothing for another's.
    if (lastRun && lastRun.key !== workloadKey(configs) && chartZoom()) {
      setChartView({ chart: chartKind(), zoom: null, x: chartX() });
      setViewChart(chartKind(), null, chartX());
      if (writesLink) linkFollowsForm();
    }
    lastRun = { key: workloadKey(configs), events: reports[0]?.events ?? Infinity };
    drawChart(outputs.map((output, index) => chartRun(labels[index], output.series, output.report)));
    showBaselineMenu(labels, viewBaseline());
    offerPhaseMetrics((reports[0]?.phases ?? []).map((phase) => phase.label));
    renderShown();
    window.heaplabConfigs = configs;
    window.heaplabResults = reports;
    if (traceFile) trace.markRan();
    const count = `${configs.length} ${configs.length === 1 ? 'configuration' : 'configurations'}`;
    setStatus(`Ran ${count}, ${formatCount(reports[0]?.events ?? 0)} events each.${traceNote(reports[0])}`);
    setState('done');
  } catch (error) {
    if (error instanceof Cancelled && superseded) restorePrevious();
    else if (error instanceof Cancelled) cancelledRun();
    else {
      fail(error);
      if (newTrace) keepTraceThatRan();
    }
  } finally {
    endRun();
  }
}

/**
 * After the first run of a newly chosen trace failed: the trace that ran before is the
 * form's again, with its results, which stayed on screen, back in the test hooks. With
 * no trace run before, nothing of a trace is left to show.
 */
function keepTraceThatRan() {
  const refused = trace.traceName();
  const kept = trace.backToRan();
  if (kept === null) {
    forgetResults();
    return;
  }
  const { results } = restorePrevious();
  linkFollowsForm();
  setStatus(
    results
      ? `${refused} did not run; the results shown are still those of ${kept}, which stays loaded.`
      : `${refused} did not run; ${kept} stays loaded: press Run to run it.`,
  );
}

/** The export menu's downloads, of what the results column shows (see export.js). */
async function exportFile(kind) {
  if (!(await exportShown(kind, shown))) showError('Nothing to export yet: run the configurations first.');
}

/**
 * What whoever opens the page's link sees, as a sentence: this run, or, when the link
 * names files it does not carry (a trace over what a link holds, your allocator's module),
 * that they must choose those files again. Read from the link itself, by the core's codec.
 */
function linkPromise() {
  let state;
  try {
    state = link_decode(window.location.hash);
  } catch {
    return 'whoever opens it sees this run';
  }
  const named = [];
  if (state.workload?.trace?.name) named.push(`the trace file ${state.workload.trace.name}`);
  for (const ref of state.modules ?? []) if (!ref.base64) named.push(`the allocator ${ref.name}`);
  if (named.length === 0) return 'whoever opens it sees this run';
  return `it names ${named.join(' and ')} without carrying ${named.length === 1 ? 'it' : 'them'}, so whoever opens it must choose ${named.length === 1 ? 'that file' : 'those files'} again to run it`;
}

async function copyLink() {
  linkFollowsForm();
  window.heaplabLink = window.location.href;
  const promise = linkPromise();
  try {
    await navigator.clipboard.writeText(window.location.href);
    setStatus(`Link copied: ${promise}.`);
  } catch {
    // Clipboard access needs a secure context and permission; the address bar has it.
    setStatus(`Link (${promise}): ${window.location.href}`);
  }
}

/**
 * Your own allocator's module file, chosen or dropped: checked by a worker, it becomes a
 * configuration of its own (or the module a link waited for) and runs.
 */
async function loadModule(file) {
  clearError();
  let info;
  let awaited;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    awaited = modules.awaitedBy(file.name, bytes);
    info = await checkModule(file.name, bytes);
    modules.addModule(info, bytes);
  } catch (error) {
    showError(`Your allocator › ${messageOf(error)}`);
    return;
  }
  if (awaited) refreshModuleMenus();
  else showModuleCard(info.sha256);
  refreshSweepMenus();
  linkFollowsForm();
  setStatus(`Loaded your allocator ${info.name} (${formatCount(info.bytes)} bytes).`);
  if (modules.missingModules().length === 0) restart();
}

/** A trace dropped anywhere on the page becomes the workload; a `.wasm`, a configuration. */
function wireDrop() {
  const zone = $('#drop-zone');
  let depth = 0;
  const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  window.addEventListener('dragenter', (event) => {
    if (!hasFiles(event)) return;
    depth += 1;
    zone.hidden = false;
  });
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.hidden = true;
  });
  window.addEventListener('dragover', (event) => {
    if (hasFiles(event)) event.preventDefault();
  });
  window.addEventListener('drop', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    zone.hidden = true;
    const file = event.dataTransfer.files?.[0];
    if (!file) return;
    if (/\.wasm$/i.test(file.name)) {
      loadModule(file);
      return;
    }
    showWorkload(TRACE_ID, {});
    takeTraceFile(file);
  });
}

// What the link in the address bar asked to run once the page is free: `{ scenario }`,
// `{ form: true }` for the configurations it filled the editor with, or null.
let pending = null;

/**
 * Opens the link in the address bar; returns the message to show when it could not be
 * opened. Then the page as it first opens shows its defaults, and an open page (`keep`,
 * a link pasted into its address bar) keeps its editor, its results and its last good
 * address. A link runs when opened, as a scenario link always did, unless it names a
 * trace file the page does not have yet: that one waits for the file and Run.
 */
function openAddress({ keep = false } = {}) {
  pending = null;
  try {
    const { scenario, runnable } = openLink(window.location.hash);
    setChartView(viewChart());
    if (scenario != null) {
      // A scenario link: the scenario is chosen, its first workload and configurations
      // fill the editor, and it runs as soon as the page is ready.
      showScenario(scenario);
      openScenarioInEditor(scenario);
      pending = { scenario };
    } else if (viewSweep()) {
      // A sweep's link opens the sweep in its controls and runs it; one that names a
      // trace file the page does not hold runs it once the file is chosen.
      showSweepControls(viewSweep());
      if (runnable) pending = { sweep: viewSweep() };
    } else if (runnable) {
      // A link runs when opened; so does the bare page, which opens on its defaults'
      // results rather than on an empty chart.
      pending = { form: true };
    }
    // A link that waits for a file has no results yet; those of an earlier link are not its.
    if (scenario == null && !runnable) forgetResults();
    const waiting = modules.waitingNote();
    if (waiting) setStatus(waiting);
    return null;
  } catch (error) {
    const message = messageOf(error);
    const end = /[.?!]$/.test(message) ? '' : '.';
    if (keep && window.heaplabLink) {
      history.replaceState(null, '', window.heaplabLink);
      return `${message}${end} The page keeps what it showed.`;
    }
    openLink('');
    setChartView(viewChart());
    return `${message}${end} The page shows its defaults instead.`;
  }
}

/**
 * Starts what the link asked for, unless a run goes on: its end calls this again. A link
 * opens to its results, which the results column shows beside the editor.
 */
async function runPending() {
  if (pending === null || isRunning()) return;
  const asked = pending;
  pending = null;
  if (asked.scenario != null) await runScenarioNow(asked.scenario);
  else if (asked.sweep) await runSweep(asked.sweep);
  else {
    active = runForm({ writesLink: false });
    await active;
    active = null;
  }
}

function wire() {
  onIdle(runPending);
  buildEditor(() => {
    refreshSweepMenus();
    linkFollowsForm();
    scheduleAutoRun();
  });
  buildSweep();
  buildScenarios();
  $('#trace-file').addEventListener('change', () => takeTraceFile($('#trace-file').files?.[0] ?? null));
  $('#module-file').addEventListener('change', () => {
    const file = $('#module-file').files?.[0];
    // The same file chosen again after a rebuild must fire "change" again.
    if (file) loadModule(file).finally(() => ($('#module-file').value = ''));
  });
  const form = $('#config');
  form.addEventListener('submit', onRun);
  form.addEventListener('input', (event) => {
    // A parameter's field and the clock's rate say themselves whether their text is
    // refused (params.js, clock.js); any other field a run refused is taken to be fixed
    // once edited.
    if (!event.target.dataset?.param && !event.target.dataset?.clock) event.target.removeAttribute?.('aria-invalid');
    linkFollowsForm();
    scheduleAutoRun(event.target);
  });
  form.addEventListener('change', (event) => {
    linkFollowsForm();
    scheduleAutoRun(event.target);
  });
  $('#cancel').addEventListener('click', () => cancelAll());
  $('#baseline').addEventListener('change', () => {
    setViewBaseline(Number($('#baseline').value) || 0);
    if (shown) renderShown();
    linkFollowsForm();
  });
  $('#copy-link').addEventListener('click', copyLink);
  for (const button of document.querySelectorAll('[data-export]')) {
    button.addEventListener('click', () => {
      $('#export').open = false;
      exportFile(button.dataset.export).catch((error) => showError(`Could not export: ${messageOf(error)}`));
    });
  }
  wireDrop();

  // Pasting a different permalink into the address bar of an open page only changes
  // the hash, so the form follows it here, and runs it as a link opened afresh would.
  window.addEventListener('hashchange', () => {
    clearError();
    const problem = openAddress({ keep: true });
    if (problem) showError(problem);
    else openTeachFromLink();
    runPending();
  });
  wireCharts(
    () => {
      setViewChart(chartKind(), chartZoom(), chartX());
      linkFollowsForm();
    },
    // A click on a timeline steps through the run from the event under the pointer.
    (event) => {
      $('#teach').scrollIntoView({ block: 'start' });
      openTeach({ event });
    },
  );
  buildTeach();
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
  refreshSweepMenus();
  if (problem) {
    showError(problem);
    setState('error');
  } else {
    setState('ready');
    openTeachFromLink();
    runPending();
  }
}

main();

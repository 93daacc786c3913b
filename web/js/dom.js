// Small helpers every part of the page shares: element lookup, the status line, the
// error box, and the page state the browser test waits on.
//
// Test contract (the browser tests in web/tests rely on it, keep it exact):
// `document.body.dataset.state` is "loading" until start-up ends, "ready" once the
// page can run, "running" while runs are in progress, then "done" or "error".

export const $ = (selector, root = document) => root.querySelector(selector);

/** An invalid form value, carrying the input so it can be highlighted and focused. */
export class FieldError extends Error {
  constructor(message, input) {
    super(message);
    this.input = input;
  }
}

export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

export function setState(state) {
  document.body.dataset.state = state;
}

export function isRunning() {
  return document.body.dataset.state === 'running';
}

export function setStatus(text) {
  const status = $('#status');
  status.textContent = text;
}

export function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = false;
}

export function clearError() {
  const box = $('#error');
  box.textContent = '';
  box.hidden = true;
  for (const input of document.querySelectorAll('[aria-invalid="true"]')) {
    input.removeAttribute('aria-invalid');
  }
}

/**
 * Starts a run: clears the last error and results, which must not be mistaken for this
 * run's if it fails, and disables the buttons that would start another.
 *
 * Test contract: `window.heaplabResults` holds the report objects exactly as the module
 * returned them, `window.heaplabConfigs` the configs that produced them, in order, and
 * `window.heaplabScenario` a scenario's whole output; all three are unset while a run
 * is in progress.
 */
export function beginRun(status) {
  started += 1;
  clearError();
  previous = { results: window.heaplabResults, configs: window.heaplabConfigs, scenario: window.heaplabScenario };
  setState('running');
  delete window.heaplabResults;
  delete window.heaplabConfigs;
  delete window.heaplabScenario;
  $('#run').disabled = true;
  $('#run-scenario').disabled = true;
  $('#cancel').hidden = false;
  const bar = $('#progress');
  bar.value = 0;
  bar.hidden = false;
  setStatus(status);
}

// How many runs have begun: a change waiting to re-run the form checks that no other run
// (a scenario, a sweep, a link) began meanwhile and replaced what the form was about.
let started = 0;

/** The number of runs begun so far. */
export function runsBegun() {
  return started;
}

// What the last finished run left, kept while another runs so that Cancel can put it back.
let previous = {};

/** Shows the share of the run done, 0 to 1. */
export function setProgress(share) {
  $('#progress').value = Math.max(0, Math.min(1, share));
}

/**
 * Puts back the test hooks of the run before the one that was cancelled, and returns
 * them; the state is left to the caller (a run that supersedes the cancelled one keeps
 * "running" until its own end).
 */
export function restorePrevious() {
  const { results, configs, scenario } = previous;
  if (results !== undefined) window.heaplabResults = results;
  if (configs !== undefined) window.heaplabConfigs = configs;
  if (scenario !== undefined) window.heaplabScenario = scenario;
  return previous;
}

/**
 * Ends a cancelled run: the results of the run before stay on screen and in the test
 * hooks, as they were.
 */
export function cancelledRun() {
  const { results, scenario } = restorePrevious();
  setStatus(results || scenario ? 'Cancelled; the results shown are those of the run before.' : 'Cancelled.');
  setState(results || scenario ? 'done' : 'ready');
}

// Called once a run has ended, so a run asked for meanwhile (a link pasted into the
// address bar) starts then rather than being dropped.
let whenIdle = () => {};

export function onIdle(callback) {
  whenIdle = callback;
}

export function endRun() {
  $('#run').disabled = false;
  $('#run-scenario').disabled = false;
  $('#cancel').hidden = true;
  $('#progress').hidden = true;
  whenIdle();
}

/** Shows a failed run's message, marks the field it names, and leaves the page usable. */
export function fail(error) {
  showError(messageOf(error));
  setStatus('');
  if (error instanceof FieldError && error.input) {
    error.input.setAttribute('aria-invalid', 'true');
    error.input.focus();
  }
  setState('error');
}

export function option(value, text, title = '') {
  const element = document.createElement('option');
  element.value = String(value);
  element.textContent = text;
  if (title) element.title = title;
  return element;
}

/** A configuration's letter: A for the first, which the others are compared with by default. */
export function configLetter(index) {
  return String.fromCharCode(65 + index);
}

/**
 * A configuration as messages name it, by the title its card shows and what it runs
 * (`Configuration B (llvm-bump)`), so a message points at what the page shows.
 */
export function configName(index, policy) {
  return `Configuration ${configLetter(index)} (${policy})`;
}

/**
 * Sizes a canvas in device pixels to its laid-out size, so lines and text stay sharp on
 * high-DPI screens; its CSS size comes from the stylesheet.
 */
export function fitCanvas(canvas) {
  const box = canvas.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(box.width * ratio));
  canvas.height = Math.max(1, Math.round(box.height * ratio));
}

// The page's state and its permalink, through the core's link codec: the form becomes run
// configs, `link_from_configs` and `link_encode` make the fragment, and `link_decode` and
// `link_configs` make configs of any link again. The page keeps no codec of its own, so a
// link it writes is one `heaplab run --link` reads, and one the CLI prints opens here.

import { link_configs, link_decode, link_encode, link_from_configs } from '../pkg/heaplab_wasm.js';
import { SERIES_POINTS, TRACE_ID } from './catalog.js';
import { readForm, showConfigs } from './editor.js';
import * as modules from './modules.js';
import * as trace from './trace.js';

// How the page shows its runs: the baseline the table compares with, and what else a link
// said of the view (chart, zoom), passed on while it still fits the configurations.
let view = null;

/**
 * The link state of the form as `readForm` read it (by default, as it stands now); throws
 * a `FieldError` for a bad field.
 */
export function formLinkState(form = readForm()) {
  const { configs, lenient, strict } = form;
  const state = link_from_configs(configs);
  const refs = modules.linkModules(configs);
  if (refs.length > 0) state.modules = refs;
  if (configs[0].workload.id === TRACE_ID) state.workload = trace.linkWorkload();
  if (lenient) state.lenient = true;
  if (strict) state.strict = true;
  if (view) state.view = view;
  return state;
}

/**
 * The fragment for `state`, checked by reading it back: a link the core would not open
 * is no link. What the page added beyond the configs gives way first: a view that no
 * longer fits (its baseline removed), then an embedded trace that escapes to more than a
 * link may inflate to, which the link then names instead.
 */
function fragmentOf(state) {
  const fragment = link_encode(state);
  try {
    link_decode(fragment);
    return fragment;
  } catch (error) {
    if (state.view) {
      view = null;
      delete state.view;
      return fragmentOf(state);
    }
    if (state.workload?.embedded) {
      trace.dropEmbedding();
      state.workload = trace.linkWorkload();
      return fragmentOf(state);
    }
    if (state.modules?.some((ref) => ref.base64)) {
      state.modules = modules.namedOnly(state.modules);
      return fragmentOf(state);
    }
    throw error;
  }
}

/**
 * Writes the link for `state` into the address bar. replaceState rather than assigning
 * location.hash: editing a field should not add a history entry or fire the page's own
 * hashchange handler.
 */
export function writeLink(state) {
  history.replaceState(null, '', `#${fragmentOf(state)}`);
  // Test contract: the link that opens what the page shows now.
  window.heaplabLink = window.location.href;
}

/** The configuration the comparison table reads the others against, by index. */
export function viewBaseline() {
  return view?.baseline ?? 0;
}

/**
 * The chart, zoom and x axis a link named (`view.chart`, `view.zoom`, `view.x`), for the
 * chart to show.
 */
export function viewChart() {
  return { chart: view?.chart ?? 'memory', zoom: view?.zoom ?? null, x: view?.x ?? 'events' };
}

/**
 * Shows chart `kind` zoomed to `zoom` (or the whole run) over `x` ("events" or "time");
 * the link carries all three.
 */
export function setViewChart(kind, zoom, x = 'events') {
  view = { ...(view ?? {}) };
  if (kind === 'memory') delete view.chart;
  else view.chart = kind;
  if (zoom) view.zoom = zoom;
  else delete view.zoom;
  if (x === 'time') view.x = x;
  else delete view.x;
  if (Object.keys(view).length === 0) view = null;
}

/** The sweep the page shows (`view.sweep`: config, param, values, metric), or null. */
export function viewSweep() {
  return view?.sweep ?? null;
}

/** Shows a sweep (or none); the link carries it from the next write on. */
export function setViewSweep(sweep) {
  view = { ...(view ?? {}) };
  if (sweep) {
    view.sweep = sweep;
    view.chart = 'sweep';
  } else {
    delete view.sweep;
    if (view.chart === 'sweep') delete view.chart;
  }
  if (Object.keys(view).length === 0) view = null;
}

/** Where the teaching panel stands (`view.teach`: event, config, page), or null. */
export function viewTeach() {
  return view?.teach ?? null;
}

/** Sets the teaching position (or none); the link carries it from the next write on. */
export function setViewTeach(teach) {
  view = { ...(view ?? {}) };
  if (teach) view.teach = teach;
  else delete view.teach;
  if (Object.keys(view).length === 0) view = null;
}

/** Chooses the baseline; the link carries it from the next write on. */
export function setViewBaseline(index) {
  view = { ...(view ?? {}) };
  if (index > 0) view.baseline = index;
  else delete view.baseline;
  if (Object.keys(view).length === 0) view = null;
}

/** The link to a seed scenario, which opens the page on it and runs it. */
export function writeScenarioLink(id) {
  view = null;
  writeLink({ scenario: id });
}

/**
 * Keeps the link current while the user edits. A form the run would refuse leaves the
 * link as it was: it still opens the last valid state, and the Run button says what is
 * wrong.
 */
export function linkFollowsForm() {
  try {
    writeLink(formLinkState());
  } catch {
    // Nothing to do: the link keeps the last state that was valid.
  }
}

/**
 * Opens a link (a URL, a fragment, or '' for the defaults): returns `{ scenario }` when
 * it names a seed scenario to run, else fills the editor from it and returns
 * `{ runnable }`, whether the page has all the link runs (not so for a trace file or an
 * allocator module the link only names, until it is loaded). Throws the core's Error, whose message starts
 * with `link:` and names what is wrong.
 */
export function openLink(text) {
  const state = link_decode(text);
  window.heaplabLink = window.location.href;
  if (state.scenario != null) return { scenario: state.scenario };
  const configs = link_configs(state, SERIES_POINTS);
  trace.fromLink(state.workload);
  modules.fromLink(state.modules);
  view = state.view ?? null;
  showConfigs(configs, state.lenient === true, state.strict === true);
  const hasModules = modules.modulesOfLink(configs);
  return { runnable: (configs[0].workload.id !== TRACE_ID || trace.hasTrace()) && hasModules };
}

/** Shows configs that came from elsewhere than a link (a scenario opened in the editor). */
export function openConfigs(configs) {
  view = null;
  trace.forgetLinkedTrace();
  showConfigs(configs);
}

// The heaplab page: builds the form from the wasm catalog, runs the chosen configs in
// a worker, and shows a chart and a summary table.
//
// A trace file is a workload too: the config says `{ id: "trace", path: NAME }` and the
// page keeps the file's bytes, which the worker hands to the wasm `run_trace`. A link
// carries the file's name but never its content, and the page says so.
//
// Test contract (web/tests/browser.test.mjs relies on it, keep it exact):
// - `document.body.dataset.state` is "running" while runs are in progress, then
//   "done" or "error";
// - `window.heaplabResults` holds the Report objects exactly as `run` returned them,
//   and `window.heaplabConfigs` the config objects that produced them, in order.

import init, { catalog as readCatalog, draw_chart, scenarios as readScenarios } from './pkg/heaplab_wasm.js';

const MAX_POLICIES = 4;
// Enough points for a smooth line at any realistic canvas width, few enough that
// posting four runs from the worker stays cheap.
const SERIES_POINTS = 2000;
const HASH_PREFIX = '#c=';
// A link to a seed scenario: `#s=<id>` opens the page on it and runs it.
const SCENARIO_PREFIX = '#s=';
// The permalink format's version; bump it and add a step to `migrate` whenever the
// shape of the stored state changes, so old links keep working.
const STATE_VERSION = 1;

// Summary rows in reading order, grouped; fields a report has beyond these are listed
// at the end, so a counter added to the core shows up without a page change.
const SUMMARY_GROUPS = [
  {
    title: 'Workload',
    fields: { events: 'Events', allocs: 'Allocations', frees: 'Frees', reallocs: 'Reallocations' },
  },
  {
    title: 'Memory',
    fields: {
      peak_live_bytes: 'Peak live',
      end_live_bytes: 'Live at end',
      peak_resident_bytes: 'Peak resident',
      end_resident_bytes: 'Resident at end',
      peak_committed_bytes: 'Peak committed',
      end_committed_bytes: 'Committed at end',
      peak_reserved_bytes: 'Peak reserved',
      end_reserved_bytes: 'Reserved at end',
      touched_bytes: 'Touched',
      metadata_bytes: 'Allocator metadata',
      utilization: 'Utilization',
    },
  },
  {
    title: 'Page provider calls',
    fields: {
      reserve_ops: 'Reserve',
      commit_ops: 'Commit',
      decommit_ops: 'Decommit',
      release_ops: 'Release',
      page_ops: 'All page calls',
      committed_pages_total: 'Pages committed',
      decommitted_pages_total: 'Pages decommitted',
    },
  },
];

const $ = (selector, root = document) => root.querySelector(selector);

let catalog = null;
let worker = null;
// The trace file chosen in the form, a File (its bytes are read at each run).
let traceFile = null;
let runCounter = 0;
// The last successful runs, kept so a window resize can redraw the chart crisply.
let lastChartRuns = null;
// The seed scenarios, and the last one run with its output, for switching workloads.
let scenarioSpecs = [];
let lastScenario = null;
// A scenario a link asked for, run once the page is ready.
let pendingScenario = null;

/** An invalid form value, carrying the input so it can be highlighted and focused. */
class FieldError extends Error {
  constructor(message, input) {
    super(message);
    this.input = input;
  }
}

function setState(state) {
  document.body.dataset.state = state;
}

function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = false;
}

function clearError() {
  const box = $('#error');
  box.textContent = '';
  box.hidden = true;
  for (const input of document.querySelectorAll('[aria-invalid="true"]')) {
    input.removeAttribute('aria-invalid');
  }
}

function setStatus(text) {
  $('#status').textContent = text;
}

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------
// Formatting

function formatBytes(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} B`;
  // About three significant digits is enough to compare policies; the exact value
  // is always in the tooltip.
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

function formatExact(value) {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

/** Returns `[shown, tooltip]` for one summary cell. */
function formatField(key, value) {
  if (typeof value !== 'number') return [String(value), String(value)];
  if (key.endsWith('_bytes')) return [formatBytes(value), `${formatExact(value)} bytes`];
  if (key === 'utilization' && value >= 0 && value <= 1) {
    return [`${(value * 100).toFixed(1)} %`, String(value)];
  }
  if (Number.isInteger(value)) return [formatExact(value), String(value)];
  return [String(Number(value.toPrecision(4))), String(value)];
}

function fieldLabel(key) {
  const words = key.replace(/_bytes$/, '').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The summary's row groups: known fields in order, then any others, then the
 * allocator's own counters and memory at the end of each phase. A row is
 * `[key, label, get]`, `get` reading its value from one report.
 */
function summaryRows(reports) {
  const report = reports[0];
  const field = (key) => (r) => r[key];
  const numeric = Object.keys(report).filter((key) => typeof report[key] === 'number');
  const groups = SUMMARY_GROUPS.map(({ title, fields }) => ({
    title,
    rows: Object.entries(fields)
      .filter(([key]) => numeric.includes(key))
      .map(([key, label]) => [key, label, field(key)]),
  }));
  const known = new Set(SUMMARY_GROUPS.flatMap(({ fields }) => Object.keys(fields)));
  const others = numeric.filter((key) => !known.has(key)).sort();
  groups.push({ title: 'Other', rows: others.map((key) => [key, fieldLabel(key), field(key)]) });
  // Pike-style counters (num_malloc, malloc_bytes, ...): every name any policy reports.
  const counters = [...new Set(reports.flatMap((r) => Object.keys(r.counters ?? {})))].sort();
  groups.push({
    title: 'Allocator counters',
    rows: counters.map((name) => [name, name, (r) => r.counters?.[name] ?? '—']),
  });
  // Resident memory after each phase, the `ps` after each step of scenario S4.
  const phases = (report.phases ?? []).map((phase) => phase.label);
  groups.push({
    title: 'Resident at the end of each phase',
    rows: phases.map((label, i) => [
      'resident_bytes',
      label,
      (r) => (r.phases?.[i]?.label === label ? r.phases[i].resident_bytes : '—'),
    ]),
  });
  return groups.filter(({ rows }) => rows.length > 0);
}

// ---------------------------------------------------------------------------------
// Parameter editors

function option(value, text, title = '') {
  const element = document.createElement('option');
  element.value = String(value);
  element.textContent = text;
  if (title) element.title = title;
  return element;
}

function isNumericKind(kind) {
  return kind === 'int' || kind === 'float' || kind === 'bytes';
}

/** Whether `value` can be shown in the editor for `param` as it is. */
function fitsParam(param, value) {
  switch (param.kind) {
    case 'bool':
      return typeof value === 'boolean';
    case 'choice':
      return typeof value === 'string' && (param.choices ?? []).includes(value);
    case 'text':
      return typeof value === 'string';
    default:
      return typeof value === 'number' && Number.isFinite(value);
  }
}

/** Builds one labelled editor; `value` has already been checked with `fitsParam`. */
function paramField(param, value) {
  const field = document.createElement('label');
  field.className = `field param param-${param.kind}`;
  if (param.doc) field.title = param.doc;

  // The name stays on one line so editors side by side line up; units and size
  // notes go in the hint under the input.
  const name = document.createElement('span');
  name.className = 'field-name';
  name.textContent = param.name;
  field.append(name);

  let input;
  if (param.kind === 'bool') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = value;
  } else if (param.kind === 'text') {
    input = document.createElement('input');
    input.type = 'text';
    input.spellcheck = false;
    if (param.max != null) input.maxLength = param.max;
    input.value = value;
  } else if (param.kind === 'choice') {
    input = document.createElement('select');
    for (const choice of param.choices ?? []) input.append(option(choice, choice));
    input.value = value;
  } else {
    input = document.createElement('input');
    input.type = 'number';
    // "any" lets floats take any precision; integers step by one so the spinner
    // arrows never produce a fraction the simulation would refuse.
    input.step = param.kind === 'float' ? 'any' : '1';
    if (param.min != null) input.min = String(param.min);
    if (param.max != null) input.max = String(param.max);
    input.value = String(value);
  }
  input.dataset.param = param.name;
  field.append(input);

  const hint = document.createElement('span');
  hint.className = 'hint';
  // Where 0 stands for something else (a size worked out from other knobs, or "off"),
  // the hint says what, rather than "0 B".
  const zero = (text) => param.zero_means && text !== '' && Number(text) === 0;
  if (param.kind === 'bytes') {
    const note = param.power_of_two ? ' · power of 2' : '';
    // The size in units while the value fits; otherwise why the run will refuse it, so
    // that a negative or misshapen size never reads as a size.
    const update = () => {
      const text = input.value.trim();
      const problem = text === '' ? null : numberProblem(param, text);
      hint.classList.toggle('refused', problem != null);
      if (problem) hint.textContent = `not allowed: ${problem}`;
      else if (zero(text)) hint.textContent = `= ${param.zero_means}`;
      else hint.textContent = (text === '' ? '' : `= ${formatBytes(Number(text))}`) + note;
    };
    update();
    input.addEventListener('input', update);
    field.append(hint);
  } else if (param.unit || param.zero_means) {
    const update = () => {
      const text = input.value.trim();
      hint.textContent = zero(text) ? `= ${param.zero_means}` : param.unit;
    };
    update();
    input.addEventListener('input', update);
    field.append(hint);
  }
  if (param.doc) {
    const doc = document.createElement('span');
    doc.className = 'param-doc';
    doc.textContent = param.doc;
    field.append(doc);
  }
  return field;
}

/**
 * Fills `container` with editors for `params`, taking each value from `values` when it
 * fits and from the default otherwise, and returns complaints about the values that
 * did not fit or name no parameter.
 */
function fillParams(container, params, values, where) {
  const problems = [];
  if (values != null && (typeof values !== 'object' || Array.isArray(values))) {
    problems.push(`${where}: the parameters are not an object, using the defaults`);
    values = {};
  }
  container.replaceChildren();
  for (const param of params) {
    let value = param.default;
    if (values && Object.hasOwn(values, param.name)) {
      if (fitsParam(param, values[param.name])) {
        value = values[param.name];
      } else {
        problems.push(`${where} › ${param.name}: ${JSON.stringify(values[param.name])} is not usable, using the default`);
      }
    }
    container.append(paramField(param, value));
  }
  for (const name of Object.keys(values ?? {})) {
    if (!params.some((param) => param.name === name)) {
      problems.push(`${where}: there is no parameter "${name}", ignoring it`);
    }
  }
  return problems;
}

/** Current editor values by name, whatever their validity, to carry across a switch. */
function rawValues(container) {
  const values = {};
  for (const input of container.querySelectorAll('[data-param]')) {
    if (input.type === 'checkbox') values[input.dataset.param] = input.checked;
    else if (input.type !== 'number') values[input.dataset.param] = input.value;
    // An empty number field has nothing worth carrying; Number('') would make it 0.
    else if (input.value.trim() !== '') values[input.dataset.param] = Number(input.value);
  }
  return values;
}

/** Keeps the values a new set of params shares with the old one, by name and type. */
function carriedOver(params, values) {
  const kept = {};
  for (const param of params) {
    if (Object.hasOwn(values, param.name) && fitsParam(param, values[param.name])) {
      kept[param.name] = values[param.name];
    }
  }
  return kept;
}

/**
 * What is wrong with `text` as a value of the numeric parameter `param`, or null when it
 * fits: the run refuses it for this reason (naming the value), and a bytes field's hint
 * gives the reason as it is typed.
 */
function numberProblem(param, text) {
  const value = Number(text);
  if (!Number.isFinite(value)) return 'is not a number';
  if (param.kind !== 'float') {
    if (!Number.isInteger(value)) return 'must be a whole number';
    // Larger integers would silently round on their way through JSON to Rust.
    if (!Number.isSafeInteger(value)) return 'is too large to pass exactly';
  }
  const show = (bound) => (param.kind === 'bytes' ? `${bound} (${formatBytes(bound)})` : String(bound));
  if (param.min != null && value < param.min) return `must be at least ${show(param.min)}`;
  if (param.max != null && value > param.max) return `must be at most ${show(param.max)}`;
  // Sizes that must be powers of two are ones the policy divides or masks by.
  if (param.power_of_two && !(value > 0 && Number.isInteger(Math.log2(value)))) {
    return 'must be a power of two';
  }
  return null;
}

function readParam(param, input, where) {
  const label = `${where} › ${param.name}`;
  if (param.kind === 'bool') return input.checked;
  if (param.kind === 'choice') {
    if (!(param.choices ?? []).includes(input.value)) {
      throw new FieldError(`${label} must be one of ${param.choices.join(', ')}`, input);
    }
    return input.value;
  }
  // Free text is checked by the simulation, which names the field if it is wrong.
  if (param.kind === 'text') return input.value.trim();
  const text = input.value.trim();
  if (text === '') {
    // A number input reports an empty value both when it is empty and when it holds
    // text that is not a number; `badInput` tells the two apart.
    const why = input.validity?.badInput ? 'is not a number' : 'needs a value';
    throw new FieldError(`${label} ${why}`, input);
  }
  const problem = numberProblem(param, text);
  if (problem) {
    const given = Number.isFinite(Number(text)) ? `, got ${text}` : `: "${text}"`;
    throw new FieldError(`${label} ${problem}${given}`, input);
  }
  return Number(text);
}

function readParams(container, params, where) {
  const values = {};
  for (const param of params) {
    const input = container.querySelector(`[data-param="${CSS.escape(param.name)}"]`);
    values[param.name] = readParam(param, input, where);
  }
  return values;
}

// ---------------------------------------------------------------------------------
// Workload, provider and policy cards

// The workload entry a trace file stands for; it has no parameters of its own.
const TRACE_ID = 'trace';
const TRACE_WORKLOAD = {
  id: TRACE_ID,
  title: 'Trace file…',
  description:
    "Your own trace: heaplab's .trace, a CS:APP malloc-lab .rep or a glibc mtrace log, " +
    'gzip-compressed or not; the format is found from the content. The file stays in this page.',
  params: [],
};

function workloadById(id) {
  if (id === TRACE_ID) return TRACE_WORKLOAD;
  return catalog.workloads.find((workload) => workload.id === id);
}

function familyById(id) {
  return catalog.families.find((family) => family.id === id);
}

// A policy card's select holds family ids and, in a second group, presets as
// `preset:<id>`: a preset is a family with values filled in, and says so in the config.
const PRESET_PREFIX = 'preset:';

function presetById(id) {
  return (catalog.presets ?? []).find((preset) => preset.id === id);
}

/** What a card's select names: `{ family, preset }`, preset null for a plain family. */
function selection(value) {
  if (value.startsWith(PRESET_PREFIX)) {
    const preset = presetById(value.slice(PRESET_PREFIX.length));
    return { family: preset.family, preset };
  }
  return { family: value, preset: null };
}

function showWorkload(id, values) {
  const workload = workloadById(id);
  $('#workload').value = id;
  $('#workload-doc').textContent = workload.description ?? '';
  $('#trace-input').hidden = id !== TRACE_ID;
  showLinkNote();
  return fillParams($('#workload-params'), workload.params, values, `Workload ${id}`);
}

/**
 * The trace file the form names: the chosen file's name, or, before one is chosen, the
 * name a link brought (kept on the input so the note can ask for that file).
 */
function traceName() {
  return traceFile?.name ?? $('#trace-file').dataset.wanted ?? '';
}

/** Says, next to the Run button, what the link to this page can and cannot carry. */
function showLinkNote() {
  const note = $('#link-note');
  const name = traceName();
  if ($('#workload').value !== TRACE_ID) {
    note.hidden = true;
    return;
  }
  note.hidden = false;
  if (traceFile) {
    note.textContent = `This page's link keeps the settings and the name ${name}, not the file: whoever opens it must load the trace again.`;
  } else if (name) {
    note.textContent = `This link ran the trace ${name}; a link cannot carry the file, so load it above to run it.`;
  } else {
    note.textContent = 'Choose a trace file to run.';
  }
}

function showProvider(kind) {
  $('#provider').value = kind;
  const provider = catalog.providers.find((p) => p.id === kind);
  $('#provider-doc').textContent = provider?.description ?? '';
}

function policyCards() {
  return [...document.querySelectorAll('#policies .policy')];
}

function policyWhere(card) {
  const value = $('select.family', card).value;
  return `Policy ${policyCards().indexOf(card) + 1} (${value.replace(PRESET_PREFIX, '')})`;
}

/** Shows a family or a preset (`preset:<id>`) in a card; a preset's values fill in what `values` leaves out. */
function showFamily(card, value, values) {
  const { family: familyId, preset } = selection(value);
  const family = familyById(familyId);
  $('select.family', card).value = value;
  $('.family-doc', card).textContent = preset
    ? `${preset.title}: ${preset.description} Leaves out: ${preset.leaves_out}`
    : family.description ?? '';
  const filled = preset ? { ...preset.params, ...(values ?? {}) } : values;
  return fillParams($('.params', card), family.params, filled, policyWhere(card));
}

function addPolicyCard(familyId, values) {
  const card = $('#policy-template').content.firstElementChild.cloneNode(true);
  const select = $('select.family', card);
  const families = document.createElement('optgroup');
  families.label = 'Families';
  for (const family of catalog.families) {
    families.append(option(family.id, family.title ?? family.id, family.description));
  }
  select.append(families);
  if ((catalog.presets ?? []).length > 0) {
    const presets = document.createElement('optgroup');
    presets.label = 'Presets';
    for (const preset of catalog.presets) {
      presets.append(option(`${PRESET_PREFIX}${preset.id}`, `${preset.id} — ${preset.title}`, preset.description));
    }
    select.append(presets);
  }
  // Selects fire "input" before "change", and the form's own "input" handler reads
  // every editor; switching on "input" rebuilds the editors before that read.
  select.addEventListener('input', () => {
    // A preset starts from its own values; a family keeps what still applies.
    const { family, preset } = selection(select.value);
    const kept = preset ? {} : carriedOver(familyById(family).params, rawValues($('.params', card)));
    showFamily(card, select.value, kept);
    formChanged();
  });
  $('.remove-policy', card).addEventListener('click', () => {
    card.remove();
    renumberPolicies();
    formChanged();
  });
  $('#policies').append(card);
  const problems = showFamily(card, familyId, values);
  renumberPolicies();
  return problems;
}

function renumberPolicies() {
  const cards = policyCards();
  cards.forEach((card, index) => {
    $('.policy-title', card).textContent = `Policy ${index + 1}`;
    // The last card stays: a run with no policy has nothing to compare.
    $('.remove-policy', card).hidden = cards.length === 1;
  });
  $('#add-policy').disabled = cards.length >= MAX_POLICIES;
}

/** The first family no card uses yet, so "Add policy" offers something new to compare. */
function unusedFamily() {
  const used = new Set(policyCards().map((card) => selection($('select.family', card).value).family));
  return (catalog.families.find((family) => !used.has(family.id)) ?? catalog.families[0]).id;
}

// ---------------------------------------------------------------------------------
// Form state and the permalink

function defaultState() {
  return {
    v: STATE_VERSION,
    workload: { id: catalog.workloads[0].id, params: {} },
    provider: { kind: catalog.providers[0].id, page_size: catalog.page_sizes[0] },
    policies: [{ family: catalog.families[0].id, params: {} }],
  };
}

/** Reads and validates the whole form; throws a `FieldError` naming the first bad field. */
function readState() {
  const workloadId = $('#workload').value;
  const workload = {
    id: workloadId,
    params: readParams($('#workload-params'), workloadById(workloadId).params, `Workload ${workloadId}`),
  };
  if (workloadId === TRACE_ID) workload.path = traceName();
  const provider = { kind: $('#provider').value, page_size: Number($('#page-size').value) };
  const policies = policyCards().map((card) => {
    const { family, preset } = selection($('select.family', card).value);
    const params = readParams($('.params', card), familyById(family).params, policyWhere(card));
    return preset ? { family, preset: preset.id, params } : { family, params };
  });
  const state = { v: STATE_VERSION, workload, provider, policies };
  if (workloadId === TRACE_ID && $('#lenient').checked) state.lenient = true;
  return state;
}

/** One run config per policy, each a separate object so callers may keep them. */
function configsFrom(state) {
  return state.policies.map((policy) =>
    structuredClone({
      workload: state.workload,
      policy,
      provider: state.provider,
      series_points: SERIES_POINTS,
    }),
  );
}

/**
 * Brings a stored state up to the current version; there is only version 1 so far,
 * and anything else is refused rather than guessed at.
 */
function migrate(state) {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) {
    throw new Error('it is not a JSON object');
  }
  if (state.v !== STATE_VERSION) {
    throw new Error(`its version ${JSON.stringify(state.v)} is not one this page knows`);
  }
  return state;
}

/** Shows `state` in the form, field by field, and returns complaints about the rest. */
function applyState(state) {
  const problems = [];
  const fallback = defaultState();

  let workloadId = state.workload?.id;
  if (!workloadById(workloadId)) {
    problems.push(`there is no workload ${JSON.stringify(workloadId)}, using ${fallback.workload.id}`);
    workloadId = fallback.workload.id;
  }
  if (workloadId === TRACE_ID) {
    const wanted = typeof state.workload?.path === 'string' ? state.workload.path : '';
    // A file already loaded stays if it is the one the link names.
    if (traceFile && traceFile.name !== wanted) {
      traceFile = null;
      $('#trace-file').value = '';
    }
    $('#trace-file').dataset.wanted = wanted;
    $('#lenient').checked = state.lenient === true;
  }
  problems.push(...showWorkload(workloadId, state.workload?.params));

  let kind = state.provider?.kind;
  if (!catalog.providers.some((provider) => provider.id === kind)) {
    problems.push(`there is no provider ${JSON.stringify(kind)}, using ${fallback.provider.kind}`);
    kind = fallback.provider.kind;
  }
  showProvider(kind);
  let pageSize = state.provider?.page_size;
  if (!catalog.page_sizes.includes(pageSize)) {
    problems.push(`page size ${JSON.stringify(pageSize)} is not offered, using ${fallback.provider.page_size}`);
    pageSize = fallback.provider.page_size;
  }
  $('#page-size').value = String(pageSize);

  let policies = Array.isArray(state.policies) ? state.policies : [];
  if (policies.length === 0 || policies.length > MAX_POLICIES) {
    problems.push(`a link holds 1 to ${MAX_POLICIES} policies, not ${policies.length}`);
    policies = policies.length === 0 ? fallback.policies : policies.slice(0, MAX_POLICIES);
  }
  $('#policies').replaceChildren();
  for (const [index, policy] of policies.entries()) {
    let family = policy?.family;
    if (policy?.preset !== undefined) {
      if (presetById(policy.preset)) {
        problems.push(...addPolicyCard(`${PRESET_PREFIX}${policy.preset}`, policy?.params));
        continue;
      }
      problems.push(`Policy ${index + 1}: there is no preset ${JSON.stringify(policy.preset)}, using its family`);
    }
    if (!familyById(family)) {
      problems.push(`Policy ${index + 1}: there is no family ${JSON.stringify(family)}, using ${fallback.policies[0].family}`);
      family = fallback.policies[0].family;
    }
    problems.push(...addPolicyCard(family, policy?.params));
  }
  return problems;
}

/** Restores the form from the URL hash; returns a message if the hash was unusable. */
function loadFromHash() {
  const hash = window.location.hash;
  if (hash.startsWith(SCENARIO_PREFIX)) return loadScenarioFromHash(hash);
  if (!hash.startsWith(HASH_PREFIX)) {
    applyState(defaultState());
    return null;
  }
  let state;
  try {
    state = migrate(JSON.parse(decodeURIComponent(hash.slice(HASH_PREFIX.length))));
  } catch (error) {
    applyState(defaultState());
    return `The configuration in this link could not be read (${messageOf(error)}); showing the defaults instead.`;
  }
  const problems = applyState(state);
  if (problems.length === 0) return null;
  return `Parts of the configuration in this link were not usable: ${problems.join('; ')}.`;
}

/**
 * A scenario link: the scenario is chosen, its first workload and configurations fill the
 * editor, and it runs as soon as the page is ready.
 */
function loadScenarioFromHash(hash) {
  let id;
  try {
    id = decodeURIComponent(hash.slice(SCENARIO_PREFIX.length));
  } catch (error) {
    id = hash.slice(SCENARIO_PREFIX.length);
  }
  if (!scenarioById(id)) {
    applyState(defaultState());
    const ids = scenarioSpecs.map((spec) => spec.id).join(', ');
    return `There is no scenario ${JSON.stringify(id)} in this link; the seed scenarios are ${ids}.`;
  }
  showScenario(id);
  const problems = openScenarioInEditor(id);
  if (problems.length > 0) return `Scenario ${id} did not fit the editor: ${problems.join('; ')}.`;
  pendingScenario = id;
  return null;
}

function writeHash(state) {
  const hash = HASH_PREFIX + encodeURIComponent(JSON.stringify(state));
  // replaceState rather than assigning location.hash: editing a field should not add
  // a history entry or fire our own hashchange handler.
  history.replaceState(null, '', hash);
}

/** Keeps the permalink current while the user edits; invalid forms leave it as it was. */
function formChanged() {
  try {
    writeHash(readState());
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
  }
}

// ---------------------------------------------------------------------------------
// Running

function dropWorker() {
  worker?.terminate();
  worker = null;
}

/**
 * Sends one request to the worker and resolves to its answer. `onProgress` hears the
 * worker's progress messages; `where(index)` prefixes a failure's message.
 */
function askWorker(payload, onProgress, where) {
  worker ??= new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const id = ++runCounter;
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.id !== id) return;
      if ('progress' in message) {
        onProgress?.(message.progress);
      } else if (message.ok) {
        resolve(message);
      } else {
        // A panic inside the module can leave its memory inconsistent, so every
        // failure gets a fresh worker for the next run.
        dropWorker();
        reject(new Error(`${where(message.index)}${message.message}`));
      }
    };
    worker.onerror = (event) => {
      // Handled here and shown on the page, so the browser need not log it too.
      event.preventDefault();
      dropWorker();
      reject(new Error(`The simulation worker failed: ${event.message || 'worker.js or the WebAssembly module could not be loaded'}`));
    };
    worker.onmessageerror = () => {
      dropWorker();
      reject(new Error('The simulation worker sent a message the page could not read'));
    };
    worker.postMessage({ id, ...payload });
  });
}

/**
 * Runs every config in the worker and resolves to the JSON strings `run` (or, for a
 * trace, `run_trace`) returned. `trace` is `{ bytes, lenient }` when the workload is a
 * trace file, else null.
 */
async function runInWorker(configs, trace) {
  const answer = await askWorker(
    { configs, trace },
    (index) => setStatus(`Running policy ${index + 1} of ${configs.length}…`),
    (index) => {
      const failed = configs[index]?.policy;
      return index >= 0 ? `Policy ${index + 1} (${failed.preset ?? failed.family}): ` : '';
    },
  );
  return answer.outputs;
}

/** Runs a seed scenario in the worker; resolves to the JSON string `run_scenario` gave. */
async function runScenarioInWorker(id) {
  const answer = await askWorker({ scenario: id }, null, () => `Scenario ${id}: `);
  return answer.scenario;
}

/** Chart labels: the preset or family alone when unique, numbered when one repeats. */
function runLabels(configs) {
  const families = configs.map((config) => config.policy.preset ?? config.policy.family);
  return families.map((family, index) =>
    families.indexOf(family) === families.lastIndexOf(family) ? family : `${family} #${index + 1}`,
  );
}

function drawChart(runs) {
  const canvas = $('#chart');
  // The canvas is sized in device pixels so lines and text stay sharp on high-DPI
  // screens; its CSS size is set by the stylesheet.
  const box = canvas.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(box.width * ratio));
  canvas.height = Math.max(1, Math.round(box.height * ratio));
  draw_chart(canvas, JSON.stringify(runs));
}

/**
 * The params of a policy that differ from the family's defaults, as one short line for
 * the table header: what tells two columns of the same family apart.
 */
function paramSummary(policy) {
  const specs = familyById(policy.family)?.params ?? [];
  const preset = policy.preset ? presetById(policy.preset) : null;
  const baseline = (name) => (preset && name in preset.params ? preset.params[name] : specs.find((param) => param.name === name)?.default);
  const changed = Object.entries(policy.params).filter(([name, value]) => baseline(name) !== value);
  if (changed.length === 0) return preset ? 'preset values' : 'defaults';
  return changed
    .map(([name, value]) => {
      const spec = specs.find((param) => param.name === name);
      return `${name}=${spec?.kind === 'bytes' ? formatBytes(value) : value}`;
    })
    .join(', ');
}

function renderSummary(labels, configs, reports) {
  const table = $('#summary');
  table.replaceChildren();

  const head = table.createTHead().insertRow();
  const corner = document.createElement('th');
  corner.scope = 'col';
  corner.textContent = 'Policy';
  head.append(corner);
  labels.forEach((label, index) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = label;
    const detail = document.createElement('span');
    detail.className = 'policy-params';
    detail.textContent = paramSummary(configs[index].policy);
    th.title = JSON.stringify(configs[index].policy.params);
    th.append(detail);
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
    for (const [key, label, get] of rows) {
      const row = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label;
      th.title = key;
      row.append(th);
      for (const report of reports) {
        const cell = row.insertCell();
        const [shown, exact] = formatField(key, get(report));
        cell.textContent = shown;
        cell.title = exact;
      }
    }
  }
}

async function onRun(event) {
  event.preventDefault();
  if (document.body.dataset.state === 'running') return;
  clearError();
  setState('running');
  // Stale results must not be mistaken for this run's if it fails.
  delete window.heaplabResults;
  delete window.heaplabConfigs;
  delete window.heaplabScenario;
  lastScenario = null;
  $('#finding').hidden = true;
  $('#run').disabled = true;
  setStatus('Running…');
  try {
    const state = readState();
    writeHash(state);
    const configs = configsFrom(state);
    const trace = await traceInput(state);
    const outputs = (await runInWorker(configs, trace)).map((output) => JSON.parse(output));
    const reports = outputs.map((output) => output.report);
    const labels = runLabels(configs);
    $('#results').hidden = false;
    lastChartRuns = outputs.map((output, index) => ({
      label: labels[index],
      series: output.series,
      phases: output.report.phases.map(({ label, end_event }) => ({ label, end_event })),
    }));
    try {
      drawChart(lastChartRuns);
    } catch (error) {
      throw new Error(`Could not draw the chart: ${messageOf(error)}`);
    }
    renderSummary(labels, configs, reports);
    window.heaplabConfigs = configs;
    window.heaplabResults = reports;
    setStatus(`Ran ${configs.length} ${configs.length === 1 ? 'policy' : 'policies'}.${traceNote(reports[0])}`);
    setState('done');
  } catch (error) {
    fail(error);
  } finally {
    $('#run').disabled = false;
  }
}

/** The trace's bytes for the worker, read now so a file changed on disk is read afresh. */
async function traceInput(state) {
  if (state.workload.id !== TRACE_ID) return null;
  if (!traceFile) {
    throw new FieldError('Workload › Trace file: choose a trace file to run', $('#trace-file'));
  }
  let buffer;
  try {
    buffer = await traceFile.arrayBuffer();
  } catch (error) {
    throw new FieldError(`Workload › Trace file: ${traceFile.name} could not be read (${messageOf(error)})`, $('#trace-file'));
  }
  return { bytes: new Uint8Array(buffer), lenient: state.lenient === true };
}

/** What the import found, for the status line: format, header, and what was skipped. */
function traceNote(report) {
  const trace = report?.trace;
  if (!trace) return '';
  const formats = { trace: 'heaplab .trace', rep: 'malloc-lab .rep', mtrace: 'glibc mtrace' };
  let note = ` Trace ${report.config.workload.path}: ${formats[trace.format] ?? trace.format}`;
  if (trace.rep_header) note += `, ${trace.rep_header} header`;
  if (trace.gzip) note += ', gzip';
  note += `, ${formatExact(trace.lines)} lines.`;
  if (report.skipped) {
    const kinds = Object.entries(report.skipped);
    const total = kinds.reduce((sum, [, n]) => sum + n, 0);
    note += total === 0 ? ' Nothing skipped.' : ` Skipped ${total}: ${kinds.map(([kind, n]) => `${n} ${kind}`).join(', ')}.`;
  }
  return note;
}

// ---------------------------------------------------------------------------------
// Seed scenarios

function scenarioById(id) {
  return scenarioSpecs.find((spec) => spec.id === id);
}

function workloadLabel(workload) {
  const params = Object.entries(workload.params ?? {}).map(([key, value]) => `${key} ${value}`);
  return params.length ? `${workload.id} (${params.join(', ')})` : workload.id;
}

/** Shows the chosen scenario's question under the menu. */
function showScenario(id) {
  const spec = scenarioById(id);
  $('#scenario').value = id;
  $('#scenario-question').textContent = spec ? spec.question : '';
}

/** Loads one of a scenario's workloads and all its configurations into the editor. */
function openScenarioInEditor(id, workloadIndex = 0) {
  const spec = scenarioById(id);
  const workload = spec?.workloads[workloadIndex] ?? spec?.workloads[0];
  if (!workload) return [`there is no scenario ${JSON.stringify(id)} with a workload to open`];
  const state = {
    v: STATE_VERSION,
    workload: structuredClone(workload),
    provider: defaultState().provider,
    policies: spec.configs.slice(0, MAX_POLICIES).map((config) => structuredClone(config.policy)),
  };
  return applyState(state);
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
  lastChartRuns = runs.map((run, i) => ({
    label: run.label,
    series: series[first + i],
    phases: run.phases.map(({ label, end_event }) => ({ label, end_event })),
  }));
  drawChart(lastChartRuns);
  renderSummary(
    runs.map((run) => run.label),
    runs.map((run) => run.config),
    runs,
  );
}

async function onRunScenario() {
  if (document.body.dataset.state === 'running') return;
  const id = $('#scenario').value;
  const spec = scenarioById(id);
  clearError();
  setState('running');
  delete window.heaplabResults;
  delete window.heaplabConfigs;
  delete window.heaplabScenario;
  $('#run').disabled = true;
  $('#run-scenario').disabled = true;
  setStatus(`Running scenario ${id}…`);
  try {
    history.replaceState(null, '', SCENARIO_PREFIX + encodeURIComponent(id));
    const { output, series } = JSON.parse(await runScenarioInWorker(id));
    lastScenario = { spec, output, series };
    $('#results').hidden = false;
    renderFinding(spec, output);
    showScenarioWorkload(0);
    window.heaplabScenario = output;
    window.heaplabResults = output.runs;
    const verdict = output.finding.holds ? 'the finding holds' : 'the finding does not hold';
    setStatus(`Ran scenario ${id}: ${output.runs.length} runs; ${verdict}.`);
    setState('done');
  } catch (error) {
    fail(error);
  } finally {
    $('#run').disabled = false;
    $('#run-scenario').disabled = false;
  }
}

function fail(error) {
  showError(messageOf(error));
  setStatus('');
  if (error instanceof FieldError && error.input) {
    error.input.setAttribute('aria-invalid', 'true');
    error.input.focus();
  }
  setState('error');
}

// ---------------------------------------------------------------------------------
// Start-up

function buildStaticControls() {
  for (const workload of catalog.workloads) {
    $('#workload').append(option(workload.id, workload.title ?? workload.id, workload.description));
  }
  for (const provider of catalog.providers) {
    $('#provider').append(option(provider.id, provider.title ?? provider.id, provider.description));
  }
  for (const size of catalog.page_sizes) {
    $('#page-size').append(option(size, formatBytes(size)));
  }

  for (const spec of scenarioSpecs) {
    $('#scenario').append(option(spec.id, spec.title, spec.question));
  }
  showScenario(scenarioSpecs[0]?.id ?? '');
  $('#scenario').addEventListener('input', () => showScenario($('#scenario').value));
  $('#run-scenario').addEventListener('click', onRunScenario);
  $('#edit-scenario').addEventListener('click', () => {
    clearError();
    const id = $('#scenario').value;
    const index = lastScenario?.spec.id === id ? Number($('#scenario-workload').value) : 0;
    const problems = openScenarioInEditor(id, index);
    if (problems.length > 0) showError(`Scenario ${id} did not fit the editor: ${problems.join('; ')}.`);
    formChanged();
    $('#config').scrollIntoView();
  });
  $('#scenario-workload').addEventListener('input', () => {
    try {
      showScenarioWorkload(Number($('#scenario-workload').value));
    } catch (error) {
      showError(`Could not show that workload: ${messageOf(error)}`);
    }
  });

  $('#workload').append(option(TRACE_ID, TRACE_WORKLOAD.title, TRACE_WORKLOAD.description));
  $('#trace-file').addEventListener('change', () => {
    traceFile = $('#trace-file').files?.[0] ?? null;
    showLinkNote();
  });

  // "input" rather than "change", for the reason given in `addPolicyCard`.
  $('#workload').addEventListener('input', () => {
    const id = $('#workload').value;
    showWorkload(id, carriedOver(workloadById(id).params, rawValues($('#workload-params'))));
    formChanged();
  });
  $('#provider').addEventListener('input', () => {
    showProvider($('#provider').value);
    formChanged();
  });
  $('#add-policy').addEventListener('click', () => {
    if (policyCards().length >= MAX_POLICIES) return;
    addPolicyCard(unusedFamily(), {});
    formChanged();
  });
  const form = $('#config');
  form.addEventListener('submit', onRun);
  form.addEventListener('input', (event) => {
    event.target.removeAttribute?.('aria-invalid');
    formChanged();
  });
  form.addEventListener('change', formChanged);

  // Pasting a different permalink into the address bar of an open page only changes
  // the hash, so the form follows it here.
  window.addEventListener('hashchange', () => {
    clearError();
    const problem = loadFromHash();
    if (problem) showError(problem);
    runPendingScenario();
  });

  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (!lastChartRuns) return;
      try {
        drawChart(lastChartRuns);
      } catch (error) {
        showError(`Could not redraw the chart: ${messageOf(error)}`);
      }
    }, 150);
  });
}

async function main() {
  try {
    await init();
    catalog = JSON.parse(readCatalog());
    scenarioSpecs = JSON.parse(readScenarios());
  } catch (error) {
    showError(
      `Could not load the heaplab WebAssembly module (${messageOf(error)}). ` +
        'Build it with `cargo xtask build-wasm`, or serve the page with `cargo xtask serve`.',
    );
    setState('error');
    return;
  }
  buildStaticControls();
  const problem = loadFromHash();
  if (problem) {
    showError(problem);
    setState('error');
  } else {
    setState('ready');
    runPendingScenario();
  }
}

function runPendingScenario() {
  if (pendingScenario === null) return;
  pendingScenario = null;
  onRunScenario();
}

main();

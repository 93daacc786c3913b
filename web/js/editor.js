// The editor: the workload card, the page provider card and up to four policy cards,
// each parameter field built from the catalog. It reads the form into run configs and
// shows run configs (resolved, every value present) in the form; it knows nothing of
// links, which state.js turns into configs and back.

import { readClock, showClock, showDefaultClock, wireClock } from './clock.js';
import { $, configLetter, configName, option } from './dom.js';
import {
  MAX_POLICIES,
  PRESET_PREFIX,
  SERIES_POINTS,
  TRACE_ID,
  TRACE_WORKLOAD,
  familyById,
  lists,
  selection,
  workloadById,
} from './catalog.js';
import { formatBytes, formatCount } from './format.js';
import { MODULE_FAMILY, MODULE_PREFIX, allModules, moduleBySha, moduleName } from './modules.js';
import { carriedOver, fillParams, readParams } from './params.js';
import * as trace from './trace.js';

// How much of each block the program writes: the page has no control for it, but a link
// may say, and the runs it opens must honour it.
let touch = 'all';
// Called after every change the editor makes itself (a card added or removed, a family
// switched), so the link follows.
let changed = () => {};

function workloadDoc(id) {
  const workload = workloadById(id);
  $('#workload').value = id;
  $('#workload-doc').textContent = workload.description ?? '';
  $('#trace-input').hidden = id !== TRACE_ID;
  showDefaultClock(workload);
  return workload;
}

/** Shows workload `id` with `values` (typed, or text carried from another workload). */
export function showWorkload(id, values) {
  const workload = workloadDoc(id);
  fillParams($('#workload-params'), workload.params, values, 'workload', id);
  trace.renderNote();
}

export function showProvider(kind, pageSize) {
  $('#provider').value = kind;
  const provider = lists.catalog.providers.find((p) => p.id === kind);
  $('#provider-doc').textContent = provider?.description ?? '';
  if (pageSize !== undefined) $('#page-size').value = String(pageSize);
}

export function policyCards() {
  return [...document.querySelectorAll('#policies .policy')];
}

/** The card as messages name it: `Configuration B (llvm-bump)`, its title and its choice. */
function policyWhere(card) {
  const value = $('select.family', card).value;
  const { module } = selection(value);
  return configName(policyCards().indexOf(card), module ? moduleName(module) : value.replace(PRESET_PREFIX, ''));
}

/**
 * The parameters a card edits: a module's configuration names its module by the card's
 * choice, not by a field.
 */
function editedParams(family, module) {
  return module ? family.params.filter((param) => param.name !== 'sha256') : family.params;
}

/** What the card's "About" says of your own allocator's module. */
function moduleDoc(family, sha256) {
  const module = moduleBySha(sha256);
  const size = module ? `${formatCount(module.size)} bytes, ` : '';
  const waiting = module && module.bytes === null ? ' The page waits for this file: load it with "Your allocator…".' : '';
  return `${moduleName(sha256)} (${size}SHA-256 ${sha256.slice(0, 12)}…): ${family.description}${waiting}`;
}

/** Shows a family, a preset (`preset:<id>`) or a module (`module:<sha256>`) in a card; a preset's values fill in what `values` leaves out. */
function showFamily(card, value, values) {
  const { family: familyId, preset, module } = selection(value);
  const family = familyById(familyId);
  $('select.family', card).value = value;
  $('details.about summary', card).textContent = preset
    ? `About ${preset.id}: ${preset.title}`
    : module
      ? `About ${moduleName(module)}: your own allocator`
      : `About ${family.title ?? family.id}`;
  $('.family-doc', card).textContent = preset
    ? `${preset.title}: ${preset.description} Leaves out: ${preset.leaves_out}`
    : module
      ? moduleDoc(family, module)
      : family.description ?? '';
  fillParams($('.params', card), editedParams(family, module), values, 'policy', familyId, preset ? preset.params : {});
}

/** The menu group of your own allocators' modules, or null when the page has none. */
function moduleGroup() {
  const modules = allModules();
  if (modules.length === 0) return null;
  const group = document.createElement('optgroup');
  group.label = 'Your own allocator';
  group.className = 'modules';
  for (const module of modules) {
    const waiting = module.bytes === null ? ' (load the file)' : '';
    group.append(option(`${MODULE_PREFIX}${module.sha256}`, `${module.name}${waiting}`, `Your allocator module ${module.name}`));
  }
  return group;
}

/** Puts the modules the page now has into every card's menu, keeping each choice. */
export function refreshModuleMenus() {
  for (const card of policyCards()) {
    const select = $('select.family', card);
    const value = select.value;
    $('optgroup.modules', select)?.remove();
    const group = moduleGroup();
    if (group) select.append(group);
    select.value = value;
    // A card's "About" says whether the page still waits for its module's file.
    if (selection(value).module) {
      const { family, module } = selection(value);
      $('.family-doc', card).textContent = moduleDoc(familyById(family), module);
    }
  }
}

/**
 * Shows your own allocator's module `sha256` in a card of its own when there is room,
 * else in the last card, and says which card it is in.
 */
export function showModuleCard(sha256) {
  refreshModuleMenus();
  const value = `${MODULE_PREFIX}${sha256}`;
  const cards = policyCards();
  const already = cards.find((card) => $('select.family', card).value === value);
  if (already) return already;
  if (cards.length < MAX_POLICIES) return addPolicyCard(value, {});
  const last = cards[cards.length - 1];
  showFamily(last, value, {});
  return last;
}

function familyMenu(select) {
  const families = document.createElement('optgroup');
  families.label = 'Families';
  for (const family of lists.catalog.families) {
    families.append(option(family.id, family.title ?? family.id, family.description));
  }
  select.append(families);
  if ((lists.catalog.presets ?? []).length > 0) {
    const presets = document.createElement('optgroup');
    presets.label = 'Presets';
    for (const preset of lists.catalog.presets) {
      presets.append(option(`${PRESET_PREFIX}${preset.id}`, `${preset.id} — ${preset.title}`, preset.description));
    }
    select.append(presets);
  }
  const modules = moduleGroup();
  if (modules) select.append(modules);
}

/** Adds a card showing `value` (a family id or `preset:<id>`) with `values`. */
export function addPolicyCard(value, values) {
  const card = $('#policy-template').content.firstElementChild.cloneNode(true);
  const select = $('select.family', card);
  familyMenu(select);
  // Selects fire "input" before "change", and the form's own "input" handler reads
  // every editor; switching on "input" rebuilds the editors before that read.
  select.addEventListener('input', () => {
    // A preset starts from its own values; a family keeps what still applies.
    const { family, preset, module } = selection(select.value);
    const kept = preset ? {} : carriedOver($('.params', card), editedParams(familyById(family), module));
    showFamily(card, select.value, kept);
    changed();
  });
  $('.duplicate-policy', card).addEventListener('click', () => {
    if (policyCards().length >= MAX_POLICIES) return;
    // The copy starts with this card's values as typed, right after it, so the next
    // change to one knob asks what-if against the original.
    const { family, module } = selection(select.value);
    const copy = addPolicyCard(select.value, carriedOver($('.params', card), editedParams(familyById(family), module)));
    card.after(copy);
    renumberPolicies();
    changed();
  });
  $('.remove-policy', card).addEventListener('click', () => {
    card.remove();
    renumberPolicies();
    changed();
  });
  $('#policies').append(card);
  showFamily(card, value, values);
  renumberPolicies();
  return card;
}


function renumberPolicies() {
  const cards = policyCards();
  cards.forEach((card, index) => {
    $('.policy-title', card).textContent = `Configuration ${configLetter(index)}`;
    // The last card stays: a run with no policy has nothing to compare.
    $('.remove-policy', card).hidden = cards.length === 1;
    $('.duplicate-policy', card).disabled = cards.length >= MAX_POLICIES;
  });
  $('#add-policy').disabled = cards.length >= MAX_POLICIES;
}

/** The first family no card uses yet, so "Add policy" offers something new to compare. */
function unusedFamily() {
  const used = new Set(policyCards().map((card) => selection($('select.family', card).value).family));
  return (lists.catalog.families.find((family) => !used.has(family.id)) ?? lists.catalog.families[0]).id;
}

/** Fills the menus from the catalog and wires the cards; `onChange` hears every edit. */
export function buildEditor(onChange) {
  changed = onChange;
  const { catalog } = lists;
  for (const workload of catalog.workloads) {
    $('#workload').append(option(workload.id, workload.title ?? workload.id, workload.description));
  }
  $('#workload').append(option(TRACE_ID, TRACE_WORKLOAD.title, TRACE_WORKLOAD.description));
  for (const provider of catalog.providers) {
    $('#provider').append(option(provider.id, provider.title ?? provider.id, provider.description));
  }
  for (const size of catalog.page_sizes) {
    $('#page-size').append(option(size, formatBytes(size)));
  }

  // "input" rather than "change", for the reason given in `addPolicyCard`.
  $('#workload').addEventListener('input', () => {
    const id = $('#workload').value;
    showWorkload(id, carriedOver($('#workload-params'), workloadById(id).params));
    changed();
  });
  $('#provider').addEventListener('input', () => {
    showProvider($('#provider').value);
    changed();
  });
  $('#add-policy').addEventListener('click', () => {
    if (policyCards().length >= MAX_POLICIES) return;
    addPolicyCard(unusedFamily(), {});
    changed();
  });
  wireClock();
}

/**
 * Reads and checks the whole form: one run config per policy card, each its own object
 * so callers may keep them, and whether a trace is read leniently or strictly. Throws a
 * `FieldError` naming the first field the run would refuse.
 */
export function readForm() {
  const workloadId = $('#workload').value;
  const where = `Workload ${workloadId}`;
  const workload = {
    id: workloadId,
    params: readParams($('#workload-params'), workloadById(workloadId).params, 'workload', workloadId, where),
  };
  const isTrace = workloadId === TRACE_ID;
  if (isTrace) workload.path = trace.traceName();
  const provider = { kind: $('#provider').value, page_size: Number($('#page-size').value) };
  // One clock for the whole comparison, as `--clock` gives it and a link carries it.
  const clock = readClock();
  const configs = policyCards().map((card) => {
    const { family, preset, module } = selection($('select.family', card).value);
    const params = readParams($('.params', card), editedParams(familyById(family), module), 'policy', family, policyWhere(card));
    if (module) params.sha256 = module;
    const policy = preset ? { family, preset: preset.id, params } : { family, params };
    const config = { workload, policy, provider, touch, series_points: SERIES_POINTS };
    if (clock) config.clock = clock;
    return structuredClone(config);
  });
  return { configs, lenient: isTrace && $('#lenient').checked, strict: isTrace && $('#strict').checked };
}

/**
 * Shows run configs that share a workload and provider, as a link or a scenario gives
 * them: resolved by the core, so every value is one the editor can show.
 */
export function showConfigs(configs, lenient = false, strict = false) {
  const [first] = configs;
  touch = first.touch ?? 'all';
  if (first.workload.id === TRACE_ID) {
    showWorkload(TRACE_ID, {});
    $('#lenient').checked = lenient === true;
    $('#strict').checked = strict === true;
  } else {
    showWorkload(first.workload.id, first.workload.params);
  }
  showProvider(first.provider.kind, first.provider.page_size);
  showClock(first.clock);
  $('#policies').replaceChildren();
  for (const { policy } of configs.slice(0, MAX_POLICIES)) {
    const value = policy.preset
      ? `${PRESET_PREFIX}${policy.preset}`
      : policy.family === MODULE_FAMILY && policy.params?.sha256
        ? `${MODULE_PREFIX}${policy.params.sha256}`
        : policy.family;
    addPolicyCard(value, policy.params);
  }
}

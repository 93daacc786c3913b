// What the core offers, read once at start-up: workloads, policy families and presets,
// providers and page sizes, the seed scenarios and the summary metrics. Every menu and
// every table row comes from here, so a knob added to the core shows up without a page
// change.

import { catalog as readCatalog, metrics as readMetrics, scenarios as readScenarios } from '../pkg/heaplab_wasm.js';
import { MODULE_FAMILY, MODULE_PREFIX } from './modules.js';

export const MAX_POLICIES = 4;
// Enough points for a smooth line at any realistic canvas width, few enough that
// posting four runs from the worker stays cheap. The CLI keeps as many by default, so
// a report's config reads the same from both.
export const SERIES_POINTS = 2000;

// The workload entry a trace file stands for; it has no parameters of its own.
export const TRACE_ID = 'trace';
export const TRACE_WORKLOAD = {
  id: TRACE_ID,
  title: 'Trace file…',
  description:
    "Your own trace: heaplab's .trace, a CS:APP malloc-lab .rep or a glibc mtrace log, " +
    'gzip-compressed or not; the format is found from the content. The file stays in this page.',
  params: [],
};

// A policy card's select holds family ids and, in a second group, presets as
// `preset:<id>`: a preset is a family with values filled in, and says so in the config.
export const PRESET_PREFIX = 'preset:';

export const lists = {
  catalog: null,
  scenarios: [],
  metrics: [],
};

/** Reads the lists from the (initialised) wasm module; throws if the module cannot. */
export function loadLists() {
  lists.catalog = readCatalog();
  lists.scenarios = readScenarios();
  lists.metrics = readMetrics();
}

export function workloadById(id) {
  if (id === TRACE_ID) return TRACE_WORKLOAD;
  return lists.catalog.workloads.find((workload) => workload.id === id);
}

export function familyById(id) {
  const { families, brought_families: brought = [] } = lists.catalog;
  return families.find((family) => family.id === id) ?? brought.find((family) => family.id === id);
}

export function presetById(id) {
  return (lists.catalog.presets ?? []).find((preset) => preset.id === id);
}

export function scenarioById(id) {
  return lists.scenarios.find((spec) => spec.id === id);
}

/**
 * What a card's select names: `{ family, preset, module }`, preset null for a plain
 * family, module the SHA-256 of your own allocator's module (`module:<sha256>`) or null.
 */
export function selection(value) {
  if (value.startsWith(PRESET_PREFIX)) {
    const preset = presetById(value.slice(PRESET_PREFIX.length));
    return { family: preset.family, preset, module: null };
  }
  if (value.startsWith(MODULE_PREFIX)) {
    return { family: MODULE_FAMILY, preset: null, module: value.slice(MODULE_PREFIX.length) };
  }
  return { family: value, preset: null, module: null };
}

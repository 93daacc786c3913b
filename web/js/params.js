// The editors of a workload's or a policy's parameters, built from the catalog's specs.
//
// What a person types is read by the core's parser (`parse_param`), exactly as
// `heaplab run --set name=text` reads it: the page has no rules of its own about which
// values a parameter takes, so it can never accept a value the run then refuses, or
// refuse one the CLI takes ("64KiB" is a size in both).

import { parse_param } from '../pkg/heaplab_wasm.js';
import { FieldError, messageOf, option } from './dom.js';
import { formatBytes } from './format.js';

const NUMERIC = new Set(['int', 'float', 'bytes']);

/** The parsed value of `text`, or `{ problem }` with the core's reason for refusing it. */
function parse(scope, owner, param, text) {
  try {
    return { value: parse_param(scope, owner, param.name, text) };
  } catch (error) {
    return { problem: messageOf(error) };
  }
}

/** How a value from a config or the catalog reads in its field. */
function shown(param, value) {
  if (param.kind === 'bool') return value === true || value === 'true';
  return value == null ? '' : String(value);
}

/**
 * The unit a hint may name on its own: a word a person reads as a unit ("bytes",
 * "events"). A sign such as the multiplier's "x" is no word; `multiplier` puts "×" after
 * the value instead, and any other symbol is left out rather than shown as a stray letter.
 */
function unitWord(param) {
  const unit = param.unit ?? '';
  return /\p{L}{2,}/u.test(unit) ? unit : '';
}

function multiplier(param) {
  return param.unit === 'x';
}

/**
 * The hint under a numeric field: a size in units while the text is one, what 0 stands
 * for where it is not an amount ("one page", "off"), the value as a multiple ("= 0.05×"),
 * or why the run will refuse the text, so that a misshapen size never reads as a size.
 */
function hintUpdater(param, input, hint, scope, owner) {
  const note = param.kind === 'bytes' && param.power_of_two ? ' · power of 2' : '';
  const unit = unitWord(param);
  return () => {
    const text = input.value.trim();
    if (text === '') {
      hint.classList.remove('refused');
      hint.textContent = param.kind === 'bytes' ? note.replace(' · ', '') : unit;
      return;
    }
    const { value, problem } = parse(scope, owner, param, text);
    hint.classList.toggle('refused', problem != null && param.kind === 'bytes');
    if (problem != null) {
      // Only sizes get the refusal as they are typed: their hint would otherwise
      // show a size the run will not take. Other fields say it when Run is pressed.
      hint.textContent = param.kind === 'bytes' ? `not allowed: ${problem}` : unit;
    } else if (param.zero_means && value === 0) {
      hint.textContent = `= ${param.zero_means}`;
    } else if (param.kind === 'bytes') {
      hint.textContent = `= ${formatBytes(value)}${note}`;
    } else if (multiplier(param)) {
      hint.textContent = `= ${value}×`;
    } else {
      hint.textContent = unit;
    }
  };
}

/** One labelled editor for `param` showing `value`. */
function paramField(param, value, scope, owner) {
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
    input.checked = shown(param, value);
  } else if (param.kind === 'choice') {
    input = document.createElement('select');
    for (const choice of param.choices ?? []) input.append(option(choice, choice));
    input.value = shown(param, value);
  } else {
    // Plain text, not type="number": the parser must see exactly what was typed (a
    // number input hides text it cannot read, and would refuse "64KiB").
    input = document.createElement('input');
    input.type = 'text';
    input.spellcheck = false;
    input.autocomplete = 'off';
    if (param.kind === 'int') input.inputMode = 'numeric';
    if (param.kind === 'float') input.inputMode = 'decimal';
    input.value = shown(param, value);
  }
  input.dataset.param = param.name;
  input.dataset.kind = param.kind;
  field.append(input);

  if (NUMERIC.has(param.kind) && (param.kind === 'bytes' || unitWord(param) || multiplier(param) || param.zero_means)) {
    const hint = document.createElement('span');
    hint.className = 'hint';
    const update = hintUpdater(param, input, hint, scope, owner);
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
 * Fills `container` with editors for `params` of the family or workload `owner` (in
 * `scope` "policy" or "workload"), each showing its value in `values` or its default.
 */
export function fillParams(container, params, values, scope, owner) {
  container.replaceChildren();
  for (const param of params) {
    const value = values && Object.hasOwn(values, param.name) ? values[param.name] : param.default;
    container.append(paramField(param, value, scope, owner));
  }
}

/**
 * What the editors in `container` hold, as typed, for the parameters of `params` that
 * have an editor of the same name and kind: carried across a switch of family or
 * workload, and re-read by the new owner's parser when the form is next read.
 */
export function carriedOver(container, params) {
  const kept = {};
  for (const param of params) {
    const input = container.querySelector(`[data-param="${CSS.escape(param.name)}"]`);
    if (!input || input.dataset.kind !== param.kind) continue;
    kept[param.name] = input.type === 'checkbox' ? input.checked : input.value;
  }
  return kept;
}

/**
 * Reads every editor through the core's parser and returns the typed values; throws a
 * `FieldError` naming the field (`Policy 1 (bump) › slab_size: 3000 is not a power of
 * two`) at the first the run would refuse.
 */
export function readParams(container, params, scope, owner, where) {
  const values = {};
  for (const param of params) {
    const input = container.querySelector(`[data-param="${CSS.escape(param.name)}"]`);
    if (param.kind === 'bool') {
      values[param.name] = input.checked;
      continue;
    }
    const { value, problem } = parse(scope, owner, param, input.value);
    if (problem != null) throw new FieldError(`${where} › ${param.name}: ${problem}`, input);
    values[param.name] = value;
  }
  return values;
}

// The editors of a workload's or a policy's parameters, built from the catalog's specs.
//
// What a person types is read by the core's parser (`parse_param`), exactly as
// `heaplab run --set name=text` reads it: the page has no rules of its own about which
// values a parameter takes, so it can never accept a value the run then refuses, or
// refuse one the CLI takes ("64KiB" is a size in both).

import { parse_param } from '../pkg/heaplab_wasm.js';
import { FieldError, messageOf, option } from './dom.js';
import { formatBytes, sizeText } from './format.js';

// The kinds of parameter that take numbers, and so can be swept.
export const NUMERIC = new Set(['int', 'float', 'bytes']);

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
 * or, as soon as the text is one the run will refuse, the core's reason, whole, on a line
 * of its own under the field, which is marked invalid until the text is fixed: a
 * misshapen size never reads as a size, and no bad value waits for Run to be told.
 */
function hintUpdater(param, input, hint, scope, owner) {
  const note = param.kind === 'bytes' && param.power_of_two ? ' · power of 2' : '';
  const unit = unitWord(param);
  return () => {
    const text = input.value.trim();
    const { value, problem } = text === '' ? { problem: null } : parse(scope, owner, param, text);
    hint.classList.toggle('refused', problem != null);
    if (problem != null) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    if (text === '') {
      hint.textContent = param.kind === 'bytes' ? note.replace(' · ', '') : unit;
    } else if (problem != null) {
      hint.textContent = `not allowed: ${problem}`;
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

// The sizes a size slider steps through: 0 where the parameter takes it (its least, or a
// meaning of its own below that), then every power of two from the least the parameter
// takes to the most (capped at 1 TiB: no slider needs more than forty stops).
function sliderStops(param) {
  const least = Math.max(1, Number(param.min ?? 1));
  const most = Math.min(Number(param.max ?? 2 ** 40), 2 ** 40);
  const stops = Number(param.min) === 0 || param.zero_means ? [0] : [];
  for (let size = 2 ** Math.ceil(Math.log2(least)); size <= most; size *= 2) stops.push(size);
  return stops;
}

/** The stop nearest to `value`, by ratio: what the slider shows for a size between stops. */
function nearestStop(stops, value) {
  let best = 0;
  for (const [index, stop] of stops.entries()) {
    const gap = (x) => Math.abs(Math.log2(Math.max(x, 0.5)) - Math.log2(Math.max(value, 0.5)));
    if (gap(stop) < gap(stops[best])) best = index;
  }
  return best;
}

/** Whether what `input` holds is the parameter's starting value `start`. */
function isStart(param, input, start, scope, owner) {
  if (param.kind === 'bool') return input.checked === (start === true || start === 'true');
  if (param.kind === 'choice' || param.kind === 'text') return input.value === String(start ?? '');
  const { value, problem } = parse(scope, owner, param, input.value.trim());
  return problem == null && value === start;
}

/**
 * One compact row for `param` showing `value`: name, value, a unit or size hint, for
 * sizes a slider stepping by powers of two, a reset to `start` (the family's or preset's
 * value) while the value differs from it, and the parameter's documentation behind "?".
 */
function paramField(param, value, start, scope, owner) {
  const field = document.createElement('label');
  field.className = `field param param-${param.kind}`;
  if (param.doc) field.title = param.doc;

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

  let slider = null;
  if (param.kind === 'bytes') {
    const stops = sliderStops(param);
    slider = document.createElement('input');
    slider.type = 'range';
    slider.className = 'pow2';
    slider.min = '0';
    slider.max = String(stops.length - 1);
    slider.step = '1';
    slider.tabIndex = -1;
    slider.setAttribute('aria-label', `${param.name} in powers of two`);
    const follow = () => {
      const { value: bytes, problem } = parse(scope, owner, param, input.value.trim());
      if (problem == null) slider.value = String(nearestStop(stops, bytes));
    };
    follow();
    input.addEventListener('input', follow);
    slider.addEventListener('input', () => {
      input.value = sizeText(stops[Number(slider.value)] ?? 0);
      // The text field is what the form reads, so the change goes through it.
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    field.append(slider);
  }

  const hint = document.createElement('span');
  hint.className = 'hint';
  if (NUMERIC.has(param.kind)) {
    const update = hintUpdater(param, input, hint, scope, owner);
    update();
    input.addEventListener('input', update);
  }
  field.append(hint);

  const reset = document.createElement('button');
  reset.type = 'button';
  reset.className = 'reset';
  reset.textContent = '↺';
  reset.title = `Back to ${param.kind === 'bytes' && typeof start === 'number' ? formatBytes(start) : String(start)}`;
  const mark = () => {
    const changed = !isStart(param, input, start, scope, owner);
    field.classList.toggle('changed', changed);
    reset.hidden = !changed;
  };
  reset.addEventListener('click', (event) => {
    event.preventDefault();
    if (param.kind === 'bool') input.checked = shown(param, start);
    else input.value = param.kind === 'bytes' && typeof start === 'number' ? sizeText(start) : shown(param, start);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
  input.addEventListener('input', mark);
  input.addEventListener('change', mark);
  mark();
  field.append(reset);

  if (param.doc) {
    const help = document.createElement('button');
    help.type = 'button';
    help.className = 'help';
    help.textContent = '?';
    help.setAttribute('aria-expanded', 'false');
    help.title = 'What this parameter does';
    const doc = document.createElement('span');
    doc.className = 'param-doc';
    doc.textContent = param.doc;
    doc.hidden = true;
    help.addEventListener('click', (event) => {
      event.preventDefault();
      doc.hidden = !doc.hidden;
      help.setAttribute('aria-expanded', String(!doc.hidden));
    });
    field.append(help, doc);
  }
  return field;
}

/**
 * Fills `container` with editors for `params` of the family or workload `owner` (in
 * `scope` "policy" or "workload"), each showing its value in `values` or its start: the
 * value in `starts` (a preset's) or else the parameter's default. A value that differs
 * from its start is marked, with a reset.
 */
export function fillParams(container, params, values, scope, owner, starts = {}) {
  container.replaceChildren();
  for (const param of params) {
    const start = Object.hasOwn(starts, param.name) ? starts[param.name] : param.default;
    const value = values && Object.hasOwn(values, param.name) ? values[param.name] : start;
    container.append(paramField(param, value, start, scope, owner));
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
 * `FieldError` naming the field (`Configuration A (bump) › slab_size: 3000 is not a
 * power of two`) at the first the run would refuse.
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

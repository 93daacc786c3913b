// The workload's clock control: the default (a MallocBench port's real pace, else none),
// none at all (a policy's delays count events), the trace's own time marks, or a rate in
// nanoseconds per event, as `heaplab run --clock` takes it.
//
// The text goes to the core's one parser (`parse_clock`, which is `Clock::parse`), so the
// page accepts exactly the clocks the CLI and a link accept and refuses the others in the
// core's words, naming the field `clock`.

import { parse_clock } from '../pkg/heaplab_wasm.js';
import { TRACE_ID } from './catalog.js';
import { $, FieldError, messageOf } from './dom.js';

/** What the control says as the core reads it: '', 'events', 'trace' or `rate=<text typed>`. */
function clockText() {
  const kind = $('#clock-kind').value;
  return kind === 'rate' ? `rate=${$('#clock-rate').value.trim()}` : kind;
}

/** The clock as the core writes it back, or `{ problem }` with its reason for refusing it. */
function parse() {
  const text = clockText();
  if (text === '') return { clock: null };
  try {
    return { clock: parse_clock(text) };
  } catch (error) {
    return { problem: messageOf(error) };
  }
}

/**
 * Marks the control as the core reads it: a refused rate is marked invalid as it is
 * typed, with the core's reason under it, so no bad clock waits for Run to be told.
 */
function mark() {
  const rate = $('#clock-rate');
  $('#clock-rate-field').hidden = $('#clock-kind').value !== 'rate';
  const { problem } = parse();
  const hint = $('#clock-hint');
  hint.hidden = problem == null;
  hint.textContent = problem == null ? '' : `not allowed: ${problem}`;
  if (problem != null) rate.setAttribute('aria-invalid', 'true');
  else rate.removeAttribute('aria-invalid');
}

/**
 * The clock for every configuration the page runs (`trace`, `events`, `rate=<ns>`), or
 * null for the default; throws a `FieldError` in the core's words when the run would refuse it.
 */
export function readClock() {
  const { clock, problem } = parse();
  if (problem != null) throw new FieldError(problem, $('#clock-rate'));
  return clock;
}

/** Shows a config's clock (`trace`, `events`, `rate=<ns>`, or the default). */
export function showClock(clock) {
  const text = typeof clock === 'string' ? clock : '';
  if (text.startsWith('rate=')) {
    $('#clock-kind').value = 'rate';
    $('#clock-rate').value = text.slice('rate='.length);
  } else {
    $('#clock-kind').value = text === 'trace' || text === 'events' ? text : '';
  }
  mark();
}

/**
 * Says what the default is for `workload` (a catalog entry, or the trace workload): a
 * MallocBench port's real pace in ns per event, a trace's own marks, or no clock at all.
 */
export function showDefaultClock(workload) {
  const option = $('#clock-kind option[value=""]');
  if (workload?.rate_ns != null) {
    option.textContent = `default: this port's real pace, ${workload.rate_ns} ns/event`;
  } else if (workload?.id === TRACE_ID) {
    option.textContent = "default: the trace's time marks when it opens with one, else none";
  } else {
    option.textContent = 'default: none, delays count events';
  }
}

/** Wires the control: the rate's field shows for a rate, and follows what is typed. */
export function wireClock() {
  $('#clock-kind').addEventListener('input', () => {
    // A rate chosen with nothing typed starts from a pace people recognise: a
    // microsecond per event.
    if ($('#clock-kind').value === 'rate' && $('#clock-rate').value.trim() === '') $('#clock-rate').value = '1000';
    mark();
  });
  $('#clock-rate').addEventListener('input', mark);
  mark();
}

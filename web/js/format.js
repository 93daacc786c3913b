// Numbers as people read them, through the core's one formatter: a figure reads the same
// in the page as in `heaplab run`'s tables. Nothing here formats on its own.

import { format_bytes, format_delta, format_metric } from '../pkg/heaplab_wasm.js';

/** A byte count: "1.46 MiB". */
export function formatBytes(bytes) {
  return format_bytes(bytes);
}

/** A size as a person types it ("64KiB"), which the core's parser reads back exactly. */
export function sizeText(bytes) {
  return bytes === 0 ? '0' : format_bytes(bytes).replace(' ', '');
}

/** A summary metric's value as the CLI's table prints it, by the metric's unit. */
export function formatMetric(key, value) {
  return format_metric(key, value);
}

/**
 * A plain count with thousands separators. The core prints a key that names no metric as
 * a count, and the empty key names none.
 */
export function formatCount(value) {
  return format_metric('', value);
}

/** A metric's value against the baseline's: "^ 1.12x smaller", "! 1.02x bigger", or ''. */
export function formatDelta(key, base, value) {
  return format_delta(key, base, value);
}

// The block map on the page: drawn by the teaching module (heaplab-plot's
// `draw_block_map`, which `heaplab blame --block-map` writes as SVG) with the policy's
// free lists drawn over the pieces, and the piece under the pointer found, with its
// words, in the layout that drawing kept. Zoomed into one page, it shows a window of that
// page's bytes with a ruler of offsets; the module says which window a zoom around the
// pointer shows next, from the picture it drew.

import { keyHtml } from './heapmap.js';

function ratio() {
  return window.devicePixelRatio || 1;
}

/**
 * Draws `count` map pages from `first` on `canvas`, outlining page `selected`, each page
 * cut to `bytes` (`{ from, to }` offsets from its start) when given; answers what was
 * drawn, `{ rows, links, regions, height, page_size, bytes, bars, bar_left, bar_width, key }`,
 * and fills `legend` with its key.
 */
export function drawBlockMap(teach, canvas, legend, first, count, selected = null, bytes = null) {
  const r = ratio();
  canvas.width = Math.max(1, Math.round(canvas.getBoundingClientRect().width * r));
  const options = { selected, scale: r };
  if (bytes) options.bytes = [bytes.from, bytes.to];
  const drawn = teach.draw_block_map(canvas, first, count, options);
  canvas.style.height = `${drawn.height / r}px`;
  legend.innerHTML = keyHtml(drawn.key);
  return drawn;
}

/** The piece under a pointer event, `{ page, piece, text }`, or null. */
export function pieceAt(teach, event) {
  const r = ratio();
  return teach.block_map_piece_at(event.offsetX * r, event.offsetY * r) ?? null;
}

/**
 * The zoom by `factor` (below 1: in) around a pointer event on the block map last drawn:
 * `{ page, from, to }`, or null when the pointer is on no page's row.
 */
export function zoomAt(teach, event, factor) {
  const r = ratio();
  return teach.block_map_zoom(event.offsetX * r, event.offsetY * r, factor) ?? null;
}

/** The zoom by `factor` around the middle of the first bar of `drawn`, for the buttons. */
export function zoomMiddle(teach, drawn, factor) {
  if (!drawn?.bars?.length) return null;
  return teach.block_map_zoom(drawn.bar_left + drawn.bar_width / 2, drawn.bars[0] + 1, factor) ?? null;
}

// The block map on the page: drawn by the teaching module (heaplab-plot's
// `draw_block_map`, which `heaplab blame --block-map` writes as SVG) with the policy's
// free lists drawn over the pieces, and the piece under the pointer found, with its
// words, in the layout that drawing kept.

import { keyHtml } from './heapmap.js';

function ratio() {
  return window.devicePixelRatio || 1;
}

/**
 * Draws `count` map pages from `first` on `canvas`, outlining page `selected`; answers
 * what was drawn, `{ rows, links, regions, height, key }`, and fills `legend` with its key.
 */
export function drawBlockMap(teach, canvas, legend, first, count, selected = null) {
  const r = ratio();
  canvas.width = Math.max(1, Math.round(canvas.getBoundingClientRect().width * r));
  const drawn = teach.draw_block_map(canvas, first, count, { selected, scale: r });
  canvas.style.height = `${drawn.height / r}px`;
  legend.innerHTML = keyHtml(drawn.key);
  return drawn;
}

/** The piece under a pointer event, `{ page, piece, text }`, or null. */
export function pieceAt(teach, event) {
  const r = ratio();
  return teach.block_map_piece_at(event.offsetX * r, event.offsetY * r) ?? null;
}

// The heap map on the page: drawn by the teaching module (heaplab-plot's `draw_heap_map`,
// the function `heaplab blame --heap-map` writes as SVG) on the panel's canvas, which
// keeps the layout it drew, so the page under the pointer and a page's square come from
// the picture itself. Only the canvas's size and the pointer's pixels are worked out here.

function ratio() {
  return window.devicePixelRatio || 1;
}

/**
 * Draws the heap map of `teach` at its event on `canvas`, as wide as the canvas is laid
 * out and as tall as the map needs: `marks` `{ zoom, selected, outlined, dragged }` (pages).
 */
export function drawHeapMap(teach, canvas, { zoom = null, selected = null, outlined = [], dragged = null } = {}) {
  const r = ratio();
  canvas.width = Math.max(1, Math.round(canvas.getBoundingClientRect().width * r));
  const height = teach.draw_heap_map(canvas, { zoom, selected, outlined, dragged, scale: r });
  canvas.style.height = `${height / r}px`;
}

/** The page under a pointer event on the canvas, or null. */
export function pageAt(teach, event) {
  const r = ratio();
  return teach.heap_map_page_at(event.offsetX * r, event.offsetY * r) ?? null;
}

/** Where page `page` is drawn, `{ x, y, size }` in CSS pixels of the canvas, or null. */
export function cellOf(teach, page) {
  const cell = teach?.heap_map_cell(page);
  if (!cell) return null;
  const r = ratio();
  return { x: cell.x / r, y: cell.y / r, size: cell.size / r };
}

/** Key entries as HTML swatches: the same colours the drawing uses, from the module. */
export function keyHtml(entries) {
  return entries
    .map((e) => `<span class="swatch" style="background:${e.fill};border-color:${e.edge}"></span>${e.label.replace(/</g, '&lt;')}`)
    .join(' ');
}

/** The heap map's key, as HTML swatches, from the teaching bindings in use (`bindings`). */
export function legendHtml(bindings) {
  return keyHtml(bindings.heap_map_key());
}

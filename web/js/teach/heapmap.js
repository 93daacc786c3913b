// The heap map: the core's `heap_map` (pages of every reservation in address order, the
// committed ones with their state, live bytes and blocks) laid out as a grid of squares,
// one a page. A reservation starts a new row; a long run of pages only reserved folds
// into one labelled row, so a 64 MiB segment with 30 pages in use does not fill the
// screen with grey. Only the layout and the drawing are here: every number is the core's.

import { fitCanvas } from '../dom.js';
import { formatBytes, formatCount } from '../format.js';

export const COLOURS = {
  reserved: '#eef1f5',
  reservedEdge: '#d3d9e2',
  committed: '#bcd3ee',
  residentFree: '#fbd9b5',
  live: '#2f6f4f',
  pinned: '#a4161a',
  selected: '#1d2433',
  drag: 'rgba(31, 78, 121, 0.18)',
};

const GAP_ROW = 16;
const MAX_COLUMNS = 64;

/**
 * Items to draw for the pages `from..=to` of the map: `{ page, info }` for a page
 * (`info` the map's page when committed) and `{ gap, from, count }` for a folded run of
 * reserved pages, each reservation starting a new row (`{ row: true }`).
 */
function items(map, from, to, columns) {
  const byPage = new Map(map.pages.map((page) => [page.page, page]));
  const out = [];
  for (const [first, count] of map.reservations) {
    const lo = Math.max(first, from);
    const hi = Math.min(first + count - 1, to);
    if (lo > hi) continue;
    out.push({ row: true });
    let run = [];
    const flush = () => {
      // A run of reserved pages longer than two rows folds into one labelled row.
      if (run.length >= 2 * columns) {
        out.push({ gap: true, from: run[0], count: run.length });
      } else {
        for (const page of run) out.push({ page, info: null });
      }
      run = [];
    };
    for (let page = lo; page <= hi; page += 1) {
      const info = byPage.get(page);
      if (info) {
        flush();
        out.push({ page, info });
      } else {
        run.push(page);
      }
    }
    flush();
  }
  return out;
}

/**
 * Lays the map out for a canvas `width` CSS pixels wide: the cells (`{ page, info, x, y,
 * size }`), the folded rows (`{ from, count, y }`) and the height needed.
 */
export function layout(map, zoom, width) {
  const total = map.reservations.reduce((sum, [, count]) => sum + count, 0);
  const from = zoom ? zoom[0] : 0;
  const to = zoom ? zoom[1] : Math.max(0, total - 1);
  const span = to - from + 1;
  // Squares of at least about 14 pixels, so a page can be clicked; at most 64 a row.
  const fit = Math.max(8, Math.min(MAX_COLUMNS, Math.floor((width - 8) / 14)));
  const columns = Math.max(1, Math.min(fit, span));
  const size = Math.max(6, Math.min(40, Math.floor((width - 8) / columns)));
  const cells = [];
  const gaps = [];
  let x = 0;
  let y = 0;
  let rowUsed = false;
  const newRow = (height) => {
    if (rowUsed) y += height;
    x = 0;
    rowUsed = false;
  };
  for (const item of items(map, from, to, columns)) {
    if (item.row) {
      newRow(size + 6);
    } else if (item.gap) {
      newRow(size);
      gaps.push({ from: item.from, count: item.count, y });
      y += GAP_ROW;
    } else {
      if (x >= columns) newRow(size);
      cells.push({ page: item.page, info: item.info, x: 4 + x * size, y: y + 2, size });
      x += 1;
      rowUsed = true;
    }
  }
  const height = y + (rowUsed ? size : 0) + 6;
  return { cells, gaps, height, size, pageSize: map.page_size };
}

/** The cell under a point in CSS pixels, or null. */
export function cellAt(laid, x, y) {
  return laid.cells.find((c) => x >= c.x && x < c.x + c.size && y >= c.y && y < c.y + c.size) ?? null;
}

/**
 * Draws a laid-out map on `canvas`: reserved pages pale, committed ones blue, resident
 * ones orange filled from the bottom with green as far as live blocks use them; the
 * pages in `outlined` (the pinning blocks' pages) and the `selected` page outlined, and
 * the pages `dragged` (a zoom being chosen) shaded.
 */
export function drawHeapMap(canvas, laid, { selected = null, outlined = new Set(), dragged = null } = {}) {
  canvas.style.height = `${Math.max(40, laid.height)}px`;
  fitCanvas(canvas);
  const ratio = canvas.width / Math.max(1, canvas.getBoundingClientRect().width);
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, canvas.width, canvas.height);
  const inset = laid.size >= 10 ? 1 : 0.5;
  for (const c of laid.cells) {
    const s = c.size - 2 * inset;
    const x = c.x + inset;
    const y = c.y + inset;
    const info = c.info;
    if (!info) {
      g.fillStyle = COLOURS.reserved;
      g.fillRect(x, y, s, s);
      g.strokeStyle = COLOURS.reservedEdge;
      g.lineWidth = 0.5;
      g.strokeRect(x + 0.25, y + 0.25, s - 0.5, s - 0.5);
    } else if (!info.resident) {
      g.fillStyle = COLOURS.committed;
      g.fillRect(x, y, s, s);
    } else {
      g.fillStyle = COLOURS.residentFree;
      g.fillRect(x, y, s, s);
      const used = Math.min(1, info.used);
      if (used > 0) {
        // Even a page with a few live bytes shows a sliver, so "nothing" and "a little"
        // look different.
        const h = Math.max(1, Math.round(used * s));
        g.fillStyle = COLOURS.live;
        g.fillRect(x, y + s - h, s, h);
      }
    }
    if (dragged && c.page >= dragged[0] && c.page <= dragged[1]) {
      g.fillStyle = COLOURS.drag;
      g.fillRect(c.x, c.y, c.size, c.size);
    }
  }
  for (const c of laid.cells) {
    const mark = c.page === selected ? COLOURS.selected : outlined.has(c.page) ? COLOURS.pinned : null;
    if (!mark) continue;
    g.strokeStyle = mark;
    g.lineWidth = c.page === selected ? 2.5 : 1.5;
    g.strokeRect(c.x + 1, c.y + 1, c.size - 2, c.size - 2);
  }
  g.fillStyle = '#5b6475';
  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  for (const gap of laid.gaps) {
    const bytes = formatBytes(gap.count * laid.pageSize);
    g.fillText(
      `… pages ${formatCount(gap.from)}–${formatCount(gap.from + gap.count - 1)}: ${formatCount(gap.count)} pages (${bytes}) only reserved …`,
      6,
      gap.y + GAP_ROW / 2,
    );
  }
}

/** The legend under the map, as HTML swatches. */
export function legendHtml() {
  const swatch = (colour, text, edge = 'transparent') =>
    `<span class="swatch" style="background:${colour};border-color:${edge}"></span>${text}`;
  return [
    swatch(COLOURS.reserved, 'reserved only (address space)', COLOURS.reservedEdge),
    swatch(COLOURS.committed, 'committed, not resident (no RAM yet)'),
    swatch(COLOURS.residentFree, 'resident (needs RAM): free part'),
    swatch(COLOURS.live, 'resident: part used by live blocks'),
    swatch('#fff', 'kept resident by a pinning block', COLOURS.pinned),
  ].join(' ');
}

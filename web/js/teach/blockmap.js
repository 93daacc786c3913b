// The block map: the core's `block_map` rows (one committed page each, cut into live
// blocks, free pieces named by the policy's structure, and overhead) drawn to scale,
// one bar a page. The core cuts the pieces; this only draws them and says what is where.

import { fitCanvas } from '../dom.js';
import { formatBytes, formatCount } from '../format.js';

const ROW = 26;
const LABEL = 74;
const BLOCK = '#3b6ea8';
const BLOCK_EDGE = '#ffffff';
const OVERHEAD = '#c4c9d2';
// Free structures get colours by name, from a list of greens and teals, so "bin 4" is the
// same colour at every event.
const FREE = ['#7cc08a', '#4fa89a', '#a5d46a', '#58b5c9', '#9bc7a2', '#6fbf73', '#3e9c7f', '#b4d98c'];

function freeColour(structure) {
  if (structure === 'top') return '#d9ecd0';
  let hash = 0;
  for (const ch of structure) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return FREE[hash % FREE.length];
}

/** A piece in words, for the hover line. */
export function pieceText(piece) {
  const where = `${formatBytes(piece.size)} at 0x${piece.addr.toString(16)}`;
  if (piece.kind === 'block') return `live block id ${piece.id} (allocated at event ${formatCount(piece.event)}): ${where} on this page`;
  if (piece.kind === 'free') return `free, kept in the policy's ${piece.structure}: ${where}`;
  return `overhead (headers, padding, rounding, or freed space the policy does not reuse yet): ${where}`;
}

/** Lays out and draws `blocks` (the core's block map) on `canvas`; returns the pieces' rectangles for hover. */
export function drawBlockMap(canvas, blocks, selected = null) {
  const rows = blocks.rows;
  canvas.style.height = `${Math.max(30, rows.length * ROW + 8)}px`;
  fitCanvas(canvas);
  const width = canvas.getBoundingClientRect().width;
  const ratio = canvas.width / Math.max(1, width);
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, canvas.height);
  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  const bar = Math.max(40, width - LABEL - 6);
  const scale = bar / blocks.page_size;
  const hits = [];
  rows.forEach((row, i) => {
    const y = 4 + i * ROW;
    const h = ROW - 8;
    g.fillStyle = row.page === selected ? '#1d2433' : '#5b6475';
    g.fillText(`page ${formatCount(row.page)}${row.resident ? '' : ' ○'}`, 2, y + h / 2);
    g.globalAlpha = row.resident ? 1 : 0.45;
    for (const piece of row.pieces) {
      const x = LABEL + (piece.addr - row.addr) * scale;
      const w = Math.max(0.5, piece.size * scale);
      if (piece.kind === 'block') g.fillStyle = BLOCK;
      else if (piece.kind === 'free') g.fillStyle = freeColour(piece.structure);
      else g.fillStyle = OVERHEAD;
      g.fillRect(x, y, w, h);
      if (piece.kind === 'block' && w > 2) {
        g.fillStyle = BLOCK_EDGE;
        g.fillRect(x, y, 1, h);
      }
      const label = piece.kind === 'block' ? `${piece.id}` : piece.kind === 'free' ? piece.structure : '';
      if (label && g.measureText(label).width + 6 < w) {
        g.fillStyle = piece.kind === 'block' ? '#ffffff' : '#1d2433';
        g.fillText(label, x + 3, y + h / 2);
      }
      hits.push({ x, y, w, h, piece });
    }
    g.globalAlpha = 1;
    if (row.page === selected) {
      g.strokeStyle = '#1d2433';
      g.lineWidth = 2;
      g.strokeRect(LABEL - 1, y - 1, bar + 2, h + 2);
    }
  });
  return hits;
}

/** The piece under a point in CSS pixels, or null. */
export function pieceAt(hits, x, y) {
  return hits.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h)?.piece ?? null;
}

/** The legend under the block map, as HTML swatches; `reportsFree`: whether the policy names its free structures. */
export function blockLegendHtml(blocks) {
  const swatch = (colour, text) => `<span class="swatch" style="background:${colour}"></span>${text}`;
  const names = new Set();
  for (const row of blocks.rows) for (const p of row.pieces) if (p.kind === 'free') names.add(p.structure);
  const parts = [swatch(BLOCK, 'live block (its id)')];
  for (const name of [...names].sort()) parts.push(swatch(freeColour(name), `free: ${name}`));
  parts.push(
    swatch(
      OVERHEAD,
      blocks.reports_free
        ? 'overhead: headers, padding, rounding, or freed space the policy does not reuse yet'
        : 'not live: free, headers or padding (this family does not report its free structures yet)',
    ),
  );
  parts.push('○ committed but not resident');
  return parts.join(' ');
}

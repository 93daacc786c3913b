// What the teaching panel says in text beside its maps: the selected page's blocks and
// why it stays resident (the core's `why_resident`), and blame at the event as tables (the
// object `heaplab blame --json` prints). Words and numbers come from the core.

import { formatBytes, formatCount } from '../format.js';

function el(tag, text = '', cls = '') {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function table(head, rows, onRow = null) {
  const t = el('table', '', 'teach-table');
  const tr = el('tr');
  for (const h of head) tr.append(el('th', h));
  t.append(el('thead'));
  t.tHead.append(tr);
  const body = el('tbody');
  for (const row of rows) {
    const r = el('tr');
    for (const cell of row.cells) r.append(el('td', String(cell)));
    if (onRow) {
      r.tabIndex = 0;
      r.classList.add('clickable');
      r.addEventListener('click', () => onRow(row));
    }
    body.append(r);
  }
  t.append(body);
  return t;
}

/** The page `page` of `map` (a page number), or a note that it is only reserved. */
export function renderPage(container, map, page) {
  if (page == null) {
    container.replaceChildren(el('p', 'Click a page on the map to see the blocks on it.', 'doc small'));
    return;
  }
  const info = map.pages.find((p) => p.page === page);
  const parts = [el('h3', `Page ${formatCount(page)}`)];
  if (!info) {
    parts.push(el('p', 'Only reserved: address space the policy holds, with no memory behind it yet.', 'doc'));
    container.replaceChildren(...parts);
    return;
  }
  const state = info.resident ? 'resident (needs RAM)' : 'committed, not resident (never written since its commit)';
  parts.push(el('p', `0x${info.addr.toString(16)}: ${state}; ${formatBytes(info.live_bytes)} of ${formatBytes(map.page_size)} used by live blocks (${Math.round(info.used * 100)}%).`, 'doc'));
  if (info.why_resident) parts.push(el('p', `Why it is still resident though mostly free: ${info.why_resident}.`, 'doc why'));
  if (info.blocks.length) {
    // The phase column only for a workload that names phases.
    const phases = info.blocks.some((b) => b.phase != null);
    parts.push(
      table(
        ['block id', 'size', 'allocated at event', ...(phases ? ['phase'] : [])],
        info.blocks.map((b) => ({
          cells: [b.id, formatBytes(b.size), formatCount(b.event), ...(phases ? [b.phase ?? ''] : [])],
        })),
      ),
    );
  } else {
    parts.push(el('p', 'No live block lies on this page.', 'doc'));
  }
  container.replaceChildren(...parts);
}

/**
 * Blame's split, its top pinning blocks and the pinned bytes by size and, for a trace
 * with call sites (`site=` on its lines), by call site; clicking a block's row calls
 * `onBlock(block)`.
 */
export function renderBlame(container, blame, onBlock, top = 10) {
  const parts = [];
  const split = [
    ['resident', blame.resident],
    ['live', blame.live],
    ['pinned (free bytes on pages a live block keeps resident)', blame.pinned],
    ['kept by the policy (resident pages with nothing live)', blame.kept_by_policy],
  ];
  parts.push(
    table(
      ['at event ' + formatCount(blame.event), 'bytes'],
      split.map(([what, bytes]) => ({ cells: [what, formatBytes(bytes)] })),
    ),
  );
  const sited = blame.by_site.length > 0;
  if (blame.pinners.length) {
    parts.push(el('p', `The blocks that pin the most (${formatCount(blame.pinners.length)} pin something); click one to select its page:`, 'doc small'));
    // What the two figures mean, in the core's words (`heaplab blame` prints the same).
    parts.push(el('p', blame.about_shares, 'doc small'));
    parts.push(
      table(
        ['block id', 'size', 'allocated at event', ...(sited ? ['call site'] : []), 'pinned', 'freeing it alone unpins'],
        blame.pinners.slice(0, top).map((p) => ({
          block: p,
          cells: [
            p.id,
            formatBytes(p.size),
            formatCount(p.event),
            ...(sited ? [p.site ?? ''] : []),
            formatBytes(p.pinned),
            formatBytes(p.alone_unpins),
          ],
        })),
        (row) => onBlock(row.block),
      ),
    );
    const groups = (title, list) =>
      table(
        [title, 'blocks', 'pinned', 'freeing each alone unpins'],
        list.slice(0, 5).map((g) => ({
          cells: [g.key, formatCount(g.blocks), formatBytes(g.pinned), formatBytes(g.alone_unpins)],
        })),
      );
    parts.push(groups('pinned by size', blame.by_size));
    if (sited) {
      const t = groups('pinned by call site', blame.by_site);
      t.id = 'teach-blame-sites';
      parts.push(t);
    }
  } else {
    parts.push(el('p', 'No live block pins free memory at this event.', 'doc small'));
  }
  container.replaceChildren(...parts);
}

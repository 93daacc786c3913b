// Each family's mechanism in a paragraph and a small diagram, for the teaching panel. The
// knobs under it come from the core's registry (the catalog), whose parameter docs stay
// the one source of what each knob does.

import { familyById, presetById } from '../catalog.js';
import { moduleName, moduleOf } from '../modules.js';

const EXPLAINERS = {
  bump: {
    text:
      'A bump allocator hands out memory by moving a pointer forward through a slab; it never reuses a ' +
      'freed block on its own. When the slab is full it takes a new one (from the general heap or straight ' +
      'from pages). Memory comes back only when a whole arena is reset or dropped, so a single long-lived ' +
      'block keeps its whole slab resident.',
    diagram: `slab:  [ id1 | id2 | id3 | id4 |-------- free ------->
                                     ^ bump pointer
free(id2) changes nothing: the hole is reused only when the arena resets`,
  },
  'free-list': {
    text:
      'A free-list allocator (dlmalloc, glibc) carves chunks out of a segment. Each chunk has a header; a ' +
      'request takes a free chunk that fits (first fit: the lowest; best fit: the smallest; bins: by size ' +
      'class), splitting off the rest, or cuts from the top. A freed chunk merges with free neighbours ' +
      '(coalescing) and goes back to a bin; glibc first parks small ones in the per-thread tcache and fast ' +
      'bins without merging. The top is trimmed and free pages inside big free chunks given back, by its knobs.',
    diagram: `segment: [h|id1 ][h|  free 64 B ][h|id3      ][h| free ...][ top ------->
               bins:  64 B -> free 64 B        larger -> free ...
malloc(40): search the bin for 48 B, else split the top;  free(id3): merge with free neighbours`,
  },
  'size-class': {
    text:
      'A size-class allocator (mimalloc, rpmalloc, snmalloc, jemalloc) rounds each request up to a class ' +
      'and serves it from a span (a run of pages) that holds only blocks of that class, found by a free ' +
      'list of slots in the span. Segments of the OS hold the spans; thread caches keep recent frees. A ' +
      'span whose blocks are all free can be decommitted or reused for another class, so one live block ' +
      'keeps its whole span committed, though only the pages ever written are resident. mimalloc shards each ' +
      'span\u2019s list (free_lists = sharded): a block freed by its own thread waits on local_free, and ' +
      'becomes usable only once the free list runs out.',
    diagram: `span of class 48 B:  [id1][free][id7][free][free][id9]   (one page or more)
span of class 96 B:  [ id2 ][ id4 ][ free ][ id5 ]
malloc(40) -> class 48 B -> first free slot of its span`,
  },
  buddy: {
    text:
      'A buddy allocator rounds each request up to a power of two and splits a larger free block in ' +
      'halves until one has the size (its order). When a block is freed and its buddy (the other half) is ' +
      'free too, they merge back into the block of the next order, and so on up. Rounding wastes up to half ' +
      'a block, but finding and merging are fast.',
    diagram: `order 3: [               128 B               ]
order 2: [       64 B       ][       64 B       ]
order 1: [ 32 B ][ 32 B ]   <- malloc(20) takes one; its buddy stays free
order k holds blocks of min_block << k bytes (16 B << k by default), as heaplab explain and the block map number them`,
  },
  pool: {
    text:
      'A block pool (Pike) serves one fixed block size from chunks taken from a general heap; a freed ' +
      'block goes on the pool\u2019s free list and is reused first. Requests of other sizes go to the heap below ' +
      'on their own. A chunk is given back only when every block in it is free.',
    diagram: `chunk: [b][b][free][b][free][b][b][b]   free list: -> slot 2 -> slot 4
malloc(block size) -> head of the free list, else a new chunk`,
  },
  module: {
    text:
      'Your own allocator runs as malloc lab runs it: heaplab calls its mm_malloc, mm_free and mm_realloc, ' +
      'and the allocator asks for heap with mem_sbrk, which moves the break of one heap that only grows. ' +
      'heaplab commits and counts each page the break passes, as it does for the presets, and checks every ' +
      'pointer as mdriver does: aligned, inside the heap, over no live block, its bytes kept. Each step ' +
      'names the call and what it returned in the allocator\'s own addresses; the block map shows the free ' +
      'blocks the allocator reports with hl_free_block, if it does.',
    diagram: `heap:  [ prologue |h| id1 |f|h| free |f|h| id2 |f| ......... ] brk -> (mem_sbrk moves it)
mm_malloc(48) -> 0x20010   the allocator's own pointer; placed at heaplab's address of it
mem_sbrk(4096): the heap grew by a page, committed and resident from now on`,
  },
};

/**
 * Fills `title` and `body` with the explainer of `policy` (`{ family, preset }`): the
 * family's paragraph and diagram, the preset's own words, and each knob with its doc
 * and default, from the registry.
 */
export function renderFamily(title, body, policy) {
  const family = familyById(policy.family);
  const preset = policy.preset ? presetById(policy.preset) : null;
  const explainer = EXPLAINERS[policy.family];
  const sha256 = moduleOf({ policy });
  title.textContent = sha256 ? `How your own allocator (${moduleName(sha256)}) is run` : `How ${family?.title ?? policy.family} works`;
  const parts = [];
  const p = (text, cls = 'doc') => {
    const el = document.createElement('p');
    el.className = cls;
    el.textContent = text;
    return el;
  };
  if (explainer) {
    parts.push(p(explainer.text));
    const pre = document.createElement('pre');
    pre.className = 'teach-diagram';
    pre.textContent = explainer.diagram;
    parts.push(pre);
  }
  if (preset) parts.push(p(`${preset.id}: ${preset.description} Leaves out: ${preset.leaves_out}`));
  const params = family?.params ?? [];
  if (params.length) {
    parts.push(p('What its knobs change (set them in the configuration card):', 'doc small'));
    const list = document.createElement('dl');
    list.className = 'teach-knobs';
    for (const param of params) {
      const dt = document.createElement('dt');
      const value = policy.params?.[param.name];
      dt.textContent = `${param.name} = ${value ?? param.default}`;
      const dd = document.createElement('dd');
      dd.textContent = param.doc;
      list.append(dt, dd);
    }
    parts.push(list);
  }
  body.replaceChildren(...parts);
}

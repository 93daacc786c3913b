/* heaplab.h: what an allocator may tell heaplab beyond malloc lab's interface.
 *
 * Free blocks: from mm_checkheap's heap walk, call hl_free_block(bp, size) for each
 * free block, and teaching mode's block map shows them. heaplab calls mm_checkheap(0)
 * when it needs them, and mm_checkheap(1) when it asks for a check (--check-heap).
 *
 * Giving memory back: hl_decommit gives whole pages below the break back to the system
 * (they read as zero afterwards) and hl_commit takes them back before they are used
 * again. Both take an address that is a whole number of pages past mem_heap_lo() and a
 * length in whole pages (mem_pagesize()), and return 0, or -1 when the range is not
 * such pages. heaplab counts them as page operations, as it counts the presets'. */
#ifndef HEAPLAB_H
#define HEAPLAB_H

#include <stddef.h>

#define HL_IMPORT(name) __attribute__((import_module("env"), import_name(#name)))

HL_IMPORT(hl_free_block) void hl_free_block(void *bp, size_t size);
HL_IMPORT(hl_decommit) int hl_decommit(void *addr, size_t bytes);
HL_IMPORT(hl_commit) int hl_commit(void *addr, size_t bytes);

#endif

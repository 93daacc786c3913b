/* memlib.h: the heap an allocator grows, as CS:APP's malloc lab gives it.
 *
 * heaplab provides these calls over its own page provider, so an mm.c written for
 * malloc lab builds unchanged: `heaplab mm build mm.c -o mm.wasm`. The heap starts
 * empty at mem_heap_lo() and only grows; mem_sbrk(n) returns the old break, or
 * (void *)-1 when the heap would pass its limit (heaplab's max_heap knob). */
#ifndef HEAPLAB_MEMLIB_H
#define HEAPLAB_MEMLIB_H

#include <stddef.h>
#include <stdint.h>

#define HL_IMPORT(name) __attribute__((import_module("env"), import_name(#name)))

HL_IMPORT(mem_sbrk) void *mem_sbrk(intptr_t incr);
/* The heap's first byte. */
HL_IMPORT(mem_heap_lo) void *mem_heap_lo(void);
/* The heap's last byte: mem_heap_lo() + mem_heapsize() - 1. */
HL_IMPORT(mem_heap_hi) void *mem_heap_hi(void);
HL_IMPORT(mem_heapsize) size_t mem_heapsize(void);
HL_IMPORT(mem_pagesize) size_t mem_pagesize(void);

/* mdriver calls these between traces; heaplab starts every run with a fresh module
 * instead, so they do nothing. */
static inline void mem_init(void) {}
static inline void mem_deinit(void) {}
static inline void mem_reset_brk(void) {}

#endif

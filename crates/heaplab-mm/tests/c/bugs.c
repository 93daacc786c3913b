/* An allocator with one planted bug per check heaplab makes, chosen with -DBUG=<name>:
 * each must be caught at the event where it shows, with a message naming the call.
 * Without a bug it is a bump allocator with an 8-byte size header, which frees nothing. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heaplab.h"
#include "memlib.h"

#define HEADER 8

static int calls;
static char outside[64];
static char *last;

int mm_init(void) {
#if BUG_INIT_FAILS
    return -1;
#else
    return 0;
#endif
}

void *mm_malloc(size_t size) {
    calls++;
#if BUG_NULL
    if (calls > 3) return NULL;
#endif
#if BUG_OUTSIDE
    if (calls == 2) return outside + 8;
#endif
#if BUG_OVERLAP
    if (calls == 2) return last;
#endif
#if BUG_TRAP
    if (calls == 2) *(volatile int *)0xfffffff0u = 1;
#endif
#if BUG_LOOP
    if (calls == 2)
        for (volatile int i = 0;; i++) {
        }
#endif
#if BUG_ABORT
    if (calls == 2) abort();
#endif
#if BUG_GROW
    if (calls == 2) __builtin_wasm_memory_grow(0, 1);
#endif
    size_t n = (size + 7) & ~(size_t)7;
    char *p = mem_sbrk((intptr_t)(HEADER + n));
    if (p == (void *)-1) return NULL;
    *(size_t *)p = size;
#if BUG_SCRIBBLE
    /* Bookkeeping written into the previous block's payload. */
    if (last) *(uint32_t *)last = 0xdeadbeef;
#endif
    last = p + HEADER;
#if BUG_MISALIGNED
    if (calls == 2) return p + HEADER + 4;
#endif
    return p + HEADER;
}

void mm_free(void *ptr) { (void)ptr; }

void *mm_realloc(void *ptr, size_t size) {
    void *q = mm_malloc(size);
    if (q == NULL || ptr == NULL) return q;
#if !BUG_REALLOC_LOSES
    size_t old = *(size_t *)((char *)ptr - HEADER);
    memcpy(q, ptr, old < size ? old : size);
#endif
    return q;
}

/* The heap check heaplab calls when asked (check_heap_every): with the bug, it fails from
 * the third call on. */
void mm_checkheap(int verbose) {
    (void)verbose;
#if BUG_CHECK_FAILS
    assert(calls < 3);
#endif
}

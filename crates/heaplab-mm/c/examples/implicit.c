/* implicit: an implicit free list with boundary tags, first fit, and coalescing on free.
 *
 * Every block starts with a 4-byte header and ends with a 4-byte footer, each holding
 * the block's size (a multiple of 8) with its low bit set when the block is allocated.
 * The heap is a prologue block of 8 bytes, the blocks, and an epilogue header of size 0,
 * so that walking and coalescing never test for the heap's ends. mm_malloc walks every
 * block from the start and takes the first free one that fits, splitting off the rest
 * when it can hold a block of its own; when none fits the heap grows by the request or
 * CHUNK, whichever is larger. mm_free marks the block free and merges it with free
 * neighbours on both sides, found through the footer before it and the header after it.
 * mm_realloc shrinks in place, grows in place into a free block after it, or moves.
 *
 * mm_checkheap walks the heap, checks each block against the rules above (aborting,
 * which heaplab reports as a failed check, at the first that breaks), and reports every
 * free block to heaplab's block map through hl_free_block. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heaplab.h"
#include "memlib.h"
#include "mm.h"

team_t team = {"heaplab", "implicit", "", "", ""};

#define WSIZE 4
#define DSIZE 8
#define CHUNK 4096
#define MIN_BLOCK 16

#define PACK(size, alloc) ((uint32_t)(size) | (alloc))
#define GET(p) (*(uint32_t *)(p))
#define PUT(p, v) (*(uint32_t *)(p) = (uint32_t)(v))
#define SIZE(p) (GET(p) & ~(uint32_t)7)
#define ALLOC(p) (GET(p) & 1)
#define HDRP(bp) ((char *)(bp) - WSIZE)
#define FTRP(bp) ((char *)(bp) + SIZE(HDRP(bp)) - DSIZE)
#define NEXT(bp) ((char *)(bp) + SIZE(HDRP(bp)))
#define PREV(bp) ((char *)(bp) - SIZE((char *)(bp) - DSIZE))

static char *heap_start; /* the prologue's payload */

static void *coalesce(char *bp) {
    size_t prev = ALLOC(FTRP(PREV(bp)));
    size_t next = ALLOC(HDRP(NEXT(bp)));
    size_t size = SIZE(HDRP(bp));
    if (!next) size += SIZE(HDRP(NEXT(bp)));
    if (!prev) {
        size += SIZE(HDRP(PREV(bp)));
        bp = PREV(bp);
    }
    PUT(HDRP(bp), PACK(size, 0));
    PUT(FTRP(bp), PACK(size, 0));
    return bp;
}

/* Grows the heap by `bytes` (a multiple of 8) as one free block, merged with a free
 * block at the heap's end. */
static void *grow(size_t bytes) {
    char *bp = mem_sbrk((intptr_t)bytes);
    if (bp == (void *)-1) return NULL;
    /* The old epilogue header becomes the new block's header. */
    PUT(HDRP(bp), PACK(bytes, 0));
    PUT(FTRP(bp), PACK(bytes, 0));
    PUT(HDRP(NEXT(bp)), PACK(0, 1));
    return coalesce(bp);
}

int mm_init(void) {
    char *p = mem_sbrk(4 * WSIZE);
    if (p == (void *)-1) return -1;
    PUT(p, 0);                            /* padding, so payloads are 8-aligned */
    PUT(p + WSIZE, PACK(DSIZE, 1));       /* prologue header */
    PUT(p + 2 * WSIZE, PACK(DSIZE, 1));   /* prologue footer */
    PUT(p + 3 * WSIZE, PACK(0, 1));       /* epilogue header */
    heap_start = p + 2 * WSIZE;
    return 0;
}

static size_t block_size(size_t size) {
    size_t n = (size + DSIZE + (DSIZE - 1)) & ~(size_t)(DSIZE - 1);
    return n < MIN_BLOCK ? MIN_BLOCK : n;
}

/* Marks `bp` allocated with `need` bytes, splitting off the rest if it is a block. */
static void place(char *bp, size_t need) {
    size_t have = SIZE(HDRP(bp));
    if (have - need >= MIN_BLOCK) {
        PUT(HDRP(bp), PACK(need, 1));
        PUT(FTRP(bp), PACK(need, 1));
        char *rest = NEXT(bp);
        PUT(HDRP(rest), PACK(have - need, 0));
        PUT(FTRP(rest), PACK(have - need, 0));
    } else {
        PUT(HDRP(bp), PACK(have, 1));
        PUT(FTRP(bp), PACK(have, 1));
    }
}

void *mm_malloc(size_t size) {
    if (size == 0) return NULL;
    size_t need = block_size(size);
    for (char *bp = heap_start; SIZE(HDRP(bp)) > 0; bp = NEXT(bp)) {
        if (!ALLOC(HDRP(bp)) && SIZE(HDRP(bp)) >= need) {
            place(bp, need);
            return bp;
        }
    }
    char *bp = grow(need > CHUNK ? need : CHUNK);
    if (bp == NULL) return NULL;
    place(bp, need);
    return bp;
}

void mm_free(void *ptr) {
    if (ptr == NULL) return;
    char *bp = ptr;
    size_t size = SIZE(HDRP(bp));
    PUT(HDRP(bp), PACK(size, 0));
    PUT(FTRP(bp), PACK(size, 0));
    coalesce(bp);
}

void *mm_realloc(void *ptr, size_t size) {
    if (ptr == NULL) return mm_malloc(size);
    if (size == 0) {
        mm_free(ptr);
        return NULL;
    }
    char *bp = ptr;
    size_t need = block_size(size), have = SIZE(HDRP(bp));
    if (need <= have) {
        place(bp, need);
        if (need < have && !ALLOC(HDRP(NEXT(bp)))) coalesce(NEXT(bp));
        return bp;
    }
    char *next = NEXT(bp);
    if (!ALLOC(HDRP(next)) && have + SIZE(HDRP(next)) >= need) {
        size_t joined = have + SIZE(HDRP(next));
        PUT(HDRP(bp), PACK(joined, 1));
        PUT(FTRP(bp), PACK(joined, 1));
        place(bp, need);
        return bp;
    }
    void *q = mm_malloc(size);
    if (q == NULL) return NULL;
    memcpy(q, ptr, have - DSIZE);
    mm_free(ptr);
    return q;
}

#define COMPLAIN(...) (printf(__VA_ARGS__), abort())

void mm_checkheap(int verbose) {
    int prev_free = 0;
    for (char *bp = heap_start; SIZE(HDRP(bp)) > 0; bp = NEXT(bp)) {
        if ((uintptr_t)bp % DSIZE) COMPLAIN("block %p is not 8-aligned\n", (void *)bp);
        if (GET(HDRP(bp)) != GET(FTRP(bp)))
            COMPLAIN("block %p: header and footer differ\n", (void *)bp);
        if (!ALLOC(HDRP(bp))) {
            if (prev_free) COMPLAIN("the block before %p was not coalesced with it\n", (void *)bp);
            hl_free_block(bp, SIZE(HDRP(bp)) - DSIZE);
        }
        prev_free = !ALLOC(HDRP(bp));
        if (verbose > 1) printf("%p: %u %s\n", (void *)bp, SIZE(HDRP(bp)), ALLOC(HDRP(bp)) ? "a" : "f");
    }
}

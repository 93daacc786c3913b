/* segregated: segregated explicit free lists, with boundary tags and coalescing.
 *
 * Blocks carry a 4-byte header and footer as in `implicit` (size, allocated bit). A free
 * block also keeps two 4-byte links in its payload, to the previous and next free block
 * of its size class, so mm_malloc looks only at free blocks, and only at those of the
 * request's class and larger: the classes are powers of two, class k holding blocks of
 * 2^(k+4) to 2^(k+5) - 1 bytes, and each list is kept in LIFO order. mm_malloc takes the
 * first block that fits in the first non-empty class that can hold the request, splits
 * off the rest when it can hold a block of its own, and grows the heap when no class has
 * one. mm_free coalesces with free neighbours on both sides and pushes the result on its
 * class's list. mm_realloc shrinks in place, grows into a free block after it, or moves.
 *
 * mm_checkheap walks the heap and every list, checking that each free block is on the
 * list of its class and that no two free blocks lie side by side, and reports every free
 * block to heaplab's block map. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heaplab.h"
#include "memlib.h"
#include "mm.h"

team_t team = {"heaplab", "segregated", "", "", ""};

#define WSIZE 4
#define DSIZE 8
#define CHUNK 4096
#define MIN_BLOCK 16 /* header, two links, footer */
#define CLASSES 20

#define PACK(size, alloc) ((uint32_t)(size) | (alloc))
#define GET(p) (*(uint32_t *)(p))
#define PUT(p, v) (*(uint32_t *)(p) = (uint32_t)(v))
#define SIZE(p) (GET(p) & ~(uint32_t)7)
#define ALLOC(p) (GET(p) & 1)
#define HDRP(bp) ((char *)(bp) - WSIZE)
#define FTRP(bp) ((char *)(bp) + SIZE(HDRP(bp)) - DSIZE)
#define NEXT(bp) ((char *)(bp) + SIZE(HDRP(bp)))
#define PREV(bp) ((char *)(bp) - SIZE((char *)(bp) - DSIZE))
/* A free block's links, stored as pointers (4 bytes on wasm32). */
#define PRED(bp) (((char **)(bp))[0])
#define SUCC(bp) (((char **)(bp))[1])

static char *heap_start;
static char *lists[CLASSES];

static int class_of(size_t size) {
    int k = 0;
    for (size_t s = size >> 5; s && k < CLASSES - 1; s >>= 1) k++;
    return k;
}

static void push(char *bp) {
    int k = class_of(SIZE(HDRP(bp)));
    PRED(bp) = NULL;
    SUCC(bp) = lists[k];
    if (lists[k]) PRED(lists[k]) = bp;
    lists[k] = bp;
}

static void unlink_block(char *bp) {
    int k = class_of(SIZE(HDRP(bp)));
    if (PRED(bp)) SUCC(PRED(bp)) = SUCC(bp);
    else lists[k] = SUCC(bp);
    if (SUCC(bp)) PRED(SUCC(bp)) = PRED(bp);
}

static void set(char *bp, size_t size, int alloc) {
    PUT(HDRP(bp), PACK(size, alloc));
    PUT(FTRP(bp), PACK(size, alloc));
}

/* Merges the free block `bp` (on no list) with free neighbours and lists the result. */
static char *coalesce(char *bp) {
    size_t size = SIZE(HDRP(bp));
    char *next = NEXT(bp);
    if (!ALLOC(HDRP(next))) {
        unlink_block(next);
        size += SIZE(HDRP(next));
    }
    if (!ALLOC(FTRP(PREV(bp)))) {
        char *prev = PREV(bp);
        unlink_block(prev);
        size += SIZE(HDRP(prev));
        bp = prev;
    }
    set(bp, size, 0);
    push(bp);
    return bp;
}

static char *grow(size_t bytes) {
    char *bp = mem_sbrk((intptr_t)bytes);
    if (bp == (void *)-1) return NULL;
    set(bp, bytes, 0);
    PUT(HDRP(NEXT(bp)), PACK(0, 1));
    return coalesce(bp);
}

int mm_init(void) {
    for (int k = 0; k < CLASSES; k++) lists[k] = NULL;
    char *p = mem_sbrk(4 * WSIZE);
    if (p == (void *)-1) return -1;
    PUT(p, 0);
    PUT(p + WSIZE, PACK(DSIZE, 1));
    PUT(p + 2 * WSIZE, PACK(DSIZE, 1));
    PUT(p + 3 * WSIZE, PACK(0, 1));
    heap_start = p + 2 * WSIZE;
    return 0;
}

static size_t block_size(size_t size) {
    size_t n = (size + DSIZE + (DSIZE - 1)) & ~(size_t)(DSIZE - 1);
    return n < MIN_BLOCK ? MIN_BLOCK : n;
}

/* Marks `bp` (off any list) allocated with `need` of its bytes, giving the rest back
 * as a free block when it can hold one. */
static void place(char *bp, size_t need) {
    size_t have = SIZE(HDRP(bp));
    if (have - need >= MIN_BLOCK) {
        set(bp, need, 1);
        char *rest = NEXT(bp);
        set(rest, have - need, 0);
        coalesce(rest);
    } else {
        set(bp, have, 1);
    }
}

static char *find(size_t need) {
    for (int k = class_of(need); k < CLASSES; k++)
        for (char *bp = lists[k]; bp; bp = SUCC(bp))
            if (SIZE(HDRP(bp)) >= need) return bp;
    return NULL;
}

void *mm_malloc(size_t size) {
    if (size == 0) return NULL;
    size_t need = block_size(size);
    char *bp = find(need);
    if (bp == NULL) {
        bp = grow(need > CHUNK ? need : CHUNK);
        if (bp == NULL) return NULL;
    }
    unlink_block(bp);
    place(bp, need);
    return bp;
}

void mm_free(void *ptr) {
    if (ptr == NULL) return;
    set(ptr, SIZE(HDRP(ptr)), 0);
    coalesce(ptr);
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
        return bp;
    }
    char *next = NEXT(bp);
    if (!ALLOC(HDRP(next)) && have + SIZE(HDRP(next)) >= need) {
        unlink_block(next);
        set(bp, have + SIZE(HDRP(next)), 1);
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
    size_t free_in_heap = 0, free_in_lists = 0;
    int prev_free = 0;
    for (char *bp = heap_start; SIZE(HDRP(bp)) > 0; bp = NEXT(bp)) {
        if (GET(HDRP(bp)) != GET(FTRP(bp)))
            COMPLAIN("block %p: header and footer differ\n", (void *)bp);
        if (!ALLOC(HDRP(bp))) {
            if (prev_free) COMPLAIN("the block before %p was not coalesced with it\n", (void *)bp);
            free_in_heap++;
            hl_free_block(bp, SIZE(HDRP(bp)) - DSIZE);
        }
        prev_free = !ALLOC(HDRP(bp));
    }
    for (int k = 0; k < CLASSES; k++) {
        for (char *bp = lists[k]; bp; bp = SUCC(bp)) {
            if (ALLOC(HDRP(bp))) COMPLAIN("allocated block %p is on free list %d\n", (void *)bp, k);
            if (class_of(SIZE(HDRP(bp))) != k)
                COMPLAIN("block %p of %u bytes is on list %d\n", (void *)bp, SIZE(HDRP(bp)), k);
            if (SUCC(bp) && PRED(SUCC(bp)) != bp) COMPLAIN("list %d: broken back link\n", k);
            free_in_lists++;
        }
    }
    if (free_in_heap != free_in_lists)
        COMPLAIN("%zu free blocks in the heap, %zu on the lists\n", free_in_heap, free_in_lists);
    if (verbose > 1) printf("%zu free blocks\n", free_in_heap);
}

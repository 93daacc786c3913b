/* heaplab.h: tell `heaplab record` about a program's own arenas and phases.
 *
 * The recorder sees only the malloc family. An arena that carves its blocks out of big
 * malloc'd slabs (LLVM's BumpPtrAllocator in a JIT, say) shows up as a few slab mallocs,
 * and its allocations and resets are invisible. These calls put them in the trace:
 *
 *   heaplab_arena_create(n)            ->  arena <n>
 *   heaplab_arena_alloc(n, size, al)   ->  a <id> <size> [al] arena=<n>
 *   heaplab_arena_reset(n)             ->  reset <n>
 *   heaplab_arena_drop(n)              ->  drop <n>
 *   heaplab_slab_begin(n); malloc(..); heaplab_slab_end();
 *                                      ->  a <id> <size> slab=<n>  (this thread's mallocs)
 *   heaplab_slab_malloc(n, size)       ->  the same around one malloc
 *   heaplab_phase("name")              ->  p name
 *
 * A replay leaves the slab lines out and lets each policy back the arena's blocks in
 * its own way, so the memory is not counted twice.
 *
 * The hooks are weak symbols. A program built with this header and run on its own finds
 * them null, and each call is a test of a pointer against null; under `heaplab record`
 * the recorder's preload library defines them, and the dynamic linker binds them to it.
 * Include the header and link as usual: nothing else is needed. Weak references bind at
 * run time only in a dynamically linked executable (the default; not with -static).
 */
#ifndef HEAPLAB_H
#define HEAPLAB_H

#include <stddef.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The recorder's entry points (crates/heaplab-record/src/arenas.rs); call the
 * heaplab_* functions below instead. */
extern void heaplab_hook_arena_create(unsigned arena) __attribute__((weak));
extern void heaplab_hook_arena_alloc(unsigned arena, size_t size, size_t align)
    __attribute__((weak));
extern void heaplab_hook_arena_reset(unsigned arena) __attribute__((weak));
extern void heaplab_hook_arena_drop(unsigned arena) __attribute__((weak));
extern void heaplab_hook_slab_begin(unsigned arena) __attribute__((weak));
extern void heaplab_hook_slab_end(void) __attribute__((weak));
extern void heaplab_hook_phase(const char *name) __attribute__((weak));

/* Arena `arena` is created. Ids are the program's choice; reuse one only after a drop. */
static inline void heaplab_arena_create(unsigned arena) {
    if (heaplab_hook_arena_create) heaplab_hook_arena_create(arena);
}

/* The arena hands out `size` bytes aligned to `align` (a power of two). */
static inline void heaplab_arena_alloc(unsigned arena, size_t size, size_t align) {
    if (heaplab_hook_arena_alloc) heaplab_hook_arena_alloc(arena, size, align);
}

/* Every block of the arena dies; the arena stays usable. */
static inline void heaplab_arena_reset(unsigned arena) {
    if (heaplab_hook_arena_reset) heaplab_hook_arena_reset(arena);
}

/* Every block of the arena dies and the arena is gone. */
static inline void heaplab_arena_drop(unsigned arena) {
    if (heaplab_hook_arena_drop) heaplab_hook_arena_drop(arena);
}

/* This thread's allocations until heaplab_slab_end are slabs of `arena`. */
static inline void heaplab_slab_begin(unsigned arena) {
    if (heaplab_hook_slab_begin) heaplab_hook_slab_begin(arena);
}

static inline void heaplab_slab_end(void) {
    if (heaplab_hook_slab_end) heaplab_hook_slab_end();
}

/* malloc(size) as a slab of `arena`; free it with free() as usual. */
static inline void *heaplab_slab_malloc(unsigned arena, size_t size) {
    heaplab_slab_begin(arena);
    void *p = malloc(size);
    heaplab_slab_end();
    return p;
}

/* The program enters a phase named `name` (one line; `#` is written as `?`). */
static inline void heaplab_phase(const char *name) {
    if (heaplab_hook_phase) heaplab_hook_phase(name);
}

#ifdef __cplusplus
}
#endif

#endif /* HEAPLAB_H */

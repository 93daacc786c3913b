/* A JIT's memory in miniature, annotated with heaplab.h: each function is compiled into
   a bump arena (as LLVM's BumpPtrAllocator does it, over slabs it takes from malloc) that
   is reset after the function, while the code emitted for it stays in malloc'd blocks.
   crates/heaplab-cli/tests/record.rs records it and sweeps the slab size of the replay.

   The arena follows llvm/Support/Allocator.h: slabs of 4 KiB that double every 128 slabs
   (computeSlabSize), a request above the slab size gets a slab of its own
   (SizeThreshold), and Reset keeps the first slab and frees the others. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heaplab.h"

#define SLAB_SIZE 4096
#define GROWTH_DELAY 128
#define MAX_SLABS 4096

struct arena {
  unsigned id;
  char *cur, *end;
  void *slabs[MAX_SLABS];
  int nslabs;
  void *custom[MAX_SLABS];
  int ncustom;
};

static size_t slab_size(int n) {
  int doublings = n / GROWTH_DELAY;
  return (size_t)SLAB_SIZE << (doublings < 30 ? doublings : 30);
}

static void arena_init(struct arena *a, unsigned id) {
  memset(a, 0, sizeof *a);
  a->id = id;
  heaplab_arena_create(id);
}

static void *arena_alloc(struct arena *a, size_t size, size_t align) {
  heaplab_arena_alloc(a->id, size, align);
  size_t padded = size + align - 1;
  if (padded > SLAB_SIZE) {
    char *p = heaplab_slab_malloc(a->id, padded);
    if (!p || a->ncustom == MAX_SLABS) abort();
    a->custom[a->ncustom++] = p;
    return (void *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
  }
  uintptr_t at = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
  if (!a->cur || at + size > (uintptr_t)a->end) {
    size_t len = slab_size(a->nslabs);
    char *s = heaplab_slab_malloc(a->id, len);
    if (!s || a->nslabs == MAX_SLABS) abort();
    a->slabs[a->nslabs++] = s;
    a->end = s + len;
    at = ((uintptr_t)s + align - 1) & ~(uintptr_t)(align - 1);
  }
  a->cur = (char *)(at + size);
  return (void *)at;
}

/* Every block dies; the first slab stays, as LLVM's Reset keeps it. */
static void arena_reset(struct arena *a) {
  heaplab_arena_reset(a->id);
  for (int i = 0; i < a->ncustom; i++) free(a->custom[i]);
  a->ncustom = 0;
  for (int i = 1; i < a->nslabs; i++) free(a->slabs[i]);
  if (a->nslabs > 0) {
    a->nslabs = 1;
    a->cur = a->slabs[0];
    a->end = a->cur + slab_size(0);
  }
}

/* Every block dies and every slab goes back. */
static void arena_drop(struct arena *a) {
  heaplab_arena_drop(a->id);
  for (int i = 0; i < a->ncustom; i++) free(a->custom[i]);
  for (int i = 0; i < a->nslabs; i++) free(a->slabs[i]);
  a->ncustom = a->nslabs = 0;
  a->cur = a->end = 0;
}

#define FUNCTIONS 40
#define NODES 2000

int main(void) {
  static struct arena a;
  void *code[FUNCTIONS];
  uint32_t seed = 12345;
  arena_init(&a, 1);
  heaplab_phase("compile");
  for (int f = 0; f < FUNCTIONS; f++) {
    /* The function's IR: small nodes of 16 to 256 bytes, and now and then a big table
       that takes a slab of its own. */
    for (int i = 0; i < NODES; i++) {
      seed = seed * 1103515245u + 12345u;
      size_t size = 16 + (seed >> 16) % 241;
      if (i % 500 == 499) size = 10000;
      memset(arena_alloc(&a, size, 8), 0xab, size);
    }
    /* The emitted code outlives the arena's reset. */
    code[f] = malloc(300 + f);
    memset(code[f], 0xc3, 300 + f);
    arena_reset(&a);
  }
  heaplab_phase("run");
  for (int f = 0; f < FUNCTIONS; f++) free(code[f]);
  arena_drop(&a);
  return 0;
}

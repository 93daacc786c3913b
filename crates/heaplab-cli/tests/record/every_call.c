/* Calls every function heaplab-preload records, once, with sizes the test looks for:
   crates/heaplab-cli/tests/record.rs compiles it and checks the trace line by line. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
int main(void) {
  void *volatile p[10];
  p[0] = malloc(100);
  p[1] = calloc(10, 30);
  p[2] = realloc(0, 50);
  p[2] = realloc(p[2], 5000);
  p[3] = reallocarray(0, 4, 25);
  posix_memalign((void **)&p[4], 64, 200);
  p[5] = aligned_alloc(256, 512);
  p[6] = memalign(32, 48);
  p[7] = valloc(10);
  p[8] = pvalloc(10);
  free(0);
  for (int i = 0; i < 9; i++) free(p[i]);
  p[9] = realloc(malloc(7), 0);
  return p[9] != 0;
}

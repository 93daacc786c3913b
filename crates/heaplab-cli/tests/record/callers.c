/* Allocates from three functions that the test looks for by name in the trace's `site`
   lines: crates/heaplab-cli/tests/record.rs compiles it with debug info and records it
   with --callers. Every 8th block stays live, so each site pins memory at the end. */
#include <stdlib.h>
#include <string.h>

static void *volatile kept[4096];
static int nkept;

__attribute__((noinline)) char *make_name(int i) {
  char *p = malloc(24 + i % 8);
  strcpy(p, "name");
  return p;
}

__attribute__((noinline)) int *make_table(int i) {
  return calloc(16 + i % 4, sizeof(int));
}

__attribute__((noinline)) char *grow_buffer(char *p, int i) {
  return realloc(p, 96 + i % 16);
}

int main(void) {
  for (int i = 0; i < 2000; i++) {
    char *name = make_name(i);
    int *table = make_table(i);
    char *buf = grow_buffer(malloc(8), i);
    if (i % 8 == 0) {
      kept[nkept++] = name;
      kept[nkept++] = table;
      kept[nkept++] = buf;
    } else {
      free(name);
      free(table);
      free(buf);
    }
  }
  return 0;
}

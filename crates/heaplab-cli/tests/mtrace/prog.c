/* A program that traces its own heap with glibc's mtrace(), as the README's recipe says:
 * 100 allocations, 10 reallocations, 100 frees and one free(NULL). */
#include <mcheck.h>
#include <stdlib.h>

int main(void) {
    mtrace();
    void *blocks[100];
    for (int i = 0; i < 100; i++) blocks[i] = malloc(16 + i);
    for (int i = 0; i < 10; i++) blocks[i] = realloc(blocks[i], 4096);
    for (int i = 0; i < 100; i++) free(blocks[i]);
    free(NULL);
    muntrace();
    return 0;
}

/* Stands in for glibc's malloc_trim and mallinfo2 when preloaded: each call appends its
 * name to the file named by HEAPLAB_SPY_FILE, so a test sees which of glibc's own calls a
 * baseline made. It allocates nothing. */
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const char *name) {
    const char *path = getenv("HEAPLAB_SPY_FILE");
    if (path == NULL)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    write(fd, name, strlen(name));
    write(fd, "\n", 1);
    close(fd);
}

int malloc_trim(size_t pad) {
    (void)pad;
    note("malloc_trim");
    return 0;
}

struct mallinfo2 mallinfo2(void) {
    struct mallinfo2 info;
    memset(&info, 0, sizeof info);
    note("mallinfo2");
    return info;
}

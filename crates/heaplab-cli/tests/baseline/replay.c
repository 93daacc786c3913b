/* A minimal replay of a heaplab text trace ("a ID SIZE [ALIGN]", "f ID", "r ID SIZE"),
 * written apart from heaplab to check its baseline. Usage: replay TRACE NS_PER_EVENT.
 *
 * One call per line: malloc, posix_memalign, realloc or free, whichever allocator the
 * process has (glibc, or one given in LD_PRELOAD). Every byte of each block is written.
 * Nothing of the replay's own lives in that heap: the trace and the id table are mapped
 * with mmap, and /proc/self is read with open and read into stack buffers. The resident
 * set is sampled about every 1% of the events, and the kernel's high water mark (reset
 * through /proc/self/clear_refs) covers the peak between samples. Events are paced to
 * NS_PER_EVENT (0: as fast as it goes), so that an allocator that acts on a clock sees
 * the same time pass as in the replay it is compared with.
 *
 * Prints "peak_bytes end_bytes ns_per_event": heap figures are anonymous RSS less that
 * before the first event. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long page;

/* Reads a /proc file into buf, NUL-terminated; the length, or -1. */
static long slurp(const char *path, char *buf, long cap) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long len = 0, n;
    while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
        len += n;
    close(fd);
    buf[len] = 0;
    return len;
}

/* Anonymous resident bytes: statm's resident less shared. */
static unsigned long anon(void) {
    char buf[128];
    unsigned long size, resident, shared;
    if (slurp("/proc/self/statm", buf, sizeof buf) < 0)
        return 0;
    if (sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3)
        return 0;
    return (resident - shared) * page;
}

/* A field of /proc/self/status in bytes, from the text already read. */
static unsigned long field(const char *status, const char *name) {
    const char *p = strstr(status, name);
    unsigned long kb = 0;
    if (p)
        sscanf(p + strlen(name), " %lu", &kb);
    return kb * 1024;
}

/* The high water mark less the file-backed and shmem pages resident now. */
static unsigned long peak_anon(void) {
    char buf[4096];
    if (slurp("/proc/self/status", buf, sizeof buf) < 0)
        return 0;
    unsigned long hwm = field(buf, "VmHWM:");
    unsigned long other = field(buf, "RssFile:") + field(buf, "RssShmem:");
    return hwm > other ? hwm - other : 0;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void *map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

struct event {
    char op;
    unsigned long id, size, align;
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: replay TRACE NS_PER_EVENT\n");
        return 2;
    }
    page = sysconf(_SC_PAGESIZE);
    double pace = atof(argv[2]);
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[1]);
        return 2;
    }
    char *text = mmap(NULL, st.st_size + 1, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    long lines = 0;
    for (off_t i = 0; i < st.st_size; i++)
        lines += text[i] == '\n';
    struct event *events = map((lines + 1) * sizeof *events);
    long n = 0;
    unsigned long max_id = 0;
    for (char *p = text; n < lines; p = strchr(p, '\n') + 1) {
        struct event *e = &events[n];
        e->align = 16;
        int got = sscanf(p, "%c %lu %lu %lu", &e->op, &e->id, &e->size, &e->align);
        if (got < 2) {
            fprintf(stderr, "%s:%ld: not an event\n", argv[1], n + 1);
            return 2;
        }
        if (e->id > max_id)
            max_id = e->id;
        n++;
    }
    void **live = map((max_id + 1) * sizeof *live);
    memset(live, 0, (max_id + 1) * sizeof *live);
    long every = n / 100 > 0 ? n / 100 : 1;

    int clear = open("/proc/self/clear_refs", O_WRONLY);
    if (clear >= 0) {
        write(clear, "5\n", 2);
        close(clear);
    }
    unsigned long before = anon(), peak = before;
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        struct event *e = &events[i];
        if (e->op == 'a' && e->align <= 16) {
            live[e->id] = malloc(e->size);
            memset(live[e->id], 0x5a, e->size);
        } else if (e->op == 'a') {
            posix_memalign(&live[e->id], e->align, e->size);
            memset(live[e->id], 0x5a, e->size);
        } else if (e->op == 'r') {
            live[e->id] = realloc(live[e->id], e->size ? e->size : 1);
            memset(live[e->id], 0x5a, e->size);
        } else if (e->op == 'f') {
            free(live[e->id]);
            live[e->id] = NULL;
        }
        if ((i + 1) % every == 0) {
            unsigned long rss = anon();
            if (rss > peak)
                peak = rss;
        }
        while (now_ns() - start < (i + 1) * pace)
            ;
    }
    double ns = (now_ns() - start) / (n ? n : 1);
    unsigned long end = anon();
    if (end > peak)
        peak = end;
    unsigned long hwm = peak_anon();
    if (hwm > peak)
        peak = hwm;
    printf("%lu %lu %.1f\n", peak - before, end > before ? end - before : 0, ns);
    return 0;
}

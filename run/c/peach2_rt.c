/*
 * The C runtime `peach2 cc` links into a program: each TCA, MPI and CUDA call becomes
 * a frame to the platform `peach2 run` started the process under (run/src/wire.rs has
 * the format), and waits for its answer. Memory the program touches directly (CPU
 * tcaMalloc, cudaMallocHost) is the node's host arena, a file mapped here and into the
 * simulated host memory.
 */
#include "tca-api.h"
#include "mpi.h"
#include "cuda_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int p2_fd = -1;
static int p2_rank, p2_size, p2_gpus, p2_device;
static unsigned char *p2_arena;
static uint64_t p2_arena_bus, p2_arena_bytes;
static cudaError_t p2_cuda_last = cudaSuccess;

/* Device allocations (cudaMalloc and GPU tcaMalloc), to classify pointers. */
struct p2_range { uint64_t base, len; };
static struct p2_range *p2_dev;
static size_t p2_ndev, p2_capdev;

static void p2_die(const char *what) {
    fprintf(stderr, "peach2 runtime (rank %d): %s\n", p2_rank, what);
    fflush(stderr);
    _exit(127);
}

/* A growing frame. */
struct p2_buf { unsigned char *p; size_t len, cap; };

static void p2_put(struct p2_buf *b, const void *v, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) p2_die("out of memory");
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, v, n);
    b->len += n;
}
static void p2_u32(struct p2_buf *b, uint32_t v) {
    unsigned char x[4] = {v, v >> 8, v >> 16, v >> 24};
    p2_put(b, x, 4);
}
static void p2_u64(struct p2_buf *b, uint64_t v) {
    p2_u32(b, (uint32_t)v);
    p2_u32(b, (uint32_t)(v >> 32));
}
static void p2_bytes(struct p2_buf *b, const void *v, size_t n) {
    p2_u64(b, n);
    p2_put(b, v, n);
}

/* A reply being read. */
struct p2_reply { unsigned char *p; size_t len, at; int32_t status; };

static uint64_t p2_get(struct p2_reply *r, int n) {
    uint64_t v = 0;
    if (r->at + n > r->len) p2_die("short reply from the platform");
    for (int i = 0; i < n; i++) v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += n;
    return v;
}
static uint64_t p2_get_u64(struct p2_reply *r) { return p2_get(r, 8); }
static int32_t p2_get_i32(struct p2_reply *r) { return (int32_t)p2_get(r, 4); }
/* A byte string: its length, and a pointer into the reply. */
static const unsigned char *p2_get_bytes(struct p2_reply *r, uint64_t *n) {
    *n = p2_get_u64(r);
    if (r->at + *n > r->len) p2_die("short reply from the platform");
    const unsigned char *p = r->p + r->at;
    r->at += *n;
    return p;
}

static void p2_write_all(const void *p, size_t n) {
    const unsigned char *c = p;
    while (n) {
        ssize_t k = write(p2_fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) p2_die("lost the platform");
        c += k;
        n -= k;
    }
}
static void p2_read_all(void *p, size_t n) {
    unsigned char *c = p;
    while (n) {
        ssize_t k = read(p2_fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) p2_die("lost the platform");
        c += k;
        n -= k;
    }
}

static uint64_t p2_offset(int fd) {
    off_t o = lseek(fd, 0, SEEK_CUR);
    return o < 0 ? 0 : (uint64_t)o;
}

/* Starts a call frame: code, then how far stdout and stderr were written. */
static struct p2_buf p2_begin(int code) {
    struct p2_buf b = {0, 0, 0};
    fflush(stdout);
    fflush(stderr);
    p2_u32(&b, code);
    p2_u64(&b, p2_offset(1));
    p2_u64(&b, p2_offset(2));
    return b;
}

/* Sends the frame and reads the answer (the caller frees r.p). */
static struct p2_reply p2_call(struct p2_buf *b) {
    uint32_t len = (uint32_t)b->len;
    unsigned char l[4] = {len, len >> 8, len >> 16, len >> 24};
    p2_write_all(l, 4);
    p2_write_all(b->p, b->len);
    free(b->p);
    p2_read_all(l, 4);
    struct p2_reply r = {0, (size_t)l[0] | l[1] << 8 | l[2] << 16 | (size_t)l[3] << 24, 0, 0};
    r.p = malloc(r.len ? r.len : 1);
    if (!r.p) p2_die("out of memory");
    p2_read_all(r.p, r.len);
    r.status = p2_get_i32(&r);
    return r;
}

/* A call whose answer is only a status. */
static int p2_simple(struct p2_buf *b) {
    struct p2_reply r = p2_call(b);
    free(r.p);
    return r.status;
}

static void p2_at_exit(void) {
    struct p2_buf b = p2_begin(P2_CALL_EXIT);
    p2_simple(&b);
}

static uint64_t p2_env(const char *name) {
    const char *v = getenv(name);
    if (!v) {
        fprintf(stderr, "this program was built with `peach2 cc`: run it with `peach2 run` (%s is not set)\n", name);
        exit(127);
    }
    return strtoull(v, 0, 10);
}

__attribute__((constructor)) static void p2_start(void) {
    const char *sock = getenv("PEACH2_RUN_SOCKET");
    const char *arena = getenv("PEACH2_RUN_ARENA");
    p2_rank = (int)p2_env("PEACH2_RUN_RANK");
    p2_size = (int)p2_env("PEACH2_RUN_SIZE");
    p2_gpus = (int)p2_env("PEACH2_RUN_GPUS");
    p2_arena_bus = p2_env("PEACH2_RUN_ARENA_BUS");
    p2_arena_bytes = p2_env("PEACH2_RUN_ARENA_BYTES");
    if (!sock || !arena) p2_env("PEACH2_RUN_SOCKET");
    int afd = open(arena, O_RDWR);
    if (afd < 0) p2_die("cannot open the host arena");
    p2_arena = mmap(0, p2_arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, afd, 0);
    close(afd);
    if (p2_arena == MAP_FAILED) p2_die("cannot map the host arena");
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(sock) >= sizeof a.sun_path) p2_die("socket path too long");
    strcpy(a.sun_path, sock);
    p2_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (p2_fd < 0 || connect(p2_fd, (struct sockaddr *)&a, sizeof a) < 0)
        p2_die("cannot reach the platform");
    struct p2_buf b = p2_begin(P2_CALL_HELLO);
    p2_u32(&b, (uint32_t)p2_rank);
    uint32_t len = (uint32_t)b.len;
    unsigned char l[4] = {len, len >> 8, len >> 16, len >> 24};
    p2_write_all(l, 4);
    p2_write_all(b.p, b.len);
    free(b.p);
    atexit(p2_at_exit);
}

/* Host pointers in the arena <-> bus addresses. */
static int p2_to_bus(const void *p, uint64_t *bus) {
    const unsigned char *c = p;
    if (c >= p2_arena && c < p2_arena + p2_arena_bytes) {
        *bus = p2_arena_bus + (uint64_t)(c - p2_arena);
        return 1;
    }
    return 0;
}
static void *p2_from_bus(uint64_t bus) { return p2_arena + (bus - p2_arena_bus); }

static void p2_dev_add(uint64_t base, uint64_t len) {
    if (p2_ndev == p2_capdev) {
        p2_capdev = p2_capdev ? 2 * p2_capdev : 16;
        p2_dev = realloc(p2_dev, p2_capdev * sizeof *p2_dev);
        if (!p2_dev) p2_die("out of memory");
    }
    p2_dev[p2_ndev].base = base;
    p2_dev[p2_ndev].len = len;
    p2_ndev++;
}
static void p2_dev_remove(uint64_t base) {
    for (size_t i = 0; i < p2_ndev; i++)
        if (p2_dev[i].base == base) p2_dev[i] = p2_dev[--p2_ndev];
}
static int p2_is_device(const void *p) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    for (size_t i = 0; i < p2_ndev; i++)
        if (a >= p2_dev[i].base && a - p2_dev[i].base < p2_dev[i].len) return 1;
    return 0;
}

/* ---------------------------------------------------------------- TCA */

const char *tcaGetErrorString(tcaresult r) {
    switch (r) {
    case TCA_SUCCESS: return "success";
    case TCA_ERROR_INVALID_VALUE: return "invalid value";
    case TCA_ERROR_OUT_OF_MEMORY: return "out of memory";
    case TCA_ERROR_NOT_SUPPORTED: return "not supported";
    case TCA_ERROR_NOT_INITIALIZED: return "not initialized";
    case TCA_ERROR_NOT_READY: return "not ready";
    case TCA_ERROR_BUSY: return "busy";
    case TCA_ERROR_TIMEOUT: return "timed out";
    case TCA_ERROR_DEVICE: return "device error";
    }
    return "unknown error";
}

tcaresult tcaInit(void) {
    struct p2_buf b = p2_begin(P2_CALL_TCA_INIT);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaMalloc(void **ptr, size_t size, tcaMemoryKind kind) {
    if (!ptr) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_MALLOC);
    p2_u64(&b, size);
    p2_u32(&b, (uint32_t)kind);
    struct p2_reply r = p2_call(&b);
    if (r.status == TCA_SUCCESS) {
        uint64_t bus = p2_get_u64(&r);
        if (kind == tcaMemoryCPU) {
            *ptr = p2_from_bus(bus);
        } else {
            *ptr = (void *)(uintptr_t)bus;
            p2_dev_add(bus, size);
        }
    }
    free(r.p);
    return (tcaresult)r.status;
}

/* The bus address of a buffer pointer of `kind`, or 0 if it cannot be one. */
static int p2_buffer_bus(const void *ptr, tcaMemoryKind kind, uint64_t *bus) {
    if (kind == tcaMemoryCPU) return p2_to_bus(ptr, bus);
    *bus = (uint64_t)(uintptr_t)ptr;
    return ptr != 0;
}

tcaresult tcaFree(void *ptr, tcaMemoryKind kind) {
    uint64_t bus;
    if (!p2_buffer_bus(ptr, kind, &bus)) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_FREE);
    p2_u64(&b, bus);
    p2_u32(&b, (uint32_t)kind);
    int s = p2_simple(&b);
    if (s == TCA_SUCCESS && kind == tcaMemoryGPU) p2_dev_remove(bus);
    return (tcaresult)s;
}

tcaresult tcaCreateHandle(tcaHandle *handle, void *ptr, size_t size, tcaMemoryKind kind) {
    uint64_t bus;
    if (!handle || !p2_buffer_bus(ptr, kind, &bus)) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_CREATE_HANDLE);
    p2_u64(&b, bus);
    p2_u64(&b, size);
    p2_u32(&b, (uint32_t)kind);
    struct p2_reply r = p2_call(&b);
    if (r.status == TCA_SUCCESS) {
        uint64_t n;
        const unsigned char *h = p2_get_bytes(&r, &n);
        memset(handle, 0, sizeof *handle);
        memcpy(handle, h, n < sizeof *handle ? n : sizeof *handle);
    }
    free(r.p);
    return (tcaresult)r.status;
}

tcaresult tcaDestroyHandle(tcaHandle *handle) {
    if (!handle) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_DESTROY_HANDLE);
    p2_bytes(&b, handle, sizeof *handle);
    return (tcaresult)p2_simple(&b);
}

tcaDesc *tcaDescNew(void) {
    struct p2_buf b = p2_begin(P2_CALL_TCA_DESC_NEW);
    struct p2_reply r = p2_call(&b);
    uint64_t id = r.status == TCA_SUCCESS ? p2_get_u64(&r) : 0;
    free(r.p);
    return (tcaDesc *)(uintptr_t)id;
}

tcaresult tcaDescFree(tcaDesc *desc) {
    if (!desc) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_DESC_FREE);
    p2_u64(&b, (uint64_t)(uintptr_t)desc);
    return (tcaresult)p2_simple(&b);
}

/* The copy of a descriptor-setting call (read by `transfer` in tca_calls.rs). */
static void p2_transfer(struct p2_buf *b, int two_d, tcaHandle *dst, off_t dst_offset,
                        size_t dst_pitch, tcaHandle *src, off_t src_offset, size_t src_pitch,
                        size_t width, size_t height, tcaDMAFlag flags, int wait_slot,
                        int wait_tag) {
    p2_bytes(b, dst, sizeof *dst);
    p2_u64(b, (uint64_t)(int64_t)dst_offset);
    if (two_d) p2_u64(b, dst_pitch);
    p2_bytes(b, src, sizeof *src);
    p2_u64(b, (uint64_t)(int64_t)src_offset);
    if (two_d) p2_u64(b, src_pitch);
    p2_u64(b, width);
    if (two_d) p2_u64(b, height);
    p2_u32(b, (uint32_t)flags);
    p2_u32(b, (uint32_t)wait_slot);
    p2_u32(b, (uint32_t)wait_tag);
}

static tcaresult p2_set_memcpy(int two_d, tcaDesc *desc, tcaHandle *dst, off_t dst_offset,
                               size_t dst_pitch, tcaHandle *src, off_t src_offset,
                               size_t src_pitch, size_t width, size_t height,
                               tcaDMAFlag flags, int wait_slot, int wait_tag) {
    if (!desc || !dst || !src) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(two_d ? P2_CALL_TCA_DESC_SET_MEMCPY_2D : P2_CALL_TCA_DESC_SET_MEMCPY);
    p2_u64(&b, (uint64_t)(uintptr_t)desc);
    p2_transfer(&b, two_d, dst, dst_offset, dst_pitch, src, src_offset, src_pitch, width,
                height, flags, wait_slot, wait_tag);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaDescSetMemcpy(tcaDesc *desc, tcaHandle *dst, off_t dst_offset, tcaHandle *src,
                           off_t src_offset, size_t size, tcaDMAFlag flags, int wait_slot,
                           int wait_tag) {
    return p2_set_memcpy(0, desc, dst, dst_offset, 0, src, src_offset, 0, size, 0, flags,
                         wait_slot, wait_tag);
}

tcaresult tcaDescSetMemcpy2D(tcaDesc *desc, tcaHandle *dst, off_t dst_offset, size_t dst_pitch,
                             tcaHandle *src, off_t src_offset, size_t src_pitch, size_t width,
                             size_t height, tcaDMAFlag flags, int wait_slot, int wait_tag) {
    if (height == 0) return TCA_ERROR_INVALID_VALUE;
    return p2_set_memcpy(1, desc, dst, dst_offset, dst_pitch, src, src_offset, src_pitch,
                         width, height, flags, wait_slot, wait_tag);
}

tcaresult tcaDescSet(tcaDesc *desc, int dmac_ch) {
    if (!desc) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_DESC_SET);
    p2_u64(&b, (uint64_t)(uintptr_t)desc);
    p2_u32(&b, (uint32_t)dmac_ch);
    return (tcaresult)p2_simple(&b);
}

static tcaresult p2_channel_call(int code, int ch) {
    struct p2_buf b = p2_begin(code);
    p2_u32(&b, (uint32_t)ch);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaStartDMADesc(int dmac_ch) { return p2_channel_call(P2_CALL_TCA_START, dmac_ch); }
tcaresult tcaWaitDMAC(int dmac_ch) { return p2_channel_call(P2_CALL_TCA_WAIT_DMAC, dmac_ch); }

static tcaresult p2_recv(int code, tcaHandle *h, int slot, int tag) {
    if (!h) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(code);
    p2_bytes(&b, h, sizeof *h);
    p2_u32(&b, (uint32_t)slot);
    p2_u32(&b, (uint32_t)tag);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaWaitDMARecvDesc(tcaHandle *h, int slot, int tag) {
    return p2_recv(P2_CALL_TCA_WAIT_RECV, h, slot, tag);
}
tcaresult tcaTestDMARecvDesc(tcaHandle *h, int slot, int tag) {
    return p2_recv(P2_CALL_TCA_TEST_RECV, h, slot, tag);
}

/* A PIO region: the destination handle, the region's offset and size. */
struct p2_pio { tcaHandle dst; uint64_t offset, size; };

tcaresult tcaSetPIORegion(tcaPIOHandle *pio, tcaHandle *dst, off_t offset, size_t size) {
    if (!pio || !dst || offset < 0) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_SET_PIO_REGION);
    p2_bytes(&b, dst, sizeof *dst);
    p2_u64(&b, (uint64_t)offset);
    p2_u64(&b, size);
    int s = p2_simple(&b);
    if (s == TCA_SUCCESS) {
        /* The handle's first 40 bytes carry all it says. */
        struct p2_pio p;
        memcpy(&p.dst, dst, 40);
        p.offset = (uint64_t)offset;
        p.size = size;
        memset(pio, 0, sizeof *pio);
        memcpy(pio, &p.dst, 40);
        memcpy((unsigned char *)pio + 40, &p.offset, 8);
        memcpy((unsigned char *)pio + 48, &p.size, 8);
    }
    return (tcaresult)s;
}

tcaresult tcaSendPIO(tcaPIOHandle *pio, off_t offset, void *src, size_t size) {
    if (!pio || !src || size == 0 || offset < 0) return TCA_ERROR_INVALID_VALUE;
    uint64_t base, limit;
    memcpy(&base, (unsigned char *)pio + 40, 8);
    memcpy(&limit, (unsigned char *)pio + 48, 8);
    if ((uint64_t)offset + size > limit) return TCA_ERROR_INVALID_VALUE;
    tcaHandle h;
    memset(&h, 0, sizeof h);
    memcpy(&h, pio, 40);
    struct p2_buf b = p2_begin(P2_CALL_TCA_SEND_PIO);
    p2_bytes(&b, &h, sizeof h);
    p2_u64(&b, base + (uint64_t)offset);
    p2_bytes(&b, src, size);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaSendPIOCommit(void) { return TCA_SUCCESS; }

/* The older descriptor API: the platform keeps the tables and checks the entries. */

tcaresult tcaDMADescInt_Init(void) {
    struct p2_buf b = p2_begin(P2_CALL_TCA_DMA_DESC_INT_INIT);
    return (tcaresult)p2_simple(&b);
}

/* Sets entry `slot` of table *desc_tag, or of the internal table if desc_tag is NULL
 * (whose calls do not carry a table). */
static tcaresult p2_set_entry(int code, const int *desc_tag, int slot, int *next_slot,
                              int two_d, tcaHandle *dst, off_t dst_offset, size_t dst_pitch,
                              tcaHandle *src, off_t src_offset, size_t src_pitch,
                              size_t width, size_t height, tcaDMAFlag flags, int wait_slot,
                              int wait_tag) {
    /* Height 0 would read as a linear copy on the wire (see tcaDescSetMemcpy2D). */
    if (!next_slot || !dst || !src || (two_d && height == 0)) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(code);
    if (desc_tag) p2_u32(&b, (uint32_t)*desc_tag);
    p2_u32(&b, (uint32_t)slot);
    p2_transfer(&b, two_d, dst, dst_offset, dst_pitch, src, src_offset, src_pitch, width,
                height, flags, wait_slot, wait_tag);
    int s = p2_simple(&b);
    if (s == TCA_SUCCESS) *next_slot = slot + 1;
    return (tcaresult)s;
}

tcaresult tcaSetDMADescInt_Memcpy(int slot, int *next_slot, tcaHandle *dst, off_t dst_offset,
                                  tcaHandle *src, off_t src_offset, size_t size,
                                  tcaDMAFlag flags, int wait_slot, int wait_tag) {
    return p2_set_entry(P2_CALL_TCA_SET_DMA_DESC_INT_MEMCPY, 0, slot, next_slot, 0, dst,
                        dst_offset, 0, src, src_offset, 0, size, 0, flags, wait_slot,
                        wait_tag);
}

tcaresult tcaSetDMADescInt_Memcpy2D(int slot, int *next_slot, tcaHandle *dst,
                                    off_t dst_offset, size_t dst_pitch, tcaHandle *src,
                                    off_t src_offset, size_t src_pitch, size_t width,
                                    size_t height, tcaDMAFlag flags, int wait_slot,
                                    int wait_tag) {
    return p2_set_entry(P2_CALL_TCA_SET_DMA_DESC_INT_MEMCPY_2D, 0, slot, next_slot, 1, dst,
                        dst_offset, dst_pitch, src, src_offset, src_pitch, width, height,
                        flags, wait_slot, wait_tag);
}

/* A call whose arguments are two ints. */
static tcaresult p2_two_ints(int code, int x, int y) {
    struct p2_buf b = p2_begin(code);
    p2_u32(&b, (uint32_t)x);
    p2_u32(&b, (uint32_t)y);
    return (tcaresult)p2_simple(&b);
}

tcaresult tcaSetDMAChainInt(int dmac_ch, int first_slot) {
    return p2_two_ints(P2_CALL_TCA_SET_DMA_CHAIN_INT, dmac_ch, first_slot);
}

tcaresult tcaCreateDMADesc(int *desc_tag, int n_entries) {
    if (!desc_tag) return TCA_ERROR_INVALID_VALUE;
    struct p2_buf b = p2_begin(P2_CALL_TCA_CREATE_DMA_DESC);
    p2_u32(&b, (uint32_t)n_entries);
    struct p2_reply r = p2_call(&b);
    if (r.status == TCA_SUCCESS) *desc_tag = p2_get_i32(&r);
    free(r.p);
    return (tcaresult)r.status;
}

tcaresult tcaSetDMADesc_Memcpy(int desc_tag, int slot, int *next_slot, tcaHandle *dst,
                               off_t dst_offset, tcaHandle *src, off_t src_offset,
                               size_t size, tcaDMAFlag flags, int wait_slot, int wait_tag) {
    return p2_set_entry(P2_CALL_TCA_SET_DMA_DESC_MEMCPY, &desc_tag, slot, next_slot, 0, dst,
                        dst_offset, 0, src, src_offset, 0, size, 0, flags, wait_slot,
                        wait_tag);
}

tcaresult tcaSetDMADesc_Memcpy2D(int desc_tag, int slot, int *next_slot, tcaHandle *dst,
                                 off_t dst_offset, size_t dst_pitch, tcaHandle *src,
                                 off_t src_offset, size_t src_pitch, size_t width,
                                 size_t height, tcaDMAFlag flags, int wait_slot,
                                 int wait_tag) {
    return p2_set_entry(P2_CALL_TCA_SET_DMA_DESC_MEMCPY_2D, &desc_tag, slot, next_slot, 1,
                        dst, dst_offset, dst_pitch, src, src_offset, src_pitch, width,
                        height, flags, wait_slot, wait_tag);
}

tcaresult tcaSetDMAChain(int dmac_ch, int desc_tag) {
    return p2_two_ints(P2_CALL_TCA_SET_DMA_CHAIN, dmac_ch, desc_tag);
}

tcaresult tcaDestroyDMADesc(int desc_tag) {
    struct p2_buf b = p2_begin(P2_CALL_TCA_DESTROY_DMA_DESC);
    p2_u32(&b, (uint32_t)desc_tag);
    return (tcaresult)p2_simple(&b);
}

/* ---------------------------------------------------------------- MPI */

static int p2_type_size(MPI_Datatype t) {
    switch (t) {
    case MPI_BYTE: case MPI_CHAR: return 1;
    case MPI_INT: case MPI_FLOAT: case MPI_UNSIGNED: return 4;
    case MPI_LONG: case MPI_DOUBLE: case MPI_UNSIGNED_LONG: return 8;
    }
    return 0;
}

int MPI_Init(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    struct p2_buf b = p2_begin(P2_CALL_MPI_INIT);
    return p2_simple(&b);
}

int MPI_Finalize(void) {
    struct p2_buf b = p2_begin(P2_CALL_MPI_FINALIZE);
    return p2_simple(&b);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    if (comm != MPI_COMM_WORLD || !rank) return MPI_ERR_ARG;
    *rank = p2_rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    if (comm != MPI_COMM_WORLD || !size) return MPI_ERR_ARG;
    *size = p2_size;
    return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm) {
    if (comm != MPI_COMM_WORLD) return MPI_ERR_ARG;
    struct p2_buf b = p2_begin(P2_CALL_MPI_BARRIER);
    return p2_simple(&b);
}

double MPI_Wtime(void) {
    struct p2_buf b = p2_begin(P2_CALL_MPI_WTIME);
    struct p2_reply r = p2_call(&b);
    double t = 0;
    if (r.status == MPI_SUCCESS) {
        uint64_t bits = p2_get_u64(&r);
        memcpy(&t, &bits, 8);
    }
    free(r.p);
    return t;
}

int MPI_Get_processor_name(char *name, int *len) {
    if (!name || !len) return MPI_ERR_ARG;
    *len = snprintf(name, MPI_MAX_PROCESSOR_NAME, "node%d", p2_rank);
    return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    int es = p2_type_size(type);
    if (comm != MPI_COMM_WORLD || count < 0 || tag < 0 || (count && !buf)) return MPI_ERR_ARG;
    if (!es) return MPI_ERR_TYPE;
    struct p2_buf b = p2_begin(P2_CALL_MPI_SEND);
    p2_u32(&b, (uint32_t)dest);
    p2_u32(&b, (uint32_t)tag);
    p2_bytes(&b, buf, (size_t)count * es);
    return p2_simple(&b);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    int es = p2_type_size(type);
    if (comm != MPI_COMM_WORLD || count < 0 || (count && !buf)) return MPI_ERR_ARG;
    if (!es) return MPI_ERR_TYPE;
    size_t max = (size_t)count * es;
    struct p2_buf b = p2_begin(P2_CALL_MPI_RECV);
    p2_u32(&b, (uint32_t)source);
    p2_u32(&b, (uint32_t)tag);
    p2_u64(&b, max);
    struct p2_reply r = p2_call(&b);
    if (r.status == MPI_SUCCESS || r.status == MPI_ERR_TRUNCATE) {
        int src = p2_get_i32(&r), t = p2_get_i32(&r);
        uint64_t n;
        const unsigned char *d = p2_get_bytes(&r, &n);
        memcpy(buf, d, n < max ? n : max);
        if (status) {
            status->MPI_SOURCE = src;
            status->MPI_TAG = t;
            status->MPI_ERROR = r.status;
            status->count_bytes_ = (int)(n < max ? n : max);
        }
    }
    free(r.p);
    return r.status;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count) {
    int es = p2_type_size(type);
    if (!status || !count) return MPI_ERR_ARG;
    if (!es) return MPI_ERR_TYPE;
    *count = status->count_bytes_ / es;
    return MPI_SUCCESS;
}

/* A collective: `code`, its leading fields, this rank's bytes; the result into `out`. */
static int p2_collective(struct p2_buf *b, const void *data, size_t n, void *out, size_t max) {
    p2_bytes(b, data, n);
    struct p2_reply r = p2_call(b);
    if (r.status == MPI_SUCCESS && out) {
        uint64_t got;
        const unsigned char *d = p2_get_bytes(&r, &got);
        if (got > max) {
            free(r.p);
            return MPI_ERR_COUNT;
        }
        memcpy(out, d, got);
    }
    free(r.p);
    return r.status;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    int es = p2_type_size(type);
    if (comm != MPI_COMM_WORLD || count < 0 || (count && !buf)) return MPI_ERR_ARG;
    if (!es) return MPI_ERR_TYPE;
    size_t n = (size_t)count * es;
    struct p2_buf b = p2_begin(P2_CALL_MPI_BCAST);
    p2_u32(&b, (uint32_t)root);
    return p2_collective(&b, buf, p2_rank == root ? n : 0, buf, n);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    int rs = p2_type_size(recvtype);
    if (comm != MPI_COMM_WORLD || recvcount < 0 || !recvbuf) return MPI_ERR_ARG;
    if (!rs) return MPI_ERR_TYPE;
    size_t each = (size_t)recvcount * rs;
    const void *mine = (unsigned char *)recvbuf + each * p2_rank;
    if (sendbuf != MPI_IN_PLACE) {
        int ss = p2_type_size(sendtype);
        if (!ss) return MPI_ERR_TYPE;
        if ((size_t)sendcount * ss != each) return MPI_ERR_COUNT;
        mine = sendbuf;
    }
    struct p2_buf b = p2_begin(P2_CALL_MPI_ALLGATHER);
    return p2_collective(&b, mine, each, recvbuf, each * p2_size);
}

static int p2_reduce(int code, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                     MPI_Op op, int root, MPI_Comm comm) {
    int es = p2_type_size(type);
    if (comm != MPI_COMM_WORLD || count < 0) return MPI_ERR_ARG;
    if (!es) return MPI_ERR_TYPE;
    size_t n = (size_t)count * es;
    const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int receives = code == P2_CALL_MPI_ALLREDUCE || p2_rank == root;
    if ((n && !mine) || (receives && n && !recvbuf)) return MPI_ERR_ARG;
    struct p2_buf b = p2_begin(code);
    p2_u32(&b, (uint32_t)type);
    p2_u32(&b, (uint32_t)op);
    p2_u32(&b, (uint32_t)root);
    return p2_collective(&b, mine, n, receives ? recvbuf : 0, n);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    return p2_reduce(P2_CALL_MPI_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
    return p2_reduce(P2_CALL_MPI_REDUCE, sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
    (void)comm;
    struct p2_buf b = p2_begin(P2_CALL_MPI_ABORT);
    p2_u32(&b, (uint32_t)errorcode);
    p2_simple(&b);
    _exit(errorcode);
}

/* ---------------------------------------------------------------- CUDA */

static cudaError_t p2_cuda(int status) {
    if (status != cudaSuccess) p2_cuda_last = (cudaError_t)status;
    return (cudaError_t)status;
}

cudaError_t cudaSetDevice(int device) {
    struct p2_buf b = p2_begin(P2_CALL_CUDA_SET_DEVICE);
    p2_u32(&b, (uint32_t)device);
    int s = p2_simple(&b);
    if (s == cudaSuccess) p2_device = device;
    return p2_cuda(s);
}

cudaError_t cudaGetDevice(int *device) {
    if (!device) return p2_cuda(cudaErrorInvalidValue);
    *device = p2_device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return p2_cuda(cudaErrorInvalidValue);
    *count = p2_gpus;
    return cudaSuccess;
}

static cudaError_t p2_cuda_alloc(int code, void **ptr, size_t size) {
    if (!ptr) return p2_cuda(cudaErrorInvalidValue);
    struct p2_buf b = p2_begin(code);
    p2_u64(&b, size);
    struct p2_reply r = p2_call(&b);
    if (r.status == cudaSuccess) {
        uint64_t bus = p2_get_u64(&r);
        if (code == P2_CALL_CUDA_MALLOC) {
            *ptr = (void *)(uintptr_t)bus;
            p2_dev_add(bus, size);
        } else {
            *ptr = p2_from_bus(bus);
        }
    }
    free(r.p);
    return p2_cuda(r.status);
}

cudaError_t cudaMalloc(void **p, size_t size) { return p2_cuda_alloc(P2_CALL_CUDA_MALLOC, p, size); }
cudaError_t cudaMallocHost(void **p, size_t size) { return p2_cuda_alloc(P2_CALL_CUDA_MALLOC_HOST, p, size); }

cudaError_t cudaFree(void *p) {
    if (!p) return cudaSuccess;
    struct p2_buf b = p2_begin(P2_CALL_CUDA_FREE);
    p2_u64(&b, (uint64_t)(uintptr_t)p);
    int s = p2_simple(&b);
    if (s == cudaSuccess) p2_dev_remove((uint64_t)(uintptr_t)p);
    return p2_cuda(s);
}

cudaError_t cudaFreeHost(void *p) {
    uint64_t bus;
    if (!p2_to_bus(p, &bus)) return p2_cuda(cudaErrorInvalidValue);
    struct p2_buf b = p2_begin(P2_CALL_CUDA_FREE_HOST);
    p2_u64(&b, bus);
    return p2_cuda(p2_simple(&b));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    if ((!dst || !src) && n) return p2_cuda(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault)
        kind = (enum cudaMemcpyKind)((p2_is_device(src) ? 2 : 0) + (p2_is_device(dst) ? 1 : 0));
    struct p2_buf b;
    switch (kind) {
    case cudaMemcpyHostToHost:
        memmove(dst, src, n);
        return cudaSuccess;
    case cudaMemcpyHostToDevice:
        b = p2_begin(P2_CALL_CUDA_MEMCPY_TO_DEVICE);
        p2_u64(&b, (uint64_t)(uintptr_t)dst);
        p2_bytes(&b, src, n);
        return p2_cuda(p2_simple(&b));
    case cudaMemcpyDeviceToHost: {
        b = p2_begin(P2_CALL_CUDA_MEMCPY_FROM_DEVICE);
        p2_u64(&b, (uint64_t)(uintptr_t)src);
        p2_u64(&b, n);
        struct p2_reply r = p2_call(&b);
        if (r.status == cudaSuccess) {
            uint64_t got;
            const unsigned char *d = p2_get_bytes(&r, &got);
            memcpy(dst, d, got < n ? got : n);
        }
        free(r.p);
        return p2_cuda(r.status);
    }
    case cudaMemcpyDeviceToDevice:
        b = p2_begin(P2_CALL_CUDA_MEMCPY_ON_DEVICE);
        p2_u64(&b, (uint64_t)(uintptr_t)dst);
        p2_u64(&b, (uint64_t)(uintptr_t)src);
        p2_u64(&b, n);
        return p2_cuda(p2_simple(&b));
    default:
        return p2_cuda(cudaErrorInvalidMemcpyDirection);
    }
}

cudaError_t cudaMemset(void *p, int value, size_t n) {
    struct p2_buf b = p2_begin(P2_CALL_CUDA_MEMSET);
    p2_u64(&b, (uint64_t)(uintptr_t)p);
    p2_u32(&b, (uint32_t)value);
    p2_u64(&b, n);
    return p2_cuda(p2_simple(&b));
}

cudaError_t cudaDeviceSynchronize(void) {
    struct p2_buf b = p2_begin(P2_CALL_CUDA_SYNCHRONIZE);
    return p2_cuda(p2_simple(&b));
}

cudaError_t cudaGetLastError(void) {
    cudaError_t e = p2_cuda_last;
    p2_cuda_last = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    }
    return "unknown error";
}

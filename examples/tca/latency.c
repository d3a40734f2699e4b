/*
 * latency.c: the TCA team's GPU-to-GPU ping-pong, the program behind the real system's
 * published latency table (`../shared/PEACH2.md`; `peach2_testbench::measured`).
 *
 *   peach2 cc -O2 -Wall -o latency latency.c
 *   peach2 run --topology ring2 -- ./latency [-m gpu|cpu] [-d internal|host]
 *       [-n chip|host] [-r RUNS] [-t TIMES] [-w WARMUP] [BYTES ...]
 *
 * Its loop is the real one: rank 0 starts its chain, waits for its own notification
 * (tcaDMANotifySelf), then for rank 1's; rank 1 waits for rank 0's, starts its chain and
 * waits for its own. Both chains copy a buffer to the other rank's buffer, slot 0, with
 * tcaDMANotify | tcaDMANotifySelf and, by default (the real program's flags), GPU
 * memory (-m), descriptors in the chip (-d: tcaDMAUseInternal) and notifications in the
 * chip (-n: tcaDMAUseNotifyInternal).
 * A run times TIMES round trips after WARMUP untimed ones, between two barriers, and
 * reports (end - start) / TIMES / 2, the barrier included, as the real program did.
 *
 * The real figures are the minimum of 8 runs. What differs between real runs is where
 * each rank's waiting reads fall against the other's transfers, set by when the barrier
 * before the loop releases each rank; the simulated MPI releases both at the same
 * simulated time, so run k here holds rank 1 back k * 125 ns after that barrier (0 to
 * 875 ns: a real barrier's skew over InfiniBand). The ranks keep that phase in the loop:
 * each waits for the other every round trip.
 *
 * After the runs of a size, each rank checks the last data it received against what
 * the other sent. Ranks other than 0 and 1 only match the barriers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <cuda_runtime.h>
#include <tca-api.h>

static int rank = -1;

#define CHECK(x)                                                                         \
    do {                                                                                 \
        tcaresult r_ = (x);                                                              \
        if (r_ != TCA_SUCCESS) {                                                         \
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #x,    \
                    tcaGetErrorString(r_));                                              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)
#define CUCHECK(x)                                                                       \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #x,    \
                    cudaGetErrorString(e_));                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

#define CH 0
#define SLOT 0
#define SKEW_NS 125.0

/* Byte i of what `from` sends in an n-byte ping-pong. */
static unsigned char pattern(size_t i, int from, size_t n) {
    return (unsigned char)(i * 29u + (unsigned)from * 101u + (unsigned)n * 3u + 7u);
}

/* Spins on the clock for `ns` nanoseconds of simulated time. */
static void hold(double ns) {
    double until = MPI_Wtime() + ns * 1e-9;
    while (MPI_Wtime() < until) {
    }
}

static int positive(const char *s) {
    int v = atoi(s);
    if (v < 1) {
        if (rank == 0) fprintf(stderr, "latency: '%s' must be a positive count\n", s);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return v;
}

/* 1 if `s` is `yes`, 0 if it is `no`; anything else ends the run. */
static int choose(const char *s, const char *yes, const char *no) {
    if (strcmp(s, yes) == 0) return 1;
    if (strcmp(s, no) == 0) return 0;
    if (rank == 0) fprintf(stderr, "latency: '%s' is neither %s nor %s\n", s, yes, no);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 0;
}

/* Copies n bytes from the host to `dst` in GPU memory or in CPU memory. */
static void put(int gpu, unsigned char *dst, const unsigned char *src, size_t n) {
    if (gpu) {
        CUCHECK(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
    } else {
        memcpy(dst, src, n);
    }
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        if (rank == 0) fprintf(stderr, "latency: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int runs = 8, times = 20, warmup = 2;
    int gpu = 1, internal = 1, notify_chip = 1;
    size_t sizes[64];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-m") == 0 && a + 1 < argc) {
            gpu = choose(argv[++a], "gpu", "cpu");
        } else if (strcmp(argv[a], "-d") == 0 && a + 1 < argc) {
            internal = choose(argv[++a], "internal", "host");
        } else if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) {
            notify_chip = choose(argv[++a], "chip", "host");
        } else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
            runs = positive(argv[++a]);
        } else if (strcmp(argv[a], "-t") == 0 && a + 1 < argc) {
            times = positive(argv[++a]);
        } else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) {
            warmup = atoi(argv[++a]);
        } else if (nsizes < 64) {
            long long v = strtoll(argv[a], NULL, 0);
            if (v < 4 || v % 4 != 0) {
                if (rank == 0)
                    fprintf(stderr, "latency: size '%s' must be a positive multiple of 4\n",
                            argv[a]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            sizes[nsizes++] = (size_t)v;
        }
    }
    if (nsizes == 0) {
        size_t def[] = {8, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
        for (int k = 0; k < 10; k++) sizes[nsizes++] = def[k];
    }
    size_t maxsize = 0;
    for (int k = 0; k < nsizes; k++)
        if (sizes[k] > maxsize) maxsize = sizes[k];

    CUCHECK(cudaSetDevice(0));
    CHECK(tcaInit());
    const tcaMemoryKind kind = gpu ? tcaMemoryGPU : tcaMemoryCPU;
    /* [0, maxsize) is sent from, [maxsize, 2 maxsize) received into. */
    unsigned char *gbuf = NULL;
    CHECK(tcaMalloc((void **)&gbuf, 2 * maxsize, kind));
    tcaHandle *h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], gbuf, 2 * maxsize, kind));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);
    tcaDMAFlag flags = tcaDMANotify | tcaDMANotifySelf;
    if (internal) flags |= tcaDMAUseInternal;
    if (notify_chip) flags |= tcaDMAUseNotifyInternal;
    unsigned char *host = malloc(maxsize);
    int other = 1 - rank;

    if (rank == 0)
        printf("%s memory, descriptors in %s, notifications in %s\n%10s %12s %12s %14s\n",
               gpu ? "GPU" : "CPU", internal ? "the chip" : "host memory",
               notify_chip ? "the chip" : "host memory", "bytes", "min_us", "max_us",
               "bandwidth_GBps");
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        int tag = k + 1; /* tag 0 is invalid */
        tcaDesc *d = NULL;
        if (rank <= 1) {
            for (size_t i = 0; i < n; i++) host[i] = pattern(i, rank, n);
            put(gpu, gbuf, host, n);
            memset(host, 0, n);
            put(gpu, gbuf + maxsize, host, n);
            d = tcaDescNew();
            if (d == NULL) {
                fprintf(stderr, "rank %d: tcaDescNew returned NULL\n", rank);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            CHECK(tcaDescSetMemcpy(d, &h[other], (off_t)maxsize, &h[rank], 0, n, flags, SLOT,
                                   tag));
            CHECK(tcaDescSet(d, CH));
        }
        double best = 1e30, worst = 0;
        for (int r = 0; r < runs; r++) {
            double start = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 1) hold(SKEW_NS * (r % 8));
            for (int t = 0; t < warmup + times; t++) {
                if (t == warmup) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    if (rank == 1) hold(SKEW_NS * (r % 8));
                    start = MPI_Wtime();
                }
                if (rank == 0) {
                    CHECK(tcaStartDMADesc(CH));
                    CHECK(tcaWaitDMARecvDesc(&h[0], SLOT, tag));
                    CHECK(tcaWaitDMARecvDesc(&h[1], SLOT, tag));
                } else if (rank == 1) {
                    CHECK(tcaWaitDMARecvDesc(&h[0], SLOT, tag));
                    CHECK(tcaStartDMADesc(CH));
                    CHECK(tcaWaitDMARecvDesc(&h[1], SLOT, tag));
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double us = (MPI_Wtime() - start) / times / 2 * 1e6;
            if (us < best) best = us;
            if (us > worst) worst = us;
        }
        if (rank <= 1) {
            if (gpu) {
                CUCHECK(cudaMemcpy(host, gbuf + maxsize, n, cudaMemcpyDeviceToHost));
            } else {
                memcpy(host, gbuf + maxsize, n);
            }
            for (size_t i = 0; i < n; i++) {
                if (host[i] != pattern(i, other, n)) {
                    fprintf(stderr,
                            "rank %d: MISMATCH: %zu bytes, byte %zu: got 0x%02x, expected "
                            "0x%02x\n",
                            rank, n, i, host[i], pattern(i, other, n));
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
            }
            CHECK(tcaDescFree(d));
        }
        if (rank == 0) printf("%10zu %12.2f %12.2f %14.3f\n", n, best, worst, n / best / 1e3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("latency: all data checked, OK\n");
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(gbuf, kind));
    free(host);
    free(h);
    MPI_Finalize();
    return 0;
}

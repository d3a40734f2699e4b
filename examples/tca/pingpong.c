/*
 * pingpong.c: GPU-to-GPU ping-pong between ranks 0 and 1 (the PEACH2-Benchmarks way).
 * Rank 0 DMAs `bytes` from its GPU buffer into rank 1's GPU buffer with a receiver
 * notification; rank 1 waits for it and DMAs the very bytes it received back into rank
 * 0's GPU buffer (an echo), so rank 0 checks the whole round trip and rank 1 checks the
 * ping. Latency is half the round trip (minimum over the iterations, as the paper
 * reports), bandwidth is bytes / latency. Ranks other than 0 and 1 wait at a barrier.
 *
 *   peach2 cc -O2 -Wall -o pingpong pingpong.c
 *   peach2 run --topology ring2 -- ./pingpong [-i ITERS] [BYTES ...]
 *
 * Flags: tcaDMAUseInternal | tcaDMAUseNotifyInternal | tcaDMANotify | tcaDMANotifySelf,
 * as the real library's benchmark used them: descriptors in the chip, notifications in
 * the receiving chip (the waiting CPU reads them over PCIe), the sender notified too.
 *
 * Notes:
 *  - notification slots are per (sender, receiver): a wait names the sending node by its
 *    handle. Rank 0 awaits both its own ping's notify-self (h[0]) and rank 1's pong
 *    (h[1]), which could share a slot number; the two directions use different slots
 *    anyway (SLOT_PING for lists started by rank 0, SLOT_PONG for rank 1's), so a
 *    slot also says which list a notification came from;
 *  - GPU memory is not dereferenceable: it is filled and checked with cudaMemcpy, and
 *    the checks sit outside the timed window.
 * Descriptors are built once per size and restarted every iteration (programs cache
 * descriptors: creating them costs PIO writes).
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

#define SLOT_PING 0 /* lists started by rank 0: rank 1's receive, rank 0's self */
#define SLOT_PONG 1 /* lists started by rank 1: rank 0's receive, rank 1's self */
#define CH 0

/* The byte i of iteration `it` for a message of `n` bytes. */
static unsigned char pattern(size_t i, int it, size_t n) {
    return (unsigned char)(i * 131u + (unsigned)it * 17u + (unsigned)n * 7u + 1u);
}

/* Compares n bytes of GPU memory at dev with the pattern; aborts on a mismatch. */
static void check_gpu(const unsigned char *dev, unsigned char *host, size_t n, int it,
                      const char *what) {
    CUCHECK(cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        if (host[i] != pattern(i, it, n)) {
            fprintf(stderr,
                    "rank %d: MISMATCH in %s: %zu bytes, iteration %d, byte %zu: got 0x%02x, "
                    "expected 0x%02x\n",
                    rank, what, n, it, i, host[i], pattern(i, it, n));
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int iters = 8;
    size_t sizes[64];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) {
            iters = atoi(argv[++a]);
        } else if (nsizes < 64) {
            sizes[nsizes++] = (size_t)strtoull(argv[a], NULL, 0);
        }
    }
    if (nsizes == 0) {
        size_t def[] = {8, 256, 4096, 65536};
        for (int k = 0; k < 4; k++) sizes[nsizes++] = def[k];
    }
    size_t maxsize = 0;
    for (int k = 0; k < nsizes; k++) {
        if (sizes[k] == 0 || iters < 1) {
            if (rank == 0) fprintf(stderr, "pingpong: sizes and -i must be positive\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (sizes[k] > maxsize) maxsize = sizes[k];
    }

    CUCHECK(cudaSetDevice(0));
    CHECK(tcaInit());

    /* One GPU buffer per rank; ranks 0 and 1 use [0, maxsize) to send and
     * [maxsize, 2 maxsize) to receive. */
    unsigned char *gbuf = NULL;
    size_t bufsize = 2 * maxsize;
    CHECK(tcaMalloc((void **)&gbuf, bufsize, tcaMemoryGPU));
    CUCHECK(cudaMemset(gbuf, 0, bufsize));
    tcaHandle *h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], gbuf, bufsize, tcaMemoryGPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    const tcaDMAFlag flags =
        tcaDMAUseInternal | tcaDMAUseNotifyInternal | tcaDMANotify | tcaDMANotifySelf;
    if (rank == 0)
        printf("flags: tcaDMAUseInternal | tcaDMAUseNotifyInternal | tcaDMANotify | "
               "tcaDMANotifySelf\n");

    if (rank <= 1) {
        unsigned char *host = malloc(maxsize);
        int other = 1 - rank;
        if (rank == 0) {
            printf("GPU-to-GPU ping-pong, rank 0 <-> rank 1, %d iterations per size, half "
                   "round trip (min over iterations)\n",
                   iters);
            printf("%10s %12s %14s %12s\n", "bytes", "latency_us", "bandwidth_GBps",
                   "avg_us");
        }
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            int tag = k + 1; /* tag 0 is invalid */
            int myslot = rank == 0 ? SLOT_PING : SLOT_PONG;
            /* rank 0: send [0, n) -> rank 1's [maxsize, +n); rank 1: echo its
             * [maxsize, +n) -> rank 0's [maxsize, +n). */
            off_t src_off = rank == 0 ? 0 : (off_t)maxsize;
            tcaDesc *d = tcaDescNew();
            if (d == NULL) {
                fprintf(stderr, "rank %d: tcaDescNew returned NULL\n", rank);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            CHECK(tcaDescSetMemcpy(d, &h[other], (off_t)maxsize, &h[rank], src_off, n, flags,
                                   myslot, tag));
            CHECK(tcaDescSet(d, CH));
            MPI_Barrier(MPI_COMM_WORLD); /* ranks 0 and 1 only: a barrier of the pair */

            double best = 1e30, sum = 0;
            for (int it = 0; it < iters; it++) {
                if (rank == 0) {
                    /* Fresh data every iteration, and a cleared receive area, so a
                     * stale or missing transfer cannot pass the check. */
                    for (size_t i = 0; i < n; i++) host[i] = pattern(i, it, n);
                    CUCHECK(cudaMemcpy(gbuf, host, n, cudaMemcpyHostToDevice));
                    CUCHECK(cudaMemset(gbuf + maxsize, 0, n));
                    double t0 = MPI_Wtime();
                    CHECK(tcaStartDMADesc(CH));
                    CHECK(tcaWaitDMARecvDesc(&h[1], SLOT_PONG, tag)); /* the pong arrived */
                    double t1 = MPI_Wtime();
                    /* Our own ping is long done (rank 1 answered it); retire it. */
                    CHECK(tcaWaitDMARecvDesc(&h[0], SLOT_PING, tag));
                    CHECK(tcaWaitDMAC(CH));
                    double half = (t1 - t0) / 2;
                    if (half < best) best = half;
                    sum += half;
                    check_gpu(gbuf + maxsize, host, n, it, "the echoed data (rank 0)");
                } else {
                    CHECK(tcaWaitDMARecvDesc(&h[0], SLOT_PING, tag)); /* the ping arrived */
                    CHECK(tcaStartDMADesc(CH));                        /* echo it */
                    CHECK(tcaWaitDMARecvDesc(&h[1], SLOT_PONG, tag));
                    CHECK(tcaWaitDMAC(CH));
                    /* The next ping comes only after rank 0 has the pong and has checked
                     * it, so this check does not race with it. */
                    check_gpu(gbuf + maxsize, host, n, it, "the ping (rank 1)");
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK(tcaDescFree(d));
            if (rank == 0)
                printf("%10zu %12.2f %14.3f %12.2f\n", n, best * 1e6, n / best / 1e9,
                       sum / iters * 1e6);
        }
        free(host);
    } else {
        /* Idle ranks match the barriers of ranks 0 and 1. */
        for (int k = 0; k < nsizes; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("pingpong: all data checked, OK\n");
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(gbuf, tcaMemoryGPU));
    free(h);
    MPI_Finalize();
    return 0;
}

/*
 * hostdesc.c: descriptors in host memory against descriptors in the chip.
 * A gather/scatter ping-pong between ranks 0 and 1 with one chain of K copies per
 * message: rank 0 gathers K separate arrays (spaced apart in its tcaMalloc CPU buffer)
 * into one packed block of rank 1's buffer; rank 1 scatters the packed block back into K
 * separate arrays of rank 0's buffer. Each direction is ONE tcaDesc of K tcaDescSetMemcpy
 * calls; the sender waits for its channel with tcaWaitDMAC, the receiver for the
 * notification that rides on the last copy. The same lists are run once with
 * descriptors in host memory (no tcaDMAUseInternal: the chip fetches each descriptor
 * over PCIe) and once with tcaDMAUseInternal (descriptors written into the chip), and
 * the half round trips (minimum over the iterations) are printed side by side.
 *
 *   peach2 cc -O2 -Wall -o hostdesc hostdesc.c
 *   peach2 run --topology ring2 -- ./hostdesc [-i ITERS] [-k COPIES] [BYTES ...]
 *
 * Notes:
 *  - only the last copy of the chain carries tcaDMANotify, so the receiver waits once
 *    per message: the chain runs in order on one channel and the notification is
 *    written after that copy's data, so when it arrives the whole message has;
 *  - notifications: rank 1 is notified on SLOT_TO_1 and rank 0 on SLOT_TO_0 (slots are
 *    per (sender, receiver), and a wait names the sending node by its handle);
 * BYTES must be a multiple of K (each copy moves BYTES/K); odd sizes are fine for the
 * chip (the driver stages unaligned pieces), so any multiple works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
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

#define SLOT_TO_1 0
#define SLOT_TO_0 1
#define CH 0
#define MAXK 16

static unsigned char pattern(size_t i, int it, size_t n, int mode) {
    return (unsigned char)(i * 53u + (unsigned)it * 11u + (unsigned)n * 3u + (unsigned)mode * 97u + 5u);
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        if (rank == 0) fprintf(stderr, "hostdesc: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int iters = 8, K = 4;
    size_t sizes[64];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-i") == 0 && a + 1 < argc)
            iters = atoi(argv[++a]);
        else if (strcmp(argv[a], "-k") == 0 && a + 1 < argc)
            K = atoi(argv[++a]);
        else if (nsizes < 64)
            sizes[nsizes++] = (size_t)strtoull(argv[a], NULL, 0);
    }
    if (nsizes == 0) {
        size_t def[] = {32, 256, 4096, 65536};
        for (int k = 0; k < 4; k++) sizes[nsizes++] = def[k];
    }
    size_t maxsize = 0;
    for (int k = 0; k < nsizes; k++) {
        if (K < 1 || K > MAXK || iters < 1 || sizes[k] == 0 || sizes[k] % (size_t)K) {
            if (rank == 0)
                fprintf(stderr, "hostdesc: -k in 1..%d, -i >= 1, sizes multiples of k\n", MAXK);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (sizes[k] > maxsize) maxsize = sizes[k];
    }

    /* Buffer: region A = K arrays (rank 0's sources), region A2 = K arrays (where rank
     * 0 gets the scatter back), region B = the packed block (rank 1's). Arrays are
     * `pad` bytes apart, so the copies are really separate. */
    const size_t pad = maxsize / (size_t)K + 64;
    const size_t offA = 0, offA2 = (size_t)K * pad, offB = 2 * (size_t)K * pad;
    const size_t bytes = offB + maxsize;

    CHECK(tcaInit());
    unsigned char *buf;
    CHECK(tcaMalloc((void **)&buf, bytes, tcaMemoryCPU));
    memset(buf, 0, bytes);
    tcaHandle *h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, bytes, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    static const char *mode_name[2] = {"host", "internal"};
    double lat[64][2];
    if (rank <= 1) {
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k], chunk = n / (size_t)K;
            for (int mode = 0; mode < 2; mode++) {
                tcaDMAFlag base = mode ? tcaDMAUseInternal : 0;
                int tag = 2 * k + mode + 1; /* tag 0 is invalid */
                tcaDesc *d = tcaDescNew();
                if (d == NULL) {
                    fprintf(stderr, "rank %d: tcaDescNew returned NULL\n", rank);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                for (int c = 0; c < K; c++) {
                    tcaDMAFlag f = base | (c == K - 1 ? tcaDMANotify : 0);
                    if (rank == 0) /* gather: A[c] -> rank 1's B + c*chunk */
                        CHECK(tcaDescSetMemcpy(d, &h[1], (off_t)(offB + c * chunk), &h[0],
                                               (off_t)(offA + c * pad), chunk, f, SLOT_TO_1, tag));
                    else /* scatter: B + c*chunk -> rank 0's A2[c] */
                        CHECK(tcaDescSetMemcpy(d, &h[0], (off_t)(offA2 + c * pad), &h[1],
                                               (off_t)(offB + c * chunk), chunk, f, SLOT_TO_0, tag));
                }
                CHECK(tcaDescSet(d, CH));
                MPI_Barrier(MPI_COMM_WORLD);

                double best = 1e30;
                for (int it = 0; it < iters; it++) {
                    if (rank == 0) {
                        for (int c = 0; c < K; c++)
                            for (size_t i = 0; i < chunk; i++)
                                buf[offA + c * pad + i] = pattern(c * chunk + i, it, n, mode);
                        double t0 = MPI_Wtime();
                        CHECK(tcaStartDMADesc(CH));
                        CHECK(tcaWaitDMAC(CH));
                        CHECK(tcaWaitDMARecvDesc(&h[1], SLOT_TO_0, tag));
                        double half = (MPI_Wtime() - t0) / 2;
                        if (half < best) best = half;
                        for (int c = 0; c < K; c++)
                            for (size_t i = 0; i < chunk; i++) {
                                unsigned char got = buf[offA2 + c * pad + i];
                                unsigned char want = pattern(c * chunk + i, it, n, mode);
                                if (got != want) {
                                    fprintf(stderr, "rank 0: MISMATCH (%s descriptors, %zu bytes, "
                                            "iteration %d) array %d byte %zu: got 0x%02x, expected 0x%02x\n",
                                            mode_name[mode], n, it, c, i, got, want);
                                    MPI_Abort(MPI_COMM_WORLD, 2);
                                }
                            }
                    } else {
                        CHECK(tcaWaitDMARecvDesc(&h[0], SLOT_TO_1, tag));
                        for (size_t i = 0; i < n; i++) {
                            if (buf[offB + i] != pattern(i, it, n, mode)) {
                                fprintf(stderr, "rank 1: MISMATCH (%s descriptors, %zu bytes, "
                                        "iteration %d) packed byte %zu: got 0x%02x, expected 0x%02x\n",
                                        mode_name[mode], n, it, i, buf[offB + i], pattern(i, it, n, mode));
                                MPI_Abort(MPI_COMM_WORLD, 2);
                            }
                        }
                        CHECK(tcaStartDMADesc(CH));
                        CHECK(tcaWaitDMAC(CH));
                    }
                }
                lat[k][mode] = best;
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK(tcaDescFree(d));
            }
        }
    } else {
        for (int k = 0; k < 4 * nsizes; k++) MPI_Barrier(MPI_COMM_WORLD);
    }

    if (rank == 0) {
        printf("chained DMA ping-pong, rank 0 <-> rank 1, CPU memory, %d copies per list "
               "(gather / scatter), %d iterations, half round trip (min)\n",
               K, iters);
        printf("%10s %12s %12s %12s %10s\n", "bytes", "host_us", "internal_us", "host-int_us",
               "host_GBps");
        for (int k = 0; k < nsizes; k++)
            printf("%10zu %12.2f %12.2f %12.2f %10.3f\n", sizes[k], lat[k][0] * 1e6,
                   lat[k][1] * 1e6, (lat[k][0] - lat[k][1]) * 1e6, sizes[k] / lat[k][0] / 1e9);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("hostdesc: all data checked, OK\n");
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    free(h);
    MPI_Finalize();
    return 0;
}

/*
 * allgather.c: MPI_Allgather done with PEACH2 DMA (one-sided puts), among all ranks.
 * Each rank owns block `rank` of a P x BLOCK gathered buffer in tcaMalloc CPU memory and
 * DMAs it straight into the same place of every other rank's buffer; then it waits for
 * the P-1 notifications of the others' blocks and checks the whole gathered buffer.
 *
 *   peach2 cc -O2 -Wall -o allgather allgather.c
 *   peach2 run --topology 2x8 -- ./allgather [BLOCK [ITERS]]      (16 ranks)
 *
 * Notes:
 *  - each of the P-1 puts is a list of its own (one list could carry them all, each
 *    copy notifying its receiver, but would run them one after another on one channel):
 *    the lists are built once (tcaDescNew + tcaDescSetMemcpy, outside the timed loop)
 *    and set on a channel when their turn comes: put k (to rank (rank+k) % P, k = 1..P-1) goes on channel (k-1) % NCH
 *    (NCH = TCA_DMAC_CHANNELS), after that channel's previous put has finished
 *    (tcaWaitDMAC), so NCH puts are in flight at any time. Destinations are staggered by rank, so that not every rank targets
 *    the same node at once;
 *  - notification slots are per (sender, receiver): a receiver waits for each of its
 *    P-1 senders by that sender's handle. The slot is the buffer parity: a sender can
 *    be one iteration ahead of a receiver still waiting (it needs only the receiver's
 *    block, sent before the receiver waits), and its next notification must not
 *    overwrite the one not yet seen (tags alone would not do: the wait for the old tag
 *    would never end);
 *  - tag 0 is invalid: tags are 1 + the buffer parity (+ 2 for the host-descriptor
 *    pass), fixed in the prebuilt lists.
 * Two gathered buffers alternate by iteration parity: a rank can start iteration i+1
 * once it has every block of iteration i, i.e. when every rank has started iteration i
 * but maybe not finished checking it; with the other buffer, it cannot overwrite data
 * still being checked, so no barrier is needed between iterations.
 * The program runs the collective with descriptors in the chip (tcaDMAUseInternal:
 * every tcaDescSet writes the descriptor into the chip with PIO stores) and in host
 * memory (tcaDescSet only writes host memory, the chip fetches the descriptor), and
 * prints both.
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

#define NCH TCA_DMAC_CHANNELS

/* Byte i of `owner`'s block in iteration `it`. */
static unsigned char pattern(int owner, size_t i, int it, int mode) {
    return (unsigned char)((unsigned)owner * 37u + i * 13u + (unsigned)it * 7u + (unsigned)mode * 91u + 1u);
}

int main(int argc, char **argv) {
    int P;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t B = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 4;
    if (B == 0 || iters < 1 || P < 2 || P > 64) {
        if (rank == 0) fprintf(stderr, "allgather: BLOCK >= 1, ITERS >= 1, 2..64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const size_t gbytes = (size_t)P * B; /* one gathered buffer */

    CHECK(tcaInit());
    unsigned char *buf;
    CHECK(tcaMalloc((void **)&buf, 2 * gbytes, tcaMemoryCPU));
    memset(buf, 0, 2 * gbytes);
    tcaHandle *h = calloc((size_t)P, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, 2 * gbytes, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    /* lists[mode][parity][k]: my block of buffer `parity` -> rank (rank+k)%P. */
    static const char *mode_name[2] = {"internal", "host"};
    tcaDesc *lists[2][2][64];
    for (int mode = 0; mode < 2; mode++)
        for (int p = 0; p < 2; p++)
            for (int k = 1; k < P; k++) {
                int dst = (rank + k) % P;
                off_t off = (off_t)(p * gbytes + (size_t)rank * B);
                tcaDMAFlag f = tcaDMANotify | (mode == 0 ? tcaDMAUseInternal : 0);
                tcaDesc *d = tcaDescNew();
                if (d == NULL) {
                    fprintf(stderr, "rank %d: tcaDescNew returned NULL\n", rank);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                CHECK(tcaDescSetMemcpy(d, &h[dst], off, &h[rank], off, B, f, p /* slot */,
                                       1 + p + 2 * mode));
                lists[mode][p][k] = d;
            }

    double per[2];
    for (int mode = 0; mode < 2; mode++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            int p = it % 2, tag = 1 + p + 2 * mode;
            unsigned char *g = buf + (size_t)p * gbytes;
            /* My contribution, in place. */
            for (size_t i = 0; i < B; i++) g[(size_t)rank * B + i] = pattern(rank, i, it, mode);
            /* P-1 puts, four channels in flight. */
            int busy[NCH] = {0};
            for (int k = 1; k < P; k++) {
                int ch = (k - 1) % NCH;
                if (busy[ch]) CHECK(tcaWaitDMAC(ch));
                CHECK(tcaDescSet(lists[mode][p][k], ch));
                CHECK(tcaStartDMADesc(ch));
                busy[ch] = 1;
            }
            for (int ch = 0; ch < NCH; ch++)
                if (busy[ch]) CHECK(tcaWaitDMAC(ch));
            /* Everyone else's block, in the order they were sent to us. */
            for (int k = 1; k < P; k++) {
                int src = (rank - k + P) % P;
                CHECK(tcaWaitDMARecvDesc(&h[src], p, tag));
            }
            /* The whole gathered buffer. */
            for (int s = 0; s < P; s++)
                for (size_t i = 0; i < B; i++) {
                    unsigned char got = g[(size_t)s * B + i], want = pattern(s, i, it, mode);
                    if (got != want) {
                        fprintf(stderr, "rank %d: MISMATCH (%s descriptors, iteration %d): block "
                                "of rank %d, byte %zu: got 0x%02x, expected 0x%02x\n",
                                rank, mode_name[mode], it, s, i, got, want);
                        MPI_Abort(MPI_COMM_WORLD, 2);
                    }
                }
        }
        double mine = (MPI_Wtime() - t0) / iters;
        /* The collective's time is the slowest rank's. */
        MPI_Reduce(&mine, &per[mode], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }

    if (rank == 0) {
        printf("allgather over PEACH2 DMA: %d ranks, %zu B per rank (%zu B gathered), %d "
               "iterations, %d puts per rank on %d channels\n",
               P, B, gbytes, iters, P - 1, NCH);
        for (int mode = 0; mode < 2; mode++)
            printf("allgather: %-8s descriptors: %8.2f us per allgather (slowest rank), "
                   "%.3f GB/s received per rank\n",
                   mode_name[mode], per[mode] * 1e6,
                   (double)(gbytes - B) / per[mode] / 1e9);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("allgather: every gathered buffer checked on every rank, OK\n");
    for (int mode = 0; mode < 2; mode++)
        for (int p = 0; p < 2; p++)
            for (int k = 1; k < P; k++) CHECK(tcaDescFree(lists[mode][p][k]));
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    free(h);
    MPI_Finalize();
    return 0;
}

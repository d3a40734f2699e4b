/*
 * pio.c: PIO ping-pong, the way omni-compiler's TCA allreduce moves small messages:
 * the sender stores the payload into the receiver's tcaMalloc CPU buffer through the
 * chip's BAR window (tcaSetPIORegion + tcaSendPIO), then a flag word LAST, then
 * tcaSendPIOCommit; the receiver spins on the flag in its own memory, and once it sees
 * the flag the payload is there too (posted writes stay in order). Rank 1 checks the
 * payload and answers the same way (echoing it back), rank 0 checks the echo. Latency is
 * half the round trip (minimum over the iterations). Ranks other than 0 and 1 wait at a
 * barrier.
 *
 *   peach2 cc -O2 -Wall -o pio pio.c
 *   peach2 run --topology ring2 -- ./pio [-i ITERS] [BYTES ...]
 *
 * Buffer of each of ranks 0 and 1 (tcaMalloc CPU): [0, MAXMSG) the payload, then the
 * 8-byte flag word at FLAG_OFF. Flags carry a sequence number that only grows, so the
 * receiver never has to reset its flag (and a stale flag cannot pass for a new one).
 *
 * The spin loop. On the real machine it is a loop of plain loads
 * (`while (*flag != seq) ;`). Here simulated time passes only inside calls (the
 * program's own code takes none), so a loop of plain loads would never let the sender's
 * stores arrive: the run would hang, with `peach2 run` warning every 10 s that the rank
 * runs without a call. So each turn of the loop also calls MPI_Wtime, which costs a
 * clock read (10 cycles, 40 ns, in the ha-pacs profile) and lets the cluster advance.
 * Build with -DPLAIN_SPIN to get the real machine's loop (and see the hang).
 */
#include <stdint.h>
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

#define MAXMSG 4096
#define FLAG_OFF MAXMSG
#define BUF_BYTES (MAXMSG + 64)

static tcaHandle *h;

static unsigned char pattern(size_t i, int it, size_t n) {
    return (unsigned char)(i * 29u + (unsigned)it * 101u + (unsigned)n + 3u);
}

/* Waits until the flag word in our own buffer holds `seq`. */
static void spin(volatile uint64_t *flag, uint64_t seq) {
    while (*flag != seq) {
#ifndef PLAIN_SPIN
        (void)MPI_Wtime(); /* a call, so that simulated time passes (see the header) */
#endif
    }
}

static void check_payload(const unsigned char *buf, size_t n, int it, const char *what) {
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != pattern(i, it, n)) {
            fprintf(stderr,
                    "rank %d: MISMATCH in %s: %zu bytes, iteration %d, byte %zu: got 0x%02x, "
                    "expected 0x%02x\n",
                    rank, what, n, it, i, buf[i], pattern(i, it, n));
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
        if (rank == 0) fprintf(stderr, "pio: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int iters = 8;
    size_t sizes[64];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-i") == 0 && a + 1 < argc)
            iters = atoi(argv[++a]);
        else if (nsizes < 64)
            sizes[nsizes++] = (size_t)strtoull(argv[a], NULL, 0);
    }
    if (nsizes == 0) {
        size_t def[] = {8, 64, 256, 1024, 4096};
        for (int k = 0; k < 5; k++) sizes[nsizes++] = def[k];
    }
    for (int k = 0; k < nsizes; k++) {
        if (sizes[k] == 0 || sizes[k] > MAXMSG || iters < 1) {
            if (rank == 0) fprintf(stderr, "pio: sizes must be 1..%d, -i positive\n", MAXMSG);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }

    CHECK(tcaInit());
    unsigned char *buf;
    CHECK(tcaMalloc((void **)&buf, BUF_BYTES, tcaMemoryCPU));
    memset(buf, 0, BUF_BYTES);
    volatile uint64_t *flag = (volatile uint64_t *)(buf + FLAG_OFF);
    h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, BUF_BYTES, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    if (rank <= 1) {
        int other = 1 - rank;
        /* The whole of the other rank's buffer, payload and flag, as one PIO region. */
        tcaPIOHandle pio;
        CHECK(tcaSetPIORegion(&pio, &h[other], 0, BUF_BYTES));
        unsigned char *msg = malloc(MAXMSG);
        uint64_t seq = 0;
        if (rank == 0) {
            printf("PIO ping-pong, rank 0 <-> rank 1, payload then flag word, %d iterations "
                   "per size, half round trip (min over iterations)\n",
                   iters);
            printf("%10s %12s %14s %12s\n", "bytes", "latency_us", "bandwidth_GBps", "avg_us");
        }
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            double best = 1e30, sum = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int it = 0; it < iters; it++) {
                seq++;
                if (rank == 0) {
                    for (size_t i = 0; i < n; i++) msg[i] = pattern(i, it, n);
                    double t0 = MPI_Wtime();
                    CHECK(tcaSendPIO(&pio, 0, msg, n));               /* the payload */
                    CHECK(tcaSendPIO(&pio, FLAG_OFF, &seq, sizeof seq)); /* the flag, last */
                    CHECK(tcaSendPIOCommit());
                    spin(flag, seq); /* rank 1's echo */
                    double t1 = MPI_Wtime();
                    double half = (t1 - t0) / 2;
                    if (half < best) best = half;
                    sum += half;
                    check_payload(buf, n, it, "the echoed payload (rank 0)");
                } else {
                    spin(flag, seq);
                    check_payload(buf, n, it, "the payload (rank 1)");
                    CHECK(tcaSendPIO(&pio, 0, buf, n)); /* echo what arrived */
                    CHECK(tcaSendPIO(&pio, FLAG_OFF, &seq, sizeof seq));
                    CHECK(tcaSendPIOCommit());
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                printf("%10zu %12.2f %14.3f %12.2f\n", n, best * 1e6, n / best / 1e9,
                       sum / iters * 1e6);
        }
        free(msg);
    } else {
        for (int k = 0; k < nsizes; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("pio: all payloads checked, OK\n");
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    free(h);
    MPI_Finalize();
    return 0;
}

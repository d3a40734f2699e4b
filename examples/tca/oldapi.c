/*
 * oldapi.c: the older descriptor API, as programs written before tcaDesc called it.
 * Ranks exchange data in pairs (rank r with rank r^1), twice:
 *  1. internal-memory form (omni-compiler's reflect code, 2014-15): a process-wide
 *     counter `dma_slot` numbers the entries; tcaSetDMADescInt_Memcpy(dma_slot,
 *     &dma_slot, ...) writes one and advances it; tcaSetDMAChainInt binds the chain that
 *     starts at the counter's value before the first entry. Two arrays go to the
 *     partner, the first entry with tcaDMAContinue, the last with tcaDMANotify |
 *     tcaDMANotifySelf; the program then waits on its own handle and on the partner's,
 *     as omni did.
 *  2. host-table form (PEACH2-Benchmarks' block-stride program, 2018):
 *     tcaCreateDMADesc(&desc_tag, 1024), a block-stride entry (tcaSetDMADesc_Memcpy2D:
 *     COUNT blocks of BLOCK bytes, a column band of a wider array, into a narrower
 *     pitch) chained into an 8-byte step counter (tcaSetDMADesc_Memcpy) that carries the
 *     notification, tcaSetDMAChain, and tcaDestroyDMADesc at the end.
 * Every received byte is checked on every iteration, and so are the gaps between the
 * blocks (they must stay untouched). Before that, rank 0 makes bad calls of the older
 * API and checks they return TCA_ERROR_INVALID_VALUE. Exit status 0 only if all is
 * right; `oldapi: OK` is the last line.
 *
 *   peach2 cc -O2 -Wall -o oldapi oldapi.c
 *   peach2 run --topology ring2 -- ./oldapi [ITERS]
 *
 * Notes:
 *  - omni put tcaDMANotify on every entry of a chain, each going to another neighbour;
 *    here both entries go to the one partner, so only the last notifies: a second
 *    notification with the same slot and tag to the same node could be taken for the
 *    last one before the last data arrived. The chain runs in order on one channel, so
 *    when its notification arrives all its data has;
 *  - the internal chain is restarted without tcaWaitDMAC, as omni did: the notify-self
 *    wait says it is done;
 *  - notification slots are per (sender, receiver): a wait names the sending node by
 *    its handle.
 * The 2018 benchmark also OR-ed tcaDMAUseInternal into its flags, which puts a table's
 * descriptors in the chip; without it (as here) they stay in host memory, the case the
 * internal form does not cover.
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

/* Part 1: two arrays of N1 bytes each way. */
#define N1 1024
/* Part 2: COUNT blocks of BLOCK bytes, from byte COL of rows SRC_PITCH apart, to rows
 * DST_PITCH apart. */
#define BLOCK 48
#define COUNT 16
#define COL 16
#define SRC_PITCH 128
#define DST_PITCH 96

/* One CPU buffer per rank. */
#define OFF_SEND_LO 0
#define OFF_SEND_HI N1
#define OFF_RECV_LO (2 * N1)
#define OFF_RECV_HI (3 * N1)
#define OFF_GRID (4 * N1)                              /* COUNT rows of SRC_PITCH */
#define OFF_BLOCKS (OFF_GRID + COUNT * SRC_PITCH)      /* COUNT rows of DST_PITCH */
#define OFF_STEP_SEND (OFF_BLOCKS + COUNT * DST_PITCH) /* the 8-byte step counter */
#define OFF_STEP_RECV (OFF_STEP_SEND + 16)             /* same low 4 bits: no staging */
#define BYTES (OFF_STEP_RECV + 16)

#define CH_INT 0
#define CH_HOST 1
#define CH_SPARE 2 /* the bad calls' channel */
#define SLOT_INT 0
#define SLOT_HOST 1
#define TAG_INT 1 /* tag 0 is invalid */
#define TAG_HOST 2
#define SENTINEL 0xEE

/* The counter of internal descriptor entries, shared by every chain of the process. */
static int dma_slot = 0;

/* Byte i of what rank `from` sends in part `part` of iteration `it`; never SENTINEL,
 * so a byte the DMA missed cannot pass for one it wrote. */
static unsigned char pattern(int from, int part, int it, size_t i) {
    unsigned char p = (unsigned char)(i * 29u + (unsigned)from * 101u + (unsigned)part * 53u +
                                      (unsigned)it * 7u + 3u);
    return p == SENTINEL ? p ^ 1 : p;
}

static void mismatch(int it, const char *what, size_t at, unsigned got, unsigned want) {
    fprintf(stderr,
            "rank %d: MISMATCH in iteration %d, %s, byte %zu: got 0x%02x, expected 0x%02x\n",
            rank, it, what, at, got, want);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int checks, wrong;

/* A bad call's result against TCA_ERROR_INVALID_VALUE. */
static void expect_invalid(const char *call, tcaresult r) {
    checks++;
    if (r != TCA_ERROR_INVALID_VALUE) wrong++;
    printf("oldapi: %s: %s%s\n", call, tcaGetErrorString(r),
           r == TCA_ERROR_INVALID_VALUE ? "" : " (WRONG: expected invalid value)");
}

/* Rank 0's bad calls (only its own handle is used). */
static void bad_calls(tcaHandle *me, tcaresult before_init) {
    expect_invalid("tcaDMADescInt_Init() before tcaInit", before_init);
    int s = 1024;
    expect_invalid("tcaSetDMADescInt_Memcpy(1024, ...), slot past the table",
                   tcaSetDMADescInt_Memcpy(s, &s, me, 0, me, 64, 64, 0, 0, 1));
    if (s != 1024) {
        printf("oldapi: a failed set wrote %d to *next_slot (WRONG)\n", s);
        wrong++;
    }
    expect_invalid("tcaSetDMAChainInt(2, 900), slot never set",
                   tcaSetDMAChainInt(CH_SPARE, 900));
    s = 1023;
    CHECK(tcaSetDMADescInt_Memcpy(s, &s, me, 0, me, 64, 64, tcaDMAContinue, 0, 1));
    expect_invalid("tcaSetDMAChainInt(2, 1023), chain past the last slot",
                   tcaSetDMAChainInt(CH_SPARE, 1023));
    int t = 0;
    expect_invalid("tcaCreateDMADesc(&t, 0)", tcaCreateDMADesc(&t, 0));
    expect_invalid("tcaCreateDMADesc(&t, 65537)", tcaCreateDMADesc(&t, 65537));
    CHECK(tcaCreateDMADesc(&t, 4));
    s = 4;
    expect_invalid("tcaSetDMADesc_Memcpy(t, 4, ...) in a table of 4",
                   tcaSetDMADesc_Memcpy(t, s, &s, me, 0, me, 64, 64, 0, 0, 1));
    expect_invalid("tcaSetDMAChain(2, t), entry 0 never set", tcaSetDMAChain(CH_SPARE, t));
    CHECK(tcaDestroyDMADesc(t));
    expect_invalid("tcaDestroyDMADesc(t) again", tcaDestroyDMADesc(t));
    s = 0;
    expect_invalid("tcaSetDMADesc_Memcpy(t, ...) after tcaDestroyDMADesc",
                   tcaSetDMADesc_Memcpy(t, s, &s, me, 0, me, 64, 64, 0, 0, 1));
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int iters = argc > 1 ? atoi(argv[1]) : 4;
    if (nranks % 2 != 0 || iters < 1) {
        if (rank == 0) fprintf(stderr, "oldapi: needs an even number of ranks, ITERS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int peer = rank ^ 1;

    tcaresult before_init = tcaDMADescInt_Init();
    CHECK(tcaInit());
    CHECK(tcaDMADescInt_Init());
    unsigned char *buf;
    CHECK(tcaMalloc((void **)&buf, BYTES, tcaMemoryCPU));
    memset(buf, SENTINEL, BYTES);
    tcaHandle *h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, BYTES, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    if (rank == 0) bad_calls(&h[0], before_init);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Part 1: the internal-memory form. */
    int first = dma_slot;
    CHECK(tcaSetDMADescInt_Memcpy(dma_slot, &dma_slot, &h[peer], OFF_RECV_LO, &h[rank],
                                  OFF_SEND_LO, N1, tcaDMAContinue, SLOT_INT, TAG_INT));
    CHECK(tcaSetDMADescInt_Memcpy(dma_slot, &dma_slot, &h[peer], OFF_RECV_HI, &h[rank],
                                  OFF_SEND_HI, N1, tcaDMANotify | tcaDMANotifySelf, SLOT_INT,
                                  TAG_INT));
    if (dma_slot != first + 2) {
        fprintf(stderr, "rank %d: dma_slot is %d after two entries from %d\n", rank, dma_slot,
                first);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(tcaSetDMAChainInt(CH_INT, first));

    /* Part 2: the host-table form. */
    int desc_tag = 0, slot = 0;
    CHECK(tcaCreateDMADesc(&desc_tag, 1024));
    CHECK(tcaSetDMADesc_Memcpy2D(desc_tag, slot, &slot, &h[peer], OFF_BLOCKS, DST_PITCH,
                                 &h[rank], OFF_GRID + COL, SRC_PITCH, BLOCK, COUNT,
                                 tcaDMAContinue, SLOT_HOST, TAG_HOST));
    CHECK(tcaSetDMADesc_Memcpy(desc_tag, slot, &slot, &h[peer], OFF_STEP_RECV, &h[rank],
                               OFF_STEP_SEND, 8, tcaDMANotify, SLOT_HOST, TAG_HOST));
    CHECK(tcaSetDMAChain(CH_HOST, desc_tag));

    double best_int = 1e30, best_host = 1e30;
    for (int it = 0; it < iters; it++) {
        /* Fresh data to send, and cleared receive areas, before the barrier after which
         * the partner writes into them. */
        for (size_t i = 0; i < 2 * N1; i++) buf[OFF_SEND_LO + i] = pattern(rank, 1, it, i);
        for (size_t i = 0; i < COUNT * SRC_PITCH; i++) buf[OFF_GRID + i] = pattern(rank, 2, it, i);
        uint64_t step = (uint64_t)it + 1;
        memcpy(buf + OFF_STEP_SEND, &step, 8);
        memset(buf + OFF_RECV_LO, SENTINEL, 2 * N1);
        memset(buf + OFF_BLOCKS, SENTINEL, COUNT * DST_PITCH);
        memset(buf + OFF_STEP_RECV, SENTINEL, 8);
        MPI_Barrier(MPI_COMM_WORLD);

        double t0 = MPI_Wtime();
        CHECK(tcaStartDMADesc(CH_INT));
        CHECK(tcaWaitDMARecvDesc(&h[rank], SLOT_INT, TAG_INT)); /* my chain is done */
        CHECK(tcaWaitDMARecvDesc(&h[peer], SLOT_INT, TAG_INT)); /* the partner's arrived */
        double t1 = MPI_Wtime();
        if (t1 - t0 < best_int) best_int = t1 - t0;

        double t2 = MPI_Wtime();
        CHECK(tcaStartDMADesc(CH_HOST));
        CHECK(tcaWaitDMAC(CH_HOST));
        CHECK(tcaWaitDMARecvDesc(&h[peer], SLOT_HOST, TAG_HOST));
        double t3 = MPI_Wtime();
        if (t3 - t2 < best_host) best_host = t3 - t2;

        for (size_t i = 0; i < 2 * N1; i++) {
            unsigned char want = pattern(peer, 1, it, i);
            if (buf[OFF_RECV_LO + i] != want)
                mismatch(it, "internal-form arrays", i, buf[OFF_RECV_LO + i], want);
        }
        for (size_t r = 0; r < COUNT; r++) {
            for (size_t i = 0; i < DST_PITCH; i++) {
                size_t at = r * DST_PITCH + i;
                unsigned char got = buf[OFF_BLOCKS + at];
                unsigned char want =
                    i < BLOCK ? pattern(peer, 2, it, r * SRC_PITCH + COL + i) : SENTINEL;
                if (got != want)
                    mismatch(it, i < BLOCK ? "block-stride blocks" : "gap between blocks", at,
                             got, want);
            }
        }
        memcpy(&step, buf + OFF_STEP_RECV, 8);
        if (step != (uint64_t)it + 1) {
            fprintf(stderr, "rank %d: MISMATCH in iteration %d: step counter %llu\n", rank, it,
                    (unsigned long long)step);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("oldapi: internal-memory chain, 2 x %d B each way: %.2f us per exchange "
               "(min of %d)\n",
               N1, best_int * 1e6, iters);
        printf("oldapi: host-memory table, %d x %d B block-stride + 8 B each way: %.2f us per "
               "exchange (min of %d)\n",
               COUNT, BLOCK, best_host * 1e6, iters);
        if (wrong) {
            fprintf(stderr, "oldapi: %d of %d bad calls did not return invalid value\n", wrong,
                    checks);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("oldapi: OK (every byte checked on every rank and iteration, %d bad calls "
               "refused)\n",
               checks);
    }
    CHECK(tcaDestroyDMADesc(desc_tag));
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    free(h);
    MPI_Finalize();
    return 0;
}

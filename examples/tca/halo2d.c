/*
 * halo2d.c: the halo exchange of a 2-D stencil code, 1-D decomposed over a ring.
 * Each rank owns an N x N grid of doubles with a one-cell halo all round ((N+2) x (N+2),
 * row-major, in tcaMalloc CPU memory). Every step it "computes" its interior (values
 * that encode rank, step, row and column, so any receiver can check them), then sends
 * its east boundary column to the east neighbour's west halo column and its west
 * boundary column to the west neighbour's east halo column. A column is a block-stride
 * transfer: N blocks of 8 bytes, pitch = one row (tcaDescSetMemcpy2D). Then it waits
 * for both neighbours' columns and checks every halo cell and that nothing else moved.
 *
 *   peach2 cc -O2 -Wall -o halo2d halo2d.c
 *   peach2 run --topology ring4 -- ./halo2d [N [STEPS]]      (N even, 2..254)
 *
 * As omni-compiler's reflect code does, one descriptor list carries both columns, each
 * copy notifying its own receiver (the first on the channel's register, the second with
 * one more descriptor), and the last copy notifies this rank too (tcaDMANotifySelf): the
 * rank waits for its own list and for both neighbours' columns, and restarts the list
 * two steps later without tcaWaitDMAC.
 * Notification slots are per (sender, receiver): a wait names the sending node by its
 * handle. On a ring of 2 the west and the east neighbour are one node, so its two
 * columns need two slots: data from the west neighbour notifies SLOT_FROM_WEST and data
 * from the east neighbour SLOT_FROM_EAST (on larger rings they would not collide on one
 * slot number, but the program uses the two slots on every ring). A neighbour can be one
 * step ahead (it needs only this rank's columns of step s to start step s+1, while this
 * rank may still wait for its other neighbour's), and a notification overwrites the
 * slot's last one: so each parity has its own pair of slots (SLOT), or a step s+1
 * notification could replace a step s one this rank has not seen yet.
 * Two grids alternate by step parity (as a Jacobi code's old/new grids do), so a fast
 * neighbour's step s+1 columns cannot land in a halo this rank is still reading for step
 * s. That gives two lists, one per parity and channel, built and set once and restarted
 * every other step: no descriptor is rebuilt in the loop. The tag is the parity + 1 (tag
 * 0 is invalid), so a column from the wrong step would not satisfy a wait.
 * With N even every column offset has the same low 4 bits at both ends (rows are a
 * multiple of 16 bytes), so the chip moves the blocks directly, without staging.
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

#define SLOT_FROM_WEST 0
#define SLOT_FROM_EAST 1
/* The slot of data from `side` (SLOT_FROM_*) in steps of parity `p`. */
#define SLOT(side, p) (2 * (p) + (side))
#define SENTINEL (-1.0)

/* The interior value of `owner`'s cell (i, j) (1-based, interior) at step `step`. */
static double value(int owner, int step, int i, int j) {
    return (double)(((long)owner * 1009 + step) * 65536 + i * 256 + j);
}

static int N, W; /* interior size, row width in doubles (N + 2) */
#define AT(g, i, j) ((g)[(size_t)(i) * W + (j)])

static void fail(int step, const char *what, int i, int j, double got, double want) {
    fprintf(stderr, "rank %d: MISMATCH at step %d in %s cell (%d,%d): got %.1f, expected %.1f\n",
            rank, step, what, i, j, got, want);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    N = argc > 1 ? atoi(argv[1]) : 64;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    if (N < 2 || N > 254 || N % 2 != 0 || steps < 1 || nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "halo2d: N must be even in 2..254, STEPS >= 1, ranks >= 2\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    W = N + 2;
    const int east = (rank + 1) % nranks, west = (rank + nranks - 1) % nranks;
    const size_t row = (size_t)W * sizeof(double);
    const size_t grid_bytes = (size_t)W * row;

    CHECK(tcaInit());
    /* Two grids in one buffer: grid p at byte p * grid_bytes. */
    double *buf;
    CHECK(tcaMalloc((void **)&buf, 2 * grid_bytes, tcaMemoryCPU));
    for (size_t k = 0; k < 2 * (size_t)W * W; k++) buf[k] = SENTINEL;
    tcaHandle *h = calloc((size_t)nranks, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, 2 * grid_bytes, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);

    /* List p on channel p: my east column (col N) -> east's west halo (col 0), then my
     * west column (col 1) -> west's east halo (col N+1), rows 1..N of grid p. */
    const tcaDMAFlag flags = tcaDMAUseInternal | tcaDMANotify;
    tcaDesc *d[2];
    for (int p = 0; p < 2; p++) {
        off_t g = (off_t)(p * grid_bytes);
        int tag = p + 1;
        d[p] = tcaDescNew();
        if (d[p] == NULL) {
            fprintf(stderr, "rank %d: tcaDescNew returned NULL\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK(tcaDescSetMemcpy2D(d[p], &h[east], g + (off_t)(1 * row + 0 * 8), row, &h[rank],
                                 g + (off_t)(1 * row + (size_t)N * 8), row, sizeof(double),
                                 (size_t)N, flags, SLOT(SLOT_FROM_WEST, p), tag));
        CHECK(tcaDescSetMemcpy2D(d[p], &h[west], g + (off_t)(1 * row + (size_t)(N + 1) * 8),
                                 row, &h[rank], g + (off_t)(1 * row + 1 * 8), row,
                                 sizeof(double), (size_t)N, flags | tcaDMANotifySelf,
                                 SLOT(SLOT_FROM_EAST, p), tag));
        CHECK(tcaDescSet(d[p], p));
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), comm = 0;
    for (int s = 0; s < steps; s++) {
        int p = s % 2, tag = p + 1;
        double *g = buf + (size_t)p * W * W;
        /* "Compute" the interior. */
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++) AT(g, i, j) = value(rank, s, i, j);

        double c0 = MPI_Wtime();
        CHECK(tcaStartDMADesc(p));                               /* both columns */
        CHECK(tcaWaitDMARecvDesc(&h[rank], SLOT(SLOT_FROM_EAST, p), tag)); /* my list is done */
        CHECK(tcaWaitDMARecvDesc(&h[west], SLOT(SLOT_FROM_WEST, p), tag));
        CHECK(tcaWaitDMARecvDesc(&h[east], SLOT(SLOT_FROM_EAST, p), tag));
        comm += MPI_Wtime() - c0;

        /* Every cell of this grid: the halo columns carry the neighbours' boundary
         * columns, the halo rows and corners are untouched, the interior is ours. */
        for (int i = 0; i <= N + 1; i++) {
            for (int j = 0; j <= N + 1; j++) {
                double got = AT(g, i, j), want;
                const char *what;
                if (i == 0 || i == N + 1) {
                    want = SENTINEL; what = "halo row/corner";
                } else if (j == 0) {
                    want = value(west, s, i, N); what = "west halo";
                } else if (j == N + 1) {
                    want = value(east, s, i, 1); what = "east halo";
                } else {
                    want = value(rank, s, i, j); what = "interior";
                }
                if (got != want) fail(s, what, i, j, got, want);
            }
        }
    }
    double t1 = MPI_Wtime();
    double tstep = (t1 - t0) / steps, cstep = comm / steps, cmax;
    MPI_Reduce(&cstep, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("halo2d: %d ranks in a ring, %dx%d doubles each, %d steps, 2 columns of %d x 8 B "
               "(pitch %zu B) per rank per step\n",
               nranks, N, N, steps, N, row);
        printf("halo2d: %.2f us per step on rank 0 (exchange %.2f us; slowest rank's exchange "
               "%.2f us)\n",
               tstep * 1e6, cstep * 1e6, cmax * 1e6);
        printf("halo2d: every halo cell checked on every rank and step, OK\n");
    }
    for (int k = 0; k < 2; k++) CHECK(tcaDescFree(d[k]));
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    free(h);
    MPI_Finalize();
    return 0;
}

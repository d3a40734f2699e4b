/*
 * deadlock.c: every rank waits for a notification nobody sends. A classic TCA bug:
 * each rank expects its right neighbour's put (slot 5, tag 1), and every rank is
 * waiting before sending. tcaWaitDMARecvDesc never returns on the real machine; the
 * platform must notice that every rank waits and none makes progress, and end the run
 * after --stall-ms of simulated time with what each rank waits in (exit status 3).
 *
 *   peach2 cc -O2 -Wall -o deadlock deadlock.c
 *   peach2 run --topology ring4 --stall-ms 1 -- ./deadlock ; echo "exit status $?"
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

int main(int argc, char **argv) {
    int P;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    CHECK(tcaInit());
    char *buf;
    CHECK(tcaMalloc((void **)&buf, 4096, tcaMemoryCPU));
    memset(buf, 0, 4096);
    tcaHandle *h = calloc((size_t)P, sizeof(tcaHandle));
    CHECK(tcaCreateHandle(&h[rank], buf, 4096, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);
    int right = (rank + 1) % P;
    /* The put this wait is for would come after it: it never comes. */
    if (rank == 0) printf("every rank now waits for its right neighbour's notification\n");
    CHECK(tcaWaitDMARecvDesc(&h[right], 5, 1));
    printf("rank %d: got a notification nobody sent (wrong)\n", rank);
    MPI_Finalize();
    return 0;
}

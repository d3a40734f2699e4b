/*
 * crash.c: a rank dies. Rank 1 prints a line and exits with status 3 in the middle of
 * the program; the other ranks go on into a barrier that can never complete. The
 * platform must end the run with exit status 3 and a line naming rank 1 (not hang).
 *
 *   peach2 cc -O2 -Wall -o crash crash.c
 *   peach2 run --topology ring2 -- ./crash ; echo "exit status $?"
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <tca-api.h>

#define CHECK(x)                                                                         \
    do {                                                                                 \
        tcaresult r_ = (x);                                                              \
        if (r_ != TCA_SUCCESS) {                                                         \
            fprintf(stderr, "%s: %s\n", #x, tcaGetErrorString(r_));                      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                \
        }                                                                                \
    } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(tcaInit());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        printf("rank 1: giving up at %.2f us, exit(3)\n", MPI_Wtime() * 1e6);
        fflush(stdout);
        exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 1 is gone */
    printf("rank %d: passed a barrier rank 1 never reached (wrong)\n", rank);
    MPI_Finalize();
    return 0;
}

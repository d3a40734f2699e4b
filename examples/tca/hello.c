/*
 * hello.c: the smallest TCA program. Rank 0 DMAs a string into rank 1's buffer with
 * internal descriptors and a receiver notification; rank 1 waits for it and prints it.
 *
 *   peach2 cc -O2 -o hello hello.c
 *   peach2 run --topology ring2 -- ./hello
 */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <tca-api.h>

#define CHECK(x) do { tcaresult r_ = (x); if (r_ != TCA_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, tcaGetErrorString(r_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(tcaInit());
    char *buf;
    CHECK(tcaMalloc((void **)&buf, 4096, tcaMemoryCPU));
    memset(buf, 0, 4096);
    tcaHandle h[2];
    CHECK(tcaCreateHandle(&h[rank], buf, 4096, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE, MPI_COMM_WORLD);
    int other = 1 - rank;
    if (rank == 0) snprintf(buf + 1024, 64, "hello from rank 0");
    tcaDesc *d = tcaDescNew();
    CHECK(tcaDescSetMemcpy(d, &h[other], 0, &h[rank], 1024, 64, tcaDMANotify | tcaDMAUseInternal, 0, 7));
    CHECK(tcaDescSet(d, 0));
    double t0 = MPI_Wtime();
    if (rank == 0) {
        CHECK(tcaStartDMADesc(0));
        CHECK(tcaWaitDMAC(0));
    } else {
        CHECK(tcaWaitDMARecvDesc(&h[other], 0, 7));
        printf("rank 1 got \"%s\" after %.2f us\n", buf, (MPI_Wtime() - t0) * 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d done\n", rank, size);
    MPI_Finalize();
    return 0;
}

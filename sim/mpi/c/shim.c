/* The MPI calls peach2 uses, with errors returned to Rust (MPI_ERRORS_RETURN) instead of
 * aborting the job. Every function returns an MPI error code (MPI_SUCCESS is 0). */
#include <mpi.h>
#include <stdint.h>

int p2mpi_init(int *rank, int *size) {
    int provided = 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int p2mpi_finalize(void) { return MPI_Finalize(); }

/* One uint64 to every rank, one from every rank. */
int p2mpi_alltoall_u64(const uint64_t *send, uint64_t *recv) {
    return MPI_Alltoall(send, 1, MPI_UINT64_T, recv, 1, MPI_UINT64_T, MPI_COMM_WORLD);
}

/* Bytes to every rank (`scounts[r]` at `sdispls[r]`), bytes from every rank. */
int p2mpi_alltoallv(const void *send, const int *scounts, const int *sdispls, void *recv,
                    const int *rcounts, const int *rdispls) {
    return MPI_Alltoallv(send, scounts, sdispls, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE,
                         MPI_COMM_WORLD);
}

/* In place over all ranks: op 0 sums, op 1 takes the maximum. */
int p2mpi_allreduce_u64(uint64_t *v, int n, int op) {
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, op == 1 ? MPI_MAX : MPI_SUM,
                         MPI_COMM_WORLD);
}

/* Ends every process of the job (a process that failed would leave the others waiting). */
void p2mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* The message of an error code, NUL-terminated, at most `len` bytes. */
void p2mpi_error_string(int code, char *buf, int len) {
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, msg, &n) != MPI_SUCCESS) n = 0;
    if (n >= len) n = len - 1;
    for (int i = 0; i < n; i++) buf[i] = msg[i];
    buf[n < 0 ? 0 : n] = 0;
}

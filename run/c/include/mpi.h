/*
 * mpi.h: the part of MPI that TCA programs use, on the co-simulated cluster (`peach2
 * cc`, `peach2 run`). One communicator, MPI_COMM_WORLD: rank r runs on node r. On
 * HA-PACS/TCA MPI ran over InfiniBand, not PEACH2: messages cost simulated time from the
 * profile (a latency and a rate per message; a collective costs ceil(log2 ranks)
 * messages after the last rank arrives), not chip traffic.
 *
 * Every call returns MPI_SUCCESS or: MPI_ERR_ARG (a communicator other than
 * MPI_COMM_WORLD, a negative count or tag, NULL buffers), MPI_ERR_RANK (no such rank),
 * MPI_ERR_TYPE (unknown datatype, or MPI_BYTE in a reduction), MPI_ERR_OP, MPI_ERR_COUNT
 * (count mismatch in a collective), MPI_ERR_TRUNCATE (a message longer than the receive
 * buffer: the buffer gets what fits), MPI_ERR_OTHER.
 */
#ifndef PEACH2_MPI_H
#define PEACH2_MPI_H

#include "peach2_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int count_bytes_;
} MPI_Status;

#define MPI_SUCCESS P2_MPI_SUCCESS
#define MPI_ERR_OTHER P2_MPI_ERR_OTHER
#define MPI_ERR_ARG P2_MPI_ERR_ARG
#define MPI_ERR_RANK P2_MPI_ERR_RANK
#define MPI_ERR_TYPE P2_MPI_ERR_TYPE
#define MPI_ERR_OP P2_MPI_ERR_OP
#define MPI_ERR_COUNT P2_MPI_ERR_COUNT
#define MPI_ERR_TRUNCATE P2_MPI_ERR_TRUNCATE
#define MPI_COMM_WORLD ((MPI_Comm)P2_MPI_COMM_WORLD)
#define MPI_ANY_SOURCE P2_MPI_ANY_SOURCE
#define MPI_ANY_TAG P2_MPI_ANY_TAG
#define MPI_MAX_PROCESSOR_NAME P2_MPI_MAX_PROCESSOR_NAME
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BYTE ((MPI_Datatype)P2_MPI_BYTE)
#define MPI_CHAR ((MPI_Datatype)P2_MPI_CHAR)
#define MPI_INT ((MPI_Datatype)P2_MPI_INT)
#define MPI_LONG ((MPI_Datatype)P2_MPI_LONG)
#define MPI_FLOAT ((MPI_Datatype)P2_MPI_FLOAT)
#define MPI_DOUBLE ((MPI_Datatype)P2_MPI_DOUBLE)
#define MPI_UNSIGNED ((MPI_Datatype)P2_MPI_UNSIGNED)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)P2_MPI_UNSIGNED_LONG)
#define MPI_SUM ((MPI_Op)P2_MPI_SUM)
#define MPI_PROD ((MPI_Op)P2_MPI_PROD)
#define MPI_MAX ((MPI_Op)P2_MPI_MAX)
#define MPI_MIN ((MPI_Op)P2_MPI_MIN)

int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Barrier(MPI_Comm comm);
/* The calling rank's simulated time, in seconds. */
double MPI_Wtime(void);
/* "node<rank>". */
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count);
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm);
/* Ends the whole run with exit status `errorcode`. */
int MPI_Abort(MPI_Comm comm, int errorcode);

#ifdef __cplusplus
}
#endif
#endif

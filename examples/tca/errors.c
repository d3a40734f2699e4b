/*
 * errors.c: bad calls get the library's error codes, not crashes or hangs.
 * Rank 0 makes each bad call (rank 1 only provides a foreign handle), prints the call,
 * what it returned and what tca-api.h / mpi.h / cuda_runtime.h document, then checks
 * that the library still works (a good local DMA with a notification). Exit status 0
 * only if every call returned the documented error.
 *
 *   peach2 cc -O2 -Wall -o errors errors.c
 *   peach2 run --topology ring2 -- ./errors
 *
 * Shape errors in a descriptor list may be reported by tcaDescSetMemcpy[2D] or by the
 * tcaDescSet that checks the whole list (tca-api.h allows either): such a case builds
 * the list, sets it on channel 0 if the append was accepted, and counts the first
 * error of the two.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <cuda_runtime.h>
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

static const char *tca_name(tcaresult r) {
    switch (r) {
    case TCA_SUCCESS: return "TCA_SUCCESS";
    case TCA_ERROR_INVALID_VALUE: return "TCA_ERROR_INVALID_VALUE";
    case TCA_ERROR_OUT_OF_MEMORY: return "TCA_ERROR_OUT_OF_MEMORY";
    case TCA_ERROR_NOT_SUPPORTED: return "TCA_ERROR_NOT_SUPPORTED";
    case TCA_ERROR_NOT_INITIALIZED: return "TCA_ERROR_NOT_INITIALIZED";
    case TCA_ERROR_NOT_READY: return "TCA_ERROR_NOT_READY";
    case TCA_ERROR_BUSY: return "TCA_ERROR_BUSY";
    case TCA_ERROR_TIMEOUT: return "TCA_ERROR_TIMEOUT";
    case TCA_ERROR_DEVICE: return "TCA_ERROR_DEVICE";
    }
    return "(unknown tcaresult)";
}

static const char *mpi_name(int r) {
    switch (r) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    }
    return "(unknown MPI error)";
}

static const char *cuda_name(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    }
    return "(unknown cudaError_t)";
}

static int cases, wrong;

static void report(const char *call, const char *got, const char *want) {
    int ok = strcmp(got, want) == 0;
    cases++;
    if (!ok) wrong++;
    printf("%-72s -> %-27s %s\n", call, got, ok ? "ok" : "WRONG");
    if (!ok) printf("%72s    (expected %s)\n", "", want);
}
#define EXPECT_TCA(call, want) report(#call, tca_name(call), tca_name(want))
#define EXPECT_MPI(call, want) report(#call, mpi_name(call), mpi_name(want))
#define EXPECT_CUDA(call, want) report(#call, cuda_name(call), cuda_name(want))

static tcaHandle h[2], garbage;
static unsigned char *buf;
#define BUF 4096

/* A one-entry list built by `append`, then set on channel 0 if the append worked. */
static tcaresult list_result(tcaresult (*append)(tcaDesc *)) {
    tcaDesc *d = tcaDescNew();
    if (d == NULL) {
        fprintf(stderr, "rank 0: tcaDescNew returned NULL\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    tcaresult r = append(d);
    if (r == TCA_SUCCESS) r = tcaDescSet(d, 0);
    CHECK(tcaDescFree(d));
    return r;
}

#define F (tcaDMAUseInternal | tcaDMANotify)
static tcaresult garbage_dst(tcaDesc *d) { return tcaDescSetMemcpy(d, &garbage, 0, &h[0], 0, 64, F, 0, 1); }
static tcaresult foreign_src(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[0], 0, &h[1], 0, 64, F, 0, 1); }
static tcaresult dst_off_past_end(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], BUF, &h[0], 0, 64, F, 0, 1); }
static tcaresult src_range_past_end(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], 0, &h[0], BUF - 32, 64, F, 0, 1); }
static tcaresult negative_off(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], -64, &h[0], 0, 64, F, 0, 1); }
static tcaresult width0(tcaDesc *d) { return tcaDescSetMemcpy2D(d, &h[1], 0, 64, &h[0], 0, 64, 0, 4, F, 0, 1); }
static tcaresult height0(tcaDesc *d) { return tcaDescSetMemcpy2D(d, &h[1], 0, 64, &h[0], 0, 64, 8, 0, F, 0, 1); }
static tcaresult dst_pitch_lt_width(tcaDesc *d) { return tcaDescSetMemcpy2D(d, &h[1], 0, 16, &h[0], 0, 64, 32, 4, F, 0, 1); }
static tcaresult src_pitch_lt_width(tcaDesc *d) { return tcaDescSetMemcpy2D(d, &h[1], 0, 64, &h[0], 0, 16, 32, 4, F, 0, 1); }
static tcaresult shape_past_end(tcaDesc *d) { return tcaDescSetMemcpy2D(d, &h[1], 0, 1024, &h[0], 0, 64, 8, 5, F, 0, 1); }
static tcaresult tag0(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], 0, &h[0], 0, 64, F, 0, 0); }
static tcaresult slot_past_end(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], 0, &h[0], 0, 64, F, P2_TCA_WAIT_SLOTS, 1); }
static tcaresult unknown_flag(tcaDesc *d) { return tcaDescSetMemcpy(d, &h[1], 0, &h[0], 0, 64, F | 0x40000000, 0, 1); }
static tcaresult self_tag0(tcaDesc *d) {
    return tcaDescSetMemcpy(d, &h[1], 0, &h[0], 0, 64, tcaDMAUseInternal | tcaDMANotifySelf, 0, 0);
}

int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (rank == 0) fprintf(stderr, "errors: run it on 2 ranks (--topology ring2)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    void *early = NULL;
    tcaresult before_init = tcaMalloc(&early, 64, tcaMemoryCPU);

    CHECK(tcaInit());
    CHECK(tcaMalloc((void **)&buf, BUF, tcaMemoryCPU));
    memset(buf, 0, BUF);
    CHECK(tcaCreateHandle(&h[rank], buf, BUF, tcaMemoryCPU));
    MPI_Allgather(MPI_IN_PLACE, sizeof(tcaHandle), MPI_BYTE, h, sizeof(tcaHandle), MPI_BYTE,
                  MPI_COMM_WORLD);
    memset(&garbage, 0xa5, sizeof garbage);

    if (rank == 0) {
        printf("%-72s -> %s\n", "call", "result");
        report("tcaMalloc(&early, 64, tcaMemoryCPU) before tcaInit", tca_name(before_init),
               tca_name(TCA_ERROR_INVALID_VALUE));
        /* Handles. */
        report("list: tcaDescSetMemcpy(dst = garbage handle) [+ tcaDescSet]",
               tca_name(list_result(garbage_dst)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(src = rank 1's handle) [+ tcaDescSet]",
               tca_name(list_result(foreign_src)), tca_name(TCA_ERROR_INVALID_VALUE));
        EXPECT_TCA(tcaDestroyHandle(&h[1]), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaDestroyHandle(&garbage), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaWaitDMARecvDesc(&garbage, 0, 1), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaTestDMARecvDesc(&garbage, 0, 1), TCA_ERROR_INVALID_VALUE);
        tcaPIOHandle pio;
        EXPECT_TCA(tcaSetPIORegion(&pio, &garbage, 0, 64), TCA_ERROR_INVALID_VALUE);
        void *notbuf = malloc(64);
        EXPECT_TCA(tcaCreateHandle(&garbage, notbuf, 64, tcaMemoryCPU), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaCreateHandle(&garbage, buf, BUF + 1, tcaMemoryCPU), TCA_ERROR_INVALID_VALUE);
        memset(&garbage, 0xa5, sizeof garbage);
        /* Offsets and sizes. */
        report("list: tcaDescSetMemcpy(dst offset = buffer size) [+ tcaDescSet]",
               tca_name(list_result(dst_off_past_end)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(src range runs 32 B past the end) [+ tcaDescSet]",
               tca_name(list_result(src_range_past_end)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(dst offset -64) [+ tcaDescSet]",
               tca_name(list_result(negative_off)), tca_name(TCA_ERROR_INVALID_VALUE));
        EXPECT_TCA(tcaSetPIORegion(&pio, &h[1], BUF - 8, 64), TCA_ERROR_INVALID_VALUE);
        CHECK(tcaSetPIORegion(&pio, &h[1], 0, 64));
        uint64_t word = 1;
        EXPECT_TCA(tcaSendPIO(&pio, 60, &word, 8), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaSendPIO(&pio, 0, &word, 0), TCA_ERROR_INVALID_VALUE);
        /* 2-D shapes. */
        report("list: tcaDescSetMemcpy2D(width 0) [+ tcaDescSet]",
               tca_name(list_result(width0)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy2D(height 0) [+ tcaDescSet]",
               tca_name(list_result(height0)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy2D(dst pitch 16 < width 32) [+ tcaDescSet]",
               tca_name(list_result(dst_pitch_lt_width)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy2D(src pitch 16 < width 32) [+ tcaDescSet]",
               tca_name(list_result(src_pitch_lt_width)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy2D(5 rows of pitch 1024 in 4 KB) [+ tcaDescSet]",
               tca_name(list_result(shape_past_end)), tca_name(TCA_ERROR_INVALID_VALUE));
        /* Notifications and flags. */
        report("list: tcaDescSetMemcpy(tcaDMANotify, tag 0) [+ tcaDescSet]",
               tca_name(list_result(tag0)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(tcaDMANotify, slot P2_TCA_WAIT_SLOTS) [+ tcaDescSet]",
               tca_name(list_result(slot_past_end)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(unknown flag bit 0x40000000) [+ tcaDescSet]",
               tca_name(list_result(unknown_flag)), tca_name(TCA_ERROR_INVALID_VALUE));
        report("list: tcaDescSetMemcpy(tcaDMANotifySelf, tag 0) [+ tcaDescSet]",
               tca_name(list_result(self_tag0)), tca_name(TCA_ERROR_INVALID_VALUE));
        EXPECT_TCA(tcaWaitDMARecvDesc(&h[1], 0, 0), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaTestDMARecvDesc(&h[1], 0, 0), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaWaitDMARecvDesc(&h[1], -1, 1), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaTestDMARecvDesc(&h[1], 5, 1), TCA_ERROR_NOT_READY);
        /* Channels. */
        tcaDesc *d = tcaDescNew();
        CHECK(tcaDescSetMemcpy(d, &h[1], 0, &h[0], 0, 64, F, 0, 1));
        EXPECT_TCA(tcaDescSet(d, TCA_DMAC_CHANNELS), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaDescSet(d, -1), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaStartDMADesc(TCA_DMAC_CHANNELS), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaWaitDMAC(TCA_DMAC_CHANNELS), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaStartDMADesc(TCA_DMAC_CHANNELS - 1), TCA_ERROR_INVALID_VALUE); /* nothing set on it */
        tcaDesc *empty = tcaDescNew();
        EXPECT_TCA(tcaDescSet(empty, 1), TCA_ERROR_INVALID_VALUE);
        CHECK(tcaDescFree(empty));
        EXPECT_TCA(tcaDescFree(empty), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaDescFree(NULL), TCA_ERROR_INVALID_VALUE);
        CHECK(tcaDescFree(d));
        /* Memory. */
        EXPECT_TCA(tcaFree(notbuf, tcaMemoryCPU), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaFree(buf + 16, tcaMemoryCPU), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaFree(buf, tcaMemoryGPU), TCA_ERROR_INVALID_VALUE);
        void *p = NULL;
        EXPECT_TCA(tcaMalloc(&p, 0, tcaMemoryCPU), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaMalloc(&p, 64, (tcaMemoryKind)9), TCA_ERROR_INVALID_VALUE);
        EXPECT_TCA(tcaMalloc(&p, (size_t)1 << 46, tcaMemoryCPU), TCA_ERROR_OUT_OF_MEMORY);
        EXPECT_CUDA(cudaFree(notbuf), cudaErrorInvalidDevicePointer);
        EXPECT_CUDA(cudaMemcpy(notbuf, (void *)(uintptr_t)0x1000, 64, cudaMemcpyDeviceToHost),
                    cudaErrorInvalidValue);
        free(notbuf);
        /* MPI. */
        int x = 42;
        EXPECT_MPI(MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
        EXPECT_MPI(MPI_Send(&x, 1, MPI_INT, 1, -5, MPI_COMM_WORLD), MPI_ERR_ARG);
        EXPECT_MPI(MPI_Send(&x, 1, (MPI_Datatype)12345, 1, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
        EXPECT_MPI(MPI_Send(&x, 1, MPI_INT, 1, 0, (MPI_Comm)777), MPI_ERR_ARG);

        /* The library still works: a local copy with a notification. */
        for (int i = 0; i < 64; i++) buf[i] = (unsigned char)(i + 1);
        d = tcaDescNew();
        CHECK(tcaDescSetMemcpy(d, &h[0], 1024, &h[0], 0, 64, F, 2, 9));
        CHECK(tcaDescSet(d, 0));
        CHECK(tcaStartDMADesc(0));
        CHECK(tcaWaitDMAC(0));
        CHECK(tcaWaitDMARecvDesc(&h[0], 2, 9));
        CHECK(tcaDescFree(d));
        int same = memcmp(buf, buf + 1024, 64) == 0;
        report("after all that, a good local DMA + notification: data equal?",
               same ? "yes" : "no", "yes");
        printf("errors: %d of %d calls gave the documented result\n", cases - wrong, cases);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = wrong;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(tcaDestroyHandle(&h[rank]));
    CHECK(tcaFree(buf, tcaMemoryCPU));
    MPI_Finalize();
    if (bad) {
        if (rank == 0) fprintf(stderr, "errors: %d calls did not give the documented error\n", bad);
        return 1;
    }
    return 0;
}

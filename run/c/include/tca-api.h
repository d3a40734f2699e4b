/*
 * tca-api.h: the TCA library's API as TCA programs call it (names and argument orders
 * from its public users: omni-compiler's libxmp/libacc TCA backend and the
 * PEACH2-Benchmarks programs), on the co-simulated PEACH2 cluster. Build with
 * `peach2 cc`, run with `peach2 run`. Every call is carried out by the project's TCA
 * driver (driver-sw) on the Verilated chips, in simulated time.
 *
 * Results: every call returns a tcaresult. TCA_SUCCESS, or
 *   TCA_ERROR_INVALID_VALUE  a bad argument (NULL, foreign or unknown handle, offset or
 *                            size past a buffer's end, bad 2-D shape, bad channel or
 *                            slot, tag 0, an unreachable node, unknown flag bits), or a
 *                            call before tcaInit;
 *   TCA_ERROR_OUT_OF_MEMORY  host, GPU or descriptor memory exhausted;
 *   TCA_ERROR_NOT_SUPPORTED  memory of a kind this node does not have;
 *   TCA_ERROR_BUSY           the channel is still running (project extension);
 *   TCA_ERROR_NOT_READY      tcaTestDMARecvDesc: not arrived yet (project extension);
 *   TCA_ERROR_TIMEOUT        a wait gave up (project extension);
 *   TCA_ERROR_DEVICE         the chip reported an error, e.g. a DMA channel stopped on a
 *                            descriptor error (project extension).
 * Must compile as C and C++.
 */
#ifndef TCA_API_H
#define TCA_API_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "peach2_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TCA_LIB_VERSION "peach2 co-simulation"

typedef enum tcaresult {
    TCA_SUCCESS = P2_TCA_SUCCESS,
    TCA_ERROR_INVALID_VALUE = P2_TCA_ERROR_INVALID_VALUE,
    TCA_ERROR_OUT_OF_MEMORY = P2_TCA_ERROR_OUT_OF_MEMORY,
    TCA_ERROR_NOT_SUPPORTED = P2_TCA_ERROR_NOT_SUPPORTED,
    TCA_ERROR_NOT_INITIALIZED = P2_TCA_ERROR_NOT_INITIALIZED,
    TCA_ERROR_NOT_READY = P2_TCA_ERROR_NOT_READY,
    TCA_ERROR_BUSY = P2_TCA_ERROR_BUSY,
    TCA_ERROR_TIMEOUT = P2_TCA_ERROR_TIMEOUT,
    TCA_ERROR_DEVICE = P2_TCA_ERROR_DEVICE
} tcaresult;

/* Text for a result code: never NULL, static storage. */
const char *tcaGetErrorString(tcaresult result);

/* Where a buffer lives; GPU means the current CUDA device (cudaSetDevice). */
typedef enum tcaMemoryKind {
    tcaMemoryCPU = P2_TCA_MEMORY_CPU,
    tcaMemoryGPU = P2_TCA_MEMORY_GPU
} tcaMemoryKind;

/* A registered buffer of some node. Plain bytes: exchange it with MPI
 * (MPI_BYTE x sizeof(tcaHandle)) and use any copy. */
typedef struct tcaHandle {
    uint64_t opaque_[P2_TCA_HANDLE_BYTES / 8];
} tcaHandle;

/* A region of a node's buffer for PIO stores (tcaSetPIORegion). Plain bytes. */
typedef struct tcaPIOHandle {
    uint64_t opaque_[P2_TCA_PIO_HANDLE_BYTES / 8];
} tcaPIOHandle;

/* A list of transfers; used through pointers only. */
typedef struct tcaDesc tcaDesc;

/* DMA flags, OR-ed. tcaDMAContinue chains the entries of the older API (below: an
 * entry with it is followed by the next entry); in the tcaDesc API it is accepted and
 * has no effect, as a list's copies chain by themselves. */
typedef int tcaDMAFlag;
#define tcaDMANotify P2_TCA_FLAG_NOTIFY                     /* receiver sees (slot, tag) after the data */
#define tcaDMANotifySelf P2_TCA_FLAG_NOTIFY_SELF            /* this node sees (slot, tag) when done */
#define tcaDMAContinue P2_TCA_FLAG_CONTINUE                 /* older API: chain on to the next entry */
#define tcaDMAPipeline P2_TCA_FLAG_PIPELINE                 /* accepted; the chip pipelines reads anyway */
#define tcaDMAUseInternal P2_TCA_FLAG_USE_INTERNAL          /* descriptors in the chip's memory */
#define tcaDMAUseNotifyInternal P2_TCA_FLAG_USE_NOTIFY_INTERNAL /* notifications land in the receiving chip */

/* Notifications. A copy's tcaDMANotify / tcaDMANotifySelf write wait_tag into the
 * notified node's entry for (this node, wait_slot), after the copy's data. Any number of
 * copies of a list may notify, any nodes, any slots (0 .. P2_TCA_WAIT_SLOTS-1) and tags
 * (non-zero): the
 * first receiver notification after a copy rides the channel's register, the others one
 * extra descriptor each. The entry is in the notified node's host memory, or with
 * tcaDMAUseNotifyInternal in its chip (a waiting CPU then reads it over PCIe instead of
 * spinning on its cache).
 * A wait looks first where its last notification was found (at first: where this
 * process's own lists send theirs) and every 256th poll at the other place, so a
 * notification is found wherever a sender put it. */

/* Channels are 0 .. TCA_DMAC_CHANNELS-1. */
#define TCA_DMAC_CHANNELS P2_TCA_DMAC_CHANNELS

/* Opens this node's PEACH2. Once per process, after MPI_Init; again is a no-op.
 * Errors: TCA_ERROR_DEVICE (not a PEACH2, or it does not answer). */
tcaresult tcaInit(void);

/* Allocates `size` bytes the chip reaches: host memory the program may load and store
 * (CPU), or device memory of the current GPU (usable as a CUDA device pointer).
 * Errors: INVALID_VALUE (NULL ptr, size 0, unknown kind, before tcaInit),
 * OUT_OF_MEMORY, NOT_SUPPORTED (no GPU on this node). */
tcaresult tcaMalloc(void **ptr, size_t size, tcaMemoryKind kind);

/* Frees memory from tcaMalloc (of that kind).
 * Errors: INVALID_VALUE (not a live tcaMalloc buffer of that kind). */
tcaresult tcaFree(void *ptr, tcaMemoryKind kind);

/* A handle naming the tcaMalloc buffer that starts at `ptr` (size at most the
 * buffer's) for every node.
 * Errors: INVALID_VALUE (NULL, not the start of a live buffer of that kind, size 0
 * or past its end). */
tcaresult tcaCreateHandle(tcaHandle *handle, void *ptr, size_t size, tcaMemoryKind kind);

/* Checks that `handle` is one this process created and is live; handles are plain
 * values, so nothing else changes. Errors: INVALID_VALUE. */
tcaresult tcaDestroyHandle(tcaHandle *handle);

/* A new, empty transfer list (NULL if the platform cannot be reached). */
tcaDesc *tcaDescNew(void);

/* Releases a list. Errors: INVALID_VALUE (NULL or already freed). */
tcaresult tcaDescFree(tcaDesc *desc);

/* Appends a copy of `size` bytes from src+src_offset (a handle of this node) to
 * dst+dst_offset (any node's handle, this node's included). With tcaDMANotify the
 * destination node then sees (wait_slot, wait_tag); with tcaDMANotifySelf this node
 * does. Alignment is free: the driver stages what the chip cannot move directly.
 * Errors (from here or from tcaDescSet, which checks the whole list): INVALID_VALUE. */
tcaresult tcaDescSetMemcpy(tcaDesc *desc, tcaHandle *dst, off_t dst_offset,
                           tcaHandle *src, off_t src_offset, size_t size,
                           tcaDMAFlag flags, int wait_slot, int wait_tag);

/* Appends a block-stride copy: `height` rows of `width` bytes, rows dst_pitch and
 * src_pitch bytes apart. Errors: as tcaDescSetMemcpy, and bad shapes (width or height
 * 0, a pitch below the width). */
tcaresult tcaDescSetMemcpy2D(tcaDesc *desc, tcaHandle *dst, off_t dst_offset,
                             size_t dst_pitch, tcaHandle *src, off_t src_offset,
                             size_t src_pitch, size_t width, size_t height,
                             tcaDMAFlag flags, int wait_slot, int wait_tag);

/* Checks the list and sets it on channel `dmac_ch` (descriptors in the chip with
 * tcaDMAUseInternal, else in host memory); it can then be started any number of times.
 * Errors: INVALID_VALUE (empty or bad list, bad channel), BUSY, OUT_OF_MEMORY. */
tcaresult tcaDescSet(tcaDesc *desc, int dmac_ch);

/* Starts the list set on channel `dmac_ch`; returns at once. A channel whose previous
 * run has finished may be started again without tcaWaitDMAC.
 * Errors: INVALID_VALUE (bad channel, nothing set), BUSY (still running), DEVICE (the
 * previous run stopped on an error). */
tcaresult tcaStartDMADesc(int dmac_ch);

/* Waits until channel `dmac_ch` has finished its list.
 * Errors: INVALID_VALUE (bad channel), DEVICE (the channel stopped on an error),
 * TIMEOUT. */
tcaresult tcaWaitDMAC(int dmac_ch);

/* Waits until (wait_slot, wait_tag) has arrived, then clears it. `handle` names the
 * node whose transfer is awaited: another node's (its tcaDMANotify), or one of this
 * node's own (a tcaDMANotifySelf, or a local copy's tcaDMANotify).
 * Errors: INVALID_VALUE (bad handle, slot, tag), TIMEOUT. */
tcaresult tcaWaitDMARecvDesc(tcaHandle *handle, int wait_slot, int wait_tag);

/* tcaWaitDMARecvDesc without waiting: TCA_SUCCESS (and cleared) if it has arrived,
 * TCA_ERROR_NOT_READY if not. Errors: as tcaWaitDMARecvDesc. */
tcaresult tcaTestDMARecvDesc(tcaHandle *handle, int wait_slot, int wait_tag);

/* Makes `pio` name [offset, offset+size) of `dst`'s buffer for PIO stores.
 * Errors: INVALID_VALUE (bad handle, range past its end, unreachable node). */
tcaresult tcaSetPIORegion(tcaPIOHandle *pio, tcaHandle *dst, off_t offset, size_t size);

/* Stores `size` bytes from `src` at `offset` of the region, through the chip's BAR2
 * window: byte-exact, in order, no DMA. Errors: INVALID_VALUE (NULL, size 0, past the
 * region's end). */
tcaresult tcaSendPIO(tcaPIOHandle *pio, off_t offset, void *src, size_t size);

/* Orders earlier PIO stores before later ones (posted writes already are in order). */
tcaresult tcaSendPIOCommit(void);

/*
 * The older descriptor API: numbered tables of entries instead of tcaDesc lists. An
 * entry is one copy, with the arguments and checks of tcaDescSetMemcpy[2D]; a chain is
 * the entries from a first one up to and including the first without tcaDMAContinue,
 * and setting it on a channel is tcaDescSet of a list of those copies, so the limits of
 * a list hold for a chain (one tcaDMANotify, one tcaDMANotifySelf). Start and wait with
 * tcaStartDMADesc, tcaWaitDMAC and tcaWaitDMARecvDesc. A set entry is replaced by the
 * next set of its slot; a chain already set on a channel is not changed by later sets.
 *
 * Internal form (OMNI 2014-15): one table per process of P2_TCA_DESC_INT_SLOTS entries
 * (as many as the chip's descriptor memory holds), always set with descriptors in the
 * chip.
 */

/* Kept for the programs that call it after tcaInit; the internal table needs no
 * set-up. Errors: INVALID_VALUE (before tcaInit). */
tcaresult tcaDMADescInt_Init(void);

/* Sets internal entry `slot` to the copy tcaDescSetMemcpy would append, and writes
 * slot + 1 to *next_slot (callers pass one counter twice: `(s, &s, ...)`).
 * Errors: INVALID_VALUE (NULL, slot outside 0 .. P2_TCA_DESC_INT_SLOTS-1, and as
 * tcaDescSetMemcpy). On an
 * error nothing is stored and *next_slot is unchanged. */
tcaresult tcaSetDMADescInt_Memcpy(int slot, int *next_slot, tcaHandle *dst, off_t dst_offset,
                                  tcaHandle *src, off_t src_offset, size_t size,
                                  tcaDMAFlag flags, int wait_slot, int wait_tag);

/* tcaSetDMADescInt_Memcpy of a block-stride copy (see tcaDescSetMemcpy2D).
 * Errors: as tcaSetDMADescInt_Memcpy and tcaDescSetMemcpy2D. */
tcaresult tcaSetDMADescInt_Memcpy2D(int slot, int *next_slot, tcaHandle *dst,
                                    off_t dst_offset, size_t dst_pitch, tcaHandle *src,
                                    off_t src_offset, size_t src_pitch, size_t width,
                                    size_t height, tcaDMAFlag flags, int wait_slot,
                                    int wait_tag);

/* Sets the chain from internal entry `first_slot` on channel `dmac_ch`, descriptors in
 * the chip. Errors: INVALID_VALUE (first_slot outside 0 .. P2_TCA_DESC_INT_SLOTS-1, an
 * entry of the chain never set, a chain running past the table's last entry, a bad channel, and as tcaDescSet), BUSY,
 * OUT_OF_MEMORY. */
tcaresult tcaSetDMAChainInt(int dmac_ch, int first_slot);

/*
 * Host-table form (PEACH2-Benchmarks 2018): tables made by tcaCreateDMADesc, named by
 * a positive id. A chain starts at entry 0; its descriptors go into the chip if an
 * entry has tcaDMAUseInternal, else into host memory (as tcaDescSet decides).
 */

/* A new table of `n_entries` unset entries (1 .. P2_TCA_DESC_TABLE_MAX_ENTRIES, i.e.
 * 65536); its id goes to *desc_tag. Errors: INVALID_VALUE (NULL, n_entries out of
 * range), OUT_OF_MEMORY (ids used up). */
tcaresult tcaCreateDMADesc(int *desc_tag, int n_entries);

/* Sets entry `slot` of table `desc_tag` as tcaSetDMADescInt_Memcpy sets an internal one.
 * Errors: INVALID_VALUE (NULL, not a live table, slot outside 0 .. n_entries-1, and as
 * tcaDescSetMemcpy). */
tcaresult tcaSetDMADesc_Memcpy(int desc_tag, int slot, int *next_slot, tcaHandle *dst,
                               off_t dst_offset, tcaHandle *src, off_t src_offset,
                               size_t size, tcaDMAFlag flags, int wait_slot, int wait_tag);

/* tcaSetDMADesc_Memcpy of a block-stride copy (see tcaDescSetMemcpy2D).
 * Errors: as tcaSetDMADesc_Memcpy and tcaDescSetMemcpy2D. */
tcaresult tcaSetDMADesc_Memcpy2D(int desc_tag, int slot, int *next_slot, tcaHandle *dst,
                                 off_t dst_offset, size_t dst_pitch, tcaHandle *src,
                                 off_t src_offset, size_t src_pitch, size_t width,
                                 size_t height, tcaDMAFlag flags, int wait_slot,
                                 int wait_tag);

/* Sets the chain from entry 0 of table `desc_tag` on channel `dmac_ch`.
 * Errors: INVALID_VALUE (not a live table, an entry of the chain never set, a chain
 * running past the last entry, a bad channel, and as tcaDescSet), BUSY, OUT_OF_MEMORY. */
tcaresult tcaSetDMAChain(int dmac_ch, int desc_tag);

/* Frees table `desc_tag`; a chain set from it stays on its channel.
 * Errors: INVALID_VALUE (not a live table). */
tcaresult tcaDestroyDMADesc(int desc_tag);

#ifdef __cplusplus
}
#endif
#endif

//! The numbers a C program and the runtime agree on, written once: result codes, flags,
//! memory kinds, MPI datatypes and operations, CUDA copy kinds and errors, the call
//! codes of the wire protocol. [`c_header`] turns them into `peach2_abi.h`, which the
//! public headers (`tca-api.h`, `mpi.h`, `cuda_runtime.h`) include, so C and Rust cannot
//! disagree.

/// One named constant of the ABI.
pub struct Constant {
    /// The C macro name.
    pub name: &'static str,
    /// Its value.
    pub value: i64,
}

macro_rules! constants {
    ($group:ident: $($name:ident = $value:expr),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "`")]
            pub const $name: i64 = $value;
        )*
        /// Every constant of the group, for the generated header.
        pub const $group: &[Constant] = &[$(Constant { name: stringify!($name), value: $value }),*];
    };
}

constants!(TCA_RESULTS:
    TCA_SUCCESS = 0,
    TCA_ERROR_INVALID_VALUE = 1,
    TCA_ERROR_OUT_OF_MEMORY = 2,
    TCA_ERROR_NOT_SUPPORTED = 3,
    TCA_ERROR_NOT_INITIALIZED = 100,
    TCA_ERROR_NOT_READY = 101,
    TCA_ERROR_BUSY = 102,
    TCA_ERROR_TIMEOUT = 103,
    TCA_ERROR_DEVICE = 104,
);

constants!(TCA_FLAGS:
    TCA_FLAG_NOTIFY = 0x01,
    TCA_FLAG_NOTIFY_SELF = 0x02,
    TCA_FLAG_CONTINUE = 0x04,
    TCA_FLAG_PIPELINE = 0x08,
    TCA_FLAG_USE_INTERNAL = 0x10,
    TCA_FLAG_USE_NOTIFY_INTERNAL = 0x20,
);

constants!(TCA_KINDS:
    TCA_MEMORY_CPU = 0,
    TCA_MEMORY_GPU = 1,
);

constants!(MPI_CONSTANTS:
    MPI_SUCCESS = 0,
    MPI_ERR_OTHER = 1,
    MPI_ERR_ARG = 2,
    MPI_ERR_RANK = 3,
    MPI_ERR_TYPE = 4,
    MPI_ERR_OP = 5,
    MPI_ERR_COUNT = 6,
    MPI_ERR_TRUNCATE = 7,
    MPI_COMM_WORLD = 0x44000000,
    MPI_ANY_SOURCE = -1,
    MPI_ANY_TAG = -1,
    MPI_MAX_PROCESSOR_NAME = 64,
    MPI_BYTE = 1,
    MPI_CHAR = 2,
    MPI_INT = 3,
    MPI_LONG = 4,
    MPI_FLOAT = 5,
    MPI_DOUBLE = 6,
    MPI_UNSIGNED = 7,
    MPI_UNSIGNED_LONG = 8,
    MPI_SUM = 1,
    MPI_PROD = 2,
    MPI_MAX = 3,
    MPI_MIN = 4,
);

constants!(CUDA_CONSTANTS:
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_MEMORY_ALLOCATION = 2,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_DEVICE_POINTER = 17,
    CUDA_ERROR_INVALID_MEMCPY_DIRECTION = 21,
    CUDA_MEMCPY_HOST_TO_HOST = 0,
    CUDA_MEMCPY_HOST_TO_DEVICE = 1,
    CUDA_MEMCPY_DEVICE_TO_HOST = 2,
    CUDA_MEMCPY_DEVICE_TO_DEVICE = 3,
    CUDA_MEMCPY_DEFAULT = 4,
);

constants!(CALLS:
    CALL_HELLO = 1,
    CALL_EXIT = 2,
    CALL_TCA_INIT = 10,
    CALL_TCA_MALLOC = 11,
    CALL_TCA_FREE = 12,
    CALL_TCA_CREATE_HANDLE = 13,
    CALL_TCA_DESTROY_HANDLE = 14,
    CALL_TCA_DESC_NEW = 15,
    CALL_TCA_DESC_FREE = 16,
    CALL_TCA_DESC_SET_MEMCPY = 17,
    CALL_TCA_DESC_SET_MEMCPY_2D = 18,
    CALL_TCA_DESC_SET = 19,
    CALL_TCA_START = 20,
    CALL_TCA_WAIT_DMAC = 21,
    CALL_TCA_WAIT_RECV = 22,
    CALL_TCA_TEST_RECV = 23,
    CALL_TCA_SET_PIO_REGION = 24,
    CALL_TCA_SEND_PIO = 25,
    CALL_TCA_DMA_DESC_INT_INIT = 26,
    CALL_TCA_SET_DMA_DESC_INT_MEMCPY = 27,
    CALL_TCA_SET_DMA_DESC_INT_MEMCPY_2D = 28,
    CALL_TCA_SET_DMA_CHAIN_INT = 29,
    CALL_TCA_CREATE_DMA_DESC = 30,
    CALL_TCA_SET_DMA_DESC_MEMCPY = 31,
    CALL_TCA_SET_DMA_DESC_MEMCPY_2D = 32,
    CALL_TCA_SET_DMA_CHAIN = 33,
    CALL_TCA_DESTROY_DMA_DESC = 34,
    CALL_MPI_INIT = 40,
    CALL_MPI_FINALIZE = 41,
    CALL_MPI_BARRIER = 42,
    CALL_MPI_WTIME = 43,
    CALL_MPI_SEND = 44,
    CALL_MPI_RECV = 45,
    CALL_MPI_BCAST = 46,
    CALL_MPI_ALLGATHER = 47,
    CALL_MPI_ALLREDUCE = 48,
    CALL_MPI_REDUCE = 49,
    CALL_MPI_ABORT = 50,
    CALL_CUDA_SET_DEVICE = 60,
    CALL_CUDA_MALLOC = 61,
    CALL_CUDA_FREE = 62,
    CALL_CUDA_MALLOC_HOST = 63,
    CALL_CUDA_FREE_HOST = 64,
    CALL_CUDA_MEMCPY_TO_DEVICE = 65,
    CALL_CUDA_MEMCPY_FROM_DEVICE = 66,
    CALL_CUDA_MEMCPY_ON_DEVICE = 67,
    CALL_CUDA_MEMSET = 68,
    CALL_CUDA_SYNCHRONIZE = 69,
);

/// Bytes of a `tcaHandle` in C (the driver's handle encoding fits in it).
pub const TCA_HANDLE_BYTES: i64 = 64;
/// Bytes of a `tcaPIOHandle` in C.
pub const TCA_PIO_HANDLE_BYTES: i64 = 64;
/// DMA channels of a PEACH2.
pub const TCA_DMAC_CHANNELS: i64 = peach2_regmap::dma::CHANNELS as i64;
/// Entries of the older API's internal descriptor table (`tcaSetDMADescInt_*` slots),
/// as many as the chip's descriptor memory holds.
pub const TCA_DESC_INT_SLOTS: i64 = peach2_regmap::dma::DESC_COUNT as i64;
/// Notification slots a node keeps per sender (`wait_slot` is below this).
pub const TCA_WAIT_SLOTS: i64 = peach2_regmap::notify::SLOTS as i64;
/// Most entries of one `tcaCreateDMADesc` table.
pub const TCA_DESC_TABLE_MAX_ENTRIES: i64 = 65536;

/// Size in bytes of one element of MPI datatype `code`.
pub fn mpi_type_size(code: i64) -> Option<usize> {
    match code {
        MPI_BYTE | MPI_CHAR => Some(1),
        MPI_INT | MPI_FLOAT | MPI_UNSIGNED => Some(4),
        MPI_LONG | MPI_DOUBLE | MPI_UNSIGNED_LONG => Some(8),
        _ => None,
    }
}

/// `peach2_abi.h`: every constant above as a C macro.
pub fn c_header() -> String {
    let mut s = String::from(
        "/* Generated by peach2 (run/src/abi.rs): the numbers C programs and the simulated\n \
         * platform agree on. Do not edit; the public headers include it. */\n\
         #ifndef PEACH2_ABI_H\n#define PEACH2_ABI_H\n",
    );
    let groups: [(&str, &[Constant]); 6] = [
        ("TCA results", TCA_RESULTS),
        ("TCA DMA flags", TCA_FLAGS),
        ("TCA memory kinds", TCA_KINDS),
        ("MPI", MPI_CONSTANTS),
        ("CUDA", CUDA_CONSTANTS),
        ("Wire protocol call codes", CALLS),
    ];
    for (title, group) in groups {
        s.push_str(&format!("\n/* {title} */\n"));
        for c in group {
            s.push_str(&format!("#define P2_{} ({})\n", c.name, c.value));
        }
    }
    s.push_str(&format!(
        "\n#define P2_TCA_HANDLE_BYTES {TCA_HANDLE_BYTES}\n#define P2_TCA_PIO_HANDLE_BYTES {TCA_PIO_HANDLE_BYTES}\n#define P2_TCA_DMAC_CHANNELS {TCA_DMAC_CHANNELS}\n\
         #define P2_TCA_DESC_INT_SLOTS {TCA_DESC_INT_SLOTS}\n#define P2_TCA_DESC_TABLE_MAX_ENTRIES {TCA_DESC_TABLE_MAX_ENTRIES}\n\
         #define P2_TCA_WAIT_SLOTS {TCA_WAIT_SLOTS}\n#endif\n"
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn call_codes_are_distinct_and_handles_fit() {
        let codes: HashSet<i64> = CALLS.iter().map(|c| c.value).collect();
        assert_eq!(codes.len(), CALLS.len());
        assert!(peach2_driver::handle::HANDLE_BYTES as i64 <= TCA_HANDLE_BYTES);
        let h = c_header();
        assert!(h.contains("#define P2_TCA_SUCCESS (0)\n"), "{h}");
        assert!(h.contains("#define P2_CALL_MPI_RECV (45)\n"), "{h}");
    }
}

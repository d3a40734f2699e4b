//! The DMA controller as software sees it: the descriptor format and the DMA registers.
//! The one place both are written down (the RTL in `peach2-rtl::dmac` follows it).
//!
//! # Descriptor (32 bytes, 8 DWs, little-endian DWs as software writes them)
//!
//! | DW | bits  | field        | meaning                                                        |
//! |----|-------|--------------|----------------------------------------------------------------|
//! | 0  | 31:0  | `src[31:0]`  | source address: a local PCIe address of this node (host or GPU memory) |
//! | 1  | 15:0  | `src[47:32]` |                                                                |
//! | 1  | 31:16 | `dst[47:32]` | destination address: local PCIe address, or TCA global address |
//! | 2  | 31:0  | `dst[31:0]`  |                                                                |
//! | 3  | 30:0  | `length`     | 1-D: bytes to move; 2-D: bytes per block (width)               |
//! | 3  | 31    | `immediate`  | a write-immediate descriptor (below)                           |
//! | 4  | 4:0   | `flags`      | [`flags`]: last, 2-D, notify receiver, notify self, interrupt  |
//! | 4  | 31:5  | `next[31:5]` | next descriptor: its byte offset in descriptor memory (internal chains: index × 32) or its host address (host chains), 32-byte aligned |
//! | 5  | 15:0  | `next[47:32]`| (host chains)                                                  |
//! | 5  | 31:16 | `height`     | 2-D: number of blocks (1..65535)                               |
//! | 6  | 31:0  | `src_pitch`  | 2-D: bytes from one source block to the next                   |
//! | 7  | 31:0  | `dst_pitch`  | 2-D: bytes from one destination block to the next              |
//!
//! Addresses are 48 bits: host physical addresses, GPU BARs and the TCA global space
//! (4 TiB at 2^42) all fit, and 48-bit fields leave room for a 48-bit next pointer and
//! the 2-D fields in 32 bytes, so 1024 descriptors fill the 32 KiB descriptor window.
//! A chain stays where it started: a host chain's next pointers are host addresses, an
//! internal chain's are descriptor-memory offsets. Without the 2-D flag, DW 5 bits 31:16
//! and DWs 6 and 7 are ignored (a 1-D descriptor is one block of `length` bytes).
//!
//! A **write-immediate** descriptor (`immediate` set) reads nothing: it writes the DW held
//! in its `src[31:0]` field to `dst` as one 4-byte write, then its notifications, like a
//! copy of 4 bytes. Its `length` must be 4 and it must not be 2-D
//! ([`ErrorCause::BadImmediate`]); `dst` must be 4-byte aligned. Software uses it for a
//! notification that the channel's registers cannot carry (a second receiver, another
//! slot): it follows its data on the same path, so it arrives after it.
//!
//! Restrictions (as on the real chip): source, destination, length/width and (2-D) both
//! pitches are multiples of 4; source and destination have equal low 4 bits, and so do
//! the pitches (the data keeps its 128-bit lane from read to write); the length/width is
//! 1..=[`MAX_LENGTH`]. A descriptor that breaks one stops its channel with an error cause
//! ([`ErrorCause`]) before anything of it is read or written. Other channels go on.
//!
//! # Notifications
//!
//! After a descriptor's last data write the channel writes, in this order and only for the
//! flags set: notify receiver: the 4-byte value `NOTIFY_VALUE + COUNT` (COUNT including this
//! descriptor; both as they are when the notifications start, so a `NOTIFY_VALUE` written
//! while they go out applies from the next descriptor) to `NOTIFY_RX` (a TCA global address of the receiver's slot, or a local
//! address); notify self: the same value to `NOTIFY_SELF` (a local address); interrupt:
//! `MSI_DATA` to `MSI_ADDR` (the MSI message software took from the OS). The receiver's
//! notification follows the data on the same path, so when the receiver sees it, the data
//! is there (posted writes from one source to one destination are never reordered).
//! The slots are per-channel registers, not descriptor fields: 32-byte descriptors have no
//! room for two more 64-bit addresses; the value carries the descriptor count so the
//! receiver can wait for a given descriptor. A chain that notifies more than one place
//! (several receivers, other slots, other tags) writes the others with write-immediate
//! descriptors, each a descriptor fetch but no read. A slot may be in host memory or in a
//! chip's notification store ([`crate::notify`]; a DMA reaches its own chip's store
//! with a one-DW write to its own `Internal` window).
//!
//! With `DMA_CONFIG`'s [`config::NOTIFY_AT_LAST_READ`] (off at reset) the same writes
//! leave once the descriptor's last read request has left, between its remaining data
//! writes: the receiver may see the notification before the data (at most a read window
//! of it) has landed. The channel still goes on to the next descriptor, and reports done,
//! only after its last data write.
//!
//! # Registers (BAR0)
//!
//! | offset            | name              | access | meaning                                         |
//! |-------------------|-------------------|--------|-------------------------------------------------|
//! | 0x1000            | `DMA_CHAIN_LIMIT` | RW     | descriptors one start may run before [`ErrorCause::ChainLimit`]; reset [`CHAIN_LIMIT_RESET`] |
//! | 0x1004            | `DMA_CPL_TIMEOUT` | RW     | cycles a channel waits for a read completion; reset [`CPL_TIMEOUT_RESET`] |
//! | 0x1008            | `DMA_MSI_ADDR_LO` | RW     | MSI address bits 31:0                           |
//! | 0x100C            | `DMA_MSI_ADDR_HI` | RW     | MSI address bits 63:32                          |
//! | 0x1010            | `DMA_MSI_DATA`    | RW     | MSI data                                        |
//! | 0x1014            | `DMA_CONFIG`      | RW     | [`config`] bits (others read 0); reset [`CONFIG_RESET`] |
//! | 0x1100 + 0x40c    | `CONTROL[c]`      | W      | c = 0..3. Bit 0: start; bit 1: host chain (first descriptor at `DESC`); bits 25:16: first internal descriptor's index. Ignored while the channel is busy. Reads 0 |
//! | 0x1104 + 0x40c    | `STATUS[c]`       | RO     | bits 1:0 [`ChannelState`]; bits 7:4 [`ErrorCause`] |
//! | 0x1108 + 0x40c    | `COUNT[c]`        | RO     | descriptors completed since the last start      |
//! | 0x110C + 0x40c    | `CURRENT_LO[c]`   | RO     | the descriptor in progress (or the failing one): host address, or internal index |
//! | 0x1110 + 0x40c    | `CURRENT_HI[c]`   | RO     | host address bits 63:32                         |
//! | 0x1114 + 0x40c    | `DESC_LO[c]`      | RW     | host chain: address of the first descriptor, bits 31:0 |
//! | 0x1118 + 0x40c    | `DESC_HI[c]`      | RW     | bits 63:32                                      |
//! | 0x111C + 0x40c    | `NOTIFY_RX_LO[c]` | RW     | receiver's notification slot, bits 31:0         |
//! | 0x1120 + 0x40c    | `NOTIFY_RX_HI[c]` | RW     | bits 63:32                                      |
//! | 0x1124 + 0x40c    | `NOTIFY_SELF_LO[c]`| RW    | sender's own notification slot (local), bits 31:0 |
//! | 0x1128 + 0x40c    | `NOTIFY_SELF_HI[c]`| RW    | bits 63:32                                      |
//! | 0x112C + 0x40c    | `NOTIFY_VALUE[c]` | RW     | base of the value written to the slots          |
//! | 0x8000 + 32i      | `DESC[i]`         | W      | i = 0..1023: internal descriptor memory (whole-DW writes; partial writes and reads are ignored / read 0) |
//!
//! The internal descriptor memory is also reachable from other nodes: a write to this
//! node's [`crate::address::Target::Internal`] window at offset `o` < 32 KiB lands at
//! `DESC` byte `o`; offsets from [`crate::notify::INTERNAL_BASE`] reach the notification
//! store ([`crate::notify`]); writes anywhere else in the window are dropped and counted
//! in the ingress port's `DROPS`.

/// DW 3 bit 31: the descriptor is a write-immediate one.
pub const IMMEDIATE: u32 = 1 << 31;
/// Bytes per descriptor.
pub const DESC_BYTES: u32 = 32;
/// Descriptors in internal memory.
pub const DESC_COUNT: u32 = 1024;
/// BAR0 offset of the descriptor memory.
pub const DESC_BASE: u32 = 0x8000;
/// Largest length (1-D) or width (2-D) in bytes.
pub const MAX_LENGTH: u32 = 1 << 24;
/// Number of channels: the one place it is set. The RTL's DMA controller, the BAR0
/// channel registers, the driver and the docs derive from it.
pub const CHANNELS: u32 = 4;
/// Bits of a channel number (`CHANNELS` is a power of two).
pub const CHANNEL_BITS: u32 = CHANNELS.trailing_zeros();
/// Read tags a channel has for data (its outstanding reads, in issue order).
pub const DATA_TAGS_PER_CHANNEL: u32 = 8;

/// The DMA's read tags for `channels` channels: channel c's data reads use tags
/// `8c..8c+7` (in issue order, a ring), its descriptor fetches tag `8·channels + c`.
/// Every tag fits the 8-bit tag field (extended tags) and no two overlap.
pub mod tags {
    use super::DATA_TAGS_PER_CHANNEL;

    /// Tag of channel `c`'s `k`-th data read (k < 8).
    pub const fn data(c: u32, k: u32) -> u32 {
        DATA_TAGS_PER_CHANNEL * c + k
    }
    /// Data tags in all, `0..data_tags(channels)`.
    pub const fn data_tags(channels: u32) -> u32 {
        DATA_TAGS_PER_CHANNEL * channels
    }
    /// Tag of channel `c`'s descriptor fetch.
    pub const fn desc(channels: u32, c: u32) -> u32 {
        data_tags(channels) + c
    }
    /// Completions with a tag below this go to the DMA (the chip's internal port tells
    /// them apart by tag bits 7:6); the DMA's tags must lie below it. Completions with
    /// other tags go to the internal completer, which counts and drops them.
    pub const DMA_RANGE_END: u32 = 64;

    /// Whether a controller of `channels` channels has a valid layout: a power of two
    /// from 2 to 16, so the channel number is a tag's bit field and every tag fits 8 bits.
    pub const fn layout_ok(channels: u32) -> bool {
        channels.is_power_of_two()
            && channels >= 2
            && channels <= 16
            && desc(channels, channels - 1) <= 0xFF
    }
}
// The chip's controller: a valid layout, every tag in the DMA's range.
const _: () =
    assert!(tags::layout_ok(CHANNELS) && tags::desc(CHANNELS, CHANNELS - 1) < tags::DMA_RANGE_END);

/// `DMA_CHAIN_LIMIT` offset.
pub const CHAIN_LIMIT: u32 = 0x1000;
/// Reset value of `DMA_CHAIN_LIMIT`: the size of the internal memory.
pub const CHAIN_LIMIT_RESET: u32 = 1024;
/// `DMA_CPL_TIMEOUT` offset.
pub const CPL_TIMEOUT: u32 = 0x1004;
/// Reset value of `DMA_CPL_TIMEOUT`: 65536 cycles, 262 us at 250 MHz (PCIe allows 50 us .. 50 ms).
pub const CPL_TIMEOUT_RESET: u32 = 65536;
/// `DMA_MSI_ADDR_LO` offset.
pub const MSI_ADDR_LO: u32 = 0x1008;
/// `DMA_MSI_ADDR_HI` offset.
pub const MSI_ADDR_HI: u32 = 0x100C;
/// `DMA_MSI_DATA` offset.
pub const MSI_DATA: u32 = 0x1010;
/// `DMA_CONFIG` offset: how every channel ends a descriptor ([`config`]).
pub const CONFIG: u32 = 0x1014;
/// Reset value of `DMA_CONFIG`: a descriptor's notifications follow its data.
pub const CONFIG_RESET: u32 = 0;

/// `DMA_CONFIG` bits.
pub mod config {
    /// A descriptor's notifications and MSI leave once its last read request has been
    /// taken, ahead of the writes of the data still in flight (at most a read window:
    /// the channel's tags times the read size), instead of after its last write. They
    /// can then reach their slot before the data reaches its destination: a receiver
    /// that sees the notification must not assume the data has landed. The data itself
    /// is unchanged, and the channel is done (and the chain goes on) only after its last
    /// write, as without this bit.
    pub const NOTIFY_AT_LAST_READ: u32 = 1 << 0;
    /// The bits that exist; the others read as 0.
    pub const MASK: u32 = NOTIFY_AT_LAST_READ;
}

/// Offset of channel 0's registers.
pub const CHANNEL_BASE: u32 = 0x1100;
/// Bytes between two channels' registers (each channel has one aligned block).
pub const CHANNEL_STRIDE: u32 = 0x40;
/// Offset of channel register `reg` (one of the `CH_*` offsets) of channel `c`.
pub const fn channel_reg(c: u32, reg: u32) -> u32 {
    CHANNEL_BASE + CHANNEL_STRIDE * c + reg
}
/// Channel register: control (start).
pub const CH_CONTROL: u32 = 0x00;
/// Channel register: status.
pub const CH_STATUS: u32 = 0x04;
/// Channel register: descriptors completed.
pub const CH_COUNT: u32 = 0x08;
/// Channel register: current descriptor, low.
pub const CH_CURRENT_LO: u32 = 0x0C;
/// Channel register: current descriptor, high.
pub const CH_CURRENT_HI: u32 = 0x10;
/// Channel register: first host descriptor, low.
pub const CH_DESC_LO: u32 = 0x14;
/// Channel register: first host descriptor, high.
pub const CH_DESC_HI: u32 = 0x18;
/// Channel register: receiver's notification slot, low.
pub const CH_NOTIFY_RX_LO: u32 = 0x1C;
/// Channel register: receiver's notification slot, high.
pub const CH_NOTIFY_RX_HI: u32 = 0x20;
/// Channel register: own notification slot, low.
pub const CH_NOTIFY_SELF_LO: u32 = 0x24;
/// Channel register: own notification slot, high.
pub const CH_NOTIFY_SELF_HI: u32 = 0x28;
/// Channel register: notification value base.
pub const CH_NOTIFY_VALUE: u32 = 0x2C;

// A 64-bit register's high DW follows its low one: the driver and the simulator access
// the pair as one 64-bit value at `_LO`.
const _: () = assert!(
    CH_CURRENT_HI == CH_CURRENT_LO + 4
        && CH_DESC_HI == CH_DESC_LO + 4
        && CH_NOTIFY_RX_HI == CH_NOTIFY_RX_LO + 4
        && CH_NOTIFY_SELF_HI == CH_NOTIFY_SELF_LO + 4
);

// Every channel register lies in the channel's aligned block.
const _: () =
    assert!(CHANNEL_BASE.is_multiple_of(CHANNEL_STRIDE) && CH_NOTIFY_VALUE < CHANNEL_STRIDE);

/// `CONTROL`: start bit.
pub const CONTROL_START: u32 = 1 << 0;
/// `CONTROL`: the chain is in host memory.
pub const CONTROL_HOST: u32 = 1 << 1;
/// `CONTROL`: lowest bit of the first internal descriptor's index.
pub const CONTROL_INDEX_SHIFT: u32 = 16;

/// BAR0 offset of internal descriptor `i`.
pub const fn desc_offset(i: u32) -> u32 {
    DESC_BASE + DESC_BYTES * i
}

/// Descriptor flag bits (DW 4 bits 4:0).
pub mod flags {
    /// The chain ends after this descriptor.
    pub const LAST: u32 = 1 << 0;
    /// Block-stride (2-D) descriptor: `height` blocks of `length` bytes.
    pub const TWO_D: u32 = 1 << 1;
    /// Write the receiver's notification slot after the data.
    pub const NOTIFY_RX: u32 = 1 << 2;
    /// Write the sender's own notification slot after the data.
    pub const NOTIFY_SELF: u32 = 1 << 3;
    /// Send the MSI after the data (and notifications).
    pub const INTERRUPT: u32 = 1 << 4;
    /// All flag bits.
    pub const MASK: u32 = 0x1F;
}

/// `STATUS` bits 1:0 hold the channel's [`ChannelState`].
pub const STATUS_STATE_MASK: u32 = 0x3;
/// `STATUS` bits 7:4 hold an [`ErrorCause`] code: its lowest bit.
pub const STATUS_CAUSE_SHIFT: u32 = 4;
/// The [`ErrorCause`] field of `STATUS`, in place.
pub const STATUS_CAUSE_MASK: u32 = 0xF << STATUS_CAUSE_SHIFT;

/// Codes `STATUS`'s [`ErrorCause`] field can hold.
pub const CAUSE_CODES: usize = (STATUS_CAUSE_MASK >> STATUS_CAUSE_SHIFT) as usize + 1;

/// The 4-bit [`ErrorCause`] code in a `STATUS` value (a code no cause has is possible
/// only from a broken chip).
pub const fn status_cause(status: u32) -> u32 {
    (status & STATUS_CAUSE_MASK) >> STATUS_CAUSE_SHIFT
}

/// `STATUS` bits 1:0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelState {
    /// Never started (or reset).
    Idle = 0,
    /// Running a chain.
    Busy = 1,
    /// The chain ended with a `LAST` descriptor.
    Done = 2,
    /// Stopped on an error; `STATUS` bits 7:4 say which.
    Error = 3,
}

impl ChannelState {
    /// The state of a `STATUS` value.
    pub fn from_status(status: u32) -> ChannelState {
        [Self::Idle, Self::Busy, Self::Done, Self::Error][(status & STATUS_STATE_MASK) as usize]
    }
}

/// `STATUS` bits 7:4: why a channel stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCause {
    /// No error.
    None = 0,
    /// An address, length, width or pitch is not a multiple of 4 (also a notification slot).
    Misaligned = 1,
    /// Source and destination (or the two pitches) differ in their low 4 bits.
    LowBitsDiffer = 2,
    /// Length (or width, or 2-D height) is zero.
    ZeroLength = 3,
    /// Length or width above [`MAX_LENGTH`].
    Oversized = 4,
    /// `DMA_CHAIN_LIMIT` descriptors ran without a `LAST` one (a looping chain).
    ChainLimit = 5,
    /// A read completion came back with an error status (UR, CA, ...) or malformed.
    CplError = 6,
    /// A read got no completion within `DMA_CPL_TIMEOUT` cycles.
    CplTimeout = 7,
    /// The source is a TCA global address: the DMA reads only its own node's memory.
    SourceNotLocal = 8,
    /// The destination (or the receiver's slot) is a global address the chip cannot route.
    Unroutable = 9,
    /// A write-immediate descriptor whose length is not 4, or that is 2-D.
    BadImmediate = 10,
}

impl ErrorCause {
    /// The cause a `STATUS` value reports ([`status_cause`]).
    pub fn from_status(status: u32) -> Option<ErrorCause> {
        Self::from_code(status_cause(status))
    }

    /// The cause of a 4-bit code.
    pub fn from_code(code: u32) -> Option<ErrorCause> {
        use ErrorCause::*;
        [
            None,
            Misaligned,
            LowBitsDiffer,
            ZeroLength,
            Oversized,
            ChainLimit,
            CplError,
            CplTimeout,
            SourceNotLocal,
            Unroutable,
            BadImmediate,
        ]
        .get(code as usize)
        .copied()
    }
}

/// A descriptor as software builds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Descriptor {
    /// Source address (local).
    pub src: u64,
    /// Destination address (local or global).
    pub dst: u64,
    /// 1-D: bytes; 2-D: bytes per block.
    pub length: u32,
    /// [`flags`] bits.
    pub flags: u32,
    /// Next descriptor (internal byte offset = index × 32, or host address).
    pub next: u64,
    /// 2-D: blocks.
    pub height: u16,
    /// 2-D: source pitch.
    pub src_pitch: u32,
    /// 2-D: destination pitch.
    pub dst_pitch: u32,
    /// A write-immediate descriptor: writes `src as u32` to `dst`.
    pub immediate: bool,
}

impl Descriptor {
    /// The 8 DWs as the chip stores them.
    pub fn to_dws(&self) -> [u32; 8] {
        [
            self.src as u32,
            ((self.src >> 32) as u32 & 0xFFFF) | (((self.dst >> 32) as u32 & 0xFFFF) << 16),
            self.dst as u32,
            (self.length & !IMMEDIATE) | if self.immediate { IMMEDIATE } else { 0 },
            (self.flags & flags::MASK) | (self.next as u32 & !0x1F),
            ((self.next >> 32) as u32 & 0xFFFF) | (u32::from(self.height) << 16),
            self.src_pitch,
            self.dst_pitch,
        ]
    }

    /// The 32 bytes in memory (little-endian DWs).
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for (i, dw) in self.to_dws().iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&dw.to_le_bytes());
        }
        b
    }

    /// The descriptor of 8 DWs.
    pub fn from_dws(d: [u32; 8]) -> Descriptor {
        Descriptor {
            src: u64::from(d[0]) | (u64::from(d[1] & 0xFFFF) << 32),
            dst: u64::from(d[2]) | (u64::from(d[1] >> 16) << 32),
            length: d[3] & !IMMEDIATE,
            immediate: d[3] & IMMEDIATE != 0,
            flags: d[4] & flags::MASK,
            next: u64::from(d[4] & !0x1F) | (u64::from(d[5] & 0xFFFF) << 32),
            height: (d[5] >> 16) as u16,
            src_pitch: d[6],
            dst_pitch: d[7],
        }
    }

    /// A write-immediate descriptor: `value` to `dst`.
    pub fn immediate(dst: u64, value: u32) -> Descriptor {
        Descriptor {
            src: u64::from(value),
            dst,
            length: 4,
            immediate: true,
            ..Default::default()
        }
    }

    /// The blocks this descriptor moves: (source, destination, bytes), in order (none
    /// for a write-immediate descriptor: it reads nothing).
    pub fn blocks(&self) -> Vec<(u64, u64, u32)> {
        if self.immediate {
            return Vec::new();
        }
        if self.flags & flags::TWO_D == 0 {
            return vec![(self.src, self.dst, self.length)];
        }
        (0..u64::from(self.height))
            .map(|r| {
                (
                    self.src + r * u64::from(self.src_pitch),
                    self.dst + r * u64::from(self.dst_pitch),
                    self.length,
                )
            })
            .collect()
    }

    /// The error the chip reports for this descriptor before moving anything, if any
    /// (routing of global destinations aside: that depends on the chip's tables).
    pub fn check(&self) -> Option<ErrorCause> {
        let two_d = self.flags & flags::TWO_D != 0;
        let aligned = |x: u64| x & 3 == 0;
        if self.immediate {
            return if !aligned(self.dst) {
                Some(ErrorCause::Misaligned)
            } else if self.length != 4 || two_d {
                Some(ErrorCause::BadImmediate)
            } else {
                None
            };
        }
        let mut misaligned = !aligned(self.src) || !aligned(self.dst) || self.length & 3 != 0;
        if two_d {
            misaligned |= self.src_pitch & 3 != 0 || self.dst_pitch & 3 != 0;
        }
        if misaligned {
            return Some(ErrorCause::Misaligned);
        }
        if self.src & 15 != self.dst & 15 || (two_d && self.src_pitch & 15 != self.dst_pitch & 15) {
            return Some(ErrorCause::LowBitsDiffer);
        }
        if self.length == 0 || (two_d && self.height == 0) {
            return Some(ErrorCause::ZeroLength);
        }
        if self.length > MAX_LENGTH {
            return Some(ErrorCause::Oversized);
        }
        if self.src >> crate::address::BASE_SHIFT == crate::address::GLOBAL_BASE_HI {
            return Some(ErrorCause::SourceNotLocal);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_round_trips_through_dws() {
        let d = Descriptor {
            src: 0x1234_5678_9AB0,
            dst: 0x0100_2000_0010,
            length: 4096,
            flags: flags::TWO_D | flags::NOTIFY_RX,
            next: 0x7FFF_FFFF_FFE0,
            height: 7,
            src_pitch: 8192,
            dst_pitch: 4112,
            immediate: false,
        };
        assert_eq!(Descriptor::from_dws(d.to_dws()), d);
        assert_eq!(d.blocks().len(), 7);
        assert_eq!(
            d.blocks()[1],
            (0x1234_5678_9AB0 + 8192, 0x0100_2000_0010 + 4112, 4096)
        );
    }

    #[test]
    fn checks_name_the_first_broken_rule() {
        let ok = Descriptor {
            src: 0x1000,
            dst: 0x2000,
            length: 64,
            ..Default::default()
        };
        assert_eq!(ok.check(), None);
        assert_eq!(
            Descriptor { src: 0x1002, ..ok }.check(),
            Some(ErrorCause::Misaligned)
        );
        assert_eq!(
            Descriptor { dst: 0x2004, ..ok }.check(),
            Some(ErrorCause::LowBitsDiffer)
        );
        assert_eq!(
            Descriptor { length: 0, ..ok }.check(),
            Some(ErrorCause::ZeroLength)
        );
        assert_eq!(
            Descriptor {
                length: MAX_LENGTH + 4,
                ..ok
            }
            .check(),
            Some(ErrorCause::Oversized)
        );
        assert_eq!(
            Descriptor {
                src: crate::address::GLOBAL_BASE | 0x1000,
                ..ok
            }
            .check(),
            Some(ErrorCause::SourceNotLocal)
        );
        let imm = Descriptor::immediate(0x0100_2000_0010, 0xABCD);
        assert_eq!(Descriptor::from_dws(imm.to_dws()), imm);
        assert_eq!(imm.check(), None);
        assert!(imm.blocks().is_empty());
        assert_eq!(
            Descriptor { length: 8, ..imm }.check(),
            Some(ErrorCause::BadImmediate)
        );
        assert_eq!(
            Descriptor { dst: 0x1002, ..imm }.check(),
            Some(ErrorCause::Misaligned)
        );
        for code in 0..11 {
            assert_eq!(ErrorCause::from_code(code).map(|c| c as u32), Some(code));
            let status = code << STATUS_CAUSE_SHIFT | ChannelState::Error as u32;
            assert_eq!(
                ErrorCause::from_status(status).map(|c| c as u32),
                Some(code)
            );
            assert_eq!(ChannelState::from_status(status), ChannelState::Error);
        }
        assert_eq!(ErrorCause::from_code(11), None);
        assert_eq!(status_cause(0xFFFF_FFF0), 0xF);
    }

    #[test]
    fn map_fits_bar0() {
        assert_eq!(desc_offset(DESC_COUNT), 0x10000);
        assert!(channel_reg(CHANNELS - 1, CH_NOTIFY_VALUE) < DESC_BASE);
    }
}

//! The config-request and completion header values the link controller builds and
//! checks in RTL (PCIe 3.0 §2.2.7 and §2.2.9), as plain numbers for `Constant` fields.
//!
//! Field positions inside the header DWs are written where they are used (the RTL picks
//! them with `get_bits`); this module holds the codes. Config payloads cross the port as
//! big-endian lanes of address-ordered bytes (the beat format), so register byte k
//! (value bits 8k+7:8k) is lane bits 31-8k:24-8k: a register value and its lane are
//! byte-swapped ([`lane_of`]).

/// fmt: 3-DW header, no data.
pub const FMT_3DW: u64 = 0b000;
/// fmt: 3-DW header with data.
pub const FMT_3DW_DATA: u64 = 0b010;
/// type: type-0 configuration request.
pub const TYPE_CFG0: u64 = 0b0_0100;
/// type: type-1 configuration request.
pub const TYPE_CFG1: u64 = 0b0_0101;
/// type: completion (Cpl / CplD).
pub const TYPE_CPL: u64 = 0b0_1010;
/// Completion status: successful.
pub const STATUS_SC: u64 = 0b000;
/// Completion status: unsupported request.
pub const STATUS_UR: u64 = 0b001;
/// Completion status: configuration request retry.
pub const STATUS_CRS: u64 = 0b010;
/// Byte count of every config completion (§2.2.9: 4 for completions of requests other
/// than memory reads).
pub const CFG_BYTE_COUNT: u64 = 4;

/// Header DW0 of a TC-0, no-attribute TLP.
pub const fn dw0(fmt: u64, typ: u64, length: u64) -> u64 {
    (fmt << 29) | (typ << 24) | (length & 0x3ff)
}

/// DW0 of a CfgRd0.
pub const CFG_RD0_DW0: u64 = dw0(FMT_3DW, TYPE_CFG0, 1);
/// DW0 of a CfgWr0.
pub const CFG_WR0_DW0: u64 = dw0(FMT_3DW_DATA, TYPE_CFG0, 1);
/// DW0 of a Cpl (length is reserved: 0).
pub const CPL_DW0: u64 = dw0(FMT_3DW, TYPE_CPL, 0);
/// DW0 of a one-DW CplD.
pub const CPLD_DW0: u64 = dw0(FMT_3DW_DATA, TYPE_CPL, 1);

/// The payload lane carrying register value `value` (and the value a lane carries).
pub const fn lane_of(value: u32) -> u32 {
    value.swap_bytes()
}

/// Config request DW2 for byte offset `offset` (DW aligned, 0..0xFFF) of bus/dev/fn `bdf`.
pub const fn cfg_dw2(bdf: u16, offset: u16) -> u64 {
    ((bdf as u64) << 16) | ((offset as u64) & 0xffc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_codes_match_the_spec_figures() {
        assert_eq!(CFG_RD0_DW0, 0x0400_0001);
        assert_eq!(CFG_WR0_DW0, 0x4400_0001);
        assert_eq!(CPL_DW0, 0x0A00_0000);
        assert_eq!(CPLD_DW0, 0x4A00_0001);
        assert_eq!(cfg_dw2(0x0100, 0x68), 0x0100_0068);
        assert_eq!(lane_of(0x1122_3344), 0x4433_2211);
    }
}

//! A channel as the host reads it: `STATUS` (the state code in bits 1:0, the error
//! cause at `STATUS_CAUSE_SHIFT`) and `CURRENT` (the descriptor being run: its host
//! address, or its internal index). The codes are `peach2_regmap::dma`'s. Combinational.

use super::chain_walk::ChanState;
use crate::fixed::Fixed;
use peach2_regmap::dma::{ChannelState, STATUS_CAUSE_SHIFT};
use rust_hdl::prelude::*;

/// A `STATUS` state code, as a constant.
type StateCode<const S: u64> = Fixed<S, 32>;

/// The `STATUS` and `CURRENT` registers of one channel.
#[derive(LogicBlock, Default)]
pub struct ChannelStatus {
    /// The channel's state.
    pub state: Signal<In, ChanState>,
    /// Why it stopped (`ErrorCause`), 0 while it has not failed.
    pub cause: Signal<In, Bits<4>>,
    /// The chain is in host memory.
    pub host: Signal<In, Bit>,
    /// The current descriptor: its host address, or its internal index at bits 14:5.
    pub cur: Signal<In, Bits<64>>,
    /// `STATUS`.
    pub status: Signal<Out, Bits<32>>,
    /// `CURRENT`: the host address, or the internal index.
    pub current: Signal<Out, Bits<64>>,
    /// `STATUS` bits 1:0 while the channel runs, is done, has failed.
    busy_state: StateCode<{ ChannelState::Busy as u64 }>,
    /// `STATUS` bits 1:0 once the channel is done.
    done_state: StateCode<{ ChannelState::Done as u64 }>,
    /// `STATUS` bits 1:0 once the channel has failed.
    error_state: StateCode<{ ChannelState::Error as u64 }>,
    /// Where `STATUS` holds the cause.
    cause_shift: Fixed<{ STATUS_CAUSE_SHIFT as u64 }, 32>,
    /// `cause` in its `STATUS` field.
    status_cause: Signal<Local, Bits<32>>,
}

impl Logic for ChannelStatus {
    #[hdl_gen]
    fn update(&mut self) {
        self.status_cause.next = bit_cast::<32, 4>(self.cause.val()) << self.cause_shift.val();
        self.status.next = self.status_cause.val();
        if self.state.val() == ChanState::Done {
            self.status.next = self.status_cause.val() | self.done_state.val();
        } else if self.state.val() == ChanState::Error {
            self.status.next = self.status_cause.val() | self.error_state.val();
        } else if self.state.val() != ChanState::Idle {
            self.status.next = self.status_cause.val() | self.busy_state.val();
        }
        self.current.next = self.cur.val();
        if !self.host.val() {
            self.current.next = bit_cast::<64, 10>(self.cur.val().get_bits::<10>(5));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Every state with random causes and descriptors, against the register map.
    #[test]
    fn registers_read_as_the_register_map_says() {
        let mut uut = ChannelStatus::default();
        uut.connect_all();
        let mut rng = Lcg(0x57A7);
        for _ in 0..2_000 {
            let state = ChanState::ALL[rng.below(ChanState::ALL.len() as u64) as usize];
            let (cause, host, cur) = (rng.below(16), rng.chance(0.5), rng.next_u64());
            uut.state.next = state;
            uut.cause.next = cause.into();
            uut.host.next = host;
            uut.cur.next = cur.into();
            assert!(simulate(&mut uut, 100), "settles");
            let code = match state {
                ChanState::Idle => ChannelState::Idle,
                ChanState::Done => ChannelState::Done,
                ChanState::Error => ChannelState::Error,
                _ => ChannelState::Busy,
            } as u64;
            let status = code | cause << STATUS_CAUSE_SHIFT;
            assert_eq!(
                uut.status.val().to_u64(),
                status,
                "{state:?}, cause {cause}"
            );
            let current = if host { cur } else { cur >> 5 & 0x3FF };
            assert_eq!(uut.current.val().to_u64(), current, "{state:?}, {cur:#x}");
        }
    }

    #[test]
    fn channel_status_lint_clean() {
        let mut uut = ChannelStatus::default();
        lint_verilog(
            &block_verilog(&mut uut, "dma_channel_status"),
            "dma_channel_status",
        )
        .unwrap();
    }
}

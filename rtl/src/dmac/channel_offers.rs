//! What a channel asks for in each state, and whose request each grant answers.
//!
//! - `FetchInt`: the internal descriptor memory's read of `cur`'s index.
//! - `FetchHost`: an 8-DW read of the host descriptor at `cur`, with the channel's
//!   descriptor tag.
//! - `Run`: the data cursors' read (with the channel's next data tag) and write; an
//!   ending write on offer (`NOTIFY_AT_LAST_READ`) goes before the data's next write.
//! - `Immediate`: the write-immediate descriptor's one DW.
//! - `EndWrites`: the ending writes, one DW each.
//!
//! The grants go back to the data cursors and the ending writes: a write grant in `Run`
//! belongs to the ending write if one is on offer.

use super::chain_walk::ChanState;
use super::offers::{DataOfferSink, EndOfferSink};
use super::requests::{ReadReqSource, WriteReqSource};
use rust_hdl::prelude::*;

/// A channel's requests.
#[derive(LogicBlock, Default)]
pub struct ChannelOffers {
    /// Where the channel is in its chain.
    pub state: Signal<In, ChanState>,
    /// The current descriptor: its host address, or its internal index at bits 14:5.
    pub cur: Signal<In, Bits<64>>,
    /// This channel's descriptor-fetch tag.
    pub desc_tag: Signal<In, Bits<8>>,
    /// This channel's first data tag, `8c`.
    pub data_tag_base: Signal<In, Bits<8>>,
    /// Tag index of the next data read.
    pub issue_idx: Signal<In, Bits<3>>,
    /// Upstream: the data cursors' read and write.
    pub data: DataOfferSink,
    /// Crossbar destination of the descriptor's writes.
    pub data_wr_dest: Signal<In, Bits<3>>,
    /// Upstream: the ending write on offer.
    pub end: EndOfferSink,
    /// A write-immediate descriptor's address (its `dst`).
    pub imm_addr: Signal<In, Bits<64>>,
    /// Its value (`src[31:0]`).
    pub imm_value: Signal<In, Bits<32>>,
    /// Pulse: the channel stops (see [`WriteReqSource::cancel`]).
    pub stopping: Signal<In, Bit>,
    /// Downstream: to the read requester.
    pub rd: ReadReqSource,
    /// Downstream: to the write generator.
    pub wr: WriteReqSource,
    /// The internal descriptor read is wanted.
    pub desc_ram_req: Signal<Out, Bit>,
    /// Its index.
    pub desc_ram_index: Signal<Out, Bits<10>>,
    /// An ending write is offered during `Run`, before the data's next write.
    end_first: Signal<Local, Bit>,
}

impl Logic for ChannelOffers {
    #[hdl_gen]
    fn update(&mut self) {
        self.end_first.next = (self.state.val() == ChanState::Run) && self.end.valid.val();

        // Defaults: the data's read and write, nothing wanted.
        self.desc_ram_req.next = false;
        self.desc_ram_index.next = self.cur.val().get_bits::<10>(5);
        self.rd.valid.next = false;
        self.rd.addr.next = self.data.rd_addr.val();
        self.rd.len_dw.next = self.data.rd_n.val();
        self.rd.tag.next = self.data_tag_base.val() | bit_cast::<8, 3>(self.issue_idx.val());
        self.rd.end.next = self.data.rd_end.val();
        self.wr.valid.next = false;
        self.wr.imm.next = false;
        self.wr.addr.next = self.data.wr_addr.val();
        self.wr.len_dw.next = self.data.wr_n.val();
        self.wr.pos.next = self.data.wr_pos.val();
        self.wr.dest.next = self.data_wr_dest.val();
        self.wr.value.next = self.end.value.val();
        self.wr.cancel.next = self.stopping.val();

        match self.state.val() {
            ChanState::FetchInt => {
                self.desc_ram_req.next = true;
            }
            ChanState::FetchHost => {
                self.rd.valid.next = true;
                self.rd.addr.next = self.cur.val();
                self.rd.len_dw.next = 8.into();
                self.rd.tag.next = self.desc_tag.val();
                self.rd.end.next = 8.into();
            }
            ChanState::Run => {
                self.rd.valid.next = self.data.rd_want.val();
                self.wr.valid.next = self.data.wr_want.val();
                if self.end_first.val() {
                    self.wr.valid.next = true;
                    self.wr.imm.next = true;
                    self.wr.addr.next = self.end.addr.val();
                    self.wr.len_dw.next = 1.into();
                    self.wr.dest.next = self.end.dest.val();
                }
            }
            ChanState::Immediate => {
                self.wr.valid.next = true;
                self.wr.imm.next = true;
                self.wr.addr.next = self.imm_addr.val();
                self.wr.len_dw.next = 1.into();
                self.wr.value.next = self.imm_value.val();
            }
            ChanState::EndWrites => {
                self.wr.valid.next = self.end.valid.val();
                self.wr.imm.next = true;
                self.wr.addr.next = self.end.addr.val();
                self.wr.len_dw.next = 1.into();
                self.wr.dest.next = self.end.dest.val();
            }
            _ => {}
        }

        self.data.rd_grant.next = self.rd.grant.val();
        self.data.wr_grant.next = self.wr.grant.val() && !self.end_first.val();
        self.data.wr_done.next = self.wr.done.val();
        self.end.grant.next = self.wr.grant.val()
            && ((self.state.val() == ChanState::EndWrites) || self.end_first.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Lcg;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// A read request as (valid, addr, len_dw, tag, end).
    type Read = (bool, u64, u64, u64, u64);
    /// A write request as (valid, imm, addr, len_dw, pos, dest, value).
    type Write = (bool, bool, u64, u64, u64, u64, u64);

    /// Random inputs in every state, against the state table in the module doc.
    #[test]
    fn each_state_offers_its_request_and_routes_its_grants() {
        let mut uut = ChannelOffers::default();
        uut.connect_all();
        let mut rng = Lcg(0x0FFE);
        let mut seen_end_first = 0;
        for round in 0..4_000 {
            let state = ChanState::ALL[rng.below(ChanState::ALL.len() as u64) as usize];
            let cur = rng.next_u64();
            let (desc_tag, base, idx) = (rng.below(256), 8 * rng.below(4), rng.below(8));
            let data_rd = (
                rng.chance(0.5),
                rng.next_u64(),
                1 + rng.below(128),
                rng.below(1 << 16),
            );
            let data_wr = (
                rng.chance(0.5),
                rng.next_u64(),
                1 + rng.below(64),
                rng.below(1 << 16),
                rng.below(8),
            );
            let end = (
                rng.chance(0.5),
                rng.next_u64(),
                rng.below(8),
                rng.below(1 << 32),
            );
            let imm = (rng.next_u64(), rng.below(1 << 32));
            let (rd_grant, wr_grant, wr_done) = (rng.chance(0.5), rng.chance(0.5), rng.chance(0.5));

            uut.state.next = state;
            uut.cur.next = cur.into();
            uut.desc_tag.next = desc_tag.into();
            uut.data_tag_base.next = base.into();
            uut.issue_idx.next = idx.into();
            uut.data.rd_want.next = data_rd.0;
            uut.data.rd_addr.next = data_rd.1.into();
            uut.data.rd_n.next = data_rd.2.into();
            uut.data.rd_end.next = data_rd.3.into();
            uut.data.wr_want.next = data_wr.0;
            uut.data.wr_addr.next = data_wr.1.into();
            uut.data.wr_n.next = data_wr.2.into();
            uut.data.wr_pos.next = data_wr.3.into();
            uut.data_wr_dest.next = data_wr.4.into();
            uut.end.valid.next = end.0;
            uut.end.addr.next = end.1.into();
            uut.end.dest.next = end.2.into();
            uut.end.value.next = end.3.into();
            uut.imm_addr.next = imm.0.into();
            uut.imm_value.next = imm.1.into();
            uut.rd.grant.next = rd_grant;
            uut.wr.grant.next = wr_grant;
            uut.wr.done.next = wr_done;
            assert!(simulate(&mut uut, 100), "settles");

            let data_read =
                |valid| -> Read { (valid, data_rd.1, data_rd.2, base | idx, data_rd.3) };
            let data_write = |valid| -> Write {
                (
                    valid, false, data_wr.1, data_wr.2, data_wr.3, data_wr.4, end.3,
                )
            };
            let end_write: Write = (end.0, true, end.1, 1, data_wr.3, end.2, end.3);
            let end_first = state == ChanState::Run && end.0;
            seen_end_first += usize::from(end_first);
            let (read, write) = match state {
                ChanState::FetchHost => ((true, cur, 8, desc_tag, 8), data_write(false)),
                ChanState::Run if end_first => (data_read(data_rd.0), end_write),
                ChanState::Run => (data_read(data_rd.0), data_write(data_wr.0)),
                ChanState::Immediate => (
                    data_read(false),
                    (true, true, imm.0, 1, data_wr.3, data_wr.4, imm.1),
                ),
                ChanState::EndWrites => (data_read(false), end_write),
                _ => (data_read(false), data_write(false)),
            };
            let r = &uut.rd;
            let got_read: Read = (
                r.valid.val(),
                r.addr.val().to_u64(),
                r.len_dw.val().to_u64(),
                r.tag.val().to_u64(),
                r.end.val().to_u64(),
            );
            assert_eq!(got_read, read, "round {round}: {state:?}'s read");
            let w = &uut.wr;
            let got_write: Write = (
                w.valid.val(),
                w.imm.val(),
                w.addr.val().to_u64(),
                w.len_dw.val().to_u64(),
                w.pos.val().to_u64(),
                w.dest.val().to_u64(),
                w.value.val().to_u64(),
            );
            assert_eq!(got_write, write, "round {round}: {state:?}'s write");
            assert_eq!(uut.desc_ram_req.val(), state == ChanState::FetchInt);
            assert_eq!(uut.desc_ram_index.val().to_u64(), cur >> 5 & 0x3FF);
            let grants = (
                uut.data.rd_grant.val(),
                uut.data.wr_grant.val(),
                uut.data.wr_done.val(),
                uut.end.grant.val(),
            );
            let to_end = wr_grant && (state == ChanState::EndWrites || end_first);
            assert_eq!(
                grants,
                (rd_grant, wr_grant && !end_first, wr_done, to_end),
                "round {round}: {state:?}'s grants"
            );
        }
        assert!(
            seen_end_first > 100,
            "{seen_end_first} ending writes in Run"
        );
    }

    #[test]
    fn channel_offers_lint_clean() {
        let mut uut = ChannelOffers::default();
        lint_verilog(
            &block_verilog(&mut uut, "dma_channel_offers"),
            "dma_channel_offers",
        )
        .unwrap();
    }
}

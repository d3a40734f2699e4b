//! Verilator lint (`-Wall`, project waivers) of every DMA block on its own (with the
//! chip's channel count), of the internal port mux and of the DMA register file, so a lint
//! problem names its block.

use super::{CHANNELS as C, CHANNEL_BITS as CB};
use crate::verilog::checks::lint_verilog;
use crate::verilog::export::block_verilog;
use rust_hdl::prelude::Block;

fn lint(uut: &mut impl Block, name: &str) {
    let v = block_verilog(uut, name);
    lint_verilog(&v, name).unwrap();
}

#[test]
fn dmac_channel_lint_clean() {
    lint(&mut super::channel::DmaChannel::default(), "dma_channel");
}

#[test]
fn dmac_datapath_blocks_lint_clean() {
    lint(
        &mut super::cpl_reassembly::CplReassembly::<C, CB>::new(),
        "dma_cpl_reassembly",
    );
    lint(
        &mut super::cpl_header::CplHeader::<C, CB>::new(),
        "dma_cpl_header",
    );
    lint(
        &mut super::cpl_intake::CplIntake::<C, CB>::new(),
        "dma_cpl_intake",
    );
    lint(
        &mut super::cpl_lanes::CplLanes::<C, CB>::new(),
        "dma_cpl_lanes",
    );
    lint(
        &mut super::tag_class::TagClass::<C, CB>::new(),
        "dma_tag_class",
    );
    lint(
        &mut super::ring_rows::RingRows::<C, CB>::new(),
        "dma_ring_rows",
    );
    lint(&mut super::cursor::Cursor::default(), "dma_cursor");
    lint(
        &mut super::data_cursors::DataCursors::default(),
        "dma_data_cursors",
    );
    lint(&mut super::desc_regs::DescRegs::default(), "dma_desc_regs");
    lint(
        &mut super::desc_check::DescCheck::default(),
        "dma_desc_check",
    );
    lint(&mut super::desc_ram::DescRam::<C>::new(), "dma_desc_ram");
    lint(
        &mut super::dest_route::DestRoute::default(),
        "dma_dest_route",
    );
    lint(
        &mut super::read_req::ReadReq::<C, CB>::new(),
        "dma_read_req",
    );
    lint(&mut super::tag_table::TagTable::<C>::new(), "dma_tag_table");
    lint(
        &mut super::desc_fetches::DescFetches::<C, CB>::new(),
        "dma_desc_fetches",
    );
    lint(
        &mut super::pending_count::PendingCount::<8>::default(),
        "dma_pending_count",
    );
    lint(
        &mut super::round_robin::RoundRobin::<C, CB>::new(),
        "dma_round_robin",
    );
    lint(
        &mut super::write_gen::WriteGen::<C, CB>::new(),
        "dma_write_gen",
    );
    lint(
        &mut super::write_beat::WriteBeat::<C, CB>::new(),
        "dma_write_beat",
    );
    lint(
        &mut super::mwr_header::MwrHeader::default(),
        "dma_mwr_header",
    );
}

#[test]
fn dmac_top_lint_clean() {
    lint(&mut super::ChipDmac::new(), "dmac");
}

#[test]
fn internal_mux_and_dma_regs_lint_clean() {
    lint(
        &mut crate::internal::mux::InternalMux::default(),
        "internal_mux",
    );
    lint(&mut crate::csr::dma_regs::DmaRegs::default(), "dma_regs");
    lint(
        &mut crate::csr::dma_channel_regs::DmaChannelRegs::default(),
        "dma_channel_regs",
    );
}

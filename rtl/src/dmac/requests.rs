//! What a channel asks of the read requester and the write generator: one request each,
//! held (`valid`) until the requester answers it with a one-cycle `grant`. A write
//! request falls without a grant only in a cycle its channel stops (`cancel`): the write
//! generator arbitrates on the requests of the cycle before.

use rust_hdl::prelude::*;

/// A channel's side of its read requests (an MRd: a data read or a descriptor fetch).
#[derive(LogicInterface, Default)]
#[join = "ReadReqSink"]
pub struct ReadReqSource {
    /// A read is wanted.
    pub valid: Signal<Out, Bit>,
    /// DW-aligned address.
    pub addr: Signal<Out, Bits<64>>,
    /// Length in DWs (1..=128).
    pub len_dw: Signal<Out, Bits<8>>,
    /// Tag.
    pub tag: Signal<Out, Bits<8>>,
    /// Ring position one past its last DW (the completions' payload ends there).
    pub end: Signal<Out, Bits<16>>,
    /// Pulse: the read was taken.
    pub grant: Signal<In, Bit>,
}

/// The read requester's side of one channel's reads; the mirror of [`ReadReqSource`].
#[derive(LogicInterface, Default)]
#[join = "ReadReqSource"]
pub struct ReadReqSink {
    /// See [`ReadReqSource::valid`].
    pub valid: Signal<In, Bit>,
    /// See [`ReadReqSource::addr`].
    pub addr: Signal<In, Bits<64>>,
    /// See [`ReadReqSource::len_dw`].
    pub len_dw: Signal<In, Bits<8>>,
    /// See [`ReadReqSource::tag`].
    pub tag: Signal<In, Bits<8>>,
    /// See [`ReadReqSource::end`].
    pub end: Signal<In, Bits<16>>,
    /// See [`ReadReqSource::grant`].
    pub grant: Signal<Out, Bit>,
}

/// A channel's side of its write requests (an MWr of reorder-buffer data, or of one DW
/// of its own: a notification, an MSI, a write-immediate descriptor).
#[derive(LogicInterface, Default)]
#[join = "WriteReqSink"]
pub struct WriteReqSource {
    /// A write is wanted.
    pub valid: Signal<Out, Bit>,
    /// The write carries `value` (1 DW), not reorder-buffer data.
    pub imm: Signal<Out, Bit>,
    /// DW-aligned address.
    pub addr: Signal<Out, Bits<64>>,
    /// Payload DWs (1..=64).
    pub len_dw: Signal<Out, Bits<7>>,
    /// Ring position of the first payload DW.
    pub pos: Signal<Out, Bits<16>>,
    /// Crossbar destination.
    pub dest: Signal<Out, Bits<3>>,
    /// The value of a one-DW write (register order: byte 0 in bits 7:0).
    pub value: Signal<Out, Bits<32>>,
    /// Pulse: the channel stops, in the cycle of a failed completion or the cycle after
    /// the completion timeout. The one case `valid` falls without a grant; no write is
    /// granted in it. Made from registers, so the generator honours it without waiting
    /// for `valid`.
    pub cancel: Signal<Out, Bit>,
    /// Pulse: the write was taken.
    pub grant: Signal<In, Bit>,
    /// Pulse: a write of this channel has been read out (its last beat issued).
    pub done: Signal<In, Bit>,
}

/// The write generator's side of one channel's writes; the mirror of
/// [`WriteReqSource`].
#[derive(LogicInterface, Default)]
#[join = "WriteReqSource"]
pub struct WriteReqSink {
    /// See [`WriteReqSource::valid`].
    pub valid: Signal<In, Bit>,
    /// See [`WriteReqSource::imm`].
    pub imm: Signal<In, Bit>,
    /// See [`WriteReqSource::addr`].
    pub addr: Signal<In, Bits<64>>,
    /// See [`WriteReqSource::len_dw`].
    pub len_dw: Signal<In, Bits<7>>,
    /// See [`WriteReqSource::pos`].
    pub pos: Signal<In, Bits<16>>,
    /// See [`WriteReqSource::dest`].
    pub dest: Signal<In, Bits<3>>,
    /// See [`WriteReqSource::value`].
    pub value: Signal<In, Bits<32>>,
    /// See [`WriteReqSource::cancel`].
    pub cancel: Signal<In, Bit>,
    /// See [`WriteReqSource::grant`].
    pub grant: Signal<Out, Bit>,
    /// See [`WriteReqSource::done`].
    pub done: Signal<Out, Bit>,
}

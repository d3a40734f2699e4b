//! Inside a channel: what its data cursors and its ending writes offer, and the grants
//! that answer them. [`super::channel_offers::ChannelOffers`] turns the offers into the
//! channel's one read and one write request, by state.

use rust_hdl::prelude::*;

/// The data cursors' side: the descriptor's next read and next write.
#[derive(LogicInterface, Default)]
#[join = "DataOfferSink"]
pub struct DataOffer {
    /// A read can go: a block is left, a tag is free and the ring has room.
    pub rd_want: Signal<Out, Bit>,
    /// The read's address.
    pub rd_addr: Signal<Out, Bits<64>>,
    /// Its length in DWs.
    pub rd_n: Signal<Out, Bits<8>>,
    /// Ring position one past its last DW (its first is `rd_end - rd_n`).
    pub rd_end: Signal<Out, Bits<16>>,
    /// A write can go: a block is left and its data is in the buffer.
    pub wr_want: Signal<Out, Bit>,
    /// The write's address.
    pub wr_addr: Signal<Out, Bits<64>>,
    /// Its length in DWs (at most 64).
    pub wr_n: Signal<Out, Bits<7>>,
    /// Ring position of its first DW.
    pub wr_pos: Signal<Out, Bits<16>>,
    /// Pulse: the offered read was taken (the cursors step only in `Run`).
    pub rd_grant: Signal<In, Bit>,
    /// Pulse: the offered write was taken (the cursors step only in `Run`).
    pub wr_grant: Signal<In, Bit>,
    /// Pulse: a write of the channel's has been read out of the reorder buffer (its ring
    /// space is free; a write grant comes with or after an ending write's).
    pub wr_done: Signal<In, Bit>,
}

/// [`ChannelOffers`](super::channel_offers::ChannelOffers)' side of [`DataOffer`].
#[derive(LogicInterface, Default)]
#[join = "DataOffer"]
pub struct DataOfferSink {
    /// See [`DataOffer::rd_want`].
    pub rd_want: Signal<In, Bit>,
    /// See [`DataOffer::rd_addr`].
    pub rd_addr: Signal<In, Bits<64>>,
    /// See [`DataOffer::rd_n`].
    pub rd_n: Signal<In, Bits<8>>,
    /// See [`DataOffer::rd_end`].
    pub rd_end: Signal<In, Bits<16>>,
    /// See [`DataOffer::wr_want`].
    pub wr_want: Signal<In, Bit>,
    /// See [`DataOffer::wr_addr`].
    pub wr_addr: Signal<In, Bits<64>>,
    /// See [`DataOffer::wr_n`].
    pub wr_n: Signal<In, Bits<7>>,
    /// See [`DataOffer::wr_pos`].
    pub wr_pos: Signal<In, Bits<16>>,
    /// See [`DataOffer::rd_grant`].
    pub rd_grant: Signal<Out, Bit>,
    /// See [`DataOffer::wr_grant`].
    pub wr_grant: Signal<Out, Bit>,
    /// See [`DataOffer::wr_done`].
    pub wr_done: Signal<Out, Bit>,
}

/// The ending writes' side: one DW write (a notification or the MSI) at a time.
#[derive(LogicInterface, Default)]
#[join = "EndOfferSink"]
pub struct EndOffer {
    /// A write is on offer.
    pub valid: Signal<Out, Bit>,
    /// Its address.
    pub addr: Signal<Out, Bits<64>>,
    /// Its crossbar destination.
    pub dest: Signal<Out, Bits<3>>,
    /// Its value.
    pub value: Signal<Out, Bits<32>>,
    /// Pulse: the write on offer was taken.
    pub grant: Signal<In, Bit>,
}

/// [`ChannelOffers`](super::channel_offers::ChannelOffers)' side of [`EndOffer`].
#[derive(LogicInterface, Default)]
#[join = "EndOffer"]
pub struct EndOfferSink {
    /// See [`EndOffer::valid`].
    pub valid: Signal<In, Bit>,
    /// See [`EndOffer::addr`].
    pub addr: Signal<In, Bits<64>>,
    /// See [`EndOffer::dest`].
    pub dest: Signal<In, Bits<3>>,
    /// See [`EndOffer::value`].
    pub value: Signal<In, Bits<32>>,
    /// See [`EndOffer::grant`].
    pub grant: Signal<Out, Bit>,
}

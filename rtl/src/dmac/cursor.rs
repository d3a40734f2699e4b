//! One step of a channel's read or write cursor: the size of the next TLP (at most `max`
//! DWs, cut at a `max`-DW boundary of the address, and at the end of the block) and where
//! the next block starts (its address, and its ring position: a fresh 16-byte line at the
//! lane of the block's address). Combinational; the channel holds the cursor registers.

use rust_hdl::prelude::*;

/// The cursor arithmetic.
#[derive(LogicBlock, Default)]
pub struct CursorStep {
    /// The cursor's address.
    pub addr: Signal<In, Bits<64>>,
    /// Bytes left in the block.
    pub left: Signal<In, Bits<25>>,
    /// Ring position of the cursor.
    pub pos: Signal<In, Bits<16>>,
    /// Start address of the current block.
    pub row: Signal<In, Bits<64>>,
    /// Bytes from one block to the next.
    pub pitch: Signal<In, Bits<32>>,
    /// Largest TLP in DWs (a power of two, at most 128).
    pub max: Signal<In, Bits<8>>,
    /// DWs of the next TLP.
    pub n: Signal<Out, Bits<8>>,
    /// Start address of the next block.
    pub next_row: Signal<Out, Bits<64>>,
    /// Ring position of the next block's first DW.
    pub next_pos: Signal<Out, Bits<16>>,
    room: Signal<Local, Bits<8>>,
}

impl Logic for CursorStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.room.next = self.max.val() - (self.addr.val().get_bits::<8>(2) & (self.max.val() - 1));
        self.n.next = self.room.val();
        if self.left.val().get_bits::<23>(2) < bit_cast::<23, 8>(self.room.val()) {
            self.n.next = self.left.val().get_bits::<8>(2);
        }
        self.next_row.next = self.row.val() + bit_cast::<64, 32>(self.pitch.val());
        self.next_pos.next = ((self.pos.val() + bit_cast::<16, 8>(self.n.val()) + 3) & 0xFFFC)
            | bit_cast::<16, 2>(self.next_row.val().get_bits::<2>(2));
    }
}

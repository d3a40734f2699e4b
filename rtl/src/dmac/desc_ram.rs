//! The internal descriptor memory: 1024 descriptors of 8 DWs in eight 1024 x 32 block RAMs
//! (bank k holds DW k of every descriptor), so a whole descriptor is read in one cycle.
//!
//! Written DW by DW from BAR0 (`DESC[i]`, `peach2_regmap::dma`); only whole-DW writes
//! are applied (block RAM has no byte enables here). A write reaches its bank a cycle
//! after the CSR bus carries it, from registers, so the completer's write decode is not
//! in one cycle with the banks' write enables. A chain's first descriptor is read two
//! cycles or more after the `CONTROL` write (another request) that starts it, so it is
//! never read stale; a running chain that reaches a descriptor the host is rewriting
//! races the host with or without the delay. Read by the `C` channels: one
//! request per cycle, lowest channel first (a channel reads once per descriptor, so no
//! channel can starve another); the descriptor appears on `desc` one cycle after the grant,
//! with `desc_valid` set for the granted channel.

use crate::csr::bus::CsrTarget;
use peach2_regmap::dma::{DESC_BASE, DESC_BYTES, DESC_COUNT};
use rust_hdl::prelude::*;

// The decode below: the window is DW indices 0x2000..0x3FFF of BAR0 (bit 13 set), eight DWs
// per descriptor (index in DW bits 12:3), 1024 descriptors (10 index bits).
const _: () = assert!(DESC_BASE / 4 == 1 << 13 && DESC_BYTES == 32 && DESC_COUNT == 1 << 10);

/// The descriptor memory, read by `C` channels.
#[derive(LogicBlock)]
pub struct DescRam<const C: usize> {
    /// Core clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (the memory keeps its contents).
    pub reset: Signal<In, Bit>,
    /// BAR0 accesses: writes of the descriptor window (DW 0x2000..0x3FFF); reads are
    /// answered with 0.
    pub csr: CsrTarget,
    /// Per channel: a descriptor read is wanted.
    pub req: Signal<In, Bits<C>>,
    /// Per channel: the descriptor index wanted.
    pub req_index: [Signal<In, Bits<10>>; C],
    /// Per channel: the descriptor on `desc` is this channel's (one cycle after its request).
    pub desc_valid: Signal<Out, Bits<C>>,
    /// The descriptor read, DW k in bits 32k+31..32k.
    pub desc: Signal<Out, Bits<256>>,
    /// The eight block RAMs: bank k holds DW k of every descriptor.
    banks: [RAM<Bits<32>, 10>; 8],
    /// The channel granted last cycle: its descriptor is on `desc`.
    granted: DFF<Bits<C>>,
    /// The channel granted now.
    grant: Signal<Local, Bits<C>>,
    /// Per bank: the CSR bus's write of the cycle before is a whole DW of it.
    wr_bank_q: DFF<Bits<8>>,
    /// Per bank: the CSR bus's write now is a whole DW of it.
    wr_bank: Signal<Local, Bits<8>>,
    /// That write's descriptor index.
    wr_index_q: DFF<Bits<10>>,
    /// That write's value.
    wr_data_q: DFF<Bits<32>>,
    /// The index read now.
    rd_index: Signal<Local, Bits<10>>,
}

impl<const C: usize> DescRam<C> {
    /// The memory (contents cleared in simulation, undefined in hardware until written).
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csr: Default::default(),
            req: Default::default(),
            req_index: array_init::array_init(|_| Default::default()),
            desc_valid: Default::default(),
            desc: Default::default(),
            banks: Default::default(),
            granted: Default::default(),
            grant: Default::default(),
            wr_bank_q: Default::default(),
            wr_bank: Default::default(),
            wr_index_q: Default::default(),
            wr_data_q: Default::default(),
            rd_index: Default::default(),
        }
    }
}

impl<const C: usize> Default for DescRam<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize> Logic for DescRam<C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, granted, wr_bank_q, wr_index_q, wr_data_q);
        // The lowest requesting channel: the first bit set.
        self.grant.next = 0.into();
        self.rd_index.next = self.req_index[0].val();
        for c in 0..C {
            if self.req.val().get_bit(c) && (self.grant.val() == 0) {
                self.grant.next = self.grant.val().replace_bit(c, true);
                self.rd_index.next = self.req_index[c].val();
            }
        }
        self.granted.d.next = self.grant.val();
        self.desc_valid.next = self.granted.q.val();
        self.wr_index_q.d.next = self.csr.wr_addr.val().get_bits::<10>(3);
        self.wr_data_q.d.next = self.csr.wr_data.val();
        self.wr_bank.next = 0.into();
        for k in 0..8 {
            self.wr_bank.next = self.wr_bank.val().replace_bit(
                k,
                self.csr.wr_en.val()
                    && self.csr.wr_addr.val().get_bit(13)
                    && (self.csr.wr_be.val() == 0xF)
                    && (self.csr.wr_addr.val().get_bits::<3>(0).index() == k),
            );
            self.banks[k].read_clock.next = self.clock.val();
            self.banks[k].write_clock.next = self.clock.val();
            self.banks[k].read_address.next = self.rd_index.val();
            self.banks[k].write_address.next = self.wr_index_q.q.val();
            self.banks[k].write_data.next = self.wr_data_q.q.val();
            self.banks[k].write_enable.next = self.wr_bank_q.q.val().get_bit(k);
        }
        self.wr_bank_q.d.next = self.wr_bank.val();
        self.csr.rd_data.next = 0.into();
        self.desc.next = bit_cast::<256, 32>(self.banks[0].read_data.val())
            | (bit_cast::<256, 32>(self.banks[1].read_data.val()) << 32)
            | (bit_cast::<256, 32>(self.banks[2].read_data.val()) << 64)
            | (bit_cast::<256, 32>(self.banks[3].read_data.val()) << 96)
            | (bit_cast::<256, 32>(self.banks[4].read_data.val()) << 128)
            | (bit_cast::<256, 32>(self.banks[5].read_data.val()) << 160)
            | (bit_cast::<256, 32>(self.banks[6].read_data.val()) << 192)
            | (bit_cast::<256, 32>(self.banks[7].read_data.val()) << 224);
        if self.reset.val() {
            self.granted.d.next = 0.into();
            self.wr_bank_q.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Lcg, Stepper};

    const C: usize = 4;
    /// Descriptors the test uses: few, so reads meet recent writes.
    const USED: u64 = 16;

    /// Random CSR writes (whole DWs and partial ones, in and out of the window) and random
    /// channel reads: each read is granted to the lowest requesting channel and answered
    /// the cycle after with `desc_valid` for it, carrying what the memory held. A whole
    /// DW written to the window is in it for a read requested two cycles on; partial
    /// writes and writes outside the window change nothing; reads of the bus answer 0.
    #[test]
    fn writes_land_and_reads_go_to_the_lowest_channel() {
        let mut s = Stepper::new(DescRam::<C>::new(), |u| &mut u.clock);
        s.uut.reset.next = true;
        s.tick();
        s.uut.reset.next = false;
        let mut rng = Lcg(0xDE5C);
        let mut mem = vec![[0u32; 8]; USED as usize];
        // The write of the cycle before, applied at the end of this one.
        let mut landing: Option<(usize, usize, u32)> = None;
        // The read granted the cycle before: (channel, descriptor).
        let mut answer: Option<(usize, [u32; 8])> = None;
        let (mut reads, mut writes) = (0, 0);
        for cycle in 0..20_000 {
            let wr = rng.chance(0.5);
            let index = rng.below(USED);
            let dw = rng.below(8);
            let in_window = !rng.chance(0.1);
            let be = if rng.chance(0.8) { 0xF } else { rng.below(15) };
            let value = rng.next_u64() as u32;
            let req: Vec<bool> = (0..C).map(|_| rng.chance(0.2)).collect();
            let req_index: Vec<u64> = (0..C).map(|_| rng.below(USED)).collect();
            let u = &mut s.uut;
            u.csr.wr_en.next = wr;
            let addr = (u64::from(in_window) << 13) | (index << 3) | dw;
            u.csr.wr_addr.next = addr.into();
            u.csr.wr_data.next = u64::from(value).into();
            u.csr.wr_be.next = be.into();
            u.csr.rd_addr.next = rng.below(1 << 14).into();
            let mut bits = 0u64;
            for c in 0..C {
                bits |= u64::from(req[c]) << c;
                u.req_index[c].next = req_index[c].into();
            }
            u.req.next = bits.into();
            s.settle();
            let u = &s.uut;
            assert_eq!(
                u.csr.rd_data.val().to_u64(),
                0,
                "cycle {cycle}: reads answer 0"
            );
            let valid = u.desc_valid.val().to_u64();
            match answer.take() {
                Some((c, want)) => {
                    assert_eq!(valid, 1 << c, "cycle {cycle}: the granted channel's");
                    let got: Vec<u32> = (0..8)
                        .map(|k| u.desc.val().get_bits::<32>(32 * k).to_u64() as u32)
                        .collect();
                    assert_eq!(got, want, "cycle {cycle}: channel {c}'s descriptor");
                    reads += 1;
                }
                None => assert_eq!(valid, 0, "cycle {cycle}: nothing granted"),
            }
            // Read now: the memory as the writes up to two cycles ago left it.
            if let Some(c) = req.iter().position(|&r| r) {
                answer = Some((c, mem[req_index[c] as usize]));
            }
            if let Some((i, k, v)) = landing.take() {
                mem[i][k] = v;
            }
            if wr && in_window && be == 0xF {
                landing = Some((index as usize, dw as usize, value));
                writes += 1;
            }
            s.tick();
        }
        assert!(
            reads > 5_000 && writes > 5_000,
            "{reads} reads, {writes} writes"
        );
    }
}

//! What a read tag of the DMA is (`peach2_regmap::dma::tags`): a data tag `8c + k` of
//! channel c, a descriptor-fetch tag `8C + c`, or none of the DMA's. Combinational.

use super::RingLayout;
use peach2_regmap::dma::DATA_TAGS_PER_CHANNEL;
use rust_hdl::prelude::*;

// A data tag is its channel's number above a 3-bit index (`chan`, `index` below).
const _: () = assert!(DATA_TAGS_PER_CHANNEL == 1 << 3);

/// The class of a tag among `C` channels' (`CB` bits of channel number).
#[derive(LogicBlock)]
pub struct TagClass<const C: usize, const CB: usize> {
    /// The tag.
    pub tag: Signal<In, Bits<8>>,
    /// A data tag (below `8C`).
    pub is_data: Signal<Out, Bit>,
    /// A descriptor-fetch tag (`8C .. 9C`).
    pub is_desc: Signal<Out, Bit>,
    /// The tag's channel (when it is one of the DMA's).
    pub chan: Signal<Out, Bits<CB>>,
    /// A data tag's index k in its channel's eight.
    pub index: Signal<Out, Bits<3>>,
    /// Data tags are the ones whose bits above `8C` (a power of two) are clear: shifted
    /// right by this, 0. (A shift by a constant is wiring; a magnitude comparison would
    /// be a carry chain on the DMA's deepest paths.)
    data_shift: Constant<Bits<8>>,
    /// Descriptor-fetch tags shifted right by the channel bits: this.
    desc_shift: Constant<Bits<8>>,
    /// What a descriptor-fetch tag shifted right by `desc_shift` is: `8C >> CB` = 8.
    desc_code: Constant<Bits<8>>,
}

impl<const C: usize, const CB: usize> TagClass<C, CB> {
    /// The classifier; panics on a channel count without a tag layout.
    pub fn new() -> Self {
        let ring = RingLayout::new(C, CB);
        // 8C is a power of two above the channel bits (`tags::layout_ok`), so the classes
        // are bit fields.
        Self {
            tag: Default::default(),
            is_data: Default::default(),
            is_desc: Default::default(),
            chan: Default::default(),
            index: Default::default(),
            data_shift: Constant::new(u64::from(ring.data_tags.trailing_zeros()).into()),
            desc_shift: Constant::new((CB as u64).into()),
            desc_code: Constant::new(u64::from(ring.data_tags >> CB).into()),
        }
    }
}

impl<const C: usize, const CB: usize> Default for TagClass<C, CB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const CB: usize> Logic for TagClass<C, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.is_data.next = (self.tag.val() >> self.data_shift.val()) == 0;
        self.is_desc.next = (self.tag.val() >> self.desc_shift.val()) == self.desc_code.val();
        // 8C is a power of two above the channel bits: a descriptor tag's low bits are c.
        self.chan.next = self.tag.val().get_bits::<CB>(0);
        if self.is_data.val() {
            self.chan.next = self.tag.val().get_bits::<CB>(3);
        }
        self.index.next = self.tag.val().get_bits::<3>(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use peach2_regmap::dma::tags;

    fn every_tag<const C: usize, const CB: usize>() {
        let mut uut = TagClass::<C, CB>::new();
        uut.connect_all();
        let n = C as u32;
        for tag in 0..256u32 {
            uut.tag.next = u64::from(tag).into();
            assert!(simulate(&mut uut, 100), "settles");
            let data = (0..n).find(|&c| (tags::data(c, 0)..tags::data(c, 8)).contains(&tag));
            let desc = (0..n).find(|&c| tags::desc(n, c) == tag);
            assert_eq!(
                uut.is_data.val(),
                data.is_some(),
                "{C} channels, tag {tag:#x}"
            );
            assert_eq!(
                uut.is_desc.val(),
                desc.is_some(),
                "{C} channels, tag {tag:#x}"
            );
            if let Some(c) = data.or(desc) {
                assert_eq!(
                    uut.chan.val().index() as u32,
                    c,
                    "{C} channels, tag {tag:#x}"
                );
            }
            if data.is_some() {
                assert_eq!(uut.index.val().index() as u32, tag % 8);
            }
        }
    }

    #[test]
    fn tells_the_regmap_tags_apart() {
        every_tag::<2, 1>();
        every_tag::<4, 2>();
        every_tag::<8, 3>();
        every_tag::<16, 4>();
    }
}

//! What a read tag of the DMA is (`peach2_regmap::dma::tags`): a data tag `8c + k` of
//! channel c, a descriptor-fetch tag `8C + c`, or none of the DMA's. Combinational.

use super::RingLayout;
use rust_hdl::prelude::*;

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
    /// The first descriptor-fetch tag, `8C`.
    data_tags: Constant<Bits<8>>,
    /// One past the last descriptor-fetch tag, `9C`.
    desc_tags_end: Constant<Bits<8>>,
}

impl<const C: usize, const CB: usize> TagClass<C, CB> {
    /// The classifier; panics on a channel count without a tag layout.
    pub fn new() -> Self {
        let ring = RingLayout::new(C, CB);
        Self {
            tag: Default::default(),
            is_data: Default::default(),
            is_desc: Default::default(),
            chan: Default::default(),
            index: Default::default(),
            data_tags: Constant::new(u64::from(ring.data_tags).into()),
            desc_tags_end: Constant::new(u64::from(ring.desc_tags_end).into()),
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
        self.is_data.next = self.tag.val() < self.data_tags.val();
        self.is_desc.next =
            (self.tag.val() >= self.data_tags.val()) && (self.tag.val() < self.desc_tags_end.val());
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

//! Descriptor lists as the application builds them (`tcaCreateDMADesc`,
//! `tcaDescSetMemcpy`, `tcaDescSetMemcpy2D`): copies between handles with offsets and
//! flags. Nothing is checked or written to hardware here; [`crate::Tca::set_chain`]
//! checks a list against the device and plans it ([`crate::plan`]).

use crate::handle::Handle;
use crate::notify::NotifyPlace;

/// A notification: after a copy's data, `tag` lands in the notified node's entry for
/// (this node, `slot`) ([`crate::Tca::wait_recv`] returns there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The slot (0..the notified node's `slot_count`).
    pub slot: u16,
    /// The value the receiver waits for.
    pub tag: u32,
}

/// The shape of a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `len` consecutive bytes.
    Linear {
        /// Bytes.
        len: u64,
    },
    /// `height` rows of `width` bytes, rows `dst_pitch` / `src_pitch` bytes apart.
    Block {
        /// Bytes per row.
        width: u64,
        /// Rows.
        height: u64,
        /// Destination pitch.
        dst_pitch: u64,
        /// Source pitch.
        src_pitch: u64,
    },
}

impl Shape {
    /// Bytes from the first to one past the last byte touched, given the pitch.
    pub(crate) fn extent(&self, dst_side: bool) -> u64 {
        match *self {
            Shape::Linear { len } => len,
            Shape::Block {
                width,
                height,
                dst_pitch,
                src_pitch,
            } => {
                let pitch = if dst_side { dst_pitch } else { src_pitch };
                (height.saturating_sub(1))
                    .saturating_mul(pitch)
                    .saturating_add(width)
            }
        }
    }
}

/// One copy of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    /// Destination buffer (any node).
    pub dst: Handle,
    /// Offset in the destination.
    pub dst_off: u64,
    /// Source buffer (this node's).
    pub src: Handle,
    /// Offset in the source.
    pub src_off: u64,
    /// Shape.
    pub shape: Shape,
    /// Notification of the destination's node.
    pub wait: Option<Wait>,
    /// Notification of this node itself (`tcaDMANotifySelf`): awaited with
    /// [`crate::Tca::wait_recv`] from this node.
    pub notify_self: Option<Wait>,
    /// Where both notifications land.
    pub place: NotifyPlace,
}

/// A list of copies to run as one chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DescList {
    /// The copies, in order.
    pub copies: Vec<Copy>,
}

impl DescList {
    /// An empty list.
    pub fn new() -> DescList {
        DescList::default()
    }

    /// Appends a copy of `len` bytes (`tcaDescSetMemcpy`).
    pub fn memcpy(
        &mut self,
        dst: &Handle,
        dst_off: u64,
        src: &Handle,
        src_off: u64,
        len: u64,
        wait: Option<Wait>,
    ) -> &mut Self {
        self.push(dst, dst_off, src, src_off, Shape::Linear { len }, wait)
    }

    fn push(
        &mut self,
        dst: &Handle,
        dst_off: u64,
        src: &Handle,
        src_off: u64,
        shape: Shape,
        wait: Option<Wait>,
    ) -> &mut Self {
        self.copies.push(Copy {
            dst: *dst,
            dst_off,
            src: *src,
            src_off,
            shape,
            wait,
            notify_self: None,
            place: NotifyPlace::Host,
        });
        self
    }

    /// Appends a block-stride copy (`tcaDescSetMemcpy2D`).
    #[allow(clippy::too_many_arguments)]
    pub fn memcpy_2d(
        &mut self,
        dst: &Handle,
        dst_off: u64,
        dst_pitch: u64,
        src: &Handle,
        src_off: u64,
        src_pitch: u64,
        width: u64,
        height: u64,
        wait: Option<Wait>,
    ) -> &mut Self {
        let shape = Shape::Block {
            width,
            height,
            dst_pitch,
            src_pitch,
        };
        self.push(dst, dst_off, src, src_off, shape, wait)
    }

    /// Makes the last copy notify this node too, with `wait`'s slot and tag.
    pub fn notify_self(&mut self, wait: Wait) -> &mut Self {
        if let Some(c) = self.copies.last_mut() {
            c.notify_self = Some(wait);
        }
        self
    }

    /// Makes the last copy's notifications land in `place`.
    pub fn notify_in(&mut self, place: NotifyPlace) -> &mut Self {
        if let Some(c) = self.copies.last_mut() {
            c.place = place;
        }
        self
    }
}

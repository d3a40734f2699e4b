//! The receiver's side of flow control: CREDITS_ALLOCATED and CREDITS_RECEIVED per
//! class and kind, overflow checks, and the UpdateFC values it returns.

use super::{
    class_index, modulo, sub_mod, CreditKind, CreditLimit, FcAdvertisement, FcCost, FcError,
    UpdateFc, FLOW_CLASSES, KINDS,
};
use crate::tlp::FlowClass;

/// Receiver side of one class+kind: CREDITS_ALLOCATED and CREDITS_RECEIVED.
#[derive(Debug, Clone, Copy)]
struct RxCounter {
    infinite: bool,
    allocated: u32,
    received: u32,
    /// Credits of TLPs in the buffer, not yet released (plain count, not modular).
    held: u32,
}

/// The receiver's credit state: its buffer space, what it has received, and the UpdateFC
/// values it returns as the buffer drains.
#[derive(Debug, Clone)]
pub struct FcReceiver {
    init: FcAdvertisement,
    counters: [[RxCounter; 2]; 3],
}

impl FcReceiver {
    /// A receiver with the buffer space described by `init`.
    pub fn new(init: FcAdvertisement) -> Result<FcReceiver, FcError> {
        init.validate()?;
        let mut counters = [[RxCounter {
            infinite: false,
            allocated: 0,
            received: 0,
            held: 0,
        }; 2]; 3];
        for class in FLOW_CLASSES {
            for kind in KINDS {
                let c = &mut counters[class_index(class)][kind.index()];
                match init.class(class).of(kind) {
                    CreditLimit::Infinite => c.infinite = true,
                    CreditLimit::Finite(n) => c.allocated = n,
                }
            }
        }
        Ok(FcReceiver { init, counters })
    }

    /// The InitFC advertisement this receiver sends at link-up.
    pub fn init_fc(&self) -> FcAdvertisement {
        self.init
    }

    /// Records a TLP arriving; refuses one that overflows the advertised space (a
    /// transmitter bug), leaving the counters unchanged.
    pub fn on_receive(&mut self, cost: &FcCost) -> Result<(), FcError> {
        for kind in KINDS {
            let c = &self.counters[class_index(cost.class)][kind.index()];
            if c.infinite {
                continue;
            }
            let needed = cost.of(kind);
            let free = sub_mod(c.allocated, c.received, kind);
            if needed > free {
                return Err(FcError::ReceiverOverflow {
                    class: cost.class,
                    kind,
                    needed,
                    available: free,
                });
            }
        }
        for kind in KINDS {
            let c = &mut self.counters[class_index(cost.class)][kind.index()];
            c.held += cost.of(kind);
            if !c.infinite {
                c.received = (c.received + cost.of(kind)) & (modulo(kind) - 1);
            }
        }
        Ok(())
    }

    /// Frees the buffer space of a TLP the application has taken; returns the UpdateFC to
    /// send, or `None` when the class has infinite header and data credits.
    pub fn release(&mut self, cost: &FcCost) -> Result<Option<UpdateFc>, FcError> {
        for kind in KINDS {
            let c = &self.counters[class_index(cost.class)][kind.index()];
            if cost.of(kind) > c.held {
                return Err(FcError::ReleaseExceedsHeld {
                    class: cost.class,
                    kind,
                    released: cost.of(kind),
                    held: c.held,
                });
            }
        }
        for kind in KINDS {
            let c = &mut self.counters[class_index(cost.class)][kind.index()];
            c.held -= cost.of(kind);
            if !c.infinite {
                c.allocated = (c.allocated + cost.of(kind)) & (modulo(kind) - 1);
            }
        }
        Ok(self.update_fc(cost.class))
    }

    /// The UpdateFC carrying the current CREDITS_ALLOCATED of `class` (infinite kinds are
    /// sent as 0), or `None` if both kinds are infinite.
    pub fn update_fc(&self, class: FlowClass) -> Option<UpdateFc> {
        let [h, d] = self.counters[class_index(class)];
        if h.infinite && d.infinite {
            return None;
        }
        Some(UpdateFc {
            class,
            header: if h.infinite { 0 } else { h.allocated },
            data: if d.infinite { 0 } else { d.allocated },
        })
    }

    /// Credits held by TLPs in the buffer that have not been released.
    pub fn held(&self, class: FlowClass, kind: CreditKind) -> u32 {
        self.counters[class_index(class)][kind.index()].held
    }
}

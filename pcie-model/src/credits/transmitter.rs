//! The transmitter's side of flow control: CREDIT_LIMIT and CREDITS_CONSUMED per
//! class and kind, and the gating check.

use super::{
    class_index, modulo, sub_mod, CreditKind, CreditLimit, FcAdvertisement, FcBlocked, FcCost,
    FcError, UpdateFc, FLOW_CLASSES, KINDS,
};
use crate::tlp::FlowClass;

/// Transmitter side of one class+kind: CREDIT_LIMIT and CREDITS_CONSUMED.
#[derive(Debug, Clone, Copy)]
struct TxGate {
    /// `None` when the receiver advertised infinite credits.
    limit: Option<u32>,
    consumed: u32,
}

impl TxGate {
    fn available(&self, kind: CreditKind) -> u32 {
        match self.limit {
            None => u32::MAX,
            Some(cl) => sub_mod(cl, self.consumed, kind),
        }
    }

    fn allows(&self, n: u32, kind: CreditKind) -> bool {
        match self.limit {
            None => true,
            Some(cl) => {
                let after = (self.consumed + n) & (modulo(kind) - 1);
                n <= modulo(kind) / 2 && sub_mod(cl, after, kind) <= modulo(kind) / 2
            }
        }
    }
}

/// The transmitter's credit state for a link direction: what the far receiver has room
/// for. Created from the receiver's InitFC advertisement.
#[derive(Debug, Clone)]
pub struct FcTransmitter {
    gates: [[TxGate; 2]; 3],
}

impl FcTransmitter {
    /// Starts from the far receiver's InitFC advertisement.
    pub fn new(init: &FcAdvertisement) -> Result<FcTransmitter, FcError> {
        init.validate()?;
        let mut gates = [[TxGate {
            limit: None,
            consumed: 0,
        }; 2]; 3];
        for class in FLOW_CLASSES {
            for kind in KINDS {
                gates[class_index(class)][kind.index()].limit = match init.class(class).of(kind) {
                    CreditLimit::Infinite => None,
                    CreditLimit::Finite(n) => Some(n),
                };
            }
        }
        Ok(FcTransmitter { gates })
    }

    /// Credits currently available (`u32::MAX` for infinite).
    pub fn available(&self, class: FlowClass, kind: CreditKind) -> u32 {
        self.gates[class_index(class)][kind.index()].available(kind)
    }

    /// Checks whether a TLP of cost `cost` may be sent now.
    pub fn check(&self, cost: &FcCost) -> Result<(), FcBlocked> {
        for kind in KINDS {
            let gate = &self.gates[class_index(cost.class)][kind.index()];
            let needed = cost.of(kind);
            if !gate.allows(needed, kind) {
                return Err(FcBlocked {
                    class: cost.class,
                    kind,
                    needed,
                    available: gate.available(kind),
                });
            }
        }
        Ok(())
    }

    /// True if a TLP of cost `cost` may be sent now.
    pub fn can_send(&self, cost: &FcCost) -> bool {
        self.check(cost).is_ok()
    }

    /// Consumes the credits of a TLP being sent, or refuses it (consuming nothing).
    pub fn try_consume(&mut self, cost: &FcCost) -> Result<(), FcBlocked> {
        self.check(cost)?;
        for kind in KINDS {
            let gate = &mut self.gates[class_index(cost.class)][kind.index()];
            gate.consumed = (gate.consumed + cost.of(kind)) & (modulo(kind) - 1);
        }
        Ok(())
    }

    /// Applies an UpdateFC DLLP. Updates for a kind advertised as infinite are ignored
    /// (the spec requires their fields to be 0 and receivers to ignore them).
    pub fn update_fc(&mut self, update: &UpdateFc) -> Result<(), FcError> {
        for kind in KINDS {
            let value = match kind {
                CreditKind::Header => update.header,
                CreditKind::Data => update.data,
            };
            let gate = &self.gates[class_index(update.class)][kind.index()];
            if gate.limit.is_none() {
                continue;
            }
            if value >= modulo(kind) || sub_mod(value, gate.consumed, kind) > modulo(kind) / 2 {
                return Err(FcError::BadUpdate {
                    class: update.class,
                    kind,
                    value,
                    consumed: gate.consumed,
                });
            }
        }
        for kind in KINDS {
            let gate = &mut self.gates[class_index(update.class)][kind.index()];
            if gate.limit.is_some() {
                gate.limit = Some(match kind {
                    CreditKind::Header => update.header,
                    CreditKind::Data => update.data,
                });
            }
        }
        Ok(())
    }
}

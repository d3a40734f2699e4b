//! The internal completer's first step with a request, from its header beat: the state
//! it goes to, whether it answers once the request is consumed and with which completion
//! status, and what it counts. Combinational; the completer latches it with the header.
//!
//! A write runs (`Write`) unless it lands outside the internal memory's windows; a read
//! whose only beat is this one is read (`Read`, SC), one with more beats than its header
//! says is consumed and answered UR; a long read is answered Completer Abort, at once if
//! this is its only beat; an unsupported request is consumed and answered UR; the rest is
//! consumed (`Drain`): a completion counted unexpected, a dropped request or write
//! counted dropped.

use super::completer::CompleterState;
use super::req_decode::RequestKind;
use rust_hdl::prelude::*;

// Completion status codes (PCIe Base Spec 3.0, 2.2.9) appear as literals below (rust-hdl
// prints named constants by name): SC = 0, UR = 1, CA = 4.

/// What the completer does first with a request.
#[derive(LogicBlock, Default)]
pub struct ReqPlan {
    /// What the request is ([`super::req_decode::ReqDecode`]).
    pub kind: Signal<In, RequestKind>,
    /// A write outside the internal memory's windows.
    pub outside: Signal<In, Bit>,
    /// The header beat is the request's last.
    pub eop: Signal<In, Bit>,
    /// The completer's state after the header beat.
    pub state: Signal<Out, CompleterState>,
    /// The request is answered once its last beat is consumed.
    pub respond: Signal<Out, Bit>,
    /// The answer's completion status (SC 0, UR 1, CA 4).
    pub status: Signal<Out, Bits<3>>,
    /// The request is dropped here.
    pub dropped: Signal<Out, Bit>,
    /// The request is a completion that matches no request of the chip's.
    pub unexpected: Signal<Out, Bit>,
}

impl Logic for ReqPlan {
    #[hdl_gen]
    fn update(&mut self) {
        self.state.next = CompleterState::Drain;
        self.respond.next = false;
        self.status.next = 1.into();
        self.dropped.next = false;
        self.unexpected.next = false;
        match self.kind.val() {
            RequestKind::Unsupported => {
                self.respond.next = true;
            }
            RequestKind::Completion => {
                self.unexpected.next = true;
            }
            RequestKind::Write => {
                self.state.next = CompleterState::Write;
                if self.outside.val() {
                    self.state.next = CompleterState::Drain;
                    self.dropped.next = true;
                }
            }
            RequestKind::Dropped => {
                self.dropped.next = true;
            }
            RequestKind::Read => {
                self.respond.next = true;
                if self.eop.val() {
                    self.status.next = 0.into();
                    self.state.next = CompleterState::Read;
                }
            }
            RequestKind::LongRead => {
                self.respond.next = true;
                self.status.next = 4.into();
                if self.eop.val() {
                    self.state.next = CompleterState::Respond;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::checks::lint_verilog;
    use crate::verilog::export::block_verilog;

    /// Every kind, with and without `outside` and `eop`, against the table of the
    /// module's documentation: (state, respond, status, dropped, unexpected).
    #[test]
    fn plans_every_request_as_documented() {
        use CompleterState as S;
        use RequestKind as K;
        let mut uut = ReqPlan::default();
        uut.connect_all();
        let kinds = [
            K::Unsupported,
            K::Completion,
            K::Write,
            K::Dropped,
            K::Read,
            K::LongRead,
        ];
        for kind in kinds {
            for outside in [false, true] {
                for eop in [false, true] {
                    uut.kind.next = kind;
                    uut.outside.next = outside;
                    uut.eop.next = eop;
                    assert!(simulate(&mut uut, 100), "settles");
                    let want = match kind {
                        K::Unsupported => (S::Drain, true, 1, false, false),
                        K::Completion => (S::Drain, false, 1, false, true),
                        K::Write if outside => (S::Drain, false, 1, true, false),
                        K::Write => (S::Write, false, 1, false, false),
                        K::Dropped => (S::Drain, false, 1, true, false),
                        K::Read if eop => (S::Read, true, 0, false, false),
                        K::Read => (S::Drain, true, 1, false, false),
                        K::LongRead if eop => (S::Respond, true, 4, false, false),
                        K::LongRead => (S::Drain, true, 4, false, false),
                    };
                    let got = (
                        uut.state.val(),
                        uut.respond.val(),
                        uut.status.val().to_u64(),
                        uut.dropped.val(),
                        uut.unexpected.val(),
                    );
                    assert_eq!(got, want, "{kind:?}, outside {outside}, eop {eop}");
                }
            }
        }
    }

    #[test]
    fn req_plan_lint_clean() {
        let mut uut = ReqPlan::default();
        lint_verilog(&block_verilog(&mut uut, "req_plan"), "req_plan").unwrap();
    }
}

//! Throughput as an exact ratio of bytes per cycles, and a [`BandwidthGate`] that
//! serialises transfers through a resource of that throughput.
//!
//! Rates such as 3.5 GB/s at 250 MHz (14 B/cycle) or Gen3 x8 (31.5 B/cycle) are not whole
//! bytes per cycle; rounding each transfer up to whole cycles would lose several percent
//! of bandwidth over a long stream. The gate keeps time in fractions of a cycle so that a
//! stream of transfers takes exactly `bytes / rate` cycles, and only the reported
//! completion time of each transfer is rounded up.

use serde::{Deserialize, Serialize};

use crate::time::{Clock, Cycles};

/// A throughput of `bytes` bytes every `cycles` cycles (kept reduced).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "BandwidthRepr", into = "BandwidthRepr")]
pub struct Bandwidth {
    bytes: u64,
    cycles: u64,
}

/// Serialised form of a [`Bandwidth`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct BandwidthRepr {
    bytes: u64,
    cycles: u64,
}

/// A bandwidth with a zero term was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bandwidth must be a positive number of bytes per positive number of cycles (got {bytes} bytes / {cycles} cycles)")]
pub struct BandwidthError {
    /// Bytes term given.
    pub bytes: u64,
    /// Cycles term given.
    pub cycles: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Bandwidth {
    /// `bytes` bytes every `cycles` cycles.
    pub fn new(bytes: u64, cycles: u64) -> Result<Bandwidth, BandwidthError> {
        if bytes == 0 || cycles == 0 {
            return Err(BandwidthError { bytes, cycles });
        }
        let g = gcd(bytes, cycles);
        Ok(Bandwidth {
            bytes: bytes / g,
            cycles: cycles / g,
        })
    }

    /// A whole number of bytes per cycle.
    pub fn per_cycle(bytes: u64) -> Result<Bandwidth, BandwidthError> {
        Bandwidth::new(bytes, 1)
    }

    /// `mbytes_per_s` megabytes (10^6 B) per second on a clock of `clock`
    /// (e.g. 3500 MB/s at 250 MHz = 14 B/cycle).
    pub fn from_mbytes_per_s(mbytes_per_s: u64, clock: Clock) -> Result<Bandwidth, BandwidthError> {
        Bandwidth::new(mbytes_per_s.saturating_mul(1_000_000), clock.hz())
    }

    /// Bytes term of the reduced ratio.
    pub fn bytes(self) -> u64 {
        self.bytes
    }

    /// Cycles term of the reduced ratio.
    pub fn cycles(self) -> u64 {
        self.cycles
    }

    /// Bytes per cycle as a float (for reports).
    pub fn bytes_per_cycle(self) -> f64 {
        self.bytes as f64 / self.cycles as f64
    }

    /// Bytes per second on `clock`, as a float (for reports).
    pub fn bytes_per_second(self, clock: Clock) -> f64 {
        self.bytes_per_cycle() * clock.hz() as f64
    }

    /// Cycles needed to move `n` bytes, rounded up.
    pub fn cycles_for(self, n: u64) -> Cycles {
        let num = n as u128 * self.cycles as u128;
        Cycles(num.div_ceil(self.bytes as u128) as u64)
    }
}

impl TryFrom<BandwidthRepr> for Bandwidth {
    type Error = BandwidthError;
    fn try_from(r: BandwidthRepr) -> Result<Bandwidth, BandwidthError> {
        Bandwidth::new(r.bytes, r.cycles)
    }
}

impl From<Bandwidth> for BandwidthRepr {
    fn from(b: Bandwidth) -> BandwidthRepr {
        BandwidthRepr {
            bytes: b.bytes,
            cycles: b.cycles,
        }
    }
}

/// A resource that moves one transfer at a time at a fixed [`Bandwidth`] (a link
/// direction, a memory port). Transfers queue behind each other in reservation order.
#[derive(Debug, Clone)]
pub struct BandwidthGate {
    rate: Bandwidth,
    /// Time at which the resource becomes free, in units of 1/`rate.bytes` cycle.
    free_at: u128,
}

impl BandwidthGate {
    /// An idle gate of throughput `rate`.
    pub fn new(rate: Bandwidth) -> BandwidthGate {
        BandwidthGate { rate, free_at: 0 }
    }

    /// The gate's throughput.
    pub fn rate(&self) -> Bandwidth {
        self.rate
    }

    /// Reserves the resource for `n` bytes starting no earlier than `now`; returns the
    /// cycle at which the last byte has passed (rounded up to a whole cycle).
    pub fn reserve(&mut self, now: Cycles, n: u64) -> Cycles {
        let unit = self.rate.bytes as u128;
        let start = self.free_at.max(now.0 as u128 * unit);
        self.free_at = start + n as u128 * self.rate.cycles as u128;
        Cycles(self.free_at.div_ceil(unit) as u64)
    }

    /// The first cycle at which a new transfer could start (rounded up).
    pub fn free_at(&self) -> Cycles {
        Cycles(self.free_at.div_ceil(self.rate.bytes as u128) as u64)
    }

    /// True if a transfer reserved at `now` would start immediately.
    pub fn is_idle(&self, now: Cycles) -> bool {
        self.free_at <= now.0 as u128 * self.rate.bytes as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_reduced_and_validated() {
        let b = Bandwidth::from_mbytes_per_s(3500, Clock::CORE_250MHZ).unwrap();
        assert_eq!((b.bytes(), b.cycles()), (14, 1));
        let g = Bandwidth::from_mbytes_per_s(2800, Clock::CORE_250MHZ).unwrap();
        assert_eq!((g.bytes(), g.cycles()), (56, 5));
        assert!(Bandwidth::new(0, 1).is_err());
        assert!(Bandwidth::new(1, 0).is_err());
        assert!(serde_json::from_str::<Bandwidth>(r#"{"bytes":0,"cycles":3}"#).is_err());
        let rt: Bandwidth = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
        assert_eq!(rt, g);
    }

    #[test]
    fn gate_keeps_fractional_time_over_a_stream() {
        // 11.2 B/cycle: 1000 transfers of 256 B take exactly 256000/11.2 = 22857.14 cycles.
        let mut gate = BandwidthGate::new(Bandwidth::new(56, 5).unwrap());
        let mut done = Cycles(0);
        for _ in 0..1000 {
            done = gate.reserve(Cycles(0), 256);
        }
        assert_eq!(done, Cycles(22858));
        // Rounding each one up separately would have given 23 cycles each.
        assert!(done < Cycles(23000));
    }

    #[test]
    fn gate_idles_until_now() {
        let mut gate = BandwidthGate::new(Bandwidth::per_cycle(16).unwrap());
        assert_eq!(gate.reserve(Cycles(100), 32), Cycles(102));
        assert!(!gate.is_idle(Cycles(101)));
        assert!(gate.is_idle(Cycles(102)));
        // A later reservation starts at `now`, not at the old free time.
        assert_eq!(gate.reserve(Cycles(200), 8), Cycles(201));
        assert_eq!(gate.free_at(), Cycles(201));
        assert_eq!(
            Bandwidth::per_cycle(16).unwrap().cycles_for(280),
            Cycles(18)
        );
    }
}

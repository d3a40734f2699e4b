//! Simulated time: core-clock [`Cycles`], wall-clock [`Picos`], and the [`Clock`]
//! that converts between them.
//!
//! The model is cycle-stepped on the chip's core clock (250 MHz for PEACH2, the
//! frequency of the Gen2 x8 hard IP's application interface). Physical figures
//! (wire time, hard-IP latency, cable delay) are kept in picoseconds so that they do not
//! depend on the clock, and are converted when a component is built.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

use serde::{Deserialize, Serialize};

/// A count of core-clock cycles, or a point in time measured in cycles since reset.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Cycles(pub u64);

impl Cycles {
    /// Time zero (reset).
    pub const ZERO: Cycles = Cycles(0);

    /// `self - rhs`, or zero if `rhs` is later.
    pub fn saturating_sub(self, rhs: Cycles) -> Cycles {
        Cycles(self.0.saturating_sub(rhs.0))
    }
}

impl Add for Cycles {
    type Output = Cycles;
    fn add(self, rhs: Cycles) -> Cycles {
        Cycles(self.0 + rhs.0)
    }
}

impl AddAssign for Cycles {
    fn add_assign(&mut self, rhs: Cycles) {
        self.0 += rhs.0;
    }
}

impl Sub for Cycles {
    type Output = Cycles;
    fn sub(self, rhs: Cycles) -> Cycles {
        Cycles(self.0 - rhs.0)
    }
}

impl fmt::Display for Cycles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} cycles", self.0)
    }
}

/// A duration in picoseconds (1 ns = 1000 ps).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Picos(pub u64);

impl Picos {
    /// Zero duration.
    pub const ZERO: Picos = Picos(0);

    /// A duration given in nanoseconds.
    pub const fn from_ns(ns: u64) -> Picos {
        Picos(ns * 1000)
    }

    /// The duration in nanoseconds, as a float (for reports).
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl Add for Picos {
    type Output = Picos;
    fn add(self, rhs: Picos) -> Picos {
        Picos(self.0 + rhs.0)
    }
}

impl fmt::Display for Picos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ps", self.0)
    }
}

const PICOS_PER_SECOND: u128 = 1_000_000_000_000;

/// A clock, given by its frequency in hertz.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Clock {
    hz: u64,
}

/// A clock frequency of zero was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("clock frequency must be non-zero")]
pub struct ZeroClockError;

impl Clock {
    /// PEACH2's core clock: 250 MHz, the application clock of a Gen2 x8 hard IP with a
    /// 128-bit interface (128 bit x 250 MHz = 4 GB/s, the Gen2 x8 data rate).
    pub const CORE_250MHZ: Clock = Clock { hz: 250_000_000 };

    /// A clock of `hz` hertz.
    pub fn from_hz(hz: u64) -> Result<Clock, ZeroClockError> {
        if hz == 0 {
            Err(ZeroClockError)
        } else {
            Ok(Clock { hz })
        }
    }

    /// A clock of `mhz` megahertz.
    pub fn from_mhz(mhz: u64) -> Result<Clock, ZeroClockError> {
        Clock::from_hz(mhz.saturating_mul(1_000_000))
    }

    /// The frequency in hertz.
    pub fn hz(self) -> u64 {
        self.hz
    }

    /// The number of whole cycles that cover `t` (rounded up: an event that takes any part
    /// of a cycle occupies that cycle).
    pub fn cycles_ceil(self, t: Picos) -> Cycles {
        let num = t.0 as u128 * self.hz as u128;
        Cycles(num.div_ceil(PICOS_PER_SECOND) as u64)
    }

    /// The number of whole cycles that fit in `t` (rounded down).
    pub fn cycles_floor(self, t: Picos) -> Cycles {
        let num = t.0 as u128 * self.hz as u128;
        Cycles((num / PICOS_PER_SECOND) as u64)
    }

    /// The duration of `c` cycles in seconds.
    pub fn seconds(self, c: Cycles) -> f64 {
        c.0 as f64 / self.hz as f64
    }

    /// The duration of `c` cycles in microseconds.
    pub fn micros(self, c: Cycles) -> f64 {
        c.0 as f64 / self.cycles_per_us()
    }

    /// Cycles per microsecond (250.0 at 250 MHz).
    pub fn cycles_per_us(self) -> f64 {
        self.hz as f64 / 1e6
    }

    /// The duration of `c` cycles (rounded down to a picosecond).
    pub fn to_picos(self, c: Cycles) -> Picos {
        Picos((c.0 as u128 * PICOS_PER_SECOND / self.hz as u128) as u64)
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::CORE_250MHZ
    }
}

impl TryFrom<u64> for Clock {
    type Error = ZeroClockError;
    fn try_from(hz: u64) -> Result<Clock, ZeroClockError> {
        Clock::from_hz(hz)
    }
}

impl From<Clock> for u64 {
    fn from(c: Clock) -> u64 {
        c.hz
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_clock_period_is_4ns() {
        let c = Clock::CORE_250MHZ;
        assert_eq!(c.to_picos(Cycles(1)), Picos(4000));
        assert_eq!(c.cycles_ceil(Picos::from_ns(2000)), Cycles(500));
        assert_eq!(c.micros(Cycles(1000)), 4.0);
        assert_eq!(c.seconds(Cycles(250_000_000)), 1.0);
        assert_eq!(c.cycles_per_us(), 250.0);
    }

    #[test]
    fn partial_cycles_round_as_documented() {
        let c = Clock::CORE_250MHZ;
        assert_eq!(c.cycles_ceil(Picos(4001)), Cycles(2));
        assert_eq!(c.cycles_floor(Picos(4001)), Cycles(1));
        assert_eq!(c.cycles_ceil(Picos::ZERO), Cycles(0));
    }

    #[test]
    fn zero_clock_is_rejected() {
        assert_eq!(Clock::from_hz(0), Err(ZeroClockError));
        assert!(serde_json::from_str::<Clock>("0").is_err());
        let c: Clock = serde_json::from_str("125000000").unwrap();
        assert_eq!(c.to_picos(Cycles(1)), Picos(8000));
    }

    #[test]
    fn cycles_arithmetic() {
        let mut t = Cycles(5) + Cycles(7);
        t += Cycles(1);
        assert_eq!(t, Cycles(13));
        assert_eq!(Cycles(3).saturating_sub(Cycles(9)), Cycles::ZERO);
        assert_eq!(t.to_string(), "13 cycles");
    }
}

//! A PCIe cable between two chip ports: one bounded queue of beats with a fixed latency
//! per direction. `tx_ready` of the sending port is "the queue has room", decided before
//! the chips settle, so no combinational path runs from one chip to another.

use pcie_model::beats::Beat;
use peach2_regmap::csr::Port;
use std::collections::VecDeque;

/// One end of a cable: a node and one of its ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    /// Node index in the fabric.
    pub node: usize,
    /// Port of that node.
    pub port: Port,
}

/// One direction of a cable.
#[derive(Debug)]
pub struct Lane {
    /// Beats in flight with the cycle from which the far end sees them.
    queue: VecDeque<(u64, Beat)>,
    latency: u64,
    capacity: usize,
}

impl Lane {
    fn new(latency: u64, capacity: usize) -> Self {
        Self {
            queue: VecDeque::new(),
            latency,
            capacity,
        }
    }

    /// The sender may push a beat this cycle.
    pub fn has_room(&self) -> bool {
        self.queue.len() < self.capacity
    }

    /// The beat the far end sees at cycle `now`, once its latency has elapsed.
    pub fn head(&self, now: u64) -> Option<Beat> {
        self.queue
            .front()
            .filter(|(visible, _)| *visible <= now)
            .map(|(_, b)| *b)
    }

    /// A beat entered the cable at cycle `now`.
    pub fn push(&mut self, now: u64, beat: Beat) {
        assert!(self.has_room(), "cable lane overflow");
        self.queue.push_back((now + self.latency, beat));
    }

    /// The far end took the head beat.
    pub fn pop(&mut self) {
        self.queue.pop_front();
    }

    /// Beats in flight.
    pub fn len(&self) -> usize {
        self.queue.len()
    }
}

/// A cable: `lanes[i]` carries beats from `ends[i]` to the other end.
#[derive(Debug)]
pub struct Cable {
    /// The two ends.
    pub ends: [End; 2],
    /// The two directions.
    pub lanes: [Lane; 2],
    /// Both ends see their link up.
    pub plugged: bool,
}

impl Cable {
    /// A cable, unplugged, with `latency` cycles and room for `capacity` beats per direction.
    pub fn new(a: End, b: End, latency: u64, capacity: usize) -> Self {
        Self {
            ends: [a, b],
            lanes: [Lane::new(latency, capacity), Lane::new(latency, capacity)],
            plugged: false,
        }
    }

    /// Which side (0 or 1) `end` is, if this cable is attached there.
    pub fn side_of(&self, end: End) -> Option<usize> {
        self.ends.iter().position(|e| *e == end)
    }
}

//! Acknowledged bytes as acknowledged segments.
//!
//! The per-ACK rules of Smooth-start (Wang et al., ISCC 2000) and Limited Slow-Start
//! (RFC 3742 §2) are written for a receiver that acknowledges every segment. With delayed
//! ACKs (`bytes_acked` = 2 SMSS) or stretch ACKs, applying such a rule once per ACK would
//! change the growth per round trip. Applying it once per acknowledged segment keeps the
//! per-RTT behaviour of the source; bytes that do not fill a segment are carried to the next
//! ACK, so that no byte is counted twice or lost (the idea of RFC 3465 byte counting).

/// Converts `bytes_acked` into whole segments, carrying the remainder between ACKs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentCounter {
    /// Acknowledged bytes not yet counted as a segment (always `< mss`).
    remainder: u64,
}

impl SegmentCounter {
    pub fn new() -> Self {
        SegmentCounter::default()
    }

    /// The number of whole segments that `bytes_acked` completes, remainder included.
    pub fn segments(&mut self, bytes_acked: u64, mss: u64) -> u64 {
        // A zero MSS would be a sender bug; treating it as one byte keeps this total.
        let mss = mss.max(1);
        let total = self.remainder + bytes_acked;
        self.remainder = total % mss;
        total / mss
    }

    /// Forget the carried bytes (a new slow-start episode).
    pub fn reset(&mut self) {
        self.remainder = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_segments_and_carried_remainder() {
        let mut c = SegmentCounter::new();
        assert_eq!(c.segments(1000, 1000), 1);
        assert_eq!(c.segments(2000, 1000), 2);
        // 1500 bytes: one segment now, 500 carried; the next 500 complete a second one.
        assert_eq!(c.segments(1500, 1000), 1);
        assert_eq!(c.segments(500, 1000), 1);
        assert_eq!(c.segments(999, 1000), 0);
        c.reset();
        assert_eq!(c.segments(1, 1000), 0);
    }
}

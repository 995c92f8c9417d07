//! `kind = "trace"`: a link whose packets leave at the delivery opportunities of a trace file
//! (mahimahi's format), loaded and validated at parse time so that the simulator does no file
//! IO and a scenario stays cheap to clone (the timestamps are shared).
//!
//! The format is mahimahi's (`mm-link`, src/frontend/link_queue.cc): one non-negative integer
//! per line, a millisecond timestamp at which one delivery opportunity of
//! [`OPPORTUNITY_BYTES`] occurs; timestamps never decrease; several lines with the same
//! timestamp are several opportunities at once; the schedule repeats with a period equal to
//! the last timestamp, which must therefore be positive.

use std::sync::Arc;

/// Bytes one delivery opportunity may carry: mahimahi's `LinkQueue::PACKET_SIZE` (1504, "default
/// max TUN payload size", src/frontend/link_queue.hh). Its manual page speaks of 1500.
pub const OPPORTUNITY_BYTES: u32 = 1504;

/// One direction's delivery opportunities: one period of a trace file.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliverySchedule {
    /// The trace file as the scenario names it (for messages).
    pub file: String,
    /// Millisecond timestamps of one period: non-decreasing, non-empty, the last positive
    /// (it is the period).
    pub times_ms: Arc<[u32]>,
}

impl DeliverySchedule {
    /// The period after which the schedule repeats: its last timestamp (mahimahi adds it to
    /// its base timestamp at each wrap-around).
    pub fn period_ms(&self) -> u64 {
        self.times_ms.last().map_or(1, |&t| t as u64)
    }

    /// The mean rate the opportunities offer: opportunities × 1504 bytes × 8 per period,
    /// rounded, at least 1 bit/s. This is the link's `rate_bps` (BDP buffers, estimates).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits_per_period = self.times_ms.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1000;
        let period = self.period_ms() as u128;
        ((bits_per_period + period / 2) / period).max(1) as u64
    }
}

/// A trace-driven link's schedules, one per direction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceConfig {
    /// `trace`: the direction the link table describes (the dumbbell's bottleneck, a hop, a
    /// graph link "a-b").
    pub forward: DeliverySchedule,
    /// `reverse_trace`: the opposite direction ("bottleneck-reverse", "hopI-reverse", "b-a").
    /// `None`: that direction is a wired link at the forward trace's mean rate.
    pub reverse: Option<DeliverySchedule>,
}

/// What is wrong with a trace file, and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFileProblem {
    pub line: usize,
    pub problem: String,
}

/// The timestamps of a trace file's text, checked as mahimahi checks them (and a little more:
/// a value must be a plain non-negative integer that fits 32 bits, about 49 days).
pub fn parse_trace_text(text: &str) -> Result<Vec<u32>, TraceFileProblem> {
    let mut times: Vec<u32> = Vec::new();
    let problem = |line: usize, problem: String| TraceFileProblem { line, problem };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let value = raw.trim();
        if value.is_empty() {
            return Err(problem(
                line,
                "is empty; each line holds one millisecond timestamp".into(),
            ));
        }
        if value.starts_with('-') && value[1..].chars().all(|c| c.is_ascii_digit()) {
            return Err(problem(
                line,
                format!("`{value}` is negative; timestamps are milliseconds from 0"),
            ));
        }
        if !value.chars().all(|c| c.is_ascii_digit()) {
            return Err(problem(
                line,
                format!("`{value}` is not a timestamp (a non-negative integer of milliseconds)"),
            ));
        }
        let ms: u32 = value.parse().map_err(|_| {
            problem(
                line,
                format!("`{value}` is too large (at most {} ms)", u32::MAX),
            )
        })?;
        if let Some(&previous) = times.last()
            && ms < previous
        {
            return Err(problem(
                line,
                format!(
                    "{ms} is less than the timestamp before it ({previous}); timestamps must not decrease"
                ),
            ));
        }
        times.push(ms);
    }
    match times.last() {
        None => Err(problem(
            1,
            "the file is empty; it needs at least one timestamp".into(),
        )),
        Some(0) => Err(problem(
            times.len(),
            "the last timestamp is 0, so the trace lasts no time (its period is its last timestamp)"
                .into(),
        )),
        Some(_) => Ok(times),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(times: &[u32]) -> DeliverySchedule {
        DeliverySchedule {
            file: "t".into(),
            times_ms: times.into(),
        }
    }

    #[test]
    fn one_opportunity_per_millisecond_offers_12_032_mbps() {
        // 1504 bytes × 8 bits per ms = 12_032 bits/ms = 12.032 Mbit/s.
        assert_eq!(schedule(&[1, 2, 3, 4]).mean_rate_bps(), 12_032_000);
        // Three opportunities every 2 ms: 3 × 12_032 / 2 kbit/s.
        assert_eq!(schedule(&[2, 2, 2]).mean_rate_bps(), 18_048_000);
    }

    #[test]
    fn malformed_lines_are_named_by_number() {
        let line = |text: &str| parse_trace_text(text).unwrap_err().line;
        assert_eq!(line("1\n2\nx\n"), 3);
        assert_eq!(line("1\n-2\n"), 2);
        assert_eq!(line("5\n4\n"), 2);
        assert_eq!(line("1\n\n2\n"), 2);
        assert_eq!(line(""), 1);
        assert_eq!(line("0\n0\n"), 2);
        assert_eq!(line("1\n99999999999\n"), 2);
        // A final newline (and Windows line ends) are fine.
        assert_eq!(parse_trace_text("0\n3\r\n3\n"), Ok(vec![0, 3, 3]));
    }
}

//! The full-pipe estimator of STARTUP: v1 draft §4.3.2.2 BBRCheckFullPipe, v3 draft
//! §5.3.1.2 CheckFullBWReached; Linux `bbr_check_full_bw_reached`.
//!
//! The pipe is taken as full once the bandwidth signal has failed to grow by 25 % for three
//! rounds in a row. v1 feeds it BtlBw (the windowed max), v3 the round's RS.delivery_rate;
//! the callers skip app-limited samples and ACKs that do not end a round.

/// BBRFullBwThresh / the 25 % growth a round must show to count as still growing.
const FULL_BW_THRESH: f64 = 1.25;
/// BBRFullBwCount / rounds without such growth that fill the pipe.
const FULL_BW_COUNT: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct FullBw {
    /// BBR.full_bw: the baseline the next rounds must beat by 25 %.
    pub bw: f64,
    /// BBR.full_bw_count: rounds since the baseline last moved.
    pub count: u32,
}

impl FullBw {
    /// v3 draft §5.3.1.2 ResetFullBW (its `full_bw_now` is the caller's).
    pub fn reset(&mut self) {
        self.bw = 0.0;
        self.count = 0;
    }

    /// One round's bandwidth signal `bw`: a rise of at least 25 % moves the baseline and
    /// restarts the count; otherwise the count grows. Returns whether the count has reached
    /// three rounds (the pipe is full).
    pub fn update(&mut self, bw: f64) -> bool {
        if bw >= self.bw * FULL_BW_THRESH {
            self.bw = bw;
            self.count = 0;
            return false;
        }
        self.count += 1;
        self.count >= FULL_BW_COUNT
    }
}

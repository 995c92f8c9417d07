//! Linux's RTT variation, `tcp_rtt_estimator()` in net/ipv4/tcp_input.c: the part of the
//! RTO that RFC 6298 calls 4·RTTVAR, computed the way the kernel does.
//!
//! The kernel keeps three deviations, each on RFC 6298's "4·RTTVAR" scale (its first sample
//! sets `mdev = 2·R`, "make sure rto = 3*rtt", where the RFC has 4·R/2):
//! - `mdev`, the smoothed mean deviation (gain 1/4, as the RFC's β), except that a sample
//!   more than mdev/4 *below* SRTT is weighted 1/8 as much again (1/32 in all): a falling
//!   RTT must not inflate the timeout (the kernel's comment: like Eifel, which blocks those
//!   updates, but also limiting too fast a decrease);
//! - `mdev_max`, the largest `mdev` seen in the current round trip, never below `rto_min`;
//!   a round trip ends when snd_una passes `rtt_seq` (the snd_nxt of when it began);
//! - `rttvar`, what the RTO uses: it jumps up to `mdev_max` at once, and at the end of each
//!   round trip decays a quarter of the way down toward it.
//!
//! `RTO = SRTT + rttvar` (`__tcp_set_rto`), so the RTO is never below SRTT + `rto_min`: on a
//! steady long path the kernel's RTO is SRTT + 200 ms where RFC 6298's decays to SRTT + G
//! (floored at `min_rto` as a whole).

use cclab_cc::SimDuration;

/// The sender's sequence state when a sample is taken: Linux updates snd_una before
/// `tcp_ack_update_rtt` runs (`tcp_ack` → `tcp_clean_rtx_queue`), so `snd_una` is the new
/// cumulative ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SequenceState {
    pub snd_una: u64,
    pub snd_nxt: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxVariation {
    /// `tp->mdev_us`, in ns.
    mdev: SimDuration,
    /// `tp->mdev_max_us`, in ns.
    mdev_max: SimDuration,
    /// `tp->rttvar_us`, in ns: the RTO is SRTT plus this.
    rttvar: SimDuration,
    /// `tp->rtt_seq`: the round trip in progress ends when snd_una passes it. `None` after
    /// [`LinuxVariation::seeded`]: the first sample ends a round trip.
    rtt_seq: Option<u64>,
}

impl LinuxVariation {
    /// The first sample R (`/* no previous measure. */`): mdev = 2·R, rttvar = mdev_max =
    /// max(mdev, rto_min), and the first round trip ends at today's snd_nxt.
    pub fn first(rtt: SimDuration, rto_min: SimDuration, seq: SequenceState) -> Self {
        let mdev = rtt * 2;
        let rttvar = mdev.max(rto_min);
        LinuxVariation {
            mdev,
            mdev_max: rttvar,
            rttvar,
            rtt_seq: Some(seq.snd_nxt),
        }
    }

    /// Start from a cached RTT variance (temporal sharing, `sender/sharing.rs`), given on
    /// RFC 6298's scale: as Linux's `tcp_init_metrics` does with its cached value, mdev,
    /// mdev_max and rttvar all start at max(4·RTTVAR, rto_min).
    pub fn seeded(rfc_rttvar: SimDuration, rto_min: SimDuration) -> Self {
        let rttvar = (rfc_rttvar * 4).max(rto_min);
        LinuxVariation {
            mdev: rttvar,
            mdev_max: rttvar,
            rttvar,
            rtt_seq: None,
        }
    }

    /// A later sample R against the SRTT before it (`srtt != 0` branch).
    pub fn update(
        &mut self,
        rtt: SimDuration,
        srtt_before: SimDuration,
        rto_min: SimDuration,
        seq: SequenceState,
    ) {
        let error = rtt.as_nanos() as i128 - srtt_before.as_nanos() as i128;
        let quarter_mdev = (self.mdev.as_nanos() / 4) as i128;
        // mdev += |error| - mdev/4, i.e. mdev = 3/4·mdev + |error| (the RFC's β = 1/4 on the
        // 4·RTTVAR scale) ...
        let mut step = error.abs() - quarter_mdev;
        // ... but a sample below SRTT − mdev/4 moves mdev up only 1/8 as much.
        if error < 0 && step > 0 {
            step /= 8;
        }
        self.mdev = SimDuration::from_nanos((self.mdev.as_nanos() as i128 + step).max(0) as u64);
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        let round_trip_over = self.rtt_seq.is_none_or(|rtt_seq| seq.snd_una > rtt_seq);
        if round_trip_over {
            // rttvar decays a quarter of the way toward this round trip's largest mdev.
            if self.mdev_max < self.rttvar {
                self.rttvar = self.rttvar - (self.rttvar - self.mdev_max) / 4;
            }
            self.rtt_seq = Some(seq.snd_nxt);
            self.mdev_max = rto_min;
        }
    }

    pub fn mdev(&self) -> SimDuration {
        self.mdev
    }

    pub fn mdev_max(&self) -> SimDuration {
        self.mdev_max
    }

    /// `tp->rttvar_us`: added to SRTT for the RTO.
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
}

#[cfg(test)]
#[path = "rtt_linux_tests.rs"]
mod tests;

//! Reno's window growth and loss response (RFC 5681 with RFC 3465 byte counting, and the
//! pluggable slow start), for the router-assisted controllers (XCP, VCP) on a path where no
//! router of theirs answers: they then behave exactly as `reno`.

use super::additive_increase::ByteCountedIncrease;
use crate::controller::{Ack, half_flight_ssthresh};
use crate::slow_start::SlowStart;

pub struct RenoGrowth {
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl RenoGrowth {
    pub fn new(slow_start: Box<dyn SlowStart>) -> Self {
        RenoGrowth {
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    pub fn slow_start(&self) -> &dyn SlowStart {
        self.slow_start.as_ref()
    }

    /// One ACK's growth: slow start below ssthresh, then +1 SMSS per cwnd of bytes acked.
    pub fn grow(&mut self, cwnd: &mut f64, ssthresh: &mut u64, mss: u64, ack: &Ack) {
        if !ack.may_grow() {
            return;
        }
        let mut window = *cwnd as u64;
        if window < *ssthresh {
            self.slow_start.grow(&mut window, ssthresh, mss, ack);
        } else {
            self.increase.grow(&mut window, mss, ack.bytes_acked, 1.0);
        }
        *cwnd = window as f64;
    }

    /// RFC 5681 §3.2: ssthresh = max(FlightSize/2, 2·SMSS), cwnd = ssthresh.
    pub fn on_loss(&mut self, cwnd: &mut f64, ssthresh: &mut u64, mss: u64, flight: u64) {
        *ssthresh = half_flight_ssthresh(flight, mss);
        *cwnd = *ssthresh as f64;
        self.increase.reset();
    }

    /// RFC 5681 §3.1: a timeout's one-segment loss window, and slow start again.
    pub fn on_timeout(&mut self, cwnd: &mut f64, mss: u64) {
        *cwnd = mss as f64;
        self.increase.reset();
        self.slow_start.restart();
    }
}

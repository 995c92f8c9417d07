//! Delivery-rate estimation, draft-cheng-iccrg-delivery-rate-estimation-02.
//!
//! Each segment remembers, when sent, how much had been delivered and when; when it is
//! delivered, the bytes delivered since then over the elapsed time give a rate sample. The
//! newest delivered segment of an ACK is the one sampled (§3.3).

use cclab_cc::{RateSample, SimDuration, SimTime};

/// Connection state at the moment a segment was sent (the draft's P.* fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendState {
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    pub app_limited: bool,
}

/// Connection-wide delivery state (the draft's C.* fields).
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// C.app_limited: the `delivered` value at which the app-limited period ends, 0 if none.
    app_limited_until: u64,
}

/// The newest segment delivered by one ACK, collected while the ACK is processed.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckRateState {
    newest: Option<(SimTime, SendState)>,
}

impl DeliveryRate {
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// §3.2: called when a segment is sent; `bytes_in_flight` is measured before it.
    pub fn on_send(&mut self, now: SimTime, bytes_in_flight: u64) -> SendState {
        if bytes_in_flight == 0 {
            // Nothing in flight: start a fresh interval so idle time is not counted.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        SendState {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// §3.3 UpdateRateSample: a segment sent at `sent_time` with `state` was delivered.
    pub fn on_delivered(
        &mut self,
        ack: &mut AckRateState,
        now: SimTime,
        bytes: u64,
        sent_time: SimTime,
        state: SendState,
    ) {
        self.delivered += bytes;
        self.delivered_time = now;
        let newer = ack.newest.is_none_or(|(t, _)| sent_time >= t);
        if newer {
            ack.newest = Some((sent_time, state));
            self.first_sent_time = sent_time;
        }
    }

    /// §3.3 GenerateRateSample, after all segments of the ACK were processed. Samples with an
    /// interval shorter than the minimum RTT are discarded, as Linux does, because ACK
    /// compression would inflate them.
    pub fn sample(
        &mut self,
        ack: AckRateState,
        now: SimTime,
        min_rtt: Option<SimDuration>,
    ) -> Option<RateSample> {
        // §3.4: the app-limited period ends once its data is delivered.
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let (sent_time, state) = ack.newest?;
        let send_elapsed = sent_time.saturating_since(state.first_sent_time);
        let ack_elapsed = now.saturating_since(state.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - state.delivered;
        if interval.is_zero() || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivered,
            interval,
            prior_delivered: state.delivered,
            is_app_limited: state.app_limited,
        })
    }

    /// §3.4: the application has nothing to send although the window would allow it.
    pub fn mark_app_limited(&mut self, bytes_in_flight: u64) {
        self.app_limited_until = (self.delivered + bytes_in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    #[test]
    fn a_window_sent_in_a_burst_samples_the_ack_rate() {
        // Ten 1000-byte segments sent at t=0 and ACKed one per ms from t=100 ms: the last
        // ACK delivers 10_000 bytes over max(send 0, ack 109 ms - 0)… the newest segment was
        // sent at 0 with delivered_time 0, so interval = 109 ms.
        let mut rate = DeliveryRate::default();
        let states: Vec<_> = (0..10).map(|i| rate.on_send(ms(0), i * 1000)).collect();
        let mut last = None;
        for (i, state) in states.into_iter().enumerate() {
            let mut ack = AckRateState::default();
            let now = ms(100 + i as u64);
            rate.on_delivered(&mut ack, now, 1000, ms(0), state);
            last = rate.sample(ack, now, Some(SimDuration::from_millis(100)));
        }
        let sample = last.expect("the 10th ACK's interval (109 ms) exceeds min RTT");
        assert_eq!(sample.delivered, 10_000);
        assert_eq!(sample.interval, SimDuration::from_millis(109));
        assert_eq!(sample.prior_delivered, 0);
    }

    #[test]
    fn steady_ack_clock_gives_the_bottleneck_rate() {
        // One 1000-byte segment sent per ms (ACK-clocked at 8 Mbit/s) with an RTT of 50 ms:
        // each sample covers 50 segments over 50 ms = 8 Mbit/s.
        let mut rate = DeliveryRate::default();
        let mut sent = std::collections::VecDeque::new();
        let mut last = None;
        for t in 0..200u64 {
            if t >= 50 {
                let (sent_time, state) = sent.pop_front().unwrap();
                let mut ack = AckRateState::default();
                rate.on_delivered(&mut ack, ms(t), 1000, sent_time, state);
                last = rate.sample(ack, ms(t), Some(SimDuration::from_millis(50)));
            }
            let in_flight = sent.len() as u64 * 1000;
            sent.push_back((ms(t), rate.on_send(ms(t), in_flight)));
        }
        let s = last.unwrap();
        assert_eq!(s.interval, SimDuration::from_millis(50));
        assert_eq!(s.delivered, 50_000);
        assert!((s.rate_bps() - 8e6).abs() < 1e-6);
    }

    #[test]
    fn app_limited_marking_ends_after_its_data_is_delivered() {
        let mut rate = DeliveryRate::default();
        rate.mark_app_limited(3000);
        let state = rate.on_send(ms(0), 0);
        assert!(state.app_limited);
        for i in 0..4 {
            let mut ack = AckRateState::default();
            rate.on_delivered(&mut ack, ms(10 + i), 1000, ms(0), state);
            rate.sample(ack, ms(10 + i), None);
        }
        // 4000 delivered > 3000: the period is over, new sends are not app-limited.
        assert!(!rate.on_send(ms(20), 0).app_limited);
    }
}

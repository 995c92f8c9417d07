//! The shared, half-duplex medium of a Wi-Fi link: one contention domain of two contenders,
//! the access point (the link's forward direction) and the station (its reverse direction).
//!
//! Access follows the 802.11 DCF (IEEE 802.11-2016 §10.3.3, §10.3.4.3), slot by slot:
//!
//! - When the medium goes idle, every direction with frames to send waits DIFS, then counts
//!   down its backoff, `uniform{0, …, CW}` slots, drawn when it has none pending. A direction
//!   whose first frame arrives while the medium is idle starts counting at the next slot
//!   boundary (slots are counted from the end of DIFS), after DIFS at the earliest.
//! - The first to reach zero transmits; the other's count freezes with what it has left and
//!   resumes after the transmission (the DCF's memory, which gives a loser the next turn
//!   more often than not). Two counts that end on the same slot collide: both transmit, every
//!   frame of both fails.
//! - A transmission carries an aggregate from the head of its direction (retransmissions
//!   first; see [`super::queue`]), takes [`super::airtime::exchange_time`], and each frame
//!   fails independently with the frame error rate. CW resets to CWmin when the block ACK
//!   acknowledges any frame, and otherwise doubles, `CW ← min(2·(CW + 1) − 1, CWmax)`; the
//!   next access draws a new backoff.
//!
//! Left out (docs/links.md lists it all): immediate access after a long idle time without
//! backoff and post-backoff, EIFS after an error, RTS/CTS, TXOP limits with several exchanges,
//! EDCA access categories, hidden nodes, capture, rate adaptation.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::WifiConfig;

use super::airtime::{exchange_time, ppdu_time};
use crate::net::link::Link;
use crate::net::qdisc::DropReason;
use crate::packet::Packet;
use crate::rng::Rng;

/// One side of the medium.
#[derive(Clone, Copy, Debug)]
struct Contender {
    /// The link of its direction.
    link: u32,
    /// Contention window, in slots.
    cw: u32,
    /// Backoff slots left; `None`: to be drawn at its next access.
    backoff: Option<u32>,
    /// While the medium is idle and it counts down: when its count started, and when it
    /// reaches zero.
    countdown: Option<(SimTime, SimTime)>,
    /// Its transmission on the air: when the data PPDU ends (frames reach the receiver then).
    on_air: Option<SimTime>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle { since: SimTime },
    Busy { until: SimTime },
}

/// What the simulation must do after the medium acted.
#[derive(Debug, Default)]
pub struct MediumOutcome {
    /// Delivery events to schedule: (link, time) for links whose propagation FIFO was empty.
    pub deliveries: Vec<(u32, SimTime)>,
    /// Frames lost to retries (and packets a discipline dropped on dequeue), to account.
    pub drops: Vec<(Packet, DropReason)>,
    /// The medium's next event: (time, generation) for `Event::WifiMedium`.
    pub next: Option<(SimTime, u32)>,
}

pub struct Medium {
    config: WifiConfig,
    contenders: [Contender; 2],
    state: State,
    rng: Rng,
    /// Only the event of this generation is live: an earlier access replaces a pending one.
    generation: u32,
    /// Time of the live event.
    pending: Option<SimTime>,
    /// Frames received in order during one transmission end, reused.
    delivered: Vec<Packet>,
    pub outcome: MediumOutcome,
}

impl Medium {
    /// The medium between `ap` (the link carrying the access point's frames) and `station`.
    pub fn new(config: WifiConfig, ap: u32, station: u32, rng: Rng) -> Self {
        let contender = |link| Contender {
            link,
            cw: config.cw_min,
            backoff: None,
            countdown: None,
            on_air: None,
        };
        Medium {
            contenders: [contender(ap), contender(station)],
            config,
            state: State::Idle {
                since: SimTime::ZERO,
            },
            rng,
            generation: 0,
            pending: None,
            delivered: Vec::new(),
            outcome: MediumOutcome::default(),
        }
    }

    /// Does this medium carry `link`'s frames?
    pub fn carries(&self, link: u32) -> bool {
        self.contenders.iter().any(|c| c.link == link)
    }

    /// A packet joined `link`'s queue at `now`: if the medium is idle and that direction was
    /// not counting down yet, it starts.
    pub fn on_backlog(&mut self, now: SimTime, link: u32, links: &mut [Link]) {
        let State::Idle { since } = self.state else {
            return; // it contends when the transmission on the air ends
        };
        let Some(d) = self.contenders.iter().position(|c| c.link == link) else {
            return;
        };
        if self.contenders[d].countdown.is_some() || !links[link as usize].wifi_queue().has_frames()
        {
            return;
        }
        let access = self.start_countdown(d, since, now);
        // A later access leaves the pending event in place: it fires first, and this
        // direction's count is frozen or resolved then. An equal one collides at that event.
        if self.pending.is_none_or(|pending| access < pending) {
            self.schedule(access);
        }
    }

    /// The medium's event of `generation` fired at `now`.
    pub fn on_event(&mut self, now: SimTime, generation: u32, links: &mut [Link]) {
        if generation != self.generation || self.pending != Some(now) {
            return; // replaced by an earlier one
        }
        self.pending = None;
        match self.state {
            State::Busy { until } => {
                debug_assert_eq!(until, now, "the medium's transmissions end at `until`");
                self.end_transmissions(now, links);
            }
            State::Idle { .. } => self.start_transmissions(now, links),
        }
    }

    /// Begin direction `d`'s countdown in the idle period that began at `since`, at `now`:
    /// its backoff (drawn if none is pending) counts from the first slot boundary after DIFS
    /// not before `now`. Returns when it reaches zero.
    fn start_countdown(&mut self, d: usize, since: SimTime, now: SimTime) -> SimTime {
        let slot = self.config.slot.as_nanos();
        let cw = self.contenders[d].cw;
        let backoff = match self.contenders[d].backoff {
            Some(b) => b,
            None => self.rng.below(cw as u64 + 1) as u32,
        };
        let origin = since + self.config.difs;
        let from = if now <= origin {
            origin
        } else {
            let elapsed = (now - origin).as_nanos().div_ceil(slot);
            origin + SimDuration::from_nanos(elapsed * slot)
        };
        let access = from + SimDuration::from_nanos(backoff as u64 * slot);
        let contender = &mut self.contenders[d];
        contender.backoff = Some(backoff);
        contender.countdown = Some((from, access));
        access
    }

    fn schedule(&mut self, at: SimTime) {
        self.generation = self.generation.wrapping_add(1);
        self.pending = Some(at);
        self.outcome.next = Some((at, self.generation));
    }

    /// Countdowns that reached zero now transmit; the others freeze.
    fn start_transmissions(&mut self, now: SimTime, links: &mut [Link]) {
        let slot = self.config.slot.as_nanos();
        let starting: [bool; 2] = self
            .contenders
            .map(|c| c.countdown.is_some_and(|(_, access)| access == now));
        let mut until = now;
        for (d, &starts) in starting.iter().enumerate() {
            let contender = &mut self.contenders[d];
            let Some((from, _)) = contender.countdown.take() else {
                continue;
            };
            if !starts {
                // Frozen: the slots counted so far are spent (none if it had not begun).
                let counted = now.saturating_since(from).as_nanos() / slot;
                contender.backoff = contender.backoff.map(|b| b - counted as u32);
                continue;
            }
            contender.backoff = None;
            let link = &mut links[contender.link as usize];
            let aggregate = link.wifi_take(now, &self.config);
            link.take_service(&mut self.outcome.drops);
            if aggregate.frames == 0 {
                continue; // its discipline dropped everything it held on dequeue
            }
            let ppdu_end = now + ppdu_time(&self.config, aggregate.bytes);
            let end = now + exchange_time(&self.config, aggregate.bytes);
            link.note_airtime(now, end);
            contender.on_air = Some(ppdu_end);
            until = until.max(end);
        }
        if until == now {
            self.contend(now, links);
            return;
        }
        self.state = State::Busy { until };
        self.schedule(until);
    }

    /// The transmissions on the air end: frames are received or fail, CWs adapt, and the
    /// directions with frames left contend again.
    fn end_transmissions(&mut self, now: SimTime, links: &mut [Link]) {
        let collided = self.contenders.iter().all(|c| c.on_air.is_some());
        for d in 0..2 {
            let Some(ppdu_end) = self.contenders[d].on_air.take() else {
                continue;
            };
            let link_id = self.contenders[d].link;
            let link = &mut links[link_id as usize];
            let error_rate = self.config.frame_error_rate;
            let rng = &mut self.rng;
            let delivered = &mut self.delivered;
            let drops = &mut self.outcome.drops;
            let mut lost = 0;
            let mut counters = link.stats().wifi;
            let acknowledged = link.wifi_queue().finish_transmission(
                &self.config,
                &mut counters,
                collided,
                || rng.chance(error_rate),
                |packet| {
                    lost += 1;
                    drops.push((packet, DropReason::RandomLoss));
                },
                |packet| delivered.push(packet),
            );
            link.stats_mut().wifi = counters;
            link.stats_mut().random_losses += lost;
            for packet in self.delivered.drain(..) {
                if let Some(arrival) = link.send_over_air(now, ppdu_end, packet) {
                    self.outcome.deliveries.push((link_id, arrival));
                }
            }
            link.wifi_queue().note_idle(now);
            let contender = &mut self.contenders[d];
            contender.cw = if acknowledged {
                self.config.cw_min
            } else {
                (2 * (contender.cw + 1) - 1).min(self.config.cw_max)
            };
        }
        self.contend(now, links);
    }

    /// The medium is idle from `now`: the directions with frames count down.
    fn contend(&mut self, now: SimTime, links: &mut [Link]) {
        self.state = State::Idle { since: now };
        let mut next: Option<SimTime> = None;
        for d in 0..2 {
            let link = self.contenders[d].link as usize;
            if links[link].wifi_queue().has_frames() {
                let access = self.start_countdown(d, now, now);
                next = Some(next.map_or(access, |t| t.min(access)));
            }
        }
        if let Some(at) = next {
            self.schedule(at);
        }
    }
}

//! Sending: window, receive window, pacing, TCP Small Queues and the application decide
//! what leaves and when.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::EcnMode;

use crate::packet::{Ecn, LoadFactor, MAX_SACK_BLOCKS, Packet, PacketKind, SackOffsets, XcpHeader};

use super::{ModeCause, Sender};

/// What [`Sender::send_segment`] did that its callers need.
pub(super) struct SegmentSent {
    /// The bytes in flight after the segment.
    pub(super) pipe_after: u64,
    /// The controller was told of the send (`on_packet_sent`), which may change its window.
    pub(super) told_controller: bool,
}

impl Sender {
    /// The send timer (pacing or TCP Small Queues) expired: send what is due.
    pub fn on_send_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.send_deadline = None;
        self.transmit(now, out);
    }

    /// Send as much as the window, the receive window, pacing, TCP Small Queues and the
    /// application allow.
    pub(super) fn transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.transmit_inlined(now, out);
    }

    /// [`Sender::transmit`], inlined into the clean-ACK path (`ack.rs`), where nearly every
    /// burst starts: the call's saved and restored registers and the flight and window
    /// worked out again cost more there than the larger function.
    #[inline(always)]
    pub(super) fn transmit_inlined(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.sharing.is_some() {
            self.share_before_transmit(now);
        }
        let packets_before = self.stats.packets_sent;
        let snd_nxt_before = self.board.snd_nxt();
        let mut blocked_by_window = false;
        // The bytes in flight, carried through the loop: only a segment sent changes them
        // (`send_segment` returns the new value), so they are not recounted per segment.
        let mut pipe = self.pipe();
        // The window, read again only after the controller was told of a send: nothing else
        // in the loop changes it (the state, the recovery window and the caps stay as they
        // are while a burst leaves).
        let mut window = self.window();
        let mut told = false;
        // The receive window, which only an ACK moves.
        let rwnd = self.receive_window();
        // Whether anything sets a pacing rate: fixed per flow, so asked once per burst
        // rather than per segment (`pacing_rate` is `None` otherwise).
        let may_pace = self.cc_paces || self.config.pacing;
        loop {
            debug_assert_eq!(window, self.window(), "window in step with the controller");
            debug_assert_eq!(
                pipe,
                self.pipe(),
                "carried pipe in step with the scoreboard"
            );
            let retransmission = self.board.next_retransmission();
            let (seq, len) = match retransmission {
                Some(hole) => hole,
                None => {
                    let seq = self.board.snd_nxt();
                    if seq >= self.data_end {
                        // Nothing to send although the window may allow it (draft-cheng §3.4);
                        // a full send buffer is marked when the writer wakes instead.
                        if pipe < window && !self.is_buffer_limited() {
                            self.rate.mark_app_limited(pipe);
                        }
                        break;
                    }
                    let len = self.config.mss.min(self.data_end - seq);
                    if seq + len - self.board.snd_una() > rwnd {
                        break; // receive-window limited
                    }
                    (seq, len as u32)
                }
            };
            let forced = retransmission.is_some() && self.retransmit_now;
            let beyond_window = pipe + len as u64 > window;
            // RFC 3042: new data on the first two duplicate ACKs may go beyond the window.
            if beyond_window
                && !forced
                && (retransmission.is_some()
                    || pipe + len as u64 > window.saturating_add(self.limited_transmit_allowance()))
            {
                blocked_by_window = true;
                break;
            }
            if let Some(release) = self.small_queues_hold(now, retransmission.is_some()) {
                self.send_deadline = Some(release);
                break;
            }
            debug_assert!(may_pace || self.pacing_rate().is_none());
            if may_pace && let Some(rate) = self.pacing_rate() {
                if now < self.next_send_time && !forced {
                    self.send_deadline = Some(self.next_send_time);
                    break;
                }
                // Pace payload bytes: the next send may leave len·8/rate seconds later.
                let gap = len as u128 * 8 * 1_000_000_000 / rate as u128;
                self.next_send_time = self.next_send_time.max(now)
                    + SimDuration::from_nanos(gap.min(u64::MAX as u128) as u64);
            }
            if forced {
                self.retransmit_now = false;
            } else if beyond_window {
                self.limited_transmit.sent += len as u64;
            }
            let sent = self.send_segment(now, seq, len, retransmission.is_some(), pipe, out);
            pipe = sent.pipe_after;
            if sent.told_controller {
                window = self.window();
                told = true;
            }
        }
        // As Linux's tcp_write_xmit: a full window counts as cwnd-limited even when pacing,
        // not the window, stopped this attempt.
        let window_full = pipe + self.config.mss > window;
        self.validate_cwnd(pipe, blocked_by_window || window_full);
        if self.stats.packets_sent != packets_before {
            // `on_packet_sent` may change the mode (BBR ends ProbeRTT after an idle period),
            // and so may a group's window assigned before sending (`sharing.rs`). Every
            // other call that changes the controller is followed by its own look at the mode,
            // so without either the mode is the one last seen.
            if told || self.sharing.is_some() {
                self.check_mode(now, ModeCause::Send);
            } else {
                debug_assert_eq!(self.cc.mode(), self.mode, "a mode change not looked at");
            }
            // RFC 8985 §7.2: new data sent (re)starts the probe timer.
            if self.rack_tlp.is_some() && self.board.snd_nxt() != snd_nxt_before {
                self.schedule_probe(now, true);
            }
        }
    }

    /// TCP Small Queues: `Some(when)` if the next packet must wait for the NIC to drain.
    /// Linux sends anyway when at most one segment is unacknowledged, and checks
    /// retransmissions too, against twice the limit (`tcp_xmit_retransmit_queue`).
    /// Asked before every segment: the two tests that nearly always let it go are inlined,
    /// the limit worked out of line.
    #[inline]
    pub(super) fn small_queues_hold(&self, now: SimTime, retransmission: bool) -> Option<SimTime> {
        let host = self.small_queues.as_ref()?;
        if self.board.snd_nxt() - self.board.snd_una() <= self.config.mss {
            return None;
        }
        // The limit is at least two packets: below that, no need to work it out.
        host.blocked_until(now, host.two_packets())?;
        self.small_queues_limit_hold(now, retransmission)
    }

    #[cold]
    #[inline(never)]
    fn small_queues_limit_hold(&self, now: SimTime, retransmission: bool) -> Option<SimTime> {
        let host = self.small_queues.as_ref()?;
        let limit = host.limit(self.kept_pacing_rate()) << u32::from(retransmission);
        host.blocked_until(now, host.time_to_send(limit))
    }

    /// Send one segment; `pipe` is the bytes in flight before it. Returns them after it, and
    /// whether the controller was told of the send (which may change its window).
    #[inline(always)]
    pub(super) fn send_segment(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        retransmission: bool,
        pipe: u64,
        out: &mut Vec<Packet>,
    ) -> SegmentSent {
        if self.app_limited_after.is_some() && !retransmission {
            self.check_app_limited_after_remainder(seq, len, pipe);
        }
        let send_state = self.rate.on_send(now, pipe);
        if retransmission {
            self.board.on_retransmit(seq, now, send_state, self.episode);
            self.stats.retransmissions += 1;
            if self.undo.is_some() {
                self.undo_on_retransmit(now);
            }
        } else {
            self.board.push(len, now, send_state);
        }
        if self.is_reducing() {
            self.prr.out += len as u64;
        }
        let wire_bytes = len + self.config.header_bytes as u32;
        if let Some(host) = &mut self.small_queues {
            host.on_send(now, wire_bytes as u64);
        }
        self.stats.packets_sent += 1;
        self.last_send = now;
        self.stats.payload_bytes_sent += len as u64;
        self.stats.wire_bytes_sent += wire_bytes as u64;
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        // With RACK-TLP, as Linux's `tcp_xmit_retransmit_queue`: resending the segment at
        // snd_una restarts the timer, so that the RTO measures from the latest attempt to
        // repair the head rather than from the last forward progress.
        if retransmission && seq == self.board.snd_una() && self.rack_tlp.is_some() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        // New data adds its length to every count of the flight (pipe, FlightSize, FACK's
        // awnd: snd_nxt moves, nothing else does); a retransmission may or may not, as its
        // segment was marked.
        let pipe_after = if retransmission {
            self.pipe()
        } else {
            pipe + len as u64
        };
        debug_assert_eq!(pipe_after, self.pipe(), "the flight after a send");
        let told_controller = self.tells_controller(len, pipe_after);
        if told_controller {
            self.cc.on_packet_sent(now, len as u64, pipe_after);
        }
        out.push(Packet {
            flow: self.config.flow,
            hop: 0,
            kind: PacketKind::Data,
            retransmission,
            sack_count: 0,
            wire_bytes,
            payload: len,
            seq,
            sack: [SackOffsets::default(); MAX_SACK_BLOCKS],
            ecn: match self.config.ecn {
                EcnMode::Off => Ecn::NotEct,
                EcnMode::Classic => Ecn::Ect,
                EcnMode::L4s => Ecn::Ect1,
            },
            ce_bytes: 0,
            xcp: if self.speaks_xcp {
                self.xcp_header()
            } else {
                XcpHeader::default()
            },
            // VCP (§3): the sender marks the segment capable; routers raise the code.
            vcp: self.speaks_vcp.then_some(LoadFactor::Unmeasured),
            window: 0,
            ts: if self.undo.is_some() {
                super::undo::ts_val(now)
            } else {
                0
            },
        });
        SegmentSent {
            pipe_after,
            told_controller,
        }
    }

    /// XCP's congestion header for a data segment sent now (§3.1: H_cwnd, H_rtt and the
    /// feedback asked for), if the controller speaks XCP.
    #[cold]
    #[inline(never)]
    pub(super) fn xcp_header(&self) -> XcpHeader {
        let Some(request) = self.cc.xcp_request() else {
            return XcpHeader::default();
        };
        XcpHeader {
            cwnd_bytes: self.cc.cwnd().clamp(1, u32::MAX as u64) as u32,
            rtt_us: self.rtt.srtt().map_or(0, |srtt| {
                (srtt.as_nanos() / 1000).clamp(1, u32::MAX as u64) as u32
            }),
            feedback_bytes: request as f32,
        }
    }

    /// Track whether the window, rather than the application or the receiver, limited the
    /// last flight (the idea of RFC 7661 and Linux `tcp_cwnd_validate`).
    /// `pipe`: the bytes in flight now.
    pub(super) fn validate_cwnd(&mut self, pipe: u64, blocked_by_window: bool) {
        if self.board.snd_una() >= self.cwnd_usage_end
            || blocked_by_window
            || (!self.cwnd_limited && pipe > self.max_pipe_in_window)
        {
            self.cwnd_limited = blocked_by_window;
            self.max_pipe_in_window = pipe;
            self.cwnd_usage_end = self.board.snd_nxt();
        }
    }
}

//! The socket's send buffer (`send_buffer`): the application can have at most this many
//! bytes written and not yet acknowledged, as Linux's `sk_sndbuf` (at most `tcp_wmem[2]`,
//! 4 MiB by default) bounds `sk_wmem_queued`. A bulk sender whose window outgrows it stops
//! at the buffer: what it has not written it cannot send, so it is application-limited,
//! and its delivery-rate samples say so (draft-cheng-iccrg-delivery-rate-estimation §3.4),
//! which keeps BBR from seeing the pipe full.
//!
//! The writer blocks when the buffer is full and is woken, as `sk_stream_write_space` does,
//! once the free space is at least half of what is queued (`sk_stream_min_wspace`): when
//! the written, unacknowledged bytes have fallen to two thirds of the buffer. Then it fills
//! the buffer again at once. So the data a sender may send ends between
//! `snd_una + 2/3 · buffer` and `snd_una + buffer` (in whole segments).
//!
//! The application writes in calls of `APPLICATION_WRITE` bytes (64 KiB, as `cclab emulate`'s
//! endpoint does), and Linux checks for an application-limited flight at the start of each
//! call (`tcp_rate_check_app_limited` in `tcp_sendmsg_locked`), not when the writer wakes.
//! The woken writer first finishes the call it slept in (up to the next 64 KiB boundary),
//! which TCP pushes at once; the next call finds the flight application-limited only if
//! that remainder left less than a segment unsent. A paced Linux sender sends one TSO/GSO
//! packet at once (`tcp_tso_autosize`: 1/1024 s of the pacing rate, 2 segments at least,
//! 64 KiB at most) and the rest later, so a remainder longer than that packet is still
//! waiting and the flight is not marked. About half of the wake-ups of a 4 MiB buffer under
//! BBR's STARTUP mark it; the rounds between them count towards a full pipe, which is how
//! the kernel's BBR leaves STARTUP on a path the buffer limits. In the kernel the marks come
//! in runs: where the writer wakes within its 64 KiB call moves by the bytes acknowledged
//! per wake modulo 64 KiB, and those the buffer counts in `truesize`, which the model does
//! not (validation/linux.md, group 2: a trace of `write()`).
//!
//! The buffer holds only a writer whose data waits. Linux checks `sk_sndbuf` in
//! `tcp_sendmsg_locked` only when the write needs a new skb (`sk_stream_memory_free` at
//! `new_segment`): a write that fits in the write queue's tail skb (up to `tcp_xmit_size_goal`,
//! a 64 KiB GSO packet) is appended unchecked. When TCP sends each write at once (unpaced,
//! the window open, nothing held by TCP Small Queues) it leaves less than a segment in the
//! tail (Nagle), so the next write is appended to it and never checked: the woken writer
//! writes on past the buffer until TCP stops sending (validation/linux.md, group 2: a
//! bpftrace of the kernel's Reno through `cclab emulate` saw 450 writes appended past a
//! 4 MiB `sk_sndbuf`, `sk_wmem_queued` up to 11.1 MB, each with less than 64 KiB unsent).
//! So the woken writer stops at `snd_una + buffer` or at the end of what TCP sends at
//! once, whichever is later (`woken_writer_end`). Not modelled: the last skb's fill past
//! that point (up to one size goal), and the same rule at the flow's start (the first fill
//! is the buffer's; the kernel's `sk_sndbuf` is small then and grows with the window).
//!
//! Linux counts the buffer in memory (`skb->truesize`: the payload plus about a kilobyte of
//! `sk_buff` per GSO packet of a few to 45 segments), the model in payload bytes: with the
//! same setting the model holds a few percent more payload.

use cclab_cc::SimTime;

use super::Sender;

/// Bytes the bulk application hands to each `write()`: `cclab emulate`'s endpoint writes
/// 64 KiB at a time (`crates/emu/src/endpoint.rs`), the kernel runs that were validated.
const APPLICATION_WRITE: u64 = 64 * 1024;

/// Linux `GSO_LEGACY_MAX_SIZE`: a TSO/GSO packet carries at most 64 KiB.
const GSO_MAX_BYTES: u64 = 65_536;

/// Linux `sk_pacing_shift` default: TSO autosizing sends 2^-10 s of the pacing rate at once.
const PACING_SHIFT: u32 = 10;

/// Payload bytes of one TSO/GSO packet of a sender paced at `rate_bps` (bit/s of payload):
/// Linux `tcp_tso_autosize` (and BBR's `bbr_tso_segs_goal`): `pacing_rate >> 10` bytes in
/// whole segments, at least `tcp_min_tso_segs` = 2, at most 64 KiB.
pub(super) fn tso_packet(rate_bps: u64, mss: u64) -> u64 {
    let bytes = (rate_bps / 8) >> PACING_SHIFT;
    let segments = (bytes / mss).max(2).min((GSO_MAX_BYTES / mss).max(1));
    segments * mss
}

/// Where the `write()` call ends that the writer slept in, having written up to `before`:
/// a bulk application's calls start at multiples of `APPLICATION_WRITE`, and one that
/// ended exactly at `before` was followed by a call that slept before writing anything.
fn write_call_end(before: u64) -> u64 {
    (before / APPLICATION_WRITE + 1) * APPLICATION_WRITE
}

/// `tcp_rate_check_app_limited` at the start of a call, after TCP has sent what it could
/// of the `unsent` bytes at once (`at_once`, within the window): the flight is
/// application-limited if less than a segment is still waiting and the window is not full
/// (`tcp_packets_in_flight < snd_cwnd`).
fn next_call_finds_app_limited(
    unsent: u64,
    at_once: u64,
    pipe: u64,
    window: u64,
    mss: u64,
) -> bool {
    let sent = unsent.min(at_once).min(window.saturating_sub(pipe));
    unsent - sent < mss && pipe + sent < window
}

/// Where the woken bulk writer blocks: past `snd_una + buffer` only as far as TCP sends what
/// it writes at once (to `sent_at_once_end`), because Linux checks the buffer only when
/// written data waits unsent (module comment).
fn woken_writer_end(snd_una: u64, buffer: u64, sent_at_once_end: u64) -> u64 {
    (snd_una + buffer).max(sent_at_once_end)
}

/// The buffer in whole segments (at least one): the sender sends only full segments from it,
/// as Nagle's algorithm holds back a partial one while data is outstanding (RFC 9293
/// §3.7.4), and the next write fills that segment up anyway.
pub(super) fn whole_segments(buffer: u64, mss: u64) -> u64 {
    (buffer / mss).max(1) * mss
}

impl Sender {
    /// The end of the data the application has written and the buffer holds: what
    /// `data_end` is, given the application's own end `app_end`.
    pub(super) fn buffered_data_end(&self, current: u64) -> u64 {
        let Some(buffer) = self.config.send_buffer else {
            return self.app_end;
        };
        let buffer = whole_segments(buffer, self.config.mss);
        let snd_una = self.board.snd_una();
        let queued = current.saturating_sub(snd_una);
        // `sk_stream_min_wspace`: the writer wakes when free = buffer − queued ≥ queued / 2.
        if 3 * queued <= 2 * buffer {
            self.app_end.min(snd_una + buffer)
        } else {
            current.min(self.app_end)
        }
    }

    /// After an ACK moved `snd_una` at `now`: the writer refills the buffer if it may.
    /// The test for a buffer at all is inlined into the ACK paths: most flows have none, and
    /// the call out of line cost them about 18 instructions per ACK, nearly all of them the
    /// saving and restoring of registers that the refill needs (callgrind, docs/performance.md).
    #[inline(always)]
    pub(super) fn refill_send_buffer(&mut self, now: SimTime) {
        if self.config.send_buffer.is_some() {
            self.refill_held_send_buffer(now);
        }
    }

    #[inline(never)]
    fn refill_held_send_buffer(&mut self, now: SimTime) {
        let before = self.data_end;
        let held = self.buffered_data_end(before);
        if held <= before {
            return;
        }
        // Awake: the writer's data that TCP sends at once does not count against the buffer.
        let buffer = whole_segments(self.config.send_buffer.unwrap_or(0), self.config.mss);
        let end = woken_writer_end(self.board.snd_una(), buffer, self.sent_at_once_end(now));
        self.data_end = held.max(end.min(self.app_end));
        self.app_limited_after = self.woken_writer_finds_flight_app_limited(now, before);
    }

    /// The end of the new data TCP would send at once from `snd_nxt`, if the application
    /// wrote without end now: what the congestion window and the receiver's window leave
    /// room for, at most one TSO/GSO packet for a paced sender (none while the pacer waits),
    /// and what TCP Small Queues lets go to the NIC (none while it holds the socket back).
    /// A sender host with a NIC (the default) has TSQ hold an unpaced burst and the writer
    /// with it; with `small_queues = false` (a TUN device, as under `cclab emulate`, whose
    /// driver orphans each packet as it takes it) TSQ never holds the sender, and its writer
    /// runs on to what the window allows (validation/linux.md, group 2). Pending
    /// retransmissions, which would go first, are left out.
    fn sent_at_once_end(&self, now: SimTime) -> u64 {
        let (snd_una, snd_nxt) = (self.board.snd_una(), self.board.snd_nxt());
        let mss = self.config.mss;
        let window_room = self.window().saturating_sub(self.pipe());
        let peer_room = snd_una
            .saturating_add(self.receive_window())
            .saturating_sub(snd_nxt);
        let paced = match self.pacing_rate() {
            Some(_) if now < self.next_send_time => 0,
            Some(rate) => tso_packet(rate, mss),
            None => u64::MAX,
        };
        let small_queues = match &self.small_queues {
            None => u64::MAX,
            Some(_) if self.small_queues_hold(now, false).is_some() => 0,
            Some(host) => {
                // The NIC takes packets while its backlog is within the limit: the limit's
                // worth of wire packets and one more.
                let rate = self
                    .controller_pacing_rate()
                    .or_else(|| self.default_pacing_rate());
                (host.limit(rate) / (mss + self.config.header_bytes) + 1) * mss
            }
        };
        let at_once = window_room.min(peer_room).min(paced).min(small_queues);
        // Whole segments: the sender sends only full ones while more data follows.
        snd_nxt.saturating_add(at_once / mss * mss)
    }

    /// The woken writer's next call runs `tcp_rate_check_app_limited` after TCP has sent the
    /// call it slept in: a segment of `len` bytes at `seq` that carries data past that call
    /// was written after the check (Nagle held back a partial segment at the call's end), so
    /// the flight as it leaves (`pipe`, the earlier call's data included) is marked
    /// application-limited, and this segment with it.
    #[cold]
    pub(super) fn check_app_limited_after_remainder(&mut self, seq: u64, len: u32, pipe: u64) {
        if self
            .app_limited_after
            .is_some_and(|end| seq + len as u64 > end)
        {
            self.app_limited_after = None;
            self.rate.mark_app_limited(pipe);
        }
    }

    /// Linux `tcp_rate_check_app_limited` at the start of the woken writer's next call
    /// (draft-cheng §3.4): the writer slept in a call that had written up to `before`; it
    /// finishes that call, and TCP sends what it may of it at once. If the next call will
    /// find the flight application-limited, returns where that call's data begins (the
    /// mark is made when the sender gets there, `check_app_limited_after_remainder`).
    fn woken_writer_finds_flight_app_limited(&self, now: SimTime, before: u64) -> Option<u64> {
        let remainder_end = write_call_end(before);
        if remainder_end >= self.data_end {
            // The writer sleeps again within the call: no next call, no check.
            return None;
        }
        let unsent = remainder_end.saturating_sub(self.board.snd_nxt());
        let at_once = match self.pacing_rate() {
            // The pacer is still spacing earlier packets: nothing leaves now.
            Some(_) if now < self.next_send_time => 0,
            Some(rate) => tso_packet(rate, self.config.mss),
            // Unpaced, TCP sends all the window allows.
            None => u64::MAX,
        };
        let window = self.window();
        next_call_finds_app_limited(unsent, at_once, self.pipe(), window, self.config.mss)
            .then_some(remainder_end)
    }

    /// The sender ran out of data because the buffer is full and the writer sleeps, not
    /// because the application has no more: Linux marks nothing then (the check runs when
    /// the application writes), so neither does the model.
    pub(super) fn is_buffer_limited(&self) -> bool {
        self.data_end < self.app_end
    }
}

#[cfg(test)]
mod tests {
    use cclab_cc::SimDuration;
    use cclab_scenario::Recovery;

    use crate::tcp::sender::Sender;
    use crate::tcp::sender::tests::{MSS, ack, at, sender};

    /// A SACK sender (initial window 10) with a send buffer of `buffer` bytes and, if
    /// given, a flow of `size` bytes, as `Sender::new` would set it up.
    fn buffered(buffer: u64, size: Option<u64>) -> Sender {
        let mut s = sender(Recovery::Sack);
        s.config.send_buffer = Some(buffer);
        s.config.size = size;
        s.app_end = size.unwrap_or(u64::MAX);
        s.data_end = s.buffered_data_end(0);
        s
    }

    /// `buffered`, with the receiver's window as large as the buffer: TCP cannot send more
    /// than the buffer's worth at once, so data the writer wrote past it would wait in the
    /// socket, and the buffer holds the writer (as Linux's `sk_stream_memory_free` does
    /// when the write queue's tail is full).
    fn held(buffer: u64) -> Sender {
        let mut s = buffered(buffer, None);
        s.config.receive_window = Some(buffer);
        s
    }

    /// The sequence numbers of `out`.
    fn seqs(out: &[crate::packet::Packet]) -> Vec<u64> {
        out.iter().map(|p| p.seq).collect()
    }

    #[test]
    fn the_writer_fills_the_buffer_and_refills_it_at_two_thirds() {
        // A 6-segment buffer under the initial window of 10: the sender sends the 6
        // segments the application could write.
        let mut s = held(6 * MSS);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(out.len(), 6, "the buffer's 6 segments, not the window's 10");
        out.clear();
        // 1 segment acknowledged: 5 of 6 queued, more than 2/3 · 6 = 4: the writer sleeps.
        s.on_ack(at(100), &ack(MSS, &[]), &mut out);
        assert!(out.is_empty(), "queued 5 > 4: nothing new written");
        // 2 acknowledged: 4 queued ≤ 4, the writer wakes and fills the buffer to
        // snd_una + 6 = 8 segments: segments 6 and 7 go out.
        s.on_ack(at(101), &ack(2 * MSS, &[]), &mut out);
        assert_eq!(seqs(&out), [6 * MSS, 7 * MSS]);
    }

    #[test]
    fn an_unpaced_writer_whose_window_is_open_is_not_held_by_the_buffer() {
        // Linux's tcp_sendmsg_locked checks sk_sndbuf only when a write needs a new skb; a
        // write TCP sends at once leaves less than a segment in the tail skb, and the next
        // write is appended to it unchecked (validation/linux.md, group 2: bpftrace of the
        // kernel's Reno saw sk_wmem_queued reach 11.1 MB with a 4 MiB sk_sndbuf). The same
        // 6-segment buffer, but the receiver's window is unlimited and the sender unpaced,
        // without a NIC queue: the writer still sleeps until two thirds of the buffer are
        // free, but once woken it writes as long as TCP sends, and the whole window leaves.
        let mut s = buffered(6 * MSS, None);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(out.len(), 6, "the first fill is the buffer's");
        out.clear();
        s.on_ack(at(100), &ack(MSS, &[]), &mut out);
        assert!(out.is_empty(), "queued 5 > 4: the writer still sleeps");
        // Woken with 4 segments in flight and a window of 12 (slow start: 10 + 2): TCP sends
        // the 8 segments the window has room for as they are written, past snd_una + 6.
        s.on_ack(at(101), &ack(2 * MSS, &[]), &mut out);
        assert_eq!(s.window(), 12 * MSS);
        assert_eq!(seqs(&out), (6..14).map(|k| k * MSS).collect::<Vec<_>>());
        assert_eq!(
            s.pipe(),
            12 * MSS,
            "the flight is the window, twice the buffer"
        );
    }

    #[test]
    fn tcp_small_queues_hold_the_writer_at_the_buffer_again() {
        // The same writer on a host whose NIC queue TCP Small Queues limits (1 Gbit/s; after
        // the first RTT sample the limit is two packets, Linux's default pacing rate being
        // 2 · 11 000 B / 100 ms = 1.76 Mbit/s, whose millisecond is less): TCP sends only
        // what the NIC may take at once, the limit's two packets and one more, and the rest
        // would wait in the socket, so the writer blocks one segment past the buffer's
        // snd_una + 6 = 8 segments, not at the window's 14.
        let mut s = buffered(6 * MSS, None);
        s.small_queues = Some(crate::tcp::small_queues::SmallQueues::new(
            1_000_000_000,
            MSS + 40,
        ));
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        out.clear();
        s.on_ack(at(100), &ack(MSS, &[]), &mut out);
        s.on_ack(at(101), &ack(2 * MSS, &[]), &mut out);
        assert_eq!(s.data_end, 9 * MSS);
        assert_eq!(seqs(&out), [6 * MSS, 7 * MSS, 8 * MSS]);
    }

    /// An unlimited bulk sender (no send buffer) after its initial window of 10 segments
    /// (sent at 0) is acknowledged at once at 100 ms, whose sender's host has a 1 Gbit/s
    /// NIC kept by TCP Small Queues (`small_queues`) or a device that takes every packet at
    /// once (`small_queues = false`, a TUN device: `nic_rate_bps` = `None`). Returns the
    /// sender and the segments the ACK released.
    fn window_opened_at_once(small_queues: bool) -> (Sender, Vec<crate::packet::Packet>) {
        let mut s = sender(Recovery::Sack);
        if small_queues {
            s.small_queues = Some(crate::tcp::small_queues::SmallQueues::new(
                1_000_000_000,
                MSS + s.config.header_bytes,
            ));
        }
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(
            out.len(),
            10,
            "the initial window leaves at once either way"
        );
        out.clear();
        // Five delayed ACKs of two segments each, all at 100 ms (a compressed ACK train):
        // slow start grows the window by two segments per ACK (RFC 3465, L = 2), to 20.
        for k in 1..=5 {
            s.on_ack(at(100), &ack(2 * k * MSS, &[]), &mut out);
        }
        assert_eq!(s.window(), 20 * MSS);
        (s, out)
    }

    #[test]
    fn a_host_without_small_queues_hands_the_whole_window_to_its_link_at_once() {
        // tun_net_xmit (drivers/net/tun.c) calls skb_orphan on each packet it takes, which
        // runs the skb's destructor (tcp_wfree) and takes its truesize out of the socket's
        // sk_wmem_alloc: tcp_small_queue_check (net/ipv4/tcp_output.c) never finds more
        // than its limit waiting, so TCP sends all the window allows. The window of 20 is
        // open and nothing is in flight: all 20 segments leave at 100 ms.
        let (s, out) = window_opened_at_once(false);
        assert_eq!(seqs(&out), (10..30).map(|k| k * MSS).collect::<Vec<_>>());
        assert_eq!(s.pipe(), s.window());
    }

    #[test]
    fn tcp_small_queues_hold_the_same_window_at_the_limit() {
        // With a NIC, tcp_small_queue_check stops tcp_write_xmit once more than its limit
        // waits there: max(2 packets, 1 ms of the pacing rate). The pacing rate is Linux's
        // default, 200 % × cwnd / srtt in slow start: at most 2 × 20 000 B / 100 ms = 400 kB/s,
        // whose millisecond (>> 10: 390 B) is less than two packets, so the limit is 2 × 1040
        // wire bytes. The NIC takes packets while its backlog is within it: the first three
        // leave (the third finds two packets, exactly the limit, waiting), the rest wait in
        // the socket until the NIC has sent one: 1040 B at 1 Gbit/s = 8320 ns.
        let (s, out) = window_opened_at_once(true);
        let wire = MSS + s.config.header_bytes;
        let rate_bps = 2 * 20 * MSS * 8 * 10; // 200 % of cwnd per 100 ms, in bit/s
        let limit = ((rate_bps / 8) >> 10).max(2 * wire);
        assert_eq!(limit, 2 * wire);
        let leave = limit / wire + 1;
        assert_eq!(
            seqs(&out),
            (10..10 + leave).map(|k| k * MSS).collect::<Vec<_>>()
        );
        assert_eq!(s.pipe(), leave * MSS);
        let one_packet = SimDuration::from_nanos(wire * 8);
        assert_eq!(s.send_deadline, Some(at(100) + one_packet));
    }

    #[test]
    fn the_woken_writer_ends_at_the_buffer_or_at_what_tcp_sends_at_once() {
        use super::woken_writer_end as end;
        // The kernel's Reno at 100 Mbit/s × 200 ms (bpftrace, group 2): woken with 2.8 MB
        // written and unacknowledged, a 4 MiB buffer and a window of 10 MB it can send at
        // once: it writes to the window, not to snd_una + 4 MiB.
        let (una, buffer) = (1_000_000, 4_194_304);
        assert_eq!(end(una, buffer, una + 10_000_000), una + 10_000_000);
        // Paced (one 33 304-byte TSO packet at once from snd_nxt = snd_una + 2.8 MB): the
        // buffer binds, as it does for the kernel's BBR.
        assert_eq!(end(una, buffer, una + 2_800_000 + 33_304), una + buffer);
    }

    #[test]
    fn the_woken_writer_marks_the_flight_only_when_it_starts_a_new_write_call() {
        // A 6-segment buffer of 1000-byte segments, unpaced (NewReno): the writer sleeps with
        // 6 segments queued and wakes at 4 (two thirds), refilling 2 segments each time,
        // inside one 64 KiB write() call (65 536 bytes). Linux runs
        // tcp_rate_check_app_limited at the start of a call only (tcp_sendmsg_locked), so
        // nothing is marked while the refills stay inside the call (the earlier version of
        // this model marked every wake-up). The wake-up that refills from 64 000 to 66 000
        // finishes the call at 65 536: TCP sends 64 000..65 000 at once and Nagle holds the
        // 536 bytes after it, less than a segment, so the next call, from 65 536, finds the
        // flight application-limited, and the segment 65 000..66 000 leaves marked. (The
        // receiver's window of 6 segments keeps TCP from sending the writer's data past the
        // buffer at once, so the buffer holds the writer: `held`.)
        let mut s = held(6 * MSS);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        let mut acked = 0;
        for t in 100.. {
            acked += 2 * MSS;
            let before = s.data_end;
            s.on_ack(at(t), &ack(acked, &[]), &mut out);
            let marked = s.rate.on_send(at(t), s.pipe()).app_limited;
            if s.data_end <= 65_536 {
                assert!(!marked, "refill {before}..{} inside the call", s.data_end);
            } else {
                assert_eq!((before, s.data_end), (64_000, 66_000));
                assert!(marked, "the next call found less than a segment unsent");
                return;
            }
        }
    }

    #[test]
    fn a_write_call_ends_at_the_next_64_kib_boundary() {
        // The bulk application's calls cover [k · 65 536, (k + 1) · 65 536).
        assert_eq!(super::write_call_end(0), 65_536);
        assert_eq!(super::write_call_end(100_000), 131_072);
        // Asleep right at a boundary: it slept at the start of the next call, which it
        // writes whole before the one after checks.
        assert_eq!(super::write_call_end(131_072), 196_608);
    }

    #[test]
    fn a_tso_packet_is_a_millisecond_of_the_pacing_rate_within_2_segments_and_64_kib() {
        // tcp_tso_autosize: (rate / 8) >> 10 bytes in whole segments of 1448.
        // BBR's STARTUP at 276 Mbit/s: 34 500 000 >> 10 = 33 691 bytes = 23.3 segments → 23.
        assert_eq!(super::tso_packet(276_000_000, 1448), 23 * 1448);
        // 1 Mbit/s: 125 000 >> 10 = 122 bytes, less than a segment: tcp_min_tso_segs = 2.
        assert_eq!(super::tso_packet(1_000_000, 1448), 2 * 1448);
        // 10 Gbit/s: 1 220 703 bytes, but a GSO packet holds 65 536 bytes: 45 segments.
        assert_eq!(super::tso_packet(10_000_000_000, 1448), 45 * 1448);
    }

    #[test]
    fn the_next_call_finds_the_flight_app_limited_only_if_tcp_sent_the_last_call_whole() {
        use super::next_call_finds_app_limited as check;
        let (mss, burst) = (1448, 23 * 1448); // BBR STARTUP's TSO packet (test above)
        let (pipe, window) = (2_800_000, 7_000_000);
        // A 30 000-byte remainder fits in one 33 304-byte TSO packet: all sent, marked.
        assert!(check(30_000, burst, pipe, window, mss));
        // 40 000 bytes: 6 696 still waiting for the pacer, more than a segment: not marked.
        assert!(!check(40_000, burst, pipe, window, mss));
        // Unpaced, TCP sends the 40 000 at once: marked.
        assert!(!check(40_000, 0, pipe, window, mss));
        assert!(check(40_000, u64::MAX, pipe, window, mss));
        // The window has room for 10 000 of 30 000: cwnd-limited, not application-limited.
        assert!(!check(30_000, burst, window - 10_000, window, mss));
    }

    #[test]
    fn the_buffer_holds_whole_segments() {
        // 4.5 segments: the half segment is not sent (Nagle), one segment at least.
        assert_eq!(super::whole_segments(4 * MSS + MSS / 2, MSS), 4 * MSS);
        assert_eq!(super::whole_segments(MSS / 2, MSS), MSS);
        let mut s = buffered(4 * MSS + MSS / 2, None);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert!(out.len() == 4 && out.iter().all(|p| p.payload as u64 == MSS));
    }

    #[test]
    fn the_buffer_never_goes_past_the_flow_size() {
        let mut s = buffered(8 * MSS, Some(6 * MSS));
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(out.len(), 6);
        out.clear();
        s.on_ack(at(100), &ack(6 * MSS, &[]), &mut out);
        assert!(out.is_empty());
        assert!(s.is_finished());
    }
}

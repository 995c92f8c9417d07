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
//! The buffer's size is fixed (`send_buffer = "4MiB"`) or Linux's auto-tuned `sk_sndbuf`
//! (`send_buffer = "auto"`): `tcp_init_buffer_space` raises it from `tcp_wmem[1]` at
//! establishment, and `tcp_new_space` raises it again each time TCP makes room while the
//! writer waits for it (`tcp_check_space`, with `SOCK_NOSPACE` set), if the flight is below
//! the window (`tcp_should_expand_sndbuf`), to `tcp_sndbuf_expand`'s 2 (BBR: 3) windows of
//! segments of 2304 bytes each, never past `tcp_wmem[2]` (all net/ipv4/tcp_input.c). It never
//! shrinks (memory pressure is not modelled).
//!
//! Linux counts the buffer in memory (`skb->truesize`), `send_buffer_accounting = "payload"`
//! (the default) in payload bytes, `"truesize"` as Linux: each skb charges its payload and
//! 832 bytes (`SKB_TRUESIZE_OVERHEAD`). Linux's writer fills skbs of `tcp_xmit_size_goal` (45
//! segments), and TCP splits each into TSO/GSO packets of the pacing rate as it sends them
//! (`tcp_tso_autosize`, `tso_fragment`: each packet sent is an skb of its own), so the model
//! counts 832 bytes per such packet: the buffer holds `size × packet / (packet + 832)`
//! payload bytes, 2.5 % less than its size for BBR's 23-segment packets in STARTUP at
//! 100 Mbit/s. Not modelled: the write queue skb by skb (the unsent skbs of 45 segments,
//! where the writer stops, the small skbs of slow start, 17–28 % over their payload early in
//! a kernel Reno's), and the skbs that loss recovery splits (`tcp_fragment` for each
//! retransmission of part of an skb, 832 bytes more each), which took the kernel's Reno to
//! 4–7 % over its payload (docs/model.md, "Send buffer").

use cclab_cc::SimTime;
use cclab_scenario::{SendBufferAccounting, SendBufferSize};

use super::Sender;

/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64: 224 bytes (the BTF of Linux 6.18,
/// the validated kernel), rounded up to a 64-byte cache line.
const SK_BUFF: u64 = 256;

/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64 with `MAX_SKB_FRAGS` = 17:
/// 320 bytes (BTF), a multiple of the cache line.
const SKB_SHARED_INFO: u64 = 320;

/// `MAX_TCP_HEADER` = `L1_CACHE_ALIGN(128 + MAX_HEADER)` (include/net/tcp.h), with
/// `MAX_HEADER` = `LL_MAX_HEADER` = 32 in a kernel without WLAN, AX.25, Hyper-V or IP tunnels
/// (include/linux/netdevice.h; the validated kernel's config): 192.
const MAX_TCP_HEADER: u64 = 192;

/// The head of an skb from `tcp_stream_alloc_skb` (net/ipv4/tcp.c): `alloc_skb_fclone
/// (MAX_TCP_HEADER)` asks for 192 + 320 = 512 bytes, which `kmalloc_reserve`
/// (net/core/skbuff.c) takes from `skb_small_head_cache`, whose objects are
/// `SKB_SMALL_HEAD_CACHE_SIZE`: 512 is a power of two, so one cache line more, 576 (later
/// kernels size it from `max(MAX_TCP_HEADER, GRO_MAX_HEAD_PAD)` = 224: 256 + 320 = 576 too).
const SKB_SMALL_HEAD: u64 = 576;

/// What an skb charges to `sk_wmem_queued` besides its payload: `tcp_stream_alloc_skb` sets
/// `truesize` to `SKB_TRUESIZE(skb_end_offset(skb))` = (576 − 320) + 256 + 320 = 832 bytes,
/// and each copy of payload into the skb's page fragments adds its length
/// (`skb_copy_to_page_nocache`). So an skb of `p` payload bytes counts `p + 832`.
pub(super) const SKB_TRUESIZE_OVERHEAD: u64 =
    (SKB_SMALL_HEAD - SKB_SHARED_INFO) + SK_BUFF + SKB_SHARED_INFO;

/// `TCPOLEN_TSTAMP_ALIGNED`: the peer's announced MSS (`rx_opt.mss_clamp`) is the segment's
/// payload plus the 12 bytes of the timestamp option Linux puts in every segment.
const TCP_TIMESTAMP_OPTION: u64 = 12;

/// `TCP_INIT_CWND`: `tcp_sndbuf_expand` provisions at least 10 segments.
const TCP_INIT_CWND: u64 = 10;

/// `tcp_sndbuf_expand`'s memory per segment, the worst case of one skb per segment with a
/// `kmalloc`ed head: `roundup_pow_of_two(mss_clamp + MAX_TCP_HEADER + shared info) + sk_buff`,
/// 2048 + 256 = 2304 bytes for a 1448-byte segment.
fn sndbuf_per_segment(mss: u64) -> u64 {
    (mss + TCP_TIMESTAMP_OPTION + MAX_TCP_HEADER + SKB_SHARED_INFO).next_power_of_two() + SK_BUFF
}

/// The size `tcp_sndbuf_expand` asks for with a window of `cwnd` bytes: `factor` (the
/// module's `sndbuf_expand`, 2 by default) × max(cwnd in segments, `TCP_INIT_CWND`) segments
/// of `sndbuf_per_segment` (Linux also takes `reordering + 1` segments if more: 4 by
/// default, never more here).
fn sndbuf_expand_target(cwnd: u64, factor: u64, mss: u64) -> u64 {
    factor * (cwnd / mss).max(TCP_INIT_CWND) * sndbuf_per_segment(mss)
}

/// `tcp_sndbuf_expand`: the buffer grows to the target, never shrinks, and never passes
/// `max` (`tcp_wmem[2]`).
fn expanded_sndbuf(sndbuf: u64, target: u64, max: u64) -> u64 {
    if sndbuf < target {
        target.min(max)
    } else {
        sndbuf
    }
}

/// The payload a buffer of `memory` bytes holds when the writer fills skbs of `skb_payload`
/// bytes, each charging `SKB_TRUESIZE_OVERHEAD` more (`sk_wmem_queued` in `truesize`).
fn payload_in_truesize(memory: u64, skb_payload: u64) -> u64 {
    memory * skb_payload / (skb_payload + SKB_TRUESIZE_OVERHEAD)
}

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
    /// `sk_sndbuf` when the connection is established: the fixed size, or
    /// `tcp_init_buffer_space`'s `tcp_sndbuf_expand` of `tcp_wmem[1]` with the initial
    /// window; 0 without a buffer.
    pub(super) fn initial_sndbuf(&self) -> u64 {
        match self.config.send_buffer.map(|b| b.size) {
            None => 0,
            Some(SendBufferSize::Fixed(bytes)) => bytes,
            Some(SendBufferSize::Auto { initial, max }) => {
                let target =
                    sndbuf_expand_target(self.window(), self.cc.sndbuf_expand(), self.config.mss);
                expanded_sndbuf(initial, target, max)
            }
        }
    }

    /// `tcp_check_space` → `tcp_new_space` while the writer waits for room (a bulk writer
    /// always does once it has filled the buffer): an auto-tuned buffer grows with the
    /// window if the flight is below it (`tcp_should_expand_sndbuf`).
    fn expand_sndbuf(&mut self) {
        let Some(SendBufferSize::Auto { max, .. }) = self.config.send_buffer.map(|b| b.size) else {
            return;
        };
        // At the cap it can only stay there (most of a long bulk flow): skip the window.
        if self.sndbuf >= max {
            return;
        }
        let window = self.window();
        if !self.is_buffer_limited() || self.pipe() >= window {
            return;
        }
        let target = sndbuf_expand_target(window, self.cc.sndbuf_expand(), self.config.mss);
        self.sndbuf = expanded_sndbuf(self.sndbuf, target, max);
    }

    /// The payload the buffer holds now, in whole segments: its size, less each skb's
    /// overhead when it counts `truesize`; `None` without a buffer.
    fn buffer_payload(&self) -> Option<u64> {
        let buffer = self.config.send_buffer?;
        let payload = match buffer.accounting {
            SendBufferAccounting::Payload => self.sndbuf,
            SendBufferAccounting::Truesize => payload_in_truesize(self.sndbuf, self.skb_payload()),
        };
        Some(whole_segments(payload, self.config.mss))
    }

    /// The payload of the skbs the buffer is counted in: one TSO/GSO packet of the pacing
    /// rate, as TCP splits the writer's skbs when it sends them (module comment), the
    /// controller's or Linux's default rate, which Linux keeps for autosizing whether or not
    /// it paces (`tcp_tso_autosize`; BBR's `bbr_tso_segs_goal`); a full 64 KiB GSO packet
    /// before there is a rate. (Linux adds `gso_max_size >> (min_rtt_us >> 9)` to the bytes,
    /// nothing at RTTs above 16 ms.)
    fn skb_payload(&self) -> u64 {
        let rate = self.kept_pacing_rate().unwrap_or(u64::MAX / 2);
        tso_packet(rate, self.config.mss)
    }

    /// The end of the data the application has written and the buffer holds: what
    /// `data_end` is, given the application's own end `app_end`.
    pub(super) fn buffered_data_end(&self, current: u64) -> u64 {
        self.buffer_payload()
            .map_or(self.app_end, |buffer| self.held_data_end(buffer, current))
    }

    /// [`Self::buffered_data_end`] for a buffer that holds `buffer` bytes of payload.
    fn held_data_end(&self, buffer: u64, current: u64) -> u64 {
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
    /// The test for a buffer at all is inlined into the ACK paths: most flows have none (all
    /// of `stack = "linux"`'s have one), and
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
        // `tcp_new_space` grows an auto-tuned buffer before it wakes the writer.
        self.expand_sndbuf();
        let Some(buffer) = self.buffer_payload() else {
            return;
        };
        let before = self.data_end;
        let held = self.held_data_end(buffer, before);
        if held <= before {
            return;
        }
        // Awake: the writer's data that TCP sends at once does not count against the buffer.
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
                (host.limit(self.kept_pacing_rate()) / (mss + self.config.header_bytes) + 1) * mss
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
    use cclab_scenario::{Recovery, SendBuffer, SendBufferAccounting, SendBufferSize};

    use crate::tcp::sender::Sender;
    use crate::tcp::sender::tests::{MSS, ack, at, sender};

    /// A SACK sender (initial window 10) with a send buffer of `buffer` bytes and, if
    /// given, a flow of `size` bytes, as `Sender::new` would set it up.
    fn buffered(buffer: u64, size: Option<u64>) -> Sender {
        let mut s = sender(Recovery::Sack);
        s.config.send_buffer = Some(SendBuffer {
            size: SendBufferSize::Fixed(buffer),
            accounting: SendBufferAccounting::Payload,
        });
        s.sndbuf = s.initial_sndbuf();
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

    /// A bulk SACK sender (initial window 10 segments of 1000 bytes) over Reno with a buffer
    /// auto-tuned as Linux's (`tcp_wmem` = 4096 16384 `max`), counted as `accounting`.
    fn auto_tuned(max: u64, accounting: SendBufferAccounting) -> Sender {
        let mut s = sender(Recovery::Sack);
        s.config.send_buffer = Some(SendBuffer {
            size: SendBufferSize::Auto {
                initial: 16_384,
                max,
            },
            accounting,
        });
        s.sndbuf = s.initial_sndbuf();
        s.data_end = s.buffered_data_end(0);
        s
    }

    /// `tcp_sndbuf_expand`'s size for a window of `cwnd_segments`: `factor` × max(cwnd,
    /// `TCP_INIT_CWND` = 10) × `per_mss`, with `per_mss` = `roundup_pow_of_two(mss_clamp +
    /// MAX_TCP_HEADER + SKB_DATA_ALIGN(sizeof(skb_shared_info)))` +
    /// `SKB_DATA_ALIGN(sizeof(sk_buff))` for x86-64 Linux 6.18: a 1000-byte segment (1012 with
    /// the timestamp option) gives 1012 + 192 + 320 = 1524 → 2048, + 256 = 2304 bytes.
    fn linux_sndbuf(cwnd_segments: u64, factor: u64) -> u64 {
        let per_mss = (1012u64 + 192 + 320).next_power_of_two() + 256;
        assert_eq!(per_mss, 2304);
        factor * cwnd_segments.max(10) * per_mss
    }

    #[test]
    fn tcp_sndbuf_expand_provisions_2304_bytes_per_segment_for_1448_byte_segments_too() {
        // The grid's 1448-byte segments, announced as 1460: 1460 + 192 + 320 = 1972 → 2048.
        assert_eq!(super::sndbuf_per_segment(1448), 2304);
        assert_eq!(super::sndbuf_per_segment(MSS), 2304);
        // BBR provisions three windows (bbr_sndbuf_expand), the rest two: at establishment
        // (cwnd 10) 69 120 and 46 080 bytes, both above tcp_wmem[1] = 16 384.
        assert_eq!(super::sndbuf_expand_target(10 * 1448, 3, 1448), 69_120);
        assert_eq!(super::sndbuf_expand_target(10 * 1448, 2, 1448), 46_080);
        // And at the 4 MiB cap from a window of 910 segments (607 for BBR) on.
        assert_eq!(4_194_304 / (2 * 2304), 910);
        assert_eq!(4_194_304 / (3 * 2304), 606);
    }

    #[test]
    fn the_auto_tuned_buffer_is_sized_at_establishment_from_the_initial_window() {
        // tcp_init_buffer_space: sk_sndbuf = tcp_wmem[1] = 16 384 until tcp_sndbuf_expand
        // raises it to two windows of the initial 10 segments (Reno has no sndbuf_expand).
        let s = auto_tuned(4 << 20, SendBufferAccounting::Payload);
        assert_eq!(s.window(), 10 * MSS);
        assert_eq!(s.sndbuf, linux_sndbuf(10, 2));
        assert_eq!(s.sndbuf, 46_080);
        // Counted in payload, the writer fills it in whole segments: 46 segments.
        assert_eq!(s.data_end, 46 * MSS);
    }

    #[test]
    fn bbr_provisions_three_windows() {
        let config = cclab_cc::CcConfig::new(MSS);
        let info = cclab_cc::registry::find_algorithm("bbr").expect("BBR is registered");
        let slow_start = cclab_cc::registry::find_slow_start("standard").expect("registered");
        let cc = cclab_cc::registry::build(
            info,
            &cclab_cc::Params::defaults(info.params),
            slow_start,
            &cclab_cc::Params::defaults(slow_start.params),
            &config,
        );
        assert_eq!(cc.sndbuf_expand(), 3, "bbr_sndbuf_expand");
        let mut s = sender(Recovery::Sack);
        s.cc = cc;
        s.config.send_buffer = Some(SendBuffer {
            size: SendBufferSize::Auto {
                initial: 16_384,
                max: 4 << 20,
            },
            accounting: SendBufferAccounting::Payload,
        });
        assert_eq!(s.initial_sndbuf(), linux_sndbuf(s.window() / MSS, 3));
    }

    #[test]
    fn the_buffer_grows_with_the_window_while_the_writer_waits() {
        // tcp_new_space, run on each ACK while the bulk writer waits for room: the window is
        // above the flight, so tcp_sndbuf_expand resizes the buffer to two windows.
        let mut s = auto_tuned(4 << 20, SendBufferAccounting::Payload);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(
            out.len(),
            10,
            "the initial window, below the 46-segment buffer"
        );
        s.on_ack(at(100), &ack(2 * MSS, &[]), &mut out);
        assert_eq!(s.window(), 12 * MSS, "slow start: 10 + 2");
        // 12 segments, more than TCP_INIT_CWND's 10: 2 × 12 × 2304.
        assert_eq!(s.sndbuf, linux_sndbuf(12, 2));
        // Each further ACK of slow start: two windows of the window it grew to.
        for k in 2..=6 {
            s.on_ack(at(100 + k), &ack(2 * k * MSS, &[]), &mut out);
            assert_eq!(s.sndbuf, linux_sndbuf(s.window() / MSS, 2), "ACK {k}");
        }
        assert_eq!(s.window(), 22 * MSS);
    }

    #[test]
    fn a_full_window_does_not_grow_the_buffer() {
        // tcp_should_expand_sndbuf: no growth while the flight fills the window. A duplicate
        // ACK (SACK of one segment) leaves pipe at the window of 12 after the first ACK's
        // segments left, so the buffer keeps its size.
        let mut s = auto_tuned(4 << 20, SendBufferAccounting::Payload);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        s.on_ack(at(100), &ack(2 * MSS, &[]), &mut out);
        assert_eq!(s.pipe(), s.window(), "the window is full");
        s.sndbuf = 0; // a buffer that would grow if it were asked to
        s.expand_sndbuf();
        assert_eq!(s.sndbuf, 0, "not resized while the flight fills the window");
    }

    #[test]
    fn the_auto_tuned_buffer_never_passes_tcp_wmem_max() {
        // A cap of 100 000 bytes: slow start takes the window past 2 × 22 segments of 2304
        // bytes within a few rounds; the buffer stops at the cap and stays there.
        let max = 100_000;
        let mut s = auto_tuned(max, SendBufferAccounting::Payload);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        let mut acked = 0;
        for t in 100..400 {
            acked += MSS;
            s.on_ack(at(t), &ack(acked, &[]), &mut out);
            assert!(s.sndbuf <= max, "{} at cwnd {}", s.sndbuf, s.window());
        }
        assert!(s.window() > 2 * max, "the window outgrew the buffer");
        assert_eq!(s.sndbuf, max, "at the cap");
    }

    #[test]
    fn an_skb_charges_its_payload_and_832_bytes() {
        // tcp_stream_alloc_skb: a 576-byte head from skb_small_head_cache, of which the
        // shared info takes 320, so skb_end_offset = 256, and SKB_TRUESIZE(256) = 256 +
        // SKB_DATA_ALIGN(sizeof(sk_buff) = 224) + SKB_DATA_ALIGN(sizeof(skb_shared_info) =
        // 320) = 832; each byte of payload copied to a page fragment adds one.
        assert_eq!(super::SKB_TRUESIZE_OVERHEAD, 256 + 256 + 320);
        let truesize = |segments: u64| segments * 1448 + 832;
        // A buffer of n skbs of k segments holds exactly their payload.
        for k in [1, 2, 23, 45] {
            let n = 100;
            assert_eq!(
                super::payload_in_truesize(n * truesize(k), k * 1448),
                n * k * 1448
            );
        }
        // What the buffer charges above the payload: 2.5 % for BBR's 23-segment packets in
        // STARTUP at 276 Mbit/s (`ss -tmi` measured 2–3 %, docs/model.md), 1.3 % for 64 KiB
        // GSO packets, 29 % for two-segment ones.
        let overhead = |k: u64| 832.0 / (k * 1448) as f64;
        assert!((overhead(23) - 0.025).abs() < 0.001);
        assert!((overhead(45) - 0.0128).abs() < 0.001);
        assert!((overhead(2) - 0.287).abs() < 0.001);
    }

    #[test]
    fn truesize_accounting_holds_the_payload_of_the_skbs_that_fit() {
        // Unpaced and before any RTT sample, the writer fills 64 KiB GSO skbs: 65 segments of
        // 1000 bytes (tso_packet), each charging 65 000 + 832 bytes. A 4 MiB buffer then
        // holds 4 194 304 × 65 000 / 65 832 bytes of payload, in whole segments.
        let mut s = buffered(4 << 20, None);
        s.config.send_buffer = Some(SendBuffer {
            size: SendBufferSize::Fixed(4 << 20),
            accounting: SendBufferAccounting::Truesize,
        });
        assert_eq!(s.skb_payload(), 65 * MSS);
        let payload = (4u64 << 20) * 65_000 / 65_832;
        assert_eq!(s.buffered_data_end(0), payload / MSS * MSS);
        assert!(s.buffered_data_end(0) < 4 << 20);
    }
}

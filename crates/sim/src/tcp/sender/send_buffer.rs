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
//! Linux counts the buffer in memory (`skb->truesize`: the payload plus about a kilobyte of
//! `sk_buff` per GSO packet of a few to 45 segments), the model in payload bytes: with the
//! same setting the model holds a few percent more payload.

use super::Sender;

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

    /// After an ACK moved `snd_una`: the writer refills the buffer if it may.
    #[inline]
    pub(super) fn refill_send_buffer(&mut self) {
        if self.config.send_buffer.is_none() {
            return;
        }
        let before = self.data_end;
        self.data_end = self.buffered_data_end(before);
        // Linux `tcp_rate_check_app_limited`, which `tcp_sendmsg` calls as the woken writer
        // writes: the flight is application-limited if less than a segment was waiting to
        // be sent and the window was not what held it back (draft-cheng §3.4). While the
        // writer sleeps nothing marks the flight: see `is_buffer_limited`.
        if self.data_end > before
            && before.saturating_sub(self.board.snd_nxt()) < self.config.mss
            && self.pipe() < self.window()
        {
            self.rate.mark_app_limited(self.pipe());
        }
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

    #[test]
    fn the_writer_fills_the_buffer_and_refills_it_at_two_thirds() {
        // A 6-segment buffer under the initial window of 10: the sender sends the 6
        // segments the application could write.
        let mut s = buffered(6 * MSS, None);
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
        assert_eq!(
            out.iter().map(|p| p.seq).collect::<Vec<_>>(),
            [6 * MSS, 7 * MSS]
        );
    }

    #[test]
    fn the_woken_writer_marks_the_flight_application_limited() {
        let mut s = buffered(4 * MSS, None);
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        assert_eq!(out.len(), 4);
        // A full buffer with the writer asleep marks nothing (Linux checks when the
        // application writes).
        assert!(!s.rate.on_send(at(1), s.pipe()).app_limited);
        // Two segments acknowledged: 2 queued ≤ 2/3 · 4, the writer wakes with nothing left
        // unsent and a window (10 + 2 in slow start) the flight does not fill:
        // tcp_rate_check_app_limited marks the flight (draft-cheng §3.4).
        s.on_ack(at(100), &ack(2 * MSS, &[]), &mut out);
        assert!(s.rate.on_send(at(101), s.pipe()).app_limited);
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

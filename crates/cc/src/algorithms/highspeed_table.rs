//! The HighSpeed TCP response table, RFC 3649 Appendix B, shared by `highspeed` and
//! `africa` (TCP-Africa's fast mode and its decrease are HighSpeed TCP's).
//!
//! RFC 3649 §5 defines, for a window of w segments above Low_Window = 38:
//! `b(w) = (High_Decrease - 0.5) (log w - log Low_W)/(log High_W - log Low_W) + 0.5`,
//! `p(w) = exp(S (log w - log Low_W) + log Low_P)` with
//! `S = (log High_P - log Low_P)/(log High_W - log Low_W)`, and
//! `a(w) = w^2 p(w) 2 b(w)/(2 - b(w))`, where High_W = 83000, High_P = 1e-7,
//! High_Decrease = 0.1 and Low_P = 1.5/Low_W^2 (Reno's response function at Low_W).
//! Appendix B tabulates them: row i gives the window w_i, the integer increase a and the
//! decrease b (two decimals). The rows below are that table as Linux's tcp_highspeed.c
//! carries it (72 rows, up to w = 89053); Linux stores b as a fraction of 256, we keep the
//! RFC's two-decimal value.
//!
//! Lookup follows Linux: a window of w segments uses the first row with w <= w_i (so
//! w <= 38 gives Reno's a = 1, b = 0.5, and 39..=118 gives a = 2, b = 0.44); windows above
//! the last row use the last row.

/// One row of RFC 3649 Appendix B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HighSpeedRow {
    /// Largest window (segments) the row applies to.
    pub max_window: u64,
    /// Additive increase a(w): segments per RTT, i.e. `cwnd += a(w)/cwnd` per ACK.
    pub a: u32,
    /// Multiplicative decrease b(w): `cwnd <- (1 - b(w)) cwnd` on congestion.
    pub b: f64,
}

const fn row(max_window: u64, a: u32, b: f64) -> HighSpeedRow {
    HighSpeedRow { max_window, a, b }
}

/// RFC 3649 Low_Window: at or below it HighSpeed TCP is Reno (a = 1, b = 0.5).
pub const LOW_WINDOW: u64 = 38;

/// RFC 3649 Appendix B (Linux's copy: rows up to w = 89053).
pub const TABLE: [HighSpeedRow; 72] = [
    row(38, 1, 0.50),
    row(118, 2, 0.44),
    row(221, 3, 0.41),
    row(347, 4, 0.38),
    row(495, 5, 0.37),
    row(663, 6, 0.35),
    row(851, 7, 0.34),
    row(1058, 8, 0.33),
    row(1284, 9, 0.32),
    row(1529, 10, 0.31),
    row(1793, 11, 0.30),
    row(2076, 12, 0.29),
    row(2378, 13, 0.28),
    row(2699, 14, 0.28),
    row(3039, 15, 0.27),
    row(3399, 16, 0.27),
    row(3778, 17, 0.26),
    row(4177, 18, 0.26),
    row(4596, 19, 0.25),
    row(5036, 20, 0.25),
    row(5497, 21, 0.24),
    row(5979, 22, 0.24),
    row(6483, 23, 0.23),
    row(7009, 24, 0.23),
    row(7558, 25, 0.22),
    row(8130, 26, 0.22),
    row(8726, 27, 0.22),
    row(9346, 28, 0.21),
    row(9991, 29, 0.21),
    row(10661, 30, 0.21),
    row(11358, 31, 0.20),
    row(12082, 32, 0.20),
    row(12834, 33, 0.20),
    row(13614, 34, 0.19),
    row(14424, 35, 0.19),
    row(15265, 36, 0.19),
    row(16137, 37, 0.19),
    row(17042, 38, 0.18),
    row(17981, 39, 0.18),
    row(18955, 40, 0.18),
    row(19965, 41, 0.17),
    row(21013, 42, 0.17),
    row(22101, 43, 0.17),
    row(23230, 44, 0.17),
    row(24402, 45, 0.16),
    row(25618, 46, 0.16),
    row(26881, 47, 0.16),
    row(28193, 48, 0.16),
    row(29557, 49, 0.15),
    row(30975, 50, 0.15),
    row(32450, 51, 0.15),
    row(33986, 52, 0.15),
    row(35586, 53, 0.14),
    row(37253, 54, 0.14),
    row(38992, 55, 0.14),
    row(40808, 56, 0.14),
    row(42707, 57, 0.13),
    row(44694, 58, 0.13),
    row(46776, 59, 0.13),
    row(48961, 60, 0.13),
    row(51258, 61, 0.13),
    row(53677, 62, 0.12),
    row(56230, 63, 0.12),
    row(58932, 64, 0.12),
    row(61799, 65, 0.12),
    row(64851, 66, 0.11),
    row(68113, 67, 0.11),
    row(71617, 68, 0.11),
    row(75401, 69, 0.10),
    row(79517, 70, 0.10),
    row(84035, 71, 0.10),
    row(89053, 72, 0.10),
];

/// The row for a window of `w_segments` whole segments (Linux's lookup, see module doc).
pub fn row_for(w_segments: u64) -> &'static HighSpeedRow {
    let index = TABLE.partition_point(|row| row.max_window < w_segments);
    // partition_point returns TABLE.len() when w is above every row: use the last row.
    &TABLE[index.min(TABLE.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 3649 §5 constants.
    const LOW_W: f64 = 38.0;
    const HIGH_W: f64 = 83_000.0;
    const HIGH_P: f64 = 1e-7;
    const HIGH_DECREASE: f64 = 0.1;

    fn b_formula(w: f64) -> f64 {
        (HIGH_DECREASE - 0.5) * (libm::log(w) - libm::log(LOW_W))
            / (libm::log(HIGH_W) - libm::log(LOW_W))
            + 0.5
    }

    fn a_formula(w: f64) -> f64 {
        let low_p = 1.5 / (LOW_W * LOW_W);
        let s = (libm::log(HIGH_P) - libm::log(low_p)) / (libm::log(HIGH_W) - libm::log(LOW_W));
        let p = libm::exp(s * (libm::log(w) - libm::log(LOW_W)) + libm::log(low_p));
        let b = b_formula(w);
        w * w * p * 2.0 * b / (2.0 - b)
    }

    #[test]
    fn table_rows_follow_the_rfc_equations() {
        for (i, row) in TABLE.iter().enumerate() {
            let w = row.max_window as f64;
            // The a column counts up by one per row, starting at Reno's a = 1.
            assert_eq!(row.a as usize, i + 1);
            // b is b(w) rounded to two decimals: within 0.005 of the equation.
            assert!(
                (row.b - b_formula(w)).abs() <= 0.005 + 1e-12,
                "row {i}: b = {} but b({w}) = {}",
                row.b,
                b_formula(w)
            );
            // The table's integer a never exceeds the equation's a(w) at the row's window and
            // lags it by less than 2 segments/RTT (0 at w = 38: a(38) = 1444 * 1.5/1444 * 2 *
            // 0.5/1.5 = 1; 0.09 at w = 118; 1.75 at the last row).
            let lag = a_formula(w) - row.a as f64;
            assert!((-1e-9..2.0).contains(&lag), "row {i}: a(w) - a = {lag}");
        }
        assert_eq!(TABLE[0].max_window, LOW_WINDOW);
        assert!(TABLE.windows(2).all(|r| r[0].max_window < r[1].max_window));
    }

    /// RFC 3649 Appendix B, row by row: (w, a(w), b(w)) as the RFC tabulates them for
    /// Low_Window = 38, High_Window = 83000, High_P = 10^-7, High_Decrease = 0.1; a(w) counts
    /// up by one per row, b(w) has two decimals. Transcribed for this test from the copy of
    /// the appendix in Linux's tcp_highspeed.c (its header: "From AIMD tables from RFC 3649
    /// appendix B"; w and b as its comments give them), the RFC's own text not being in our
    /// sources; the equation test above only bounds the rows loosely (a window 5 % off
    /// still passes it), this one pins each.
    const RFC_3649_APPENDIX_B: [(u64, u32, f64); 72] = [
        (38, 1, 0.50),
        (118, 2, 0.44),
        (221, 3, 0.41),
        (347, 4, 0.38),
        (495, 5, 0.37),
        (663, 6, 0.35),
        (851, 7, 0.34),
        (1058, 8, 0.33),
        (1284, 9, 0.32),
        (1529, 10, 0.31),
        (1793, 11, 0.30),
        (2076, 12, 0.29),
        (2378, 13, 0.28),
        (2699, 14, 0.28),
        (3039, 15, 0.27),
        (3399, 16, 0.27),
        (3778, 17, 0.26),
        (4177, 18, 0.26),
        (4596, 19, 0.25),
        (5036, 20, 0.25),
        (5497, 21, 0.24),
        (5979, 22, 0.24),
        (6483, 23, 0.23),
        (7009, 24, 0.23),
        (7558, 25, 0.22),
        (8130, 26, 0.22),
        (8726, 27, 0.22),
        (9346, 28, 0.21),
        (9991, 29, 0.21),
        (10661, 30, 0.21),
        (11358, 31, 0.20),
        (12082, 32, 0.20),
        (12834, 33, 0.20),
        (13614, 34, 0.19),
        (14424, 35, 0.19),
        (15265, 36, 0.19),
        (16137, 37, 0.19),
        (17042, 38, 0.18),
        (17981, 39, 0.18),
        (18955, 40, 0.18),
        (19965, 41, 0.17),
        (21013, 42, 0.17),
        (22101, 43, 0.17),
        (23230, 44, 0.17),
        (24402, 45, 0.16),
        (25618, 46, 0.16),
        (26881, 47, 0.16),
        (28193, 48, 0.16),
        (29557, 49, 0.15),
        (30975, 50, 0.15),
        (32450, 51, 0.15),
        (33986, 52, 0.15),
        (35586, 53, 0.14),
        (37253, 54, 0.14),
        (38992, 55, 0.14),
        (40808, 56, 0.14),
        (42707, 57, 0.13),
        (44694, 58, 0.13),
        (46776, 59, 0.13),
        (48961, 60, 0.13),
        (51258, 61, 0.13),
        (53677, 62, 0.12),
        (56230, 63, 0.12),
        (58932, 64, 0.12),
        (61799, 65, 0.12),
        (64851, 66, 0.11),
        (68113, 67, 0.11),
        (71617, 68, 0.11),
        (75401, 69, 0.10),
        (79517, 70, 0.10),
        (84035, 71, 0.10),
        (89053, 72, 0.10),
    ];

    #[test]
    fn table_is_rfc_3649_appendix_b_row_by_row() {
        assert_eq!(TABLE.len(), RFC_3649_APPENDIX_B.len());
        for (i, (row, &(w, a, b))) in TABLE.iter().zip(&RFC_3649_APPENDIX_B).enumerate() {
            assert_eq!(
                (row.max_window, row.a, row.b),
                (w, a, b),
                "row {i} differs from RFC 3649 Appendix B"
            );
        }
    }

    #[test]
    fn lookup_uses_the_first_row_at_or_above_the_window() {
        // Reno regime: w <= Low_Window = 38.
        for w in [0, 1, 10, 38] {
            assert_eq!((row_for(w).a, row_for(w).b), (1, 0.50));
        }
        // (38, 118] -> row 2; (118, 221] -> row 3.
        assert_eq!((row_for(39).a, row_for(39).b), (2, 0.44));
        assert_eq!((row_for(118).a, row_for(118).b), (2, 0.44));
        assert_eq!((row_for(119).a, row_for(119).b), (3, 0.41));
        // w = 1000 lies in (851, 1058]: a = 8, b = 0.33.
        assert_eq!((row_for(1000).a, row_for(1000).b), (8, 0.33));
        // w = 10 000 lies in (9991, 10661]: a = 30, b = 0.21.
        assert_eq!((row_for(10_000).a, row_for(10_000).b), (30, 0.21));
        // Beyond the last row (89053) the last row applies.
        assert_eq!((row_for(89_053).a, row_for(89_053).b), (72, 0.10));
        assert_eq!((row_for(1_000_000).a, row_for(1_000_000).b), (72, 0.10));
    }
}

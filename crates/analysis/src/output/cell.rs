//! One CSV cell's text, formatted without `core::fmt`: integers with `itoa`, floats with
//! `ryu`, each into a stack buffer. The text is exactly `Display`'s (what `to_string` gave
//! before, so every output file stays byte for byte the same); formatting the cells of a
//! time-series row through `fmt::Write` cost about 4 000 instructions a row, most of it
//! `core::fmt`'s machinery around the digits.
//!
//! Floats: `Display` for `f64` prints the shortest decimal that round-trips, never with an
//! exponent and without a fractional part when there is none ("1", "0.5", "-0",
//! "10000000000000000", "0.0000001"). Ryu (Adams, PLDI 2018) computes the same shortest,
//! closest digits, but its text differs in form: "1.0" for 1, and an exponent outside
//! 1e-5 ≤ |v| < 1e16 ("1e16", "1e-7"). A trailing ".0" is dropped; an exponent sends the value
//! back to `Display` (rare in these files: times, milliseconds, ratios). "NaN", "inf" and
//! "-inf" are the same in both. And the two break a tie differently: when the value lies
//! exactly halfway between the two closest shortest decimals, Ryu takes the even one and
//! `core`'s Grisu/Dragon the one above (-1149636667324797.25: "…797.2" against "…797.3").
//! A tie needs the value's exact decimal expansion to be one digit longer than the shortest,
//! so at most 18 significant digits; [`may_be_a_tie`] sends every such value to `Display`
//! (a few fractional bits on a short significand: none of the times in nanoseconds divided
//! by 10⁹ or 10⁶ that the files hold). `tests` compares the two on values of the files'
//! shapes and on random bit patterns.

use std::fmt::Write as _;

/// A cell of a CSV record.
#[derive(Clone, Copy, Debug)]
pub(super) enum Cell<'a> {
    /// An absent value: an empty cell.
    Empty,
    Int(u64),
    Float(f64),
    /// A time or duration in nanoseconds, written as `Display` writes `nanos as f64 / 10^9`
    /// (seconds: `SimTime::as_secs_f64`) ...
    Seconds(u64),
    /// ... or `nanos as f64 / 10^6` (milliseconds: `SimDuration::as_millis_f64`).
    Millis(u64),
    Text(&'a str),
    Bool(bool),
}

impl From<u64> for Cell<'_> {
    fn from(v: u64) -> Self {
        Cell::Int(v)
    }
}

impl From<u32> for Cell<'_> {
    fn from(v: u32) -> Self {
        Cell::Int(v.into())
    }
}

impl From<f64> for Cell<'_> {
    fn from(v: f64) -> Self {
        Cell::Float(v)
    }
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(v: &'a str) -> Self {
        Cell::Text(v)
    }
}

impl From<bool> for Cell<'_> {
    fn from(v: bool) -> Self {
        Cell::Bool(v)
    }
}

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Empty, Into::into)
    }
}

/// Below this many nanoseconds (46 days) a time's decimal digits are its shortest text: see
/// [`CellFormatter::decimal`].
const EXACT_DECIMAL_BELOW_NANOS: u64 = 4_000_000_000_000_000;

/// Buffers reused from cell to cell and row to row.
#[derive(Default)]
pub(super) struct CellFormatter {
    int: itoa::Buffer,
    float: ryu::Buffer,
    /// `Display`'s text of a float whose Ryu form has an exponent.
    fallback: String,
    /// The text of a time (`Seconds`, `Millis`).
    decimal: Vec<u8>,
}

impl CellFormatter {
    /// The cell's text, as `Display` writes it (`Empty`: nothing).
    pub(super) fn text<'s>(&'s mut self, cell: &Cell<'s>) -> &'s [u8] {
        match *cell {
            Cell::Empty => b"",
            Cell::Int(v) => self.int.format(v).as_bytes(),
            Cell::Float(v) => {
                let text = self.float.format(v);
                if text.as_bytes().contains(&b'e') || may_be_a_tie(v) {
                    self.fallback.clear();
                    // Writing into a String cannot fail.
                    let _ = write!(self.fallback, "{v}");
                    return self.fallback.as_bytes();
                }
                text.strip_suffix(".0").unwrap_or(text).as_bytes()
            }
            Cell::Seconds(nanos) => self.decimal(nanos, 1_000_000_000, 9),
            Cell::Millis(nanos) => self.decimal(nanos, 1_000_000, 6),
            Cell::Text(v) => v.as_bytes(),
            Cell::Bool(v) => {
                if v {
                    b"true"
                } else {
                    b"false"
                }
            }
        }
    }
}

impl CellFormatter {
    /// `nanos / unit` (`unit` = 10^`digits`) as `Display` writes the `f64` nearest to it:
    /// the quotient's decimal digits, trailing zeros and a bare point dropped. `nanos as
    /// f64 / unit as f64` is the double nearest to x = nanos / unit (the conversion is exact
    /// below 2⁵³ and the division correctly rounded), so x lies in the double's rounding
    /// interval, and `Display`'s shortest, closest decimal is x itself unless a decimal with
    /// fewer digits lies in the interval too. Any such decimal is at least 10^-`digits` from
    /// x, and the interval is one ulp wide: below 2²² s (or 2³² ms) an ulp is under 2⁻³⁰ s
    /// (2⁻²⁰ ms), less than 10⁻⁹ s (10⁻⁶ ms), so none can be. Longer times take `ryu`'s path.
    fn decimal(&mut self, nanos: u64, unit: u64, digits: usize) -> &[u8] {
        if nanos >= EXACT_DECIMAL_BELOW_NANOS {
            let value = nanos as f64 / unit as f64;
            return self.text(&Cell::Float(value));
        }
        let whole = self.int.format(nanos / unit).as_bytes();
        let fraction = nanos % unit;
        let text = &mut self.decimal;
        text.clear();
        text.extend_from_slice(whole);
        if fraction != 0 {
            text.push(b'.');
            let start = text.len();
            let mut rest = fraction;
            text.resize(start + digits, b'0');
            for place in text[start..].iter_mut().rev() {
                *place = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            while text.last() == Some(&b'0') {
                text.pop();
            }
        }
        text
    }
}

/// Whether `v`'s exact decimal expansion has at most 18 significant digits and a fractional
/// part, the only values whose shortest representation can be a tie (see the module's
/// text). An integer cannot be one: below 2⁵³ it prints exactly, and from 2⁵³ to 10¹⁶ (above,
/// the exponent form already goes to `Display`) it is even, so its expansion does not end
/// in 5.
fn may_be_a_tie(v: f64) -> bool {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i64;
    if biased == 0x7FF {
        return false; // NaN and infinities: no digits
    }
    let fraction = bits & ((1 << 52) - 1);
    // v = significand · 2^exponent.
    let (significand, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if significand == 0 {
        return false;
    }
    let zeros = significand.trailing_zeros();
    let odd = significand >> zeros;
    // v = odd / 2^k, whose expansion is odd · 5^k with k digits after the point.
    let k = -(exponent + zeros as i64);
    if k <= 0 {
        return false;
    }
    // odd · 5^k ≥ 5^k, and 5^26 > 10^18.
    k <= 25 && (odd as u128) * 5u128.pow(k as u32) < 1_000_000_000_000_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_text(v: f64) -> String {
        let mut f = CellFormatter::default();
        String::from_utf8(f.text(&Cell::Float(v)).to_vec()).unwrap()
    }

    fn assert_display(v: f64) {
        assert_eq!(float_text(v), v.to_string(), "bits {:#x}", v.to_bits());
    }

    #[test]
    fn floats_read_as_display_writes_them_at_the_edges_of_ryus_forms() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            0.1,
            1e15,
            9_999_999_999_999_998.0,
            1e16,
            1.5e16,
            1e17,
            1e21,
            1e22,
            1e300,
            f64::MAX,
            1e-4,
            1.234e-5,
            1e-5,
            9.99e-6,
            1e-6,
            1e-7,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123_456_789.125,
            0.001_234,
            f64::from_bits(0xc310_565a_94b4_e5f5), // a tie: -1149636667324797.25
            1_149_636_667_324_797.5 + 0.25,        // another tie, rounded up by both
            4_503_599_627_370_495.5,
        ] {
            assert_display(v);
        }
    }

    /// Marsaglia's xorshift64 (13, 7, 17): a fixed, reproducible stream of bit patterns.
    fn xorshift(seed: u64) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(seed), |&x| {
            let x = x ^ (x << 13);
            let x = x ^ (x >> 7);
            Some(x ^ (x << 17))
        })
        .skip(1)
    }

    #[test]
    fn floats_of_the_files_shapes_read_as_display_writes_them() {
        // Times in seconds and milliseconds from nanoseconds, and ratios, as the files hold.
        for x in xorshift(0x9E37_79B9_7F4A_7C15).take(200_000) {
            let nanos = x % 10_000_000_000_000;
            assert_display(nanos as f64 / 1e9);
            assert_display(nanos as f64 / 1e6);
            assert_display((x >> 40) as f64 / ((x & 0xFFFF) as f64 + 1.0));
        }
    }

    #[test]
    fn random_bit_patterns_read_as_display_writes_them() {
        for x in xorshift(0x2545_F491_4F6C_DD1D).take(200_000) {
            assert_display(f64::from_bits(x));
        }
    }

    fn assert_time(nanos: u64) {
        let mut f = CellFormatter::default();
        let seconds = String::from_utf8(f.text(&Cell::Seconds(nanos)).to_vec()).unwrap();
        assert_eq!(seconds, (nanos as f64 / 1e9).to_string(), "{nanos} ns in s");
        let millis = String::from_utf8(f.text(&Cell::Millis(nanos)).to_vec()).unwrap();
        assert_eq!(millis, (nanos as f64 / 1e6).to_string(), "{nanos} ns in ms");
    }

    #[test]
    fn times_read_as_display_writes_their_floats() {
        for nanos in [
            0,
            1,
            9,
            10,
            999_999,
            1_000_000,
            1_000_001,
            123_456_789,
            999_999_999,
            1_000_000_000,
            1_000_000_001,
            60_000_000_000,
            3_600_123_456_789,
            EXACT_DECIMAL_BELOW_NANOS - 1,
            EXACT_DECIMAL_BELOW_NANOS,
            EXACT_DECIMAL_BELOW_NANOS + 123,
            (1 << 53) - 1,
            1 << 53,
            u64::MAX,
        ] {
            assert_time(nanos);
        }
        for x in xorshift(0x0123_4567_89AB_CDEF).take(200_000) {
            // Every magnitude up to the bound and past it, round and ragged.
            assert_time(x % EXACT_DECIMAL_BELOW_NANOS);
            assert_time((x >> (x % 64)) / 1000 * 1000);
            assert_time(x >> (x % 64));
        }
    }

    #[test]
    fn integers_texts_and_absent_values() {
        let mut f = CellFormatter::default();
        assert_eq!(
            f.text(&Cell::from(u64::MAX)),
            u64::MAX.to_string().as_bytes()
        );
        assert_eq!(f.text(&Cell::from(0u32)), b"0");
        assert_eq!(f.text(&Cell::from(Some(42u64))), b"42");
        assert_eq!(f.text(&Cell::from(None::<u64>)), b"");
        assert_eq!(f.text(&Cell::from("cubic")), b"cubic");
        assert_eq!(f.text(&Cell::from(true)), b"true");
        assert_eq!(f.text(&Cell::from(false)), b"false");
    }
}

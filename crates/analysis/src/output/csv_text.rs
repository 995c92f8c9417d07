//! CSV text as the `csv` crate writes it with its default settings (RFC 4180: `,` between
//! fields, `\n` after each record, and a field in double quotes, its quotes doubled, when it
//! holds a comma, a quote, `\n` or `\r`), written straight into the file's buffer. The
//! crate's writer costs about 150 instructions a field (its state machine, its own buffer
//! in front of the file's); the output files are nearly all numbers, which never need
//! quotes. `tests` checks the text against the crate's on awkward fields.

use std::io::{self, Write};

/// Bytes that make the `csv` crate quote a field (`csv_core::WriterBuilder::build` with the
/// default delimiter, quote and terminator; `\r` too, which its reader takes as a record's end).
fn needs_quotes(field: &[u8]) -> bool {
    field
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
}

/// Write `field`, preceded by a comma unless it is the record's first.
pub(super) fn write_field(out: &mut impl Write, field: &[u8], first: bool) -> io::Result<()> {
    if !first {
        out.write_all(b",")?;
    }
    if !needs_quotes(field) {
        return out.write_all(field);
    }
    out.write_all(b"\"")?;
    for (i, part) in field.split(|&b| b == b'"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part)?;
    }
    out.write_all(b"\"")
}

/// End the record. Records here have several fields: the crate writes a record of one
/// empty field as `""`, which a writer of fields one at a time cannot tell apart.
pub(super) fn end_record(out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"\n")
}

/// Write a whole record of text fields (the header).
pub(super) fn write_record(out: &mut impl Write, fields: &[&str]) -> io::Result<()> {
    debug_assert!(
        fields.len() > 1,
        "a record of one field may need quotes when empty"
    );
    for (i, field) in fields.iter().enumerate() {
        write_field(out, field.as_bytes(), i == 0)?;
    }
    end_record(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(fields: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        write_record(&mut out, fields).unwrap();
        out
    }

    fn crates(fields: &[&str]) -> Vec<u8> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(fields).unwrap();
        writer.into_inner().unwrap()
    }

    #[test]
    fn records_read_as_the_csv_crate_writes_them() {
        let awkward = [
            "",
            "plain",
            "0.000125",
            "a,b",
            "say \"hi\"",
            "\"",
            "\"\"",
            "line\nbreak",
            "carriage\rreturn",
            "crlf\r\n",
            " spaced ",
            "tab\there",
            "#comment",
            "'single'",
            "ünïcode, too",
            ",",
            "\"a\",\"b\"",
        ];
        for a in awkward {
            for b in awkward {
                for fields in [[a, b].as_slice(), &[a, b, a], &[b, "", a]] {
                    assert_eq!(
                        String::from_utf8(ours(fields)).unwrap(),
                        String::from_utf8(crates(fields)).unwrap(),
                        "{fields:?}"
                    );
                }
            }
        }
    }
}

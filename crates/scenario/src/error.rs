use thiserror::Error;

/// Why a scenario was rejected: one sentence naming the file, the key and the problem.
///
/// Values echoed in messages are shortened when displayed (see [`shorten_quoted`]), so a
/// 100 kB typo cannot flood the terminal and a newline in a value cannot break the one line.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ScenarioError {
    #[error("{}: cannot read: {}", one_line(.file), shorten_quoted(.message))]
    Read { file: String, message: String },
    /// The file is not one cclab reads: not a regular file, or too large.
    #[error("{}: {}", one_line(.file), shorten_quoted(.message))]
    File { file: String, message: String },
    #[error("{}: line {line}, column {column}: {}", one_line(.file), shorten_quoted(.message))]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: {}: {}", one_line(.file), shorten_key(.key), shorten_quoted(.message))]
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    /// A `[sweep]` key, or a run it produces, is invalid.
    #[error("{}: [sweep] {}: {}", one_line(.file), shorten_key(.key), shorten_quoted(.message))]
    Sweep {
        file: String,
        key: String,
        message: String,
    },
    #[error("--set {}: {}", shorten(.assignment), shorten_quoted(.message))]
    Override { assignment: String, message: String },
}

/// The longest value echoed whole in a message, in characters; longer ones show their first
/// `ECHO_LIMIT` characters and "…".
pub const ECHO_LIMIT: usize = 40;

/// `text` fit for a one-line message: control characters escaped (`\n`), and cut to its first
/// [`ECHO_LIMIT`] characters and "…" when longer.
pub fn shorten(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == ECHO_LIMIT {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// `text` with control characters escaped, otherwise whole (file paths, our own wording).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    if c.is_control() {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// Words longer than this outside backticks are values echoed some other way (in double
/// quotes, or bare) and are shortened too; no word of our own wording comes near it.
const LONG_WORD: usize = 100;

/// A message whose quoted values (between backticks, the convention of every message here
/// and in cclab-cc) are shortened with [`shorten`]; the wording around them stays whole,
/// except single words of more than 100 characters, which can only be echoed values.
pub fn shorten_quoted(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                shorten(part)
            } else {
                part.split(' ')
                    .map(|word| {
                        if word.chars().count() > LONG_WORD {
                            shorten(word)
                        } else {
                            one_line(word)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A key path whose parts (one of which may be a user's unknown key) are shortened.
fn shorten_key(key: &str) -> String {
    key.split('.').map(shorten).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_to_the_limit() {
        let long = "x".repeat(100_000);
        let cut = shorten(&long);
        // 40 characters kept, then one ellipsis.
        assert_eq!(cut, format!("{}…", "x".repeat(40)));
        assert_eq!(shorten(&"y".repeat(40)), "y".repeat(40));
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(shorten("a\nb"), "a\\nb");
        assert_eq!(one_line("out/x\ty"), "out/x\\ty");
    }

    #[test]
    fn only_quoted_parts_are_cut() {
        let long = "c".repeat(200);
        let message = format!("unknown algorithm `{long}`; did you mean `cubic`?");
        assert_eq!(
            shorten_quoted(&message),
            format!(
                "unknown algorithm `{}…`; did you mean `cubic`?",
                "c".repeat(40)
            )
        );
    }
}

//! Typed algorithm parameters: each controller and slow-start variant declares its parameters
//! (name, kind, default, unit, meaning) once; scenario validation, `cclab algorithms` and the
//! constructors all read that one declaration.

use std::fmt;

use thiserror::Error;

/// The type and legal range of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in `[min, max]`.
    Number {
        min: f64,
        max: f64,
    },
    /// A whole number in `[min, max]`.
    Integer {
        min: i64,
        max: i64,
    },
    Bool,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
}

/// A parameter value after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Bool(bool),
    Choice(&'static str),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Number(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Choice(s) => write!(f, "\"{s}\""),
        }
    }
}

/// A value as the user wrote it (scenario file, `--set`).
#[derive(Clone, Debug, PartialEq)]
pub enum ParamInput {
    Number(f64),
    Bool(bool),
    Text(String),
}

/// The declaration of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: ParamValue,
    /// Unit for display ("packets", "s", "" for dimensionless).
    pub unit: &'static str,
    pub doc: &'static str,
}

impl ParamSpec {
    pub const fn number(name: &'static str, default: f64, min: f64, max: f64) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Number { min, max },
            default: ParamValue::Number(default),
            unit: "",
            doc: "",
        }
    }
    pub const fn integer(name: &'static str, default: i64, min: i64, max: i64) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Integer { min, max },
            default: ParamValue::Number(default as f64),
            unit: "",
            doc: "",
        }
    }
    pub const fn boolean(name: &'static str, default: bool) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Bool,
            default: ParamValue::Bool(default),
            unit: "",
            doc: "",
        }
    }
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Choice(choices),
            default: ParamValue::Choice(default),
            unit: "",
            doc: "",
        }
    }
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }
    pub const fn doc(mut self, doc: &'static str) -> Self {
        self.doc = doc;
        self
    }

    /// Check a user value against this declaration.
    pub fn validate(&self, input: &ParamInput) -> Result<ParamValue, ParamError> {
        let name = self.name.to_string();
        match (self.kind, input) {
            (ParamKind::Number { min, max }, ParamInput::Number(x)) => {
                if x.is_finite() && *x >= min && *x <= max {
                    Ok(ParamValue::Number(*x))
                } else {
                    Err(ParamError::OutOfRange {
                        name,
                        value: x.to_string(),
                        range: format!("[{min}, {max}]"),
                    })
                }
            }
            (ParamKind::Integer { min, max }, ParamInput::Number(x)) => {
                if x.fract() != 0.0 || !x.is_finite() {
                    Err(ParamError::WrongType {
                        name,
                        expected: "a whole number",
                    })
                } else if *x < min as f64 || *x > max as f64 {
                    Err(ParamError::OutOfRange {
                        name,
                        value: x.to_string(),
                        range: format!("[{min}, {max}]"),
                    })
                } else {
                    Ok(ParamValue::Number(*x))
                }
            }
            (ParamKind::Bool, ParamInput::Bool(b)) => Ok(ParamValue::Bool(*b)),
            (ParamKind::Choice(choices), ParamInput::Text(word)) => choices
                .iter()
                .find(|c| **c == word)
                .map(|c| ParamValue::Choice(c))
                .ok_or_else(|| ParamError::NotAChoice {
                    name,
                    value: word.clone(),
                    choices: choices.join(", "),
                }),
            (kind, _) => Err(ParamError::WrongType {
                name,
                expected: match kind {
                    ParamKind::Number { .. } => "a number",
                    ParamKind::Integer { .. } => "a whole number",
                    ParamKind::Bool => "true or false",
                    ParamKind::Choice(_) => "a quoted word",
                },
            }),
        }
    }

    /// The legal values, for listings: `[0.5, 1]`, `true|false`, `paper|linux`.
    pub fn range_text(&self) -> String {
        match self.kind {
            ParamKind::Number { min, max } => format!("[{min}, {max}]"),
            ParamKind::Integer { min, max } => format!("[{min}, {max}]"),
            ParamKind::Bool => "true|false".to_string(),
            ParamKind::Choice(choices) => choices.join("|"),
        }
    }
}

/// Problems with user-supplied parameters. Messages name the parameter, not the file:
/// the scenario layer adds where it was written.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ParamError {
    #[error("unknown parameter `{name}`{}", suggestion_text(.suggestion, .known))]
    Unknown {
        name: String,
        suggestion: Option<&'static str>,
        known: String,
    },
    #[error("parameter `{name}` must be {expected}")]
    WrongType {
        name: String,
        expected: &'static str,
    },
    #[error("parameter `{name}` = {value} is outside {range}")]
    OutOfRange {
        name: String,
        value: String,
        range: String,
    },
    #[error("parameter `{name}` = \"{value}\" is not one of {choices}")]
    NotAChoice {
        name: String,
        value: String,
        choices: String,
    },
}

fn suggestion_text(suggestion: &Option<&'static str>, known: &str) -> String {
    match suggestion {
        Some(s) => format!("; did you mean `{s}`?"),
        None if known.is_empty() => "; this algorithm takes no parameters".to_string(),
        None => format!("; known parameters: {known}"),
    }
}

/// The closest of `candidates` to `word`, if it is close enough to be a plausible typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(distance, c)| *distance <= (c.len().max(word.len()) / 3).max(1) + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

/// A full set of validated parameter values, one per declaration, defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    specs: &'static [ParamSpec],
    values: Vec<ParamValue>,
}

impl Params {
    pub fn defaults(specs: &'static [ParamSpec]) -> Self {
        Params {
            specs,
            values: specs.iter().map(|s| s.default).collect(),
        }
    }

    /// Validate `inputs` (name, value) against `specs`; unset parameters keep their defaults.
    pub fn from_inputs<'a>(
        specs: &'static [ParamSpec],
        inputs: impl IntoIterator<Item = (&'a str, &'a ParamInput)>,
    ) -> Result<Self, ParamError> {
        let mut params = Params::defaults(specs);
        for (name, input) in inputs {
            params.set(name, input)?;
        }
        Ok(params)
    }

    pub fn set(&mut self, name: &str, input: &ParamInput) -> Result<(), ParamError> {
        let Some(index) = self.specs.iter().position(|s| s.name == name) else {
            return Err(ParamError::Unknown {
                name: name.to_string(),
                suggestion: did_you_mean(name, self.specs.iter().map(|s| s.name)),
                known: self
                    .specs
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        self.values[index] = self.specs[index].validate(input)?;
        Ok(())
    }

    fn value(&self, name: &str) -> ParamValue {
        let index = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("parameter `{name}` is read but not declared"));
        self.values[index]
    }

    /// A declared number (or integer) parameter. Panics if `name` is not declared as one:
    /// that is a bug in the controller, not bad input.
    pub fn number(&self, name: &str) -> f64 {
        match self.value(name) {
            ParamValue::Number(x) => x,
            other => panic!("parameter `{name}` is declared as {other:?}, not a number"),
        }
    }

    pub fn boolean(&self, name: &str) -> bool {
        match self.value(name) {
            ParamValue::Bool(b) => b,
            other => panic!("parameter `{name}` is declared as {other:?}, not a bool"),
        }
    }

    pub fn choice(&self, name: &str) -> &'static str {
        match self.value(name) {
            ParamValue::Choice(c) => c,
            other => panic!("parameter `{name}` is declared as {other:?}, not a choice"),
        }
    }

    /// (name, value) pairs in declaration order, for reports.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, ParamValue)> + '_ {
        self.specs
            .iter()
            .map(|s| s.name)
            .zip(self.values.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec::number("beta", 0.7, 0.0, 1.0),
        ParamSpec::integer("window", 16, 1, 1000),
        ParamSpec::boolean("fast_convergence", true),
        ParamSpec::choice("mode", "paper", &["paper", "linux"]),
    ];

    #[test]
    fn defaults_and_overrides() {
        let input = ParamInput::Number(0.5);
        let p = Params::from_inputs(SPECS, [("beta", &input)]).unwrap();
        assert_eq!(p.number("beta"), 0.5);
        assert_eq!(p.number("window"), 16.0);
        assert!(p.boolean("fast_convergence"));
        assert_eq!(p.choice("mode"), "paper");
    }

    #[test]
    fn rejects_bad_values_with_named_errors() {
        let mut p = Params::defaults(SPECS);
        let err = p.set("btea", &ParamInput::Number(0.5)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown parameter `btea`; did you mean `beta`?"
        );
        let err = p.set("beta", &ParamInput::Number(1.5)).unwrap_err();
        assert_eq!(err.to_string(), "parameter `beta` = 1.5 is outside [0, 1]");
        let err = p.set("window", &ParamInput::Number(2.5)).unwrap_err();
        assert!(err.to_string().contains("whole number"));
        let err = p.set("mode", &ParamInput::Text("bsd".into())).unwrap_err();
        assert!(err.to_string().contains("paper, linux"));
        let err = p
            .set("fast_convergence", &ParamInput::Number(1.0))
            .unwrap_err();
        assert!(err.to_string().contains("true or false"));
    }

    #[test]
    fn suggestions_only_for_near_misses() {
        assert_eq!(did_you_mean("cubik", ["cubic", "reno"]), Some("cubic"));
        assert_eq!(did_you_mean("vegas", ["cubic", "reno"]), None);
    }
}

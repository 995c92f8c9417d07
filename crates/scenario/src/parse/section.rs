//! One TOML table and its key path: reading typed values and naming them in errors.

use cclab_cc::SimDuration;
use cclab_cc::params::did_you_mean;
use toml::{Table, Value};

use crate::error::ScenarioError;
use crate::units::parse_duration;

pub(crate) fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

/// One TOML table and its key path, for reading values and naming them in errors.
pub(crate) struct Section<'a> {
    pub(crate) file: &'a str,
    /// "topology.bottleneck", "flows.0"; empty at the root.
    pub(crate) path: String,
    pub(crate) table: &'a Table,
}

impl<'a> Section<'a> {
    pub(crate) fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub(crate) fn invalid(&self, key: &str, message: &str) -> ScenarioError {
        ScenarioError::Invalid {
            file: self.file.to_string(),
            key: self.key_path(key),
            message: message.to_string(),
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.table.get(key)
    }

    /// Reject keys outside `known`, suggesting the nearest known one.
    pub(crate) fn allow_only(&self, known: &[&str]) -> Result<(), ScenarioError> {
        for key in self.table.keys() {
            if !known.contains(&key.as_str()) {
                let message = match did_you_mean(key, known.iter().copied()) {
                    Some(s) => format!("unknown key; did you mean `{s}`?"),
                    None => format!("unknown key; known keys here: {}", known.join(", ")),
                };
                return Err(self.invalid(key, &message));
            }
        }
        Ok(())
    }

    pub(crate) fn section(&self, key: &str) -> Result<Option<Section<'a>>, ScenarioError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Table(table)) => Ok(Some(Section {
                file: self.file,
                path: self.key_path(key),
                table,
            })),
            Some(_) => Err(self.invalid(key, "must be a table")),
        }
    }

    /// An empty section standing in for an omitted table, so that its own required keys are
    /// reported by name.
    pub(crate) fn empty(&self, key: &str) -> Section<'a> {
        static EMPTY: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        Section {
            file: self.file,
            path: self.key_path(key),
            table: EMPTY.get_or_init(Table::new),
        }
    }

    pub(crate) fn duration(&self, key: &str) -> Result<Option<SimDuration>, ScenarioError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => parse_duration(s)
                .map(Some)
                .map_err(|m| self.invalid(key, &m)),
            Some(Value::Integer(_) | Value::Float(_)) => Err(self.invalid(
                key,
                "needs a unit; write it as a string such as \"30ms\" or \"2s\"",
            )),
            Some(_) => Err(self.invalid(key, "must be a duration such as \"30ms\"")),
        }
    }

    pub(crate) fn duration_or(
        &self,
        key: &str,
        default: &str,
    ) -> Result<SimDuration, ScenarioError> {
        Ok(match self.duration(key)? {
            Some(d) => d,
            None => parse_duration(default).expect("built-in defaults parse"),
        })
    }

    /// A key whose value is one of a few names: `default` when absent, the value paired
    /// with the name given, or `invalid(key, message)` for anything else (`message` lists
    /// the names and what each means).
    pub(crate) fn choice_or<T: Copy>(
        &self,
        key: &str,
        default: T,
        choices: &[(&str, T)],
        message: &str,
    ) -> Result<T, ScenarioError> {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        choices
            .iter()
            .find(|(name, _)| matches!(value, Value::String(s) if s == name))
            .map(|&(_, choice)| choice)
            .ok_or_else(|| self.invalid(key, message))
    }

    pub(crate) fn integer_or(
        &self,
        key: &str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, ScenarioError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Integer(i)) if (min..=max).contains(i) => Ok(*i),
            Some(Value::Integer(i)) => {
                Err(self.invalid(key, &format!("{i} is outside [{min}, {max}]")))
            }
            Some(_) => Err(self.invalid(key, "must be an integer")),
        }
    }
}

//! Reading a run's `summary.json` for the report, in memory bounded by what the page shows.
//!
//! A run of 100 000 flows writes a 117 MB `summary.json`; parsed whole into a JSON tree it
//! took the report to 1.1 GiB, twice the run's own peak. The page shows every field of the
//! first [`TABLE_FLOWS`] flows only; of the others it needs the few fields that group them
//! and label their series (`run_page::scenario_section`, `charts::RunSeries`). So each flow
//! past the first [`TABLE_FLOWS`] is read into those fields alone, and serde skips the rest
//! of its object without building it. The page is the same bytes either way (tested).

use std::fmt;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::report::TABLE_FLOWS;

/// `summary.json`'s text as the report reads it: every key as written, except that the
/// entries of `flows` past the first [`TABLE_FLOWS`] keep only [`FlowBrief`]'s fields.
pub fn parse(text: &[u8]) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    let Summary(value) = Summary::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// The fields of a flow that the report reads beyond the first [`TABLE_FLOWS`]: its group,
/// kind, controller, start and size (the scenario's flow groups) and its id (the chart
/// series). Each stays absent if the summary does not have it.
#[derive(Deserialize)]
struct FlowBrief {
    id: Option<Value>,
    group: Option<Value>,
    kind: Option<Value>,
    cc: Option<Value>,
    start_s: Option<Value>,
    size_bytes: Option<Value>,
}

impl FlowBrief {
    fn into_value(self) -> Value {
        let fields = [
            ("id", self.id),
            ("group", self.group),
            ("kind", self.kind),
            ("cc", self.cc),
            ("start_s", self.start_s),
            ("size_bytes", self.size_bytes),
        ];
        let object: Map<String, Value> = fields
            .into_iter()
            .filter_map(|(key, value)| value.map(|v| (key.to_string(), v)))
            .collect();
        Value::Object(object)
    }
}

/// The top-level object: `flows` through [`Flows`], every other key whole.
struct Summary(Value);

impl<'de> Deserialize<'de> for Summary {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SummaryVisitor).map(Summary)
    }
}

struct SummaryVisitor;

impl<'de> Visitor<'de> for SummaryVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the JSON object of a run's summary")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == "flows" {
                map.next_value::<Flows>()?.0
            } else {
                map.next_value::<Value>()?
            };
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// The `flows` array: the first [`TABLE_FLOWS`] entries whole, the rest as [`FlowBrief`]s.
struct Flows(Value);

impl<'de> Deserialize<'de> for Flows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(FlowsVisitor).map(Flows)
    }
}

struct FlowsVisitor;

impl<'de> Visitor<'de> for FlowsVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of flows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut flows = Vec::new();
        while flows.len() < TABLE_FLOWS {
            match seq.next_element::<Value>()? {
                Some(flow) => flows.push(flow),
                None => return Ok(Value::Array(flows)),
            }
        }
        while let Some(brief) = seq.next_element::<FlowBrief>()? {
            flows.push(brief.into_value());
        }
        Ok(Value::Array(flows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: usize) -> Value {
        serde_json::json!({
            "id": id, "group": id % 3, "kind": "tcp", "cc": "reno", "start_s": id as f64 / 10.0,
            "size_bytes": 1000, "goodput_bps": 12.5, "mean_rtt_ms": 64.0,
        })
    }

    #[test]
    fn flows_past_the_table_keep_only_the_fields_the_report_reads() {
        let flows: Vec<Value> = (0..TABLE_FLOWS + 3).map(flow).collect();
        let summary = serde_json::json!({ "scenario": "s", "flows": flows, "links": [] });
        let read = parse(summary.to_string().as_bytes()).unwrap();
        let read_flows = read["flows"].as_array().unwrap();
        assert_eq!(read_flows.len(), TABLE_FLOWS + 3);
        assert_eq!(read_flows[..TABLE_FLOWS], flows[..TABLE_FLOWS]);
        let last = &read_flows[TABLE_FLOWS + 2];
        assert_eq!(last["id"], TABLE_FLOWS + 2);
        assert_eq!(last["group"], (TABLE_FLOWS + 2) % 3);
        assert_eq!(last["start_s"], flows[TABLE_FLOWS + 2]["start_s"]);
        assert!(last.get("goodput_bps").is_none());
        assert_eq!(read["scenario"], "s");
        assert_eq!(read["links"], serde_json::json!([]));
    }

    #[test]
    fn an_absent_field_stays_absent_and_bad_json_is_an_error() {
        let mut flows: Vec<Value> = (0..TABLE_FLOWS + 1).map(flow).collect();
        flows[TABLE_FLOWS]
            .as_object_mut()
            .unwrap()
            .remove("size_bytes");
        let summary = serde_json::json!({ "flows": flows });
        let read = parse(summary.to_string().as_bytes()).unwrap();
        assert!(read["flows"][TABLE_FLOWS].get("size_bytes").is_none());
        assert!(parse(b"{\"flows\": [1, 2").is_err());
        assert!(parse(b"{} trailing").is_err());
    }
}

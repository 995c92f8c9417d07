//! Property test: the summary of any small run has only finite numbers. A NaN or an infinity
//! would reach `summary.json` as `null` (serde_json writes non-finite floats so) and the
//! table as `NaN`; a metric that has no value must be `None` instead.
//!
//! The scenarios are those of cclab-sim's property tests. Run more cases with e.g.
//! `PROPTEST_CASES=1000 cargo test --release -p cclab-analysis --test properties`.

#[path = "../../sim/tests/support/random_scenario.rs"]
mod random_scenario;

use cclab_analysis::{RateSeries, summarize, summary_table};
use cclab_sim::{NullSink, Simulation, Tee};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use random_scenario::random_scenario;

/// The non-finite floats in a `Debug` rendering (`NaN`, `inf`, `-inf`), with the text before
/// each to name the field.
fn non_finite(debug: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut start = 0;
    for (i, c) in debug.char_indices().chain([(debug.len(), ' ')]) {
        let token_char = c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-';
        if token_char {
            continue;
        }
        let token = &debug[start..i];
        if matches!(token, "NaN" | "inf" | "-inf") {
            let from = debug[..start]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(j, _)| j);
            found.push(format!("…{}{token}", &debug[from..start]));
        }
        start = i + c.len_utf8();
    }
    found
}

#[test]
fn non_finite_finds_nan_and_infinities() {
    assert!(non_finite("Summary { a: 1.0, b: Some(2.5e-7), info: 3 }").is_empty());
    assert_eq!(non_finite("x: NaN, y: Some(inf), z: -inf").len(), 3);
    assert_eq!(non_finite(&format!("{:?}", [f64::NAN, 1.0])).len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn summaries_are_finite(case in random_scenario()) {
        let scenario = cclab_scenario::from_str("random.toml", &case.toml, &[])
            .map_err(|e| TestCaseError::fail(format!("generated scenario is invalid: {e}")))?;
        let mut rates = RateSeries::for_scenario(&scenario);
        let result = Simulation::new(&scenario)
            .run(&mut Tee(&mut NullSink, &mut rates), &mut |_| {})
            .map_err(|e| TestCaseError::fail(format!("simulator invariant: {e}")))?;
        let summary = summarize(&scenario, result, &rates, 0.0);
        let bad = non_finite(&format!("{summary:?}"));
        prop_assert!(bad.is_empty(), "non-finite metrics: {:#?}", bad);
        let table = summary_table(&summary);
        prop_assert!(non_finite(&table).is_empty(), "in the table:\n{}", table);
    }
}

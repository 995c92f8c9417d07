use std::fmt::Write;

use cclab_cc::registry::InitialSsthreshUse;
use cclab_cc::{ALGORITHMS, ParamSpec, SLOW_STARTS};

fn parameters(out: &mut String, params: &[ParamSpec]) {
    if params.is_empty() {
        let _ = writeln!(out, "    (no parameters)");
    }
    for p in params {
        let unit = if p.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", p.unit)
        };
        let _ = writeln!(
            out,
            "    {:<22} default {}{unit}, range {}: {}",
            p.name,
            p.default,
            p.range_text(),
            p.doc
        );
    }
}

/// Every controller and slow-start variant with parameters, defaults, units and references.
pub fn listing() -> String {
    let mut out = String::from(
        "Congestion-control algorithms (flows.N.cc; parameters in flows.N.params):\n\n",
    );
    for a in ALGORITHMS {
        let aliases = if a.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", a.aliases.join(", "))
        };
        let _ = writeln!(out, "{}{aliases}: {}", a.name, a.summary);
        let _ = writeln!(out, "    reference: {}", a.reference);
        let start_up = match (a.uses_slow_start, a.initial_ssthresh) {
            (true, _) => None,
            (false, InitialSsthreshUse::None) => Some(
                "has its own start-up and no slow-start threshold; the slow_start and \
                 initial_ssthresh keys do not apply",
            ),
            (false, InitialSsthreshUse::Given) => Some(
                "has its own start-up; the slow_start key and initial_ssthresh = \
                 \"packet-pair\" do not apply",
            ),
            (false, InitialSsthreshUse::GivenOrPacketPair) => Some(
                "has its own start-up; the slow_start key does not apply (initial_ssthresh \
                 does, \"packet-pair\" included)",
            ),
        };
        if let Some(note) = start_up {
            let _ = writeln!(out, "    {note}");
        }
        parameters(&mut out, a.params);
        out.push('\n');
    }
    out.push_str(
        "Slow-start variants (flows.N.slow_start = \"name\" or \"name:arg\", arg setting the first parameter;\nothers in flows.N.slow_start_params):\n\n",
    );
    for s in SLOW_STARTS {
        let _ = writeln!(out, "{}: {}", s.name, s.summary);
        let _ = writeln!(out, "    reference: {}", s.reference);
        parameters(&mut out, s.params);
        out.push('\n');
    }
    out
}

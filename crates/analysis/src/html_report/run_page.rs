//! The sections of a run folder's report: the scenario, the summary table (the numbers
//! `cclab run` prints), the figures, and each flow's details.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use super::charts::Chart;
use super::figures::{Figure, figure_card};
use super::html::Html;
use super::values::{f64_of, flatten, number};
use super::{ReportError, ScenarioText, Section};
use crate::report::TABLE_FLOWS;

fn mbps(bps: f64) -> String {
    format!("{:.2}", bps / 1e6)
}

fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn unsigned(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_u64)
        .map_or("-".into(), |n| n.to_string())
}

/// The scenario's text when the caller has it, else a note on how to add it.
pub fn scenario_text(given: Option<&ScenarioText>) -> Html {
    let mut body = Html::default();
    match given {
        Some(s) => {
            body.push(Html::heading(&format!("Scenario file {}", s.file)));
            if !s.overrides.is_empty() {
                let overrides: Vec<String> =
                    s.overrides.iter().map(|o| format!("--set {o}")).collect();
                body.push(Html::note(&format!(
                    "with overrides: {}",
                    overrides.join(" ")
                )));
            }
            body.push(Html::preformatted(&s.text));
        }
        None => body.push(Html::note(
            "The scenario file is not kept in the output folder; `cclab report DIR --scenario FILE` shows its text here.",
        )),
    }
    body
}

/// What the run was: seed, duration, windows, the flow groups and links as resolved (from
/// summary.json), and the scenario file's text when known.
pub fn scenario_section(summary: &Value, given: Option<&ScenarioText>) -> Section {
    let mut body = Html::default();
    let window = &summary["window"];
    let seconds = |v: Option<f64>| v.map_or("-".into(), |v| format!("{} s", number(v)));
    body.push(Html::key_values(&[
        ("scenario".into(), text(summary, "scenario").into()),
        ("seed".into(), unsigned(summary, "seed")),
        ("duration".into(), seconds(f64_of(summary, "duration_s"))),
        (
            "steady-state window".into(),
            format!(
                "{} to {}",
                seconds(f64_of(window, "steady_from_s")),
                seconds(f64_of(window, "until_s"))
            ),
        ),
        (
            "rate bins".into(),
            seconds(f64_of(window, "rate_interval_s")),
        ),
    ]));
    // Flow groups (one [[flows]] table each): a run may have 100 000 flows, the groups are few.
    struct Group {
        flows: usize,
        kind: String,
        cc: String,
        first_start: f64,
        last_start: f64,
        size: String,
    }
    let mut groups: BTreeMap<u64, Group> = BTreeMap::new();
    for f in array(summary, "flows") {
        let start = f64_of(f, "start_s").unwrap_or(0.0);
        let g = groups
            .entry(f["group"].as_u64().unwrap_or(0))
            .or_insert_with(|| Group {
                flows: 0,
                kind: text(f, "kind").into(),
                cc: text(f, "cc").into(),
                first_start: start,
                last_start: start,
                size: f
                    .get("size_bytes")
                    .and_then(Value::as_u64)
                    .map_or("unlimited".into(), |b| format!("{b} bytes")),
            });
        g.flows += 1;
        g.first_start = g.first_start.min(start);
        g.last_start = g.last_start.max(start);
    }
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(id, g)| {
            let start = if g.first_start == g.last_start {
                number(g.first_start)
            } else {
                format!("{} to {}", number(g.first_start), number(g.last_start))
            };
            vec![
                id.to_string(),
                g.flows.to_string(),
                g.kind.clone(),
                g.cc.clone(),
                start,
                g.size.clone(),
            ]
        })
        .collect();
    body.push(Html::heading("Flow groups"));
    body.push(Html::table(
        &["group", "flows", "kind", "cc", "start (s)", "size"],
        &rows,
    ));
    let links: Vec<Vec<String>> = array(summary, "links")
        .iter()
        .map(|l| {
            vec![
                text(l, "name").into(),
                mbps(f64_of(l, "rate_bps").unwrap_or(0.0)),
            ]
        })
        .collect();
    body.push(Html::heading("Links"));
    body.push(Html::table(&["link", "rate (Mbit/s)"], &links));
    body.push(scenario_text(given));
    Section::new("scenario", "Scenario", body)
}

/// The summary table `cclab run` prints (report.rs), as HTML: the same columns and digits.
pub fn summary_section(summary: &Value) -> Section {
    let mut body = Html::default();
    let flows = array(summary, "flows");
    let rows: Vec<Vec<String>> = flows
        .iter()
        .take(TABLE_FLOWS)
        .map(|f| {
            let num = |key: &str| f64_of(f, key).unwrap_or(0.0);
            vec![
                unsigned(f, "id"),
                text(f, "cc").into(),
                format!("{:.3}", num("start_s")),
                mbps(num("goodput_bps")),
                unsigned(f, "retransmissions"),
                unsigned(f, "timeouts"),
                format!("{:.2}", num("mean_rtt_ms")),
                format!("{:.2}", num("min_rtt_ms")),
                f64_of(f, "fct_s").map_or("-".into(), |t| format!("{t:.3}")),
            ]
        })
        .collect();
    body.push(Html::heading("Flows"));
    body.push(Html::table(
        &[
            "flow",
            "cc",
            "start (s)",
            "goodput (Mbit/s)",
            "retransmissions",
            "timeouts",
            "mean RTT (ms)",
            "min RTT (ms)",
            "FCT (s)",
        ],
        &rows,
    ));
    if flows.len() > TABLE_FLOWS {
        body.push(Html::note(&format!(
            "The first {TABLE_FLOWS} of {} flows; every flow is in summary.json.",
            flows.len()
        )));
    }
    let links: Vec<Vec<String>> = array(summary, "links")
        .iter()
        .map(|l| {
            vec![
                text(l, "name").into(),
                mbps(f64_of(l, "rate_bps").unwrap_or(0.0)),
                format!("{:.4}", f64_of(l, "utilization").unwrap_or(0.0)),
                unsigned(l, "drops"),
                format!("{:.1}", f64_of(l, "mean_queue_pkts").unwrap_or(0.0)),
                unsigned(l, "max_queue_pkts"),
            ]
        })
        .collect();
    body.push(Html::heading("Links"));
    body.push(Html::table(
        &[
            "link",
            "rate (Mbit/s)",
            "utilization",
            "drops",
            "mean queue (packets)",
            "max queue (packets)",
        ],
        &links,
    ));
    let aggregate = &summary["aggregate"];
    let mut pairs = vec![
        (
            "total goodput (Mbit/s)".to_string(),
            mbps(f64_of(aggregate, "total_goodput_bps").unwrap_or(0.0)),
        ),
        (
            "Jain index".to_string(),
            format!("{:.4}", f64_of(aggregate, "jain_index").unwrap_or(0.0)),
        ),
    ];
    // The rest of the aggregate as summary.json has it (metrics.md names each).
    let mut rest = Vec::new();
    flatten("", aggregate, &mut rest);
    pairs.extend(
        rest.into_iter()
            .filter(|(k, _)| k != "total_goodput_bps" && k != "jain_index"),
    );
    body.push(Html::heading("Aggregate"));
    body.push(Html::key_values(&pairs));
    for w in array(summary, "workloads") {
        body.push(workload(w));
    }
    Section::new("summary", "Summary", body)
}

/// Packet captures listed in a report.
const CAPTURES_LISTED: usize = 20;

/// A note naming the run's packet captures (`[output] pcap`, outputs.md), which a browser
/// cannot show: they open in Wireshark or tshark.
pub fn captures_note(dir: &Path) -> Html {
    let Ok(entries) = std::fs::read_dir(dir.join(crate::pcap::PCAP_DIR)) else {
        return Html::default();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pcap") && !n.starts_with('.'))
        .collect();
    if names.is_empty() {
        return Html::default();
    }
    names.sort();
    let total = names.len();
    let listed: Vec<String> = names
        .into_iter()
        .take(CAPTURES_LISTED)
        .map(|n| format!("`{}/{n}`", crate::pcap::PCAP_DIR))
        .collect();
    let more = if total > CAPTURES_LISTED {
        format!(" and {} more", total - CAPTURES_LISTED)
    } else {
        String::new()
    };
    let mut body = Html::heading("Packet captures");
    body.push(Html::note(&format!(
        "{}{more}: open them in Wireshark or tshark.",
        listed.join(", ")
    )));
    body
}

/// A workload's line and size buckets, as `cclab run` prints them (metrics/fct.rs).
fn workload(w: &Value) -> Html {
    let mut body = Html::default();
    let load = |key: &str| f64_of(w, key).map_or("-".into(), |x| format!("{x:.3}"));
    body.push(Html::heading(&format!(
        "Workload flows.{} ({})",
        unsigned(w, "group"),
        text(w, "cc")
    )));
    body.push(Html::key_values(&[
        ("arrivals".into(), unsigned(w, "arrivals")),
        ("finished".into(), unsigned(w, "finished")),
        ("unfinished".into(), unsigned(w, "unfinished")),
        ("load offered".into(), load("offered_load")),
        (
            format!("load achieved (of {})", text(w, "load_link")),
            load("achieved_load"),
        ),
        ("slots".into(), unsigned(w, "slots")),
    ]));
    let rows: Vec<Vec<String>> = array(w, "buckets")
        .iter()
        .filter(|b| b["count"].as_u64().unwrap_or(0) > 0)
        .map(|b| {
            let stat = |key: &str, decimals: usize| {
                f64_of(b, key).map_or("-".into(), |x| format!("{x:.decimals$}"))
            };
            vec![
                text(b, "bucket").into(),
                unsigned(b, "count"),
                stat("slowdown_median", 2),
                stat("slowdown_p99", 2),
                stat("fct_median_s", 4),
            ]
        })
        .collect();
    body.push(Html::table(
        &[
            "size bucket",
            "flows",
            "slowdown median",
            "slowdown p99",
            "FCT median (s)",
        ],
        &rows,
    ));
    body
}

/// Every figure, with the interactive chart that goes with it where there is one.
pub fn figures_section(figures: &[Figure], charts: &[Chart], drawn: bool) -> Section {
    let mut body = Html::default();
    if figures.is_empty() {
        body.push(Html::note(if drawn {
            "This folder has no figures; `cclab plot DIR` draws them, then `cclab report DIR` adds them here."
        } else {
            "Figures were not drawn (`--no-plots`); `cclab plot DIR` then `cclab report DIR` adds them."
        }));
    } else if !charts.is_empty() {
        body.push(Html::note(
            "Interactive charts: drag across a chart to zoom in on that time span, double-click to zoom out, hover for values; each chart has its static figure a click away. Long runs are thinned to the minimum and maximum of each of 1500 spans of time.",
        ));
    }
    let mut grid = String::from("<div class=\"figures\">");
    for figure in figures {
        let chart = charts.iter().find(|c| c.id == figure.stem).map(|c| c.id);
        grid.push_str(figure_card(figure, chart).as_str());
    }
    grid.push_str("</div>");
    body.push(Html::markup(grid));
    Section::new("figures", "Figures", body)
}

/// Events of a flow shown in its details (its counts cover all of them).
const EVENTS_SHOWN: usize = 20;

#[derive(Default)]
struct FlowEvents {
    counts: BTreeMap<String, u64>,
    first: Vec<Vec<String>>,
}

/// Per flow of the first [`TABLE_FLOWS`]: event counts and first events from events.csv.
fn read_events(dir: &Path, flows: usize) -> Result<Vec<FlowEvents>, ReportError> {
    let mut out: Vec<FlowEvents> = (0..flows).map(|_| FlowEvents::default()).collect();
    let path = dir.join("events.csv");
    let mut reader = match csv::Reader::from_path(&path) {
        Ok(r) => r,
        Err(_) if !path.exists() => return Ok(out),
        Err(e) => return Err(ReportError::csv(&path, e)),
    };
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| ReportError::csv(&path, e))?
    {
        let Some(flow) = record.get(1).and_then(|f| f.parse::<usize>().ok()) else {
            continue;
        };
        let Some(events) = out.get_mut(flow) else {
            continue;
        };
        let event = record.get(2).unwrap_or("").to_string();
        if events.first.len() < EVENTS_SHOWN {
            events.first.push(
                [0, 2, 3, 4, 5, 6, 7]
                    .iter()
                    .map(|&i| record.get(i).unwrap_or("").to_string())
                    .collect(),
            );
        }
        *events.counts.entry(event).or_default() += 1;
    }
    Ok(out)
}

/// Each flow's summary.json fields, event counts and first events (the first
/// [`TABLE_FLOWS`] flows), one collapsible block per flow.
pub fn flow_details_section(dir: &Path, summary: &Value) -> Result<Section, ReportError> {
    let flows = array(summary, "flows");
    let shown = flows.len().min(TABLE_FLOWS);
    // Flow ids are 0.. in order (summary.json), so an id indexes the events.
    let events = read_events(dir, shown)?;
    let mut body = String::new();
    for (f, events) in flows.iter().take(shown).zip(&events) {
        let _ = write!(
            body,
            "<details class=\"flow\"><summary>{}</summary>",
            Html::text(&format!(
                "flow {} — {} {}, group {}, goodput {} Mbit/s",
                unsigned(f, "id"),
                text(f, "kind"),
                text(f, "cc"),
                unsigned(f, "group"),
                mbps(f64_of(f, "goodput_bps").unwrap_or(0.0))
            ))
            .as_str()
        );
        let mut pairs = Vec::new();
        flatten("", f, &mut pairs);
        body.push_str(Html::key_values(&pairs).as_str());
        if !events.counts.is_empty() {
            let counts: Vec<String> = events
                .counts
                .iter()
                .map(|(event, n)| format!("{event} {n}"))
                .collect();
            body.push_str(Html::heading("Events (events.csv)").as_str());
            body.push_str(Html::note(&counts.join(", ")).as_str());
            body.push_str(
                Html::table(
                    &[
                        "time (s)", "event", "from", "to", "detail", "cwnd", "ssthresh",
                    ],
                    &events.first,
                )
                .as_str(),
            );
            let total: u64 = events.counts.values().sum();
            if total > events.first.len() as u64 {
                body.push_str(
                    Html::note(&format!(
                        "The first {} of {total} events of this flow; all are in events.csv.",
                        events.first.len()
                    ))
                    .as_str(),
                );
            }
        }
        body.push_str("</details>");
    }
    let mut html = Html::markup(body);
    if flows.len() > shown {
        html.push(Html::note(&format!(
            "The first {shown} of {} flows; every flow is in summary.json.",
            flows.len()
        )));
    }
    Ok(Section::new("flows", "Flow details", html))
}

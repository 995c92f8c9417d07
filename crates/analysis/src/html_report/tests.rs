//! Tests of report.html: escaping of everything that comes from the folder or the scenario,
//! every figure embedded, the printed summary's numbers, bounded size for big sweeps and
//! long runs.

use std::path::{Path, PathBuf};

use super::*;
use crate::plot::timeseries::{RunPlotOptions, plot_run};
use crate::results::SweepManifest;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A run folder as `cclab run` writes it: the files, then the figures when `figures`.
fn run_folder(name: &str, toml: &str, figures: bool) -> (PathBuf, crate::Summary) {
    let dir = scratch(name);
    let scenario = cclab_scenario::from_str("t.toml", toml, &[]).unwrap();
    let mut sink = crate::CsvSink::create(&dir).unwrap();
    if !scenario.output.trace_packets.is_empty() {
        sink = sink.with_packets(&dir).unwrap();
    }
    let mut rates = crate::RateSeries::for_scenario(&scenario);
    let result = cclab_sim::Simulation::new(&scenario)
        .run(&mut cclab_sim::Tee(&mut sink, &mut rates), &mut |_| {})
        .unwrap();
    sink.commit().unwrap();
    rates.write_csv(&dir).unwrap();
    let summary = crate::summarize(&scenario, result, &rates, 0.0);
    crate::write_summary(&dir, &summary).unwrap();
    if figures {
        plot_run(&dir, &RunPlotOptions::default()).unwrap();
    }
    (dir, summary)
}

const ONE_FLOW: &str = "name = \"one\"\nduration = \"2s\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\", buffer = \"1bdp\" }\n[[flows]]\ncc = \"reno\"\n[output]\ntrace_packets = [0]\n";

/// The `<script` tags of a page: the ones the report writes itself, nothing else.
fn script_tags(page: &str) -> usize {
    page.matches("<script").count()
}

#[test]
fn scenario_text_and_names_are_escaped_not_injected() {
    let (dir, _) = run_folder("escape", ONE_FLOW, false);
    // A summary.json whose scenario name is markup (a folder may come from anywhere; the
    // scenario parser refuses '/' in names, a hand-edited summary does not).
    let path = dir.join("summary.json");
    let mut summary: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    summary["scenario"] = Value::String("<script>alert(\"name\")</script>".into());
    summary["flows"][0]["cc"] = Value::String("<img src=x onerror=alert(1)>".into());
    std::fs::write(&path, serde_json::to_vec(&summary).unwrap()).unwrap();
    let options = ReportOptions {
        figures: false,
        scenario: Some(ScenarioText {
            file: "<b>x.toml</b>".into(),
            text: "name = \"</pre><script>alert('text')</script>\"\n".into(),
            overrides: vec!["name=<i>o</i>".into()],
        }),
        sections: vec![Section::table(
            "<paper>",
            "Paper vs <ours>",
            "a & b",
            &["quantity", "paper"],
            &[vec!["<td>".to_string(), "1".to_string()]],
        )],
    };
    let page = render_report(&dir, &options).unwrap();
    // Without charts the only script is the report's own.
    assert_eq!(script_tags(&page), 1, "{page}");
    for injected in [
        "<script>alert",
        "<img src=x",
        "<b>x.toml",
        "<i>o</i>",
        "<paper>",
        "<ours>",
        "<td><td>",
    ] {
        assert!(!page.contains(injected), "{injected} got through");
    }
    for escaped in [
        "&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(1)&gt;",
        "&lt;/pre&gt;&lt;script&gt;alert(&#39;text&#39;)&lt;/script&gt;",
        "Paper vs &lt;ours&gt;",
        "a &amp; b",
        "<td>&lt;td&gt;</td>",
    ] {
        assert!(page.contains(escaped), "{escaped} missing");
    }
    // Notes set `code` spans, escaped like the rest.
    assert_eq!(
        Html::note("run `a<b` & `c`").as_str(),
        "<p class=\"note\">run <code>a&lt;b</code> &amp; <code>c</code></p>"
    );
    // The section id keeps only letters, digits and dashes.
    assert!(page.contains("<section id=\"paper\">"));
}

#[test]
fn chart_labels_cannot_close_their_script_element() {
    let chart = charts::Chart {
        id: "queue",
        y_label: "queue (packets)",
        lines: vec![charts::Line {
            label: "</script><script>alert(1)</script>".into(),
            color: 0,
            dashed: false,
        }],
        columns: thinning::Columns {
            times: vec![0.0, 0.5],
            values: vec![vec![Some(1.0), None]],
        },
        decimals: 0,
    };
    let element = chart.script_element();
    assert_eq!(element.matches("</script>").count(), 1, "{element}");
    assert!(element.contains("\\u003c/script>\\u003cscript>"));
    // Still JSON, with the label intact once parsed.
    let json = element
        .trim_start_matches(|c| c != '>')
        .trim_start_matches('>')
        .trim_end_matches("</script>");
    let value: Value = serde_json::from_str(json).unwrap();
    assert_eq!(
        value["lines"][0]["label"],
        "</script><script>alert(1)</script>"
    );
    assert_eq!(value["data"], serde_json::json!([[0, 0.5], [1, null]]));
}

#[test]
fn embedded_assets_cannot_end_their_elements_early() {
    // The script and style texts go into <script> and <style> elements verbatim.
    for (name, text) in [("report.js", SCRIPT), ("uPlot", UPLOT_JS)] {
        assert!(!text.to_ascii_lowercase().contains("</script"), "{name}");
        assert!(!text.contains("<!--"), "{name}");
    }
    for (name, text) in [("style.css", STYLE), ("uPlot css", UPLOT_CSS)] {
        assert!(!text.to_ascii_lowercase().contains("</style"), "{name}");
    }
}

#[test]
fn every_figure_of_the_folder_is_embedded() {
    let (dir, _) = run_folder("figures", ONE_FLOW, true);
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    let mut svgs: Vec<String> = std::fs::read_dir(dir.join("figures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    svgs.sort();
    // figures.md: cwnd, throughput, rtt, queue and the traced flow's sequence plot.
    assert_eq!(
        svgs,
        [
            "cwnd.svg",
            "queue.svg",
            "rtt.svg",
            "sequence-flow0.svg",
            "throughput.svg"
        ]
    );
    for name in &svgs {
        let bytes = std::fs::read(dir.join("figures").join(name)).unwrap();
        let url = format!("data:image/svg+xml;base64,{}", base64::encode(&bytes));
        assert!(page.contains(&url), "{name} is not embedded");
        assert!(page.contains(&format!("<figcaption>figures/{name}")));
    }
    assert_eq!(page.matches("<img class=\"static\"").count(), svgs.len());
    // One flow, one link: the four time-series figures have their interactive charts, and
    // uPlot is embedded with its licence.
    for chart in ["cwnd", "throughput", "rtt", "queue"] {
        assert!(page.contains(&format!("class=\"chart-data\" data-chart=\"{chart}\"")));
    }
    assert!(page.contains("Copyright (c) 2022 Leon Sorokin"));
    assert!(page.contains("var uPlot="));
}

#[test]
fn a_figure_drawn_only_as_png_is_embedded_as_png() {
    let (dir, _) = run_folder("png", ONE_FLOW, true);
    std::fs::remove_file(dir.join("figures/rtt.svg")).unwrap();
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    let png = std::fs::read(dir.join("figures/rtt.png")).unwrap();
    assert!(page.contains(&format!("data:image/png;base64,{}", base64::encode(&png))));
}

#[test]
fn an_svg_over_the_limit_gives_way_to_its_png() {
    let (dir, _) = run_folder("big-svg", ONE_FLOW, true);
    // A valid SVG one byte over the limit (a comment pads it).
    let head = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><!--";
    let tail = "--></svg>";
    let padding = SVG_LIMIT_BYTES as usize + 1 - head.len() - tail.len();
    let big = format!("{head}{}{tail}", "x".repeat(padding));
    assert_eq!(big.len() as u64, SVG_LIMIT_BYTES + 1);
    std::fs::write(dir.join("figures/cwnd.svg"), &big).unwrap();
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    let png = std::fs::read(dir.join("figures/cwnd.png")).unwrap();
    assert!(page.contains(&format!("data:image/png;base64,{}", base64::encode(&png))));
    assert!(!page.contains(&base64::encode(big.as_bytes())));
    assert!(page.contains("<figcaption>figures/cwnd.png"));
    // Exactly at the limit the SVG is kept.
    // (one byte shorter: no longer a valid SVG, which the report does not check)
    std::fs::write(dir.join("figures/cwnd.svg"), &big[..big.len() - 1]).unwrap();
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    assert!(page.contains("<figcaption>figures/cwnd.svg"));
}

#[test]
fn without_figures_the_report_has_the_tables_only() {
    let (dir, _) = run_folder("no-figures", ONE_FLOW, true);
    let options = ReportOptions::default();
    let page = render_report(&dir, &options).unwrap();
    assert!(!page.contains("<img"));
    assert!(!page.contains("class=\"chart-data\""));
    assert!(!page.contains("var uPlot="));
    assert!(page.contains("--no-plots"));
    assert!(page.contains("<section id=\"summary\">"));
}

#[test]
fn the_summary_tables_show_the_printed_numbers() {
    let (dir, summary) = run_folder("numbers", ONE_FLOW, false);
    let page = render_report(&dir, &ReportOptions::default()).unwrap();
    let printed = crate::summary_table(&summary);
    // The flow row `cclab run` prints: every cell of it is a cell of the HTML table.
    let row = printed.lines().nth(2).unwrap();
    for cell in row.split_whitespace() {
        assert!(
            page.contains(&format!(">{cell}</td>")),
            "{cell} of `{row}` missing"
        );
    }
    // The link line: "bottleneck: 10.00 Mbit/s, utilization U, drops D, ...".
    let link = &summary.links[0];
    for cell in [
        format!("{:.2}", link.rate_bps as f64 / 1e6),
        format!("{:.4}", link.utilization),
        link.drops.to_string(),
        format!("{:.1}", link.mean_queue_pkts),
        link.max_queue_pkts.to_string(),
    ] {
        assert!(page.contains(&format!(">{cell}</td>")), "{cell}");
        assert!(printed.contains(&cell), "{cell} not printed");
    }
    let total = format!("{:.2}", summary.aggregate.total_goodput_bps / 1e6);
    assert!(printed.contains(&format!("total goodput {total} Mbit/s")));
    assert!(page.contains(&format!(">{total}</td>")));
}

#[test]
fn reports_are_the_same_bytes_for_the_same_folder() {
    let (dir, _) = run_folder("same", ONE_FLOW, true);
    let first = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    let second = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    assert_eq!(first, second);
}

#[test]
fn extra_sections_come_after_the_summary_and_before_the_figures() {
    let (dir, _) = run_folder("sections", ONE_FLOW, true);
    let options = ReportOptions {
        figures: true,
        scenario: None,
        sections: vec![
            Section::table(
                "paper-vs-ours",
                "Paper vs ours",
                "",
                &["quantity", "paper", "ours"],
                &[vec!["utilization".into(), "0.95".into(), "0.97".into()]],
            ),
            Section::paragraphs("discussion", "Discussion", "First.\n\nSecond."),
        ],
    };
    let page = render_report(&dir, &options).unwrap();
    let at = |needle: &str| page.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("<section id=\"summary\">") < at("<section id=\"paper-vs-ours\">"));
    assert!(at("<section id=\"paper-vs-ours\">") < at("<section id=\"discussion\">"));
    assert!(at("<section id=\"discussion\">") < at("<section id=\"figures\">"));
    assert!(page.contains("<p>First.</p><p>Second.</p>"));
    assert!(page.contains("<a href=\"#paper-vs-ours\">Paper vs ours</a>"));
}

#[test]
fn many_flows_have_no_chart_and_a_bounded_table() {
    // 103 flows: the summary and the details stop at TABLE_FLOWS (100) as the printed table
    // does; more than MAX_SERIES flows get no interactive chart (the static figure draws
    // group means).
    // Two groups, the second's flows past the table: the scenario's group table counts them
    // and spans their starts.
    let toml = "name = \"many\"\nduration = \"200ms\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"1ms\" }\n[[flows]]\ncc = \"reno\"\ncount = 60\n[[flows]]\ncc = \"cubic\"\ncount = 43\nstart_jitter = \"50ms\"\n";
    let (dir, _) = run_folder("many", toml, true);
    let options = ReportOptions::with_figures();
    let page = render_report(&dir, &options).unwrap();
    // The page is the one the whole summary gives: the flows past the table are read only
    // for the fields the page uses (summary_json.rs).
    let whole: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let figures = figures::read_figures(&dir).unwrap();
    assert_eq!(page, render_run(&dir, &whole, &figures, &options).unwrap());
    assert!(
        page.contains("<td class=\"n\">1</td><td class=\"n\">43</td><td>tcp</td><td>cubic</td>")
    );
    assert!(page.contains("The first 100 of 103 flows; every flow is in summary.json."));
    assert_eq!(page.matches("<details class=\"flow\">").count(), 100);
    assert!(!page.contains("data-chart=\"cwnd\""));
    // The queue chart has one link: it stays.
    assert!(page.contains("data-chart=\"queue\""));
}

#[test]
fn a_long_run_is_thinned_to_at_most_two_points_per_span() {
    // 60 s sampled every 1 ms: 60 000 rows per flow, thinned to ≤ 2 × BUCKETS points.
    let toml = "name = \"long\"\nduration = \"60s\"\n[topology]\nbottleneck = { rate = \"2Mbps\", delay = \"5ms\", buffer = \"1bdp\" }\n[[flows]]\ncc = \"reno\"\n[output]\ninterval = \"1ms\"\n";
    let (dir, _) = run_folder("long", toml, false);
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let series = charts::RunSeries::from_summary(&summary);
    let charts = charts::run_charts(&dir, &series, &["cwnd", "queue"]).unwrap();
    assert_eq!(charts.len(), 2);
    for chart in &charts {
        let points = chart.columns.times.len();
        assert!(points > BUCKETS && points <= 2 * BUCKETS, "{points}");
    }
    let rows = std::fs::read_to_string(dir.join("timeseries.csv"))
        .unwrap()
        .lines()
        .count();
    assert!(rows > 50_000, "{rows}");
}

/// A sweep folder with `runs` rows in results.csv, written directly (the report reads the
/// files; running 100 000 simulations is not what is tested).
fn sweep_folder(name: &str, runs: usize) -> PathBuf {
    let dir = scratch(name);
    let ids: Vec<String> = (0..runs).map(|i| format!("{i:016x}")).collect();
    SweepManifest {
        name: "big".into(),
        fingerprint: "0123456789abcdef".into(),
        axes: vec!["flows.0.extra_rtt".into()],
        runs: ids.clone(),
    }
    .write(&dir)
    .unwrap();
    let mut csv = String::from(
        "run_id,flows.0.extra_rtt,replicate,seed,aggregate.jain_index,aggregate.utilization,aggregate.index_a,links.0.name\n",
    );
    for (i, id) in ids.iter().enumerate() {
        csv.push_str(&format!(
            "{id},{}ms,0,{},0.{:06},0.9{:05},,bottleneck\n",
            i % 1000,
            i * 7,
            i % 1_000_000,
            i % 100_000
        ));
    }
    std::fs::write(dir.join("results.csv"), csv).unwrap();
    dir
}

#[test]
fn a_big_sweep_report_holds_a_bounded_number_of_rows() {
    let dir = sweep_folder("sweep-big", 100_000);
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    let results = &page[page.find("<section id=\"results\">").unwrap()..];
    let results = &results[..results.find("</section>").unwrap()];
    assert_eq!(results.matches("<tr>").count(), 1 + RESULT_ROWS);
    assert!(results.contains(&format!("{RESULT_ROWS} of 100000 rows")));
    // 500 rows of 6 cells: well under a megabyte whatever the sweep's size.
    assert!(page.len() < 400_000, "{} bytes", page.len());
    // The empty index A column is left out; the per-link column is not shown.
    assert!(!results.contains("<th>index_a</th>"));
    assert!(!results.contains("links.0.name"));
    assert!(results.contains("<th>jain_index</th>"));
    // The swept values listed are bounded too (1000 distinct values, 30 shown).
    assert!(page.contains("<th scope=\"row\">swept: flows.0.extra_rtt</th><td>0ms, 1ms,"));
    assert!(page.contains("29ms, …</td>"));
    assert!(page.contains("<td class=\"n\">100000</td>"));
}

#[test]
fn a_sweep_report_embeds_its_figures_and_names_missing_runs() {
    let dir = sweep_folder("sweep-small", 3);
    let mut manifest = SweepManifest::read(&dir).unwrap();
    manifest.runs.push("ffffffffffffffff".into());
    manifest.write(&dir).unwrap();
    std::fs::create_dir_all(dir.join("figures")).unwrap();
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"></svg>";
    std::fs::write(dir.join("figures/utilization-vs-x.svg"), svg).unwrap();
    let page = render_report(&dir, &ReportOptions::with_figures()).unwrap();
    assert!(page.contains(&base64::encode(svg)));
    assert!(page.contains("1 runs are not in results.csv yet"));
    // Three rows, under a page: all shown.
    let results = &page[page.find("<section id=\"results\">").unwrap()..];
    assert_eq!(
        results[..results.find("</section>").unwrap()]
            .matches("<tr>")
            .count(),
        4
    );
}

#[test]
fn a_folder_that_is_neither_is_refused() {
    let dir = scratch("neither");
    let error = render_report(&dir, &ReportOptions::default()).unwrap_err();
    assert!(matches!(error, ReportError::NotAnOutputFolder { .. }));
}

#[test]
fn write_report_writes_the_file_atomically() {
    let (dir, _) = run_folder("write", ONE_FLOW, false);
    let path = write_report(&dir, &ReportOptions::default()).unwrap();
    assert_eq!(path, dir.join("report.html"));
    assert!(!dir.join(".report.html.tmp").exists());
    // A run folder with its report is still a run folder (output.rs).
    assert_eq!(
        crate::output::folder_kind(&dir).unwrap(),
        crate::output::FolderKind::Run
    );
    let _: &Path = &path;
}

#[test]
fn packet_captures_are_named_not_embedded() {
    let (dir, _) = run_folder("pcap", ONE_FLOW, false);
    let page = render_report(&dir, &ReportOptions::default()).unwrap();
    assert!(!page.contains("Packet captures"));
    std::fs::create_dir_all(dir.join("pcap")).unwrap();
    for name in ["bottleneck.pcap", "flow0.pcap", ".flow1.pcap.tmp"] {
        std::fs::write(dir.join("pcap").join(name), b"not read").unwrap();
    }
    let page = render_report(&dir, &ReportOptions::default()).unwrap();
    assert!(page.contains(
        "<code>pcap/bottleneck.pcap</code>, <code>pcap/flow0.pcap</code>: open them in Wireshark or tshark."
    ));
    assert!(!page.contains("flow1.pcap"));
}

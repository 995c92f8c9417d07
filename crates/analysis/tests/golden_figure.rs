//! Golden-file test of one small figure: its SVG has the title, both axis descriptions with
//! units, tick labels, one line per series, the drop markers and a legend naming each series;
//! and it is byte-identical to the reviewed file `tests/golden/small-chart.svg`.
//!
//! After an intended change of the figures, regenerate the file with
//! `CCLAB_BLESS=1 cargo test -p cclab-analysis --test golden_figure`, look at it, commit it.

use cclab_analysis::plot::chart::{Line, Markers, TimeChart};
use cclab_analysis::plot::{PALETTE, render_png, render_svg};
use plotters::style::RGBColor;

fn small_chart() -> TimeChart {
    TimeChart {
        title: "golden: congestion window".into(),
        x_label: "time (s)".into(),
        y_label: "cwnd (kB)".into(),
        lines: vec![
            Line {
                label: "flow 0 (reno)".into(),
                color: PALETTE[0],
                points: vec![
                    (0.0, 10.0),
                    (1.0, 20.0),
                    (2.0, 40.0),
                    (3.0, 20.0),
                    (4.0, 25.0),
                ],
                dashed: false,
            },
            Line {
                label: "flow 1 (westwood)".into(),
                color: PALETTE[1],
                points: vec![
                    (0.0, 5.0),
                    (1.0, 15.0),
                    (2.0, 30.0),
                    (3.0, 35.0),
                    (4.0, 18.0),
                ],
                dashed: false,
            },
        ],
        markers: vec![Markers {
            label: "drops".into(),
            color: RGBColor(200, 0, 0),
            points: vec![(2.0, 40.0), (3.0, 35.0)],
        }],
        background: Vec::new(),
        background_label: String::new(),
    }
}

#[test]
fn small_figure_svg_structure() {
    let svg = render_svg(&small_chart()).unwrap();
    assert!(svg.starts_with("<svg"), "an SVG document");
    // plotters puts each text on a line of its own inside <text>.
    let flat = svg.replace('\n', "");
    assert!(svg.contains(r#"width="1000" height="600""#));
    for text in [
        "golden: congestion window",
        "time (s)",
        "cwnd (kB)",
        "flow 0 (reno)",
        "flow 1 (westwood)",
        "drops",
    ] {
        assert!(
            flat.contains(&format!(">{text}</text>")),
            "text {text:?} missing"
        );
    }
    // Tick labels on both axes: 0 to 4 s, and cwnd values.
    for tick in ["0", "1", "2", "3", "4", "10", "20", "30", "40"] {
        assert!(
            flat.contains(&format!(">{tick}</text>")),
            "tick {tick} missing"
        );
    }
    // Two data lines plus two legend samples; two drop crosses (two strokes each) plus one
    // in the legend.
    assert!(svg.matches("<polyline").count() >= 4);
    assert!(svg.matches(r##"stroke="#C80000""##).count() >= 6);
    // The y description is rotated.
    assert!(svg.contains("rotate(270"), "rotated y-axis description");

    let golden_path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/small-chart.svg");
    if std::env::var_os("CCLAB_BLESS").is_some() {
        std::fs::write(golden_path, &svg).unwrap();
    }
    let golden = std::fs::read_to_string(golden_path).expect("the golden file exists");
    assert_eq!(
        svg, golden,
        "the figure changed; see the header of this test"
    );
}

#[test]
fn small_figure_png_renders() {
    let png = render_png(&small_chart()).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(png.len() > 5_000, "text and lines were drawn");
}

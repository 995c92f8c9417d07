//! Every example gives byte-identical outputs to the ones recorded in
//! `tests/byte_identical/manifest.txt`: a refactor that was meant to change no result (the
//! network layer of issue 10 was the first) must leave every output file as it was.
//!
//! The manifest holds, per example and per output file, its length and 64-bit FNV-1a digest,
//! recorded with the build *before* the change. `summary.json` is the one file the contract
//! lets grow (new keys may be added): it is kept whole, as `<example>.summary.json`, and every
//! value recorded there must be unchanged in the new one. Each example runs for at most `SECONDS`
//! simulated seconds (a debug build runs this test), with later flow starts moved inside that
//! span the way `.ci/run` does. After an intended change of results, re-record with
//!
//! ```sh
//! CCLAB_BLESS=1 cargo test -p cclab --test byte_identical
//! ```
//!
//! and say in the commit why the outputs changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Simulated seconds each example runs here.
const SECONDS: u64 = 6;

fn cclab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .output()
        .expect("the cclab binary runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn manifest_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/byte_identical/manifest.txt")
}

/// FNV-1a, 64 bits: enough to tell files apart, no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The `--set` arguments that shorten `example` to `SECONDS`, moving flow starts that would
/// fall outside it to the middle (the error of `cclab check` names each such flow).
fn shortening(example: &Path) -> Vec<String> {
    let mut sets = vec![format!("duration={SECONDS}s")];
    loop {
        let mut args = vec!["check".to_string(), example.display().to_string()];
        for set in &sets {
            args.extend(["--set".to_string(), set.clone()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = cclab(&args);
        if output.status.success() {
            return sets;
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let key = stderr
            .split_whitespace()
            .find(|word| word.starts_with("flows.") && word.ends_with(".start:"))
            .unwrap_or_else(|| panic!("{}: cclab check fails: {stderr}", example.display()));
        sets.push(format!("{}={}s", key.trim_end_matches(':'), SECONDS / 2));
    }
}

/// Every output file of a run but summary.json and report.html (figures included), by path
/// relative to `dir`: (length, digest).
fn digests(dir: &Path) -> BTreeMap<String, (usize, u64)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            // report.html is made from the files compared here (the figures embedded byte
            // for byte) and its page layout is meant to change with the report's design:
            // comparing it would test the layout, not the simulation. Its determinism is
            // tested in tests/report.rs (two runs, same bytes).
            if name != "summary.json" && name != "report.html" {
                files.insert(name, (bytes.len(), fnv1a(&bytes)));
            }
        }
    }
    files
}

#[test]
fn every_example_gives_the_recorded_outputs() {
    let scratch = std::env::temp_dir().join(format!("cclab-byte-identical-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        // Examples added after the recording are not old scenarios: only the recorded ones
        // are compared (all of them when re-recording).
        .filter(|p| {
            let name = p.file_stem().unwrap().to_string_lossy();
            std::env::var_os("CCLAB_BLESS").is_some()
                || manifest_path()
                    .with_file_name(format!("{name}.summary.json"))
                    .exists()
        })
        .collect();
    examples.sort();
    let mut lines = Vec::new();
    let mut summary_changes = Vec::new();
    for example in &examples {
        let name = example.file_stem().unwrap().to_string_lossy().to_string();
        let out = scratch.join(&name);
        let mut args = vec![
            "run".to_string(),
            example.display().to_string(),
            "--quiet".to_string(),
            "--out".to_string(),
            out.display().to_string(),
        ];
        for set in shortening(example) {
            args.extend(["--set".to_string(), set]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = cclab(&args);
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        for (file, (len, digest)) in digests(&out) {
            lines.push(format!("{name}/{file} {len} {digest:016x}"));
        }
        let mut summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        // The wall-clock time differs between runs, and the number of events is the cost of
        // a run, not a result: folding hops (issue 18) simulates the same packets at the
        // same times with fewer events. Neither is compared.
        summary["run"]["wall_s"] = serde_json::Value::Null;
        summary["run"]["events"] = serde_json::Value::Null;
        let recorded_summary = manifest_path().with_file_name(format!("{name}.summary.json"));
        if std::env::var_os("CCLAB_BLESS").is_some() {
            std::fs::create_dir_all(recorded_summary.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&summary).unwrap() + "\n";
            std::fs::write(&recorded_summary, text).unwrap();
        } else {
            let mut recorded: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&recorded_summary).unwrap()).unwrap();
            recorded["run"]["events"] = serde_json::Value::Null;
            let mut differences = Vec::new();
            compare_kept(
                &recorded,
                &summary,
                &format!("{name}/summary.json"),
                &mut differences,
            );
            summary_changes.extend(differences);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let actual = lines.join("\n") + "\n";
    if std::env::var_os("CCLAB_BLESS").is_some() {
        std::fs::create_dir_all(manifest_path().parent().unwrap()).unwrap();
        std::fs::write(manifest_path(), &actual).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(manifest_path())
        .expect("tests/byte_identical/manifest.txt exists (record it with CCLAB_BLESS=1)");
    let recorded: BTreeMap<&str, &str> =
        recorded.lines().filter_map(|l| l.split_once(' ')).collect();
    let actual: BTreeMap<&str, &str> = actual.lines().filter_map(|l| l.split_once(' ')).collect();
    let changed: Vec<String> = recorded
        .iter()
        .filter(|(file, was)| actual.get(*file) != Some(*was))
        .map(|(file, was)| format!("{file}: recorded {was}, now {:?}", actual.get(file)))
        .chain(
            actual
                .keys()
                .filter(|file| !recorded.contains_key(*file))
                .map(|file| format!("{file}: new file")),
        )
        .chain(summary_changes)
        .collect();
    assert!(
        changed.is_empty(),
        "outputs differ from the recorded ones:\n{}",
        changed.join("\n")
    );
}

/// Every value of `recorded` is in `actual`, equal (objects may have gained keys; arrays keep
/// their length). Differences are pushed as "path: recorded X, now Y".
fn compare_kept(
    recorded: &serde_json::Value,
    actual: &serde_json::Value,
    path: &str,
    differences: &mut Vec<String>,
) {
    use serde_json::Value;
    match (recorded, actual) {
        (Value::Object(was), Value::Object(now)) => {
            for (key, value) in was {
                match now.get(key) {
                    Some(new) => compare_kept(value, new, &format!("{path}.{key}"), differences),
                    None => differences.push(format!("{path}.{key}: missing now")),
                }
            }
        }
        (Value::Array(was), Value::Array(now)) if was.len() == now.len() => {
            for (i, (value, new)) in was.iter().zip(now).enumerate() {
                compare_kept(value, new, &format!("{path}[{i}]"), differences);
            }
        }
        _ if recorded == actual => {}
        _ => differences.push(format!("{path}: recorded {recorded}, now {actual}")),
    }
}

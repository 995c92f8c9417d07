//! What the end-to-end tests of the link and traffic kinds share: running the `cclab` binary,
//! scratch folders, and the contract check of an output folder (`tools/check-output`).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn cclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .output()
        .expect("the cclab binary runs")
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty folder for one test: `prefix` names the test binary, `name` the test.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cclab-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
    dir
}

/// `cclab run FILE --out OUT --quiet EXTRA...`, which must succeed.
pub fn run_into(file: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        file.to_str().expect("UTF-8 path"),
        "--out",
        out.to_str().expect("UTF-8 path"),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let output = cclab(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `tools/check-output OUT` must accept the folder.
pub fn assert_contract(out: &Path) {
    let check = Command::new("python3")
        .arg(root().join("tools/check-output"))
        .arg(out)
        .output()
        .expect("python3 runs tools/check-output");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// The folder's summary.json.
pub fn summary(out: &Path) -> serde_json::Value {
    let bytes = std::fs::read(out.join("summary.json")).expect("summary.json exists");
    serde_json::from_slice(&bytes).expect("summary.json is JSON")
}

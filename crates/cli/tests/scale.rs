//! Scale limits end to end: a scenario whose memory estimate is over the limit is refused
//! before anything runs, with the estimate in the message and exit status 2.

use std::process::Command;

fn cclab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn runs_over_the_memory_limit_are_refused_up_front() {
    let out_dir = std::env::temp_dir().join(format!("cclab-scale-{}", std::process::id()));
    // 100 000 flows for 1200 s with the default 100 ms bins: 100 000 × 12 000 × 16 B =
    // 19.2 GB of rate bins plus 100 000 × 8000 B, 20.0 GB against a limit of 8 GB.
    for command in ["run", "check"] {
        let out = cclab()
            .args([command, &example("dumbbell.toml")])
            .args(["--set", "flows.0.count=100000", "--set", "duration=1200s"])
            .args(if command == "run" {
                vec!["--out", out_dir.to_str().unwrap(), "--no-plots"]
            } else {
                vec![]
            })
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("flows.0.count: 100000 flows for 1200 s with 0.1 s rate bins need about 20.0 GB of memory"),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
    assert!(
        !out_dir.exists(),
        "nothing may be written before the refusal"
    );
}

//! `cclab emulate` end to end (issue 15): kernel CUBIC through an emulated 20 Mbit/s,
//! 40 ms, 1-BDP dumbbell, and nothing left behind afterwards — after a normal end, and after
//! the process is killed.
//!
//! Emulation needs root and /dev/net/tun; without them these tests skip with a message,
//! unless CCLAB_REQUIRE_EMULATION=1 (set by .ci/run), when they fail instead. They run one
//! after another (a lock): each creates namespaces and a real-time forwarding thread, and on
//! a 2-core machine two at once would disturb each other's timing.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use support::{assert_contract, cclab, root, scratch, summary};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Whether this machine can emulate; if not, skip (or fail when emulation is required).
fn can_emulate(test: &str) -> bool {
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let tun = Path::new("/dev/net/tun").exists();
    if root_user && tun {
        return true;
    }
    let why = if root_user {
        "/dev/net/tun is missing"
    } else {
        "not root"
    };
    assert!(
        std::env::var("CCLAB_REQUIRE_EMULATION").as_deref() != Ok("1"),
        "{test}: CCLAB_REQUIRE_EMULATION=1 but {why}"
    );
    eprintln!("skipping {test}: emulation needs root and /dev/net/tun ({why})");
    false
}

fn scenario() -> PathBuf {
    root().join("examples/emulation/cubic-20mbps.toml")
}

/// The endpoint hosts started by `pid`, with their network namespaces.
fn children(pid: u32) -> Vec<(u32, String)> {
    let list =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    list.split_whitespace()
        .filter_map(|c| c.parse::<u32>().ok())
        // Not the short-lived `ip` commands that configure the hosts.
        .filter(|c| {
            std::fs::read(format!("/proc/{c}/cmdline"))
                .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("emulate-endpoint"))
        })
        .filter_map(|c| {
            let ns = std::fs::read_link(format!("/proc/{c}/ns/net")).ok()?;
            Some((c, ns.to_string_lossy().into_owned()))
        })
        .collect()
}

/// Every network namespace some process is in now.
fn namespaces_in_use() -> Vec<String> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read_link(e.path().join("ns/net")).ok())
                .map(|l| l.to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn devices() -> String {
    let output = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .expect("ip runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Nothing of the run of `pid` is left: its hosts' processes, their namespaces, its TUN
/// devices (named cce<pid>s and cce<pid>r), any named namespace. Waits up to 5 s: the
/// kernel ends the hosts (SIGKILL by PR_SET_PDEATHSIG) asynchronously.
fn assert_nothing_left(pid: u32, hosts: &[(u32, String)], named_before: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let in_use = namespaces_in_use();
        let alive: Vec<&(u32, String)> = hosts
            .iter()
            .filter(|(p, ns)| Path::new(&format!("/proc/{p}")).exists() && in_use.contains(ns))
            .collect();
        let devices = devices();
        let tun_left =
            devices.contains(&format!("cce{pid}s")) || devices.contains(&format!("cce{pid}r"));
        if alive.is_empty() && !tun_left {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "left behind: hosts {alive:?}, TUN device {tun_left}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let named = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip runs");
    assert_eq!(
        String::from_utf8_lossy(&named.stdout),
        named_before,
        "a named namespace appeared"
    );
}

fn named_namespaces() -> String {
    let named = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip runs");
    String::from_utf8_lossy(&named.stdout).into_owned()
}

#[test]
fn kernel_cubic_fills_a_20_mbps_dumbbell_and_leaves_nothing_behind() {
    if !can_emulate("kernel_cubic_fills_a_20_mbps_dumbbell_and_leaves_nothing_behind") {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch("emulate", "cubic");
    let named_before = named_namespaces();
    let child = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args([
            "emulate",
            scenario().to_str().expect("UTF-8 path"),
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cclab starts");
    let pid = child.id();
    // Note the hosts while they run, to check afterwards that they and their namespaces went.
    let mut hosts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while hosts.len() < 2 && Instant::now() < deadline {
        hosts = children(pid);
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("cclab runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(hosts.len(), 2, "a sender and a receiver host");
    assert_nothing_left(pid, &hosts, &named_before);

    assert_contract(&out);
    let summary = summary(&out);
    // The link's payload rate: 20 Mbit/s × 1448 payload bytes per 1500-byte packet (MSS
    // 1448 + 52 bytes of IP, TCP and timestamp headers, the scenario defaults) = 19.307
    // Mbit/s. One CUBIC flow with a 1-BDP buffer keeps the link busy after its first
    // slow start (about 0.3 s of 10), so goodput over the run is within 10 % of it.
    let payload_rate = 20e6 * 1448.0 / 1500.0;
    let goodput = summary["flows"][0]["goodput_bps"]
        .as_f64()
        .expect("a number");
    assert!(
        (goodput - payload_rate).abs() <= 0.1 * payload_rate,
        "goodput {goodput} vs payload rate {payload_rate}"
    );
    assert_eq!(summary["flows"][0]["kernel_cc"], "cubic");
    // The handshake ends one round trip (40 ms) after the start at 0, and surely within 1 s.
    let connected = summary["flows"][0]["connected_s"]
        .as_f64()
        .expect("the flow connected");
    assert!(
        (0.04..1.0).contains(&connected),
        "connected at {connected} s"
    );
    // queue.csv: one row per 10 ms interval (the default output interval) up to 10 s.
    let queue = std::fs::read_to_string(out.join("queue.csv")).expect("queue.csv");
    assert_eq!(queue.lines().count() - 1, 999, "ticks at 0.01 … 9.99 s");
    // timeseries.csv: TCP_INFO at each tick once connected (one RTT, 40 ms, after start):
    // at least 990 of the 999 ticks, each with a window.
    let series = std::fs::read_to_string(out.join("timeseries.csv")).expect("timeseries.csv");
    let rows: Vec<&str> = series.lines().skip(1).collect();
    assert!(rows.len() >= 990, "{} TCP_INFO samples", rows.len());
    assert!(rows.iter().all(|r| {
        r.split(',')
            .nth(2)
            .is_some_and(|c| c.parse::<u64>().is_ok_and(|c| c > 0))
    }));
    // Beyond the contract: whether the kernel's delivery-rate sample was application-limited
    // (0 or 1; a bulk CUBIC flow filling the link is not, most of the time), and the
    // receiving socket's window at the same tick, once the receiver has accepted the
    // connection: the window it advertised (tcpi_rcv_wnd), within the largest its buffer
    // allows (TCP_WINDOW_CLAMP) rounded up to the window scale's unit (__tcp_select_window
    // aligns it to 2^rcv_wscale, 1024 with tcp_rmem[2] = 32 MiB; 2^14 at most), and that
    // clamp is at most the buffer (SO_RCVBUF).
    let header: Vec<&str> = series.lines().next().expect("header").split(',').collect();
    let column = |name: &str| header.iter().position(|&c| c == name).expect(name);
    let (app_limited, window, clamp, rcvbuf) = (
        column("app_limited"),
        column("receiver_window_bytes"),
        column("receiver_window_clamp_bytes"),
        column("receiver_rcvbuf_bytes"),
    );
    let cells: Vec<Vec<&str>> = rows.iter().map(|r| r.split(',').collect()).collect();
    assert!(
        cells
            .iter()
            .all(|c| c[app_limited] == "0" || c[app_limited] == "1")
    );
    let limited = cells.iter().filter(|c| c[app_limited] == "1").count();
    assert!(
        limited < rows.len() / 2,
        "{limited} of {} samples app-limited",
        rows.len()
    );
    let windows: Vec<(u64, u64, u64)> = cells
        .iter()
        .filter_map(|c| {
            Some((
                c[window].parse().ok()?,
                c[clamp].parse().ok()?,
                c[rcvbuf].parse().ok()?,
            ))
        })
        .collect();
    assert!(windows.len() >= 990, "{} receiver samples", windows.len());
    assert!(
        windows
            .iter()
            .all(|&(w, c, b)| w > 0 && w <= c + (1 << 14) && c <= b),
        "{:?}",
        windows
            .iter()
            .find(|&&(w, c, b)| !(w > 0 && w <= c + (1 << 14) && c <= b))
    );
    // The drop-tail buffer of 1 BDP (20 Mbit/s × 40 ms / 1500 B = 66.7 → 67 packets) is
    // the most the queue can hold.
    assert!(
        summary["links"][0]["max_queue_pkts"]
            .as_u64()
            .expect("a count")
            <= 67
    );
    assert!(
        summary["links"][0]["drops"].as_u64().expect("a count") > 0,
        "CUBIC fills the buffer"
    );
    // Every loss is the emulated bottleneck's: the TUN devices' rings dropped nothing.
    assert_eq!(summary["emulation"]["ingress_drops"], 0);
    let _ = std::fs::remove_dir_all(&out);
}

/// Killed mid-run by `signal`: the hosts, their namespaces and the TUN devices go too.
fn killed_run_leaves_nothing(signal: &str) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch("emulate", &format!("killed{signal}"));
    let named_before = named_namespaces();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args([
            "emulate",
            scenario().to_str().expect("UTF-8 path"),
            "--quiet",
            "--set",
            "duration=60s",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cclab starts");
    let pid = child.id();
    let mut hosts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while hosts.len() < 2 && Instant::now() < deadline {
        hosts = children(pid);
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(hosts.len(), 2, "a sender and a receiver host");
    // Both TUN devices exist once the sender host does; give the flow a second to run.
    std::thread::sleep(Duration::from_secs(1));
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let _ = child.wait();
    assert_nothing_left(pid, &hosts, &named_before);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sigkill_leaves_nothing_behind() {
    if can_emulate("sigkill_leaves_nothing_behind") {
        killed_run_leaves_nothing("-KILL");
    }
}

#[test]
fn sigterm_leaves_nothing_behind() {
    if can_emulate("sigterm_leaves_nothing_behind") {
        killed_run_leaves_nothing("-TERM");
    }
}

#[test]
fn a_controller_the_kernel_lacks_is_refused_in_one_sentence() {
    // The scenario is checked before the machine, so this runs anywhere with procfs.
    let available = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap_or_default();
    if available.split_whitespace().any(|cc| cc == "vegas") {
        eprintln!("skipping: this kernel offers vegas");
        return;
    }
    let out = cclab(&[
        "emulate",
        scenario().to_str().expect("UTF-8 path"),
        "--set",
        "flows.0.cc=vegas",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: flows.0.cc: the kernel does not offer vegas (it offers "),
        "{stderr}"
    );
}

#[test]
fn without_root_it_refuses_in_one_sentence() {
    // Drop to the unprivileged user `nobody` (65534) with util-linux's setpriv; as a
    // non-root user the command runs as is.
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let mut command = if as_root {
        if Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("skipping: root, and no setpriv to drop privileges");
            return;
        }
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_cclab"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_cclab"))
    };
    let out = command
        .args(["emulate", scenario().to_str().expect("UTF-8 path")])
        .output()
        .expect("cclab runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "error: emulation needs root (network namespaces and TUN devices); run it with sudo or as root\n"
    );
}

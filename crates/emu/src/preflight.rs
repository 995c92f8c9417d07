//! What the machine must offer before anything is created: root (namespaces and TUN devices
//! need CAP_NET_ADMIN and CAP_SYS_ADMIN), `/dev/net/tun`, iproute2's `ip`, and the kernel's
//! congestion controls for the flows' `cc`.

use std::path::Path;

use crate::error::EmuError;

const TUN_PATH: &str = "/dev/net/tun";
const AVAILABLE_CC: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// Refuse, with one sentence, on a machine that cannot emulate.
pub fn check_machine() -> Result<(), EmuError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(EmuError::Unavailable(
            "emulation needs root (network namespaces and TUN devices); run it with sudo or as root".into(),
        ));
    }
    if !Path::new(TUN_PATH).exists() {
        return Err(EmuError::Unavailable(format!(
            "emulation needs the TUN device {TUN_PATH}, which this machine does not have (load the tun module, or give the container --device /dev/net/tun)"
        )));
    }
    if std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(TUN_PATH)
        .is_err()
    {
        return Err(EmuError::Unavailable(format!(
            "emulation needs to open {TUN_PATH}, which this process may not (a container without CAP_NET_ADMIN?)"
        )));
    }
    let ip = std::process::Command::new("ip")
        .arg("-V")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    if !ip.is_ok_and(|s| s.success()) {
        return Err(EmuError::Unavailable(
            "emulation needs the `ip` command of iproute2 on the PATH".into(),
        ));
    }
    Ok(())
}

/// The congestion controls the kernel offers to `TCP_CONGESTION`, as it lists them.
pub fn kernel_congestion_controls() -> Result<Vec<String>, EmuError> {
    let text = std::fs::read_to_string(AVAILABLE_CC)
        .map_err(|e| EmuError::io(format!("reading {AVAILABLE_CC}"), e))?;
    Ok(parse_congestion_controls(&text))
}

fn parse_congestion_controls(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// The kernel's name for cclab's controller `cc`, if the kernel offers it. cclab's `newreno`
/// is the kernel's `reno` (Linux's reno is RFC 5681 congestion avoidance with RFC 6582
/// recovery and SACK, net/ipv4/tcp_cong.c).
pub fn kernel_name<'a>(cc: &str, available: &'a [String]) -> Option<&'a str> {
    let wanted = match cc {
        "newreno" => "reno",
        other => other,
    };
    available
        .iter()
        .find(|a| a.as_str() == wanted)
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_procfs_list_is_split_on_whitespace() {
        // The file's format: names separated by single spaces, one trailing newline
        // (net/ipv4/sysctl_net_ipv4.c, tcp_get_available_congestion_control).
        assert_eq!(
            parse_congestion_controls("reno bbr cubic\n"),
            vec!["reno", "bbr", "cubic"]
        );
    }

    #[test]
    fn newreno_maps_to_the_kernels_reno_and_unknown_names_to_nothing() {
        let available: Vec<String> = ["reno", "cubic"].iter().map(|s| s.to_string()).collect();
        assert_eq!(kernel_name("newreno", &available), Some("reno"));
        assert_eq!(kernel_name("cubic", &available), Some("cubic"));
        assert_eq!(kernel_name("bbr", &available), None);
        assert_eq!(kernel_name("vegas", &available), None);
    }
}

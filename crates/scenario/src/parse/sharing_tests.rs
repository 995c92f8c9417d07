//! TCB-sharing keys: defaults, every option, and one sentence naming file, key and problem
//! for every inconsistent group.

use crate::sharing::{
    JoinMode, JoinWindow, LeaveRule, PacketsPerAck, Sharing, SharingMode, TimeoutRule,
};
use crate::{Scenario, from_str};

const HEAD: &str = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"40ms\" }\n";

fn parse(flows: &str) -> Scenario {
    from_str("t.toml", &format!("{HEAD}{flows}"), &[]).expect("valid scenario")
}

fn assert_refused(flows: &str, key: &str, fragment: &str) {
    let message = from_str("bad.toml", &format!("{HEAD}{flows}"), &[])
        .expect_err(flows)
        .to_string();
    assert!(
        message.starts_with(&format!("bad.toml: {key}: ")),
        "{flows}: {message}"
    );
    assert!(message.contains(fragment), "{flows}: {message}");
    assert!(!message.contains('\n'), "one line: {message}");
}

#[test]
fn without_the_keys_a_flow_shares_nothing() {
    let scenario = parse("[[flows]]\ncc = \"reno\"\n");
    assert_eq!(scenario.flows[0].sharing, None);
    let scenario = parse("[[flows]]\ncc = \"reno\"\nsharing = \"none\"\n");
    assert_eq!(scenario.flows[0].sharing, None);
    // Written out, "none" leaves the other keys unused (one --set switches a group off).
    let scenario = parse(
        "[[flows]]\ncc = \"reno\"\nsharing = \"none\"\ngroup = \"g\"\njoin = \"burst\"\npriority = 3\n",
    );
    assert_eq!(scenario.flows[0].sharing, None);
}

#[test]
fn a_table_with_sharing_is_its_own_group_with_the_documented_defaults() {
    let scenario = parse("[[flows]]\ncc = \"reno\"\ncount = 3\nsharing = \"aggregate\"\n");
    // seed-spec §3.4–3.5 defaults: option A, unscaled growth, leave keeps the aggregate,
    // proportional timeout, "freed" slots per ACK, one segment at once; the paper's
    // ACK-clocked join; priority 1 (RFC 8699's FSE priorities); Linux's one-hour metrics lifetime.
    assert_eq!(
        scenario.flows[0].sharing,
        Some(Sharing::new("flows.0".into(), SharingMode::Aggregate))
    );
    let sharing = scenario.flows[0].sharing.clone().expect("set");
    assert_eq!(sharing.join, JoinMode::AckClocked);
    assert_eq!(sharing.priority, 1);
    assert!(!sharing.scale_growth && sharing.join_first_segment);
    assert_eq!(sharing.join_window, JoinWindow::Share);
    assert_eq!(sharing.leave, LeaveRule::Keep);
    assert_eq!(sharing.timeout, TimeoutRule::Proportional);
    assert_eq!(sharing.packets_per_ack, PacketsPerAck::Freed);
    assert_eq!(sharing.temporal_lifetime.as_secs_f64(), 3600.0);
}

#[test]
fn every_option_is_read() {
    let scenario = parse(
        "[[flows]]\ncc = \"cubic\"\ngroup = \"g\"\nsharing = \"aggregate\"\njoin = \"paced\"\n\
         priority = 2\nscale_growth = true\njoin_window = \"add-initial\"\nleave = \"remove\"\n\
         group_timeout = \"member\"\njoin_packets_per_ack = 1\njoin_first_segment = false\n\
         [[flows]]\ncc = \"reno\"\ngroup = \"g\"\nsharing = \"aggregate\"\njoin = \"paced\"\n\
         scale_growth = true\njoin_window = \"add-initial\"\nleave = \"remove\"\n\
         group_timeout = \"member\"\njoin_packets_per_ack = 1\njoin_first_segment = false\n\
         [[flows]]\ncc = \"reno\"\ngroup = \"t\"\nsharing = \"temporal\"\ntemporal_lifetime = \"10s\"\n",
    );
    let s = scenario.flows[0].sharing.clone().expect("set");
    assert_eq!(s.group, "g");
    assert_eq!(s.join, JoinMode::Paced);
    assert_eq!(s.priority, 2);
    assert!(s.scale_growth && !s.join_first_segment);
    assert_eq!(s.join_window, JoinWindow::AddInitial);
    assert_eq!(s.leave, LeaveRule::Remove);
    assert_eq!(s.timeout, TimeoutRule::Member);
    assert_eq!(s.packets_per_ack, PacketsPerAck::AtMost(1));
    assert_eq!(scenario.flows[1].sharing.as_ref().expect("set").priority, 1);
    let t = scenario.flows[2].sharing.clone().expect("set");
    assert_eq!(t.mode, SharingMode::Temporal);
    assert_eq!(t.temporal_lifetime.as_secs_f64(), 10.0);
}

#[test]
fn inconsistent_groups_are_refused_in_one_sentence() {
    let reno = "[[flows]]\ncc = \"reno\"\ngroup = \"g\"\nsharing = \"aggregate\"\n";
    assert_refused(
        &format!("{reno}{reno}mss = 1000\n"),
        "flows.1.group",
        "different mss",
    );
    assert_refused(
        &format!("{reno}{reno}extra_rtt = \"10ms\"\n"),
        "flows.1.group",
        "same pair of hosts",
    );
    assert_refused(
        &format!("{reno}{reno}direction = \"reverse\"\n"),
        "flows.1.group",
        "same pair of hosts",
    );
    assert_refused(
        &format!("{reno}{reno}join = \"burst\"\n"),
        "flows.1.group",
        "only priority may differ",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\nsharing = \"aggregate\"\non_off = { on = \"1s\", off = \"1s\" }\n",
        "flows.0.sharing",
        "on/off",
    );
    assert_refused(
        "[[flows]]\ncc = \"vivace\"\nsharing = \"aggregate\"\n",
        "flows.0.sharing",
        "cannot take a share",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\n[[flows]]\nkind = \"udp\"\nrate = \"1Mbps\"\nsharing = \"aggregate\"\n",
        "flows.1.sharing",
        "TCP key",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\n[[flows]]\nkind = \"workload\"\ncc = \"reno\"\nload = 0.2\nsizes = { distribution = \"lognormal\", mean = \"100KB\", sigma = 1.5 }\nsharing = \"aggregate\"\n",
        "flows.1.sharing",
        "cannot be grouped",
    );
}

#[test]
fn options_without_sharing_or_of_the_other_mode_are_refused() {
    assert_refused(
        "[[flows]]\ncc = \"reno\"\npriority = 2\n",
        "flows.0.priority",
        "add sharing",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\ngroup = \"g\"\n",
        "flows.0.group",
        "add sharing",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\nsharing = \"temporal\"\njoin = \"burst\"\n",
        "flows.0.join",
        "only to sharing = \"aggregate\"",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\nsharing = \"aggregate\"\ntemporal_lifetime = \"1s\"\n",
        "flows.0.temporal_lifetime",
        "only to sharing = \"temporal\"",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\nsharing = \"both\"\n",
        "flows.0.sharing",
        "unknown value `both`",
    );
    assert_refused(
        "[[flows]]\ncc = \"reno\"\nsharing = \"aggregate\"\npriority = 0\n",
        "flows.0.priority",
        "outside",
    );
}

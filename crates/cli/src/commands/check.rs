use std::path::Path;

use crate::Failure;

pub fn check(file: &Path, overrides: &[String]) -> Result<(), Failure> {
    let scenario =
        cclab_scenario::load(file, overrides).map_err(|e| Failure::BadInput(e.into()))?;
    crate::emit(&format!(
        "{}: ok (flows: {}, duration: {} s, bottleneck: {} bit/s, base RTT: {})\n",
        file.display(),
        scenario.flow_count(),
        scenario.duration.as_secs_f64(),
        scenario.topology.bottleneck.rate_bps,
        scenario.base_rtt()
    ));
    Ok(())
}

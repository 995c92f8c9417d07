//! `preset = "pantheon-..."` on a wired link: the parameters of Pantheon's calibrated
//! emulators (Yan et al., "Pantheon: the training ground for Internet congestion-control
//! research", USENIX ATC 2018, §4), each a mahimahi path of fixed rate, one-way delay, random
//! loss on the data direction and a drop-tail queue in packets, fitted to a real Internet path.
//!
//! Source of every number: the emulator commands Pantheon's measurement system runs, file
//! `src/scripts/experiments.yml` of github.com/StanfordSNR/observatory (commit 84f9454890d2),
//! jobs `emu` 1–6: `--uplink-trace <rate>mbps[-poisson].trace`, `mm-delay <ms>`,
//! `mm-loss uplink <p>`, `--uplink-queue=droptail --uplink-queue-args=packets=<n>`. Pantheon's
//! local mode puts the data on the uplink (src/experiments/test.py of StanfordSNR/pantheon:
//! `datalink_trace = args.uplink_trace`), so loss and queue are the data direction's. The same
//! six emulators appear in StanfordSNR/indigo, dagger/worker.py.

/// One calibrated path.
pub struct PathPreset {
    pub name: &'static str,
    /// The real path it was calibrated to, and its Pantheon result page.
    pub path: &'static str,
    pub result: &'static str,
    /// `mm-link` trace rate, as the trace file's name gives it.
    pub rate: &'static str,
    /// `mm-delay`: one-way, each direction.
    pub delay: &'static str,
    /// `mm-loss uplink`: data packets lost at random.
    pub loss: f64,
    /// `--uplink-queue-args=packets=`: drop-tail queue of the data direction.
    pub buffer_packets: i64,
}

pub const PATH_PRESETS: &[PathPreset] = &[
    PathPreset {
        name: "pantheon-nepal-india",
        path: "Nepal to AWS India",
        result: "https://pantheon.stanford.edu/result/188/",
        rate: "0.57Mbps",
        delay: "28ms",
        loss: 0.0477,
        buffer_packets: 14,
    },
    PathPreset {
        name: "pantheon-mexico-california",
        path: "Mexico cellular to AWS California",
        result: "https://pantheon.stanford.edu/result/196/",
        rate: "2.64Mbps",
        delay: "88ms",
        loss: 0.0,
        buffer_packets: 130,
    },
    PathPreset {
        name: "pantheon-brazil-colombia",
        path: "AWS Brazil to Colombia cellular",
        result: "https://pantheon.stanford.edu/result/339/",
        rate: "3.04Mbps",
        delay: "130ms",
        loss: 0.0,
        buffer_packets: 426,
    },
    PathPreset {
        name: "pantheon-india-india",
        path: "India to AWS India",
        result: "https://pantheon.stanford.edu/result/251/",
        rate: "100.42Mbps",
        delay: "27ms",
        loss: 0.0,
        buffer_packets: 173,
    },
    PathPreset {
        name: "pantheon-korea-china",
        path: "AWS Korea to China",
        result: "https://pantheon.stanford.edu/result/361/",
        rate: "77.72Mbps",
        delay: "51ms",
        loss: 0.0006,
        buffer_packets: 94,
    },
    PathPreset {
        name: "pantheon-california-mexico",
        path: "AWS California to Mexico",
        result: "https://pantheon.stanford.edu/result/353/",
        rate: "114.68Mbps",
        delay: "45ms",
        loss: 0.0,
        buffer_packets: 450,
    },
];

/// The preset called `name`.
pub fn find_path_preset(name: &str) -> Option<&'static PathPreset> {
    PATH_PRESETS.iter().find(|p| p.name == name)
}

impl PathPreset {
    /// The preset as link keys, for a link table's missing keys.
    pub fn keys(&self) -> toml::Table {
        let mut table = toml::Table::new();
        table.insert("rate".into(), toml::Value::String(self.rate.into()));
        table.insert("delay".into(), toml::Value::String(self.delay.into()));
        table.insert("buffer".into(), toml::Value::Integer(self.buffer_packets));
        if self.loss > 0.0 {
            table.insert("loss".into(), toml::Value::Float(self.loss));
        }
        table
    }
}

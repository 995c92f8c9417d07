//! A TCP flow's on/off application (`on_off`): it alternates on and off periods on its own
//! clock, independent of the connection's progress. At the start of each on period it
//! offers `burst` bytes (without `burst`, as much as TCP takes); at the end it stops
//! writing, so what TCP has not sent by then is never written. The connection stays open:
//! window, RTT estimate and controller state carry over from one on period to the next.
//! docs/traffic.md gives the model and what it leaves out.

use cclab_scenario::traffic::OnOff;

use crate::event::Event;
use crate::rng::Rng;
use crate::simulation::Simulation;
use crate::traffic::periods::PeriodClock;

#[derive(Clone, Debug)]
pub struct OnOffApp {
    clock: PeriodClock,
    burst: Option<u64>,
    /// The flow's initial window, if the window restarts after idle (RFC 5681 §4.1).
    restart_window: Option<u64>,
    on: bool,
    /// On periods begun so far.
    pub periods_started: u64,
}

impl OnOffApp {
    /// `rng` is the flow's own stream (`flow{id}-on-off`), drawn from only for exponential
    /// periods; `initial_window` is the flow's, in bytes.
    pub fn new(config: &OnOff, initial_window: u64, rng: Rng) -> Self {
        OnOffApp {
            clock: PeriodClock::new(config.periods, rng),
            burst: config.burst,
            restart_window: config.slow_start_after_idle.then_some(initial_window),
            on: false,
            periods_started: 0,
        }
    }

    /// The end of the stream the application has written once an on period starts with
    /// the sender's next new byte at `snd_nxt`.
    fn write_limit(&self, snd_nxt: u64) -> u64 {
        self.burst.map_or(u64::MAX, |b| snd_nxt.saturating_add(b))
    }
}

impl Simulation {
    /// A flow with an on/off application starts: its first on period begins now, before the
    /// sender's first transmission.
    pub(crate) fn on_off_start(&mut self, id: u32) {
        let now = self.now;
        let flow = &mut self.flows[id as usize];
        let Some(app) = flow.on_off.as_mut() else {
            return;
        };
        app.on = true;
        app.periods_started += 1;
        if let Some(initial_window) = app.restart_window {
            flow.endpoints
                .get()
                .sender
                .enable_idle_restart(initial_window);
        }
        let sender = &mut flow.endpoints.get().sender;
        sender.set_app_limit(app.write_limit(sender.snd_nxt()));
        let end = now + app.clock.on();
        self.queue.schedule(end, Event::OnOffToggle(id));
    }

    /// An on or off period of flow `id`'s application ended.
    pub(crate) fn on_off_toggle(&mut self, id: u32) {
        let now = self.now;
        let flow = &mut self.flows[id as usize];
        let Some(app) = flow.on_off.as_mut() else {
            return;
        };
        let snd_nxt = flow.endpoints.get().sender.snd_nxt();
        app.on = !app.on;
        let next = if app.on {
            app.periods_started += 1;
            flow.endpoints
                .get()
                .sender
                .set_app_limit(app.write_limit(snd_nxt));
            let next = now + app.clock.on();
            flow.endpoints
                .get()
                .sender
                .on_app_write(now, &mut self.outbox);
            next
        } else {
            // Stop writing: everything written has been sent (retransmissions continue).
            flow.endpoints.get().sender.set_app_limit(snd_nxt);
            now + app.clock.off()
        };
        self.queue.schedule(next, Event::OnOffToggle(id));
        // Send what an on period's write allows, and re-arm the timers.
        self.after_sender(id);
    }
}

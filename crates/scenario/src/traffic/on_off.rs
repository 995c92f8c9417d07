//! `on_off`: a TCP application that alternates sending and silence.

/// A TCP flow's on/off application.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOff {}

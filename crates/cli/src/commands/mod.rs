pub mod algorithms;
pub mod check;
pub mod compare;
pub mod emulate;
pub mod plot;
pub mod report;
pub mod run;
pub mod sweep;

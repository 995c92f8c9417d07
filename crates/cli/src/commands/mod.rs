pub mod algorithms;
pub mod check;
pub mod run;

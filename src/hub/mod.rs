//! The Hub protocol (Scan's line protocol on stdin/stdout).

pub mod input;
pub mod line;
pub mod message;
pub mod protocol;

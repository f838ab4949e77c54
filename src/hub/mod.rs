//! The Hub protocol (Scan's line protocol on stdin/stdout).

pub mod line;
pub mod message;
pub mod protocol;

//! DXP (DamExchange): engine-against-engine games over TCP.

pub mod message;
pub mod session;

#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub use ecs_core::*;

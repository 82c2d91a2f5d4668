#![doc = include_str!("../README.md")]

pub use ecs_core::*;

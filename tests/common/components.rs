//! Components several test crates spawn: one of each storage.

use ecs::prelude::*;

/// A table component with named fields (and a default, for requirements).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

/// A sparse-set tuple component.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
pub struct Velocity(pub f32, pub f32);

use ecs::prelude::*;
use ecs::query::{QueryFilter, With};

#[derive(Component)]
struct Enemy;

#[derive(Component)]
struct Health(u32);

// `&'static Health` is query data, not a filter: `With<Health>` is.
#[derive(QueryFilter)]
struct Targets {
    _enemy: With<Enemy>,
    _health: &'static Health,
}

fn main() {}
